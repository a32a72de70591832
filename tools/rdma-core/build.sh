#!/usr/bin/env bash
# Builds rdma-core from Debian's source with the Kite provider overlaid, and
# installs it into a DESTDIR tree for the VM image.
#
#   tools/rdma-core/build.sh                  build (incremental) and install
#   tools/rdma-core/build.sh --print-install  same, quietly, then print the install dir
#   tools/rdma-core/build.sh --key            print the cache key (no fetch, no build)
#
# Layout under ${KITE_CACHE:-/var/cache/kite}/rdma-core:
#   dl/                      Debian source tarballs (sha256 checked against apt's index)
#   <version>/src            pristine upstream tree + kite overlay + kite-provider.patch
#   <version>/build          cmake/ninja build tree (reused: rebuilds are incremental)
#   <key>/install            DESTDIR tree: usr/lib/x86_64-linux-gnu/libibverbs.so.1, ...
# <key> hashes the tarball, our provider sources, the uapi ABI header, the
# patch and this script; an install dir that exists is complete and reused.
#
# rdma-core 56.1 is trixie's; `apt-get source --download-only rdma-core=56.1-1`
# fetches the .orig tarball even when the archive lacks that .dsc (apt then
# exits non-zero), so the result is judged by the checksum, not the status.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${KITE_CACHE:-/var/cache/kite}/rdma-core
want=56.1-1			# Debian version wanted; fallback: newest 56.x offered
provider=$repo/userspace/rdma-core/providers/kite
abi=$repo/kernel/include/uapi/rdma/kite-abi.h
patchfile=$here/kite-provider.patch

mode=build
case ${1:-} in
--print-install) mode=print ;;
--key) mode=key ;;
"") ;;
*) echo "usage: $0 [--print-install|--key]" >&2; exit 2 ;;
esac

log() { echo "[rdma-core] $*" >&2; }

# Hash of everything of ours that goes into the build.
inputs_hash() {
	(cd "$repo" && find userspace/rdma-core/providers/kite -type f | LC_ALL=C sort |
		xargs sha256sum; sha256sum kernel/include/uapi/rdma/kite-abi.h \
		tools/rdma-core/kite-provider.patch tools/rdma-core/build.sh) |
		sha256sum | cut -c1-16
}

# Prints "<debian version> <orig tarball name> <sha256>" of the source to use.
pick_source() {
	local v
	v=$(apt-cache showsrc rdma-core 2>/dev/null | awk '/^Version:/{print $2}' |
		grep -Fx "$want" || true)
	if [ -z "$v" ]; then
		v=$(apt-cache showsrc rdma-core 2>/dev/null | awk '/^Version:/{print $2}' |
			grep '^56\.' | sort -V | tail -1 || true)
	fi
	[ -n "$v" ] || { log "no rdma-core 56.x in the configured deb-src"; return 1; }
	apt-cache showsrc rdma-core | awk -v v="$v" '
		/^Version:/ { ok = ($2 == v) }
		ok && /^Checksums-Sha256:/ { c = 1; next }
		ok && c && /^ / { if ($3 ~ /\.orig\.tar\./) { print v, $3, $1; exit } next }
		{ c = 0 }'
}

# Fetch the orig tarball into dl/ and verify it.
fetch() {
	local v=$1 name=$2 sum=$3
	mkdir -p "$cache/dl"
	if [ -f "$cache/dl/$name" ] && echo "$sum  $cache/dl/$name" | sha256sum -c --status; then
		return 0
	fi
	log "fetching rdma-core $v source ($name)"
	(cd "$cache/dl" && apt-get source --download-only -qq "rdma-core=$v" >/dev/null 2>&1 || true)
	echo "$sum  $cache/dl/$name" | sha256sum -c --status ||
		{ log "$name missing or checksum mismatch"; return 1; }
	# The source package's other files (.dsc, debian.tar) are not needed.
	find "$cache/dl" -maxdepth 1 -type f ! -name '*.orig.tar.*' -delete
}

if [ "$mode" = print ]; then
	exec 3>&1 1>&2		# progress to stderr, the path alone to stdout
fi

if [ "$mode" != key ]; then
	"$repo/tools/setup/deps.sh" rdma
	"$repo/tools/setup/apt-sources.sh"	# deb-src for trixie
fi

read -r debver tarball tarsum < <(pick_source) || true
[ -n "${tarball:-}" ] || { log "cannot find an rdma-core source tarball"; exit 1; }
upver=${debver%-*}
key="$upver-$(echo "$tarsum $(inputs_hash)" | sha256sum | cut -c1-16)"
inst=$cache/$key/install
if [ "$mode" = key ]; then
	echo "$key"
	exit 0
fi

if [ -d "$inst" ]; then
	log "cached: $inst"
else
	start=$SECONDS
	fetch "$debver" "$tarball" "$tarsum"
	top=$cache/$upver
	src=$top/src
	if [ ! -f "$src/.kite-unpacked" ] || [ "$(cat "$src/.kite-unpacked")" != "$tarsum" ]; then
		log "unpacking $tarball"
		rm -rf "$src" "$top/build" "$top/unpack"
		mkdir -p "$top/unpack"
		tar -xf "$cache/dl/$tarball" -C "$top/unpack"
		mv "$top/unpack"/rdma-core-* "$src"
		rmdir "$top/unpack"
		echo "$tarsum" > "$src/.kite-unpacked"
	fi

	log "overlaying providers/kite and kernel-headers/rdma/kite-abi.h"
	rm -rf "$src/providers/kite"
	cp -a "$provider" "$src/providers/kite"
	cp -p "$abi" "$src/kernel-headers/rdma/kite-abi.h"
	# The patch is applied once; -R --dry-run tells whether it already is.
	if patch -d "$src" -p1 -R -s -f --dry-run < "$patchfile" >/dev/null 2>&1; then
		:
	else
		log "applying $(basename "$patchfile")"
		patch -d "$src" -p1 -N -s < "$patchfile"
	fi

	build=$top/build
	cmake_args=(-GNinja
		-DCMAKE_BUILD_TYPE=Release
		-DDISTRO_FLAVOUR=Debian
		-DCMAKE_INSTALL_PREFIX=/usr
		-DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu
		-DCMAKE_INSTALL_SYSCONFDIR=/etc
		-DCMAKE_INSTALL_LIBEXECDIR=/usr/lib
		-DCMAKE_INSTALL_SHAREDSTATEDIR=/var/lib
		-DCMAKE_INSTALL_RUNDIR=/run
		-DCMAKE_INSTALL_UDEV_RULESDIR=/usr/lib/udev/rules.d
		-DCMAKE_INSTALL_SYSTEMD_SERVICEDIR=/usr/lib/systemd/system
		-DPYTHON_EXECUTABLE=/usr/bin/python3
		-DCMAKE_INSTALL_PYTHON_ARCH_LIB=/usr/lib/python3/dist-packages
		-DNO_MAN_PAGES=1
		-DENABLE_STATIC=0
		-DENABLE_VALGRIND=0)
	if [ ! -f "$build/build.ninja" ] ||
	   [ "$(cat "$build/.kite-cmake-args" 2>/dev/null)" != "${cmake_args[*]}" ]; then
		log "configuring ($build)"
		rm -rf "$build"
		mkdir -p "$build"
		(cd "$build" && cmake "${cmake_args[@]}" "$src" >cmake.log 2>&1) ||
			{ tail -30 "$build/cmake.log" >&2; exit 1; }
		echo "${cmake_args[*]}" > "$build/.kite-cmake-args"
	fi

	log "building with ninja -j$(nproc)"
	ninja -C "$build" >"$build/ninja.log" 2>&1 ||
		{ grep -E -B2 -A10 'error|FAILED' "$build/ninja.log" | head -80 >&2; exit 1; }
	grep -E 'providers/kite/.*warning' "$build/ninja.log" >&2 || true

	log "installing into $inst"
	rm -rf "$inst.tmp"
	DESTDIR="$inst.tmp" ninja -C "$build" install >"$build/install.log" 2>&1 ||
		{ tail -30 "$build/install.log" >&2; exit 1; }
	mv "$inst.tmp" "$inst"
	log "done in $((SECONDS - start)) s (key $key)"
	# keep the three newest install trees of this version
	ls -1dt "$cache/$upver"-*/ 2>/dev/null | tail -n +4 | xargs -r rm -rf
fi

if [ "$mode" = print ]; then
	echo "$inst" >&3
fi
