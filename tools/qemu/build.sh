#!/usr/bin/env bash
# Builds QEMU 7.2 from Debian bookworm's source package with the Kite PCIe
# adapter (tools/qemu/kite/) added as hw/net/kite/. Cached and incremental:
#
#   $KITE_CACHE/qemu/<debian source version>/   (KITE_CACHE defaults to /var/cache/kite)
#       *.dsc *.orig.tar.xz *.debian.tar.xz      the Debian source package
#       src/                                     dpkg-source -x tree (Debian patches applied)
#       build-<flags hash>/                      out-of-tree build; qemu-system-x86_64 lands here
#                                                (keyed by the configure flags so that trees with
#                                                different flags never wipe each other's build)
#   $KITE_CACHE/qemu/current -> <version>        the last successful build
#
# Editing tools/qemu/kite/* recompiles only the adapter and relinks; configure
# only runs again when its flags change.
#
# Usage: build.sh                 build (first time ~10 minutes on 2 cores), print binary path
#        build.sh --print-path    print the binary path, build nothing
#        build.sh --print-datadirs  print the -L options the runner must pass (BIOS, option ROMs)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here="$repo/tools/qemu"
cache_root=${KITE_CACHE:-/var/cache/kite}
qcache="$cache_root/qemu"
suite=bookworm
# Only the bookworm 7.2 series is accepted (not trixie's or backports' QEMU).
version_re='^(1:)?7\.2\+dfsg-7\+deb12u[0-9]+$'
binary_name=qemu-system-x86_64
# Firmware comes from Debian packages: seabios (bios-256k.bin, vgabios-*),
# qemu-system-data (linuxboot_dma.bin, kvmvapic.bin, ...), ipxe-qemu (NIC option ROMs).
datadirs=(/usr/share/seabios /usr/share/qemu /usr/lib/ipxe/qemu)

configure_flags=(
    --target-list=x86_64-softmmu
    --without-default-features
    --disable-docs
    --disable-werror
    --disable-install-blobs
    --with-git-submodules=ignore
    # virtio-9p lets the VM runner share host directories (modules, tests).
    --enable-virtfs --enable-attr --enable-cap-ng
    # x86_64-softmmu requires libfdt (microvm); use Debian's, the dfsg tree has no dtc.
    --enable-fdt=system
    # TCG plugins: make bench counts guest instructions per GB (tools/bench/insn_count.c).
    --enable-plugins
)
want_flags=$(printf '%s\n' "${configure_flags[@]}")
bld_name=build-$(printf '%s' "$want_flags" | sha256sum | cut -c1-8)

# The whole script is one function so that editing it while a build runs is safe.
main() {
log() { printf '[qemu] %s\n' "$*" >&2; }
die() { printf '[qemu] error: %s\n' "$*" >&2; exit 1; }

# The Debian source version apt would fetch for qemu/bookworm, without the epoch.
apt_version() {
    local uris dsc ver
    uris=$(apt-get source --print-uris --download-only "qemu/$suite" 2>/dev/null) || return 1
    # lines are: 'URI' FILENAME SIZE HASH (the URI is percent-encoded, the name is not)
    dsc=$(printf '%s\n' "$uris" | awk '$2 ~ /^qemu_.*\.dsc$/ { print $2; exit }')
    [ -n "$dsc" ] || return 1
    ver=${dsc#qemu_}
    ver=${ver%.dsc}
    [[ $ver =~ $version_re ]] || { log "apt offers qemu $ver for $suite, not the 7.2 bookworm series"; return 1; }
    printf '%s\n' "${ver#*:}"
}

# The last successfully built version, if any.
current_version() {
    local t
    t=$(readlink "$qcache/current" 2>/dev/null) || return 1
    [ -x "$qcache/$t/$bld_name/$binary_name" ] || return 1
    printf '%s\n' "$t"
}

print_datadirs() {
    local d out=()
    for d in "${datadirs[@]}"; do out+=(-L "$d"); done
    printf '%s\n' "${out[*]}"
}

case ${1:-} in
--print-path)
    ver=$(current_version || apt_version) || die "no QEMU build found under $qcache and apt cannot name a version; run $0"
    printf '%s\n' "$qcache/$ver/$bld_name/$binary_name"
    exit 0 ;;
--print-datadirs)
    print_datadirs
    exit 0 ;;
--help|-h)
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 0 ;;
'') ;;
*) die "unknown option $1 (see --help)" ;;
esac

"$repo/tools/setup/deps.sh" qemu build
"$repo/tools/setup/apt-sources.sh"

if ! ver=$(apt_version); then
    ver=$(current_version) || die "cannot determine the qemu/$suite source version from apt, and nothing is cached"
    log "apt did not name a version; using the cached build $ver"
fi
vdir="$qcache/$ver"
src="$vdir/src"
bld="$vdir/$bld_name"
mkdir -p "$vdir"
# One build per tree at a time: several worktrees share this cache.
exec 9>"$vdir/.$bld_name.lock"
if ! flock -n 9; then
    log "another build of $bld_name is running; waiting for it"
    flock 9
fi

# 1. Source package: reuse anything already downloaded (e.g. $KITE_CACHE/src), then let
#    apt fetch what is missing (it verifies the hashes and skips files already present).
if [ ! -f "$src/.kite-extracted" ]; then
    dsc="qemu_$ver.dsc"
    if [ ! -f "$vdir/$dsc" ]; then
        for d in "$cache_root/src" "$qcache"/*/; do
            [ -f "$d/$dsc" ] || continue
            log "reusing source package files from $d"
            for f in "$d"/qemu_7.2+dfsg.orig.tar.* "$d/qemu_$ver".*; do
                [ -f "$f" ] && cp -n "$f" "$vdir/"
            done
            break
        done
        log "fetching Debian source qemu/$suite ($ver)"
        (cd "$vdir" && apt-get source --download-only -qq -o APT::Sandbox::User=root "qemu/$suite" >/dev/null)
        [ -f "$vdir/$dsc" ] || die "apt-get source did not produce $vdir/$dsc"
    fi
    log "extracting $dsc (applying Debian patches)"
    rm -rf "$src" "$vdir/src.tmp"
    # (dpkg-source warns that it cannot check the .dsc signature: apt already
    # verified the files' hashes against the signed archive index.)
    (cd "$vdir" && dpkg-source -x "$dsc" src.tmp) > "$vdir/extract.log" 2>&1 ||
        { tail -n 20 "$vdir/extract.log" >&2; die "dpkg-source -x failed, see $vdir/extract.log"; }
    touch "$vdir/src.tmp/.kite-extracted"
    mv "$vdir/src.tmp" "$src"
fi

# 2. Adapter sources into hw/net/kite/, copied only when their content changed so that
#    unchanged files keep their mtimes and ninja stays incremental.
sync_file() { # sync_file FROM TO
    if ! cmp -s "$1" "$2"; then
        install -m 0644 "$1" "$2"
        log "updated ${2#"$src"/}"
    fi
}
mkdir -p "$src/hw/net/kite"
shopt -s nullglob
want=()
for f in "$here"/kite/*.c "$here"/kite/*.h "$here/kite/meson.build" "$here/kite/Kconfig"; do
    sync_file "$f" "$src/hw/net/kite/${f##*/}"
    want+=("${f##*/}")
done
# The card ABI header is used from its single home in the model (never hand-copied),
# So is the generated spec header (C flavour of the provider's copy: stdint types).
sync_file "$repo/fpga/model/include/kite/card_abi.h" "$src/hw/net/kite/card_abi.h"
sync_file "$repo/userspace/rdma-core/providers/kite/kite_hw.h" "$src/hw/net/kite/kite_hw.h"
want+=(card_abi.h kite_hw.h)
# Drop files that were removed from tools/qemu/kite/.
for f in "$src/hw/net/kite"/*; do
    n=${f##*/}
    [[ " ${want[*]} " == *" $n "* ]] || { rm -f "$f"; log "removed hw/net/kite/$n"; }
done
shopt -u nullglob

# Hook into hw/net/meson.build and hw/net/Kconfig, once.
hook() { # hook FILE LINE
    grep -qxF "$2" "$1" || { printf '\n# Kite NIC adapter (tools/qemu/kite)\n%s\n' "$2" >> "$1"; log "hooked ${1#"$src"/}"; }
}
hook "$src/hw/net/meson.build" "subdir('kite')"
hook "$src/hw/net/Kconfig" "source kite/Kconfig"

# 3. Configure, once per set of flags.
flags_file="$bld/.kite-configure-flags"
if [ ! -f "$bld/build.ninja" ] || [ ! -f "$flags_file" ] || [ "$(cat "$flags_file")" != "$want_flags" ]; then
    log "configuring ($bld)"
    rm -rf "$bld"
    mkdir -p "$bld"
    (cd "$bld" && "$src/configure" "${configure_flags[@]}") > "$vdir/configure.$bld_name.log" 2>&1 ||
        { tail -n 30 "$vdir/configure.$bld_name.log" >&2; die "configure failed, see $vdir/configure.$bld_name.log"; }
    printf '%s\n' "$want_flags" > "$flags_file"
fi

# 4. Build. ninja rewrites its status line in place on a terminal; force plain
#    progress lines and thin them out so a log stays readable.
log "building with ninja -j$(nproc) (first build takes ~10 minutes on 2 cores)"
start=$SECONDS
set +e
NINJA_STATUS='[%f/%t %es] ' ninja -C "$bld" -j"$(nproc)" "$binary_name" 2>&1 |
    awk '
        /^\[[0-9]+\/[0-9]+ / {
            split(substr($1, 2), a, "/")
            # every 50th step, and every step once few remain
            if (a[1] % 50 == 0 || a[2] - a[1] < 10 || $0 ~ /kite/) { print; fflush() }
            next
        }
        { print; fflush() }'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || die "ninja failed (rc $rc)"
log "build done in $((SECONDS - start)) s"

ln -sfn "$ver" "$qcache/current"
printf '%s\n' "$bld/$binary_name"
}

main "$@"
