#!/usr/bin/env bash
# Fetches a Debian guest kernel and its headers into the Kite cache, without
# installing either on the host.
#
# Usage: tools/vm/kernel.sh SERIES [--print-kver|--print-pkgver|--print-dir|
#                                   --print-vmlinuz|--print-modules|--print-kdir|--print-env]
#   SERIES  6.1  -> bookworm's linux-image-amd64 (highest 6.1.x: bookworm or bookworm-security)
#           6.12 -> bookworm-backports' linux-image-amd64
#
# Result (keyed by the exact package version):
#   $KITE_CACHE/kernel/<kver>_<pkgver>/vmlinuz
#   $KITE_CACHE/kernel/<kver>_<pkgver>/root/lib/modules/<kver>/...     (modules, depmod'ed)
#   $KITE_CACHE/kernel/<kver>_<pkgver>/root/usr/src/linux-headers-<kver> (kbuild dir)
#   $KITE_CACHE/kernel/<kver>_<pkgver>/modules.ext4  (the modules tree as a disk image for VMs)
#
# Headers are extracted (dpkg-deb -x), not installed: bookworm-backports'
# linux-headers-6.12 depends on the matching linux-image, which would put a
# kernel and an initramfs onto the host. Build modules with
#   make -C "$(tools/vm/kernel.sh 6.1 --print-kdir)" M=$PWD modules
# With no --print option, prints a summary (KVER=, PKGVER=, DIR=, VMLINUZ=,
# MODULES=, MODIMG=, KDIR=) that can be eval'ed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${KITE_CACHE:-/var/cache/kite}

log() { echo "[kernel] $*" >&2; }
die() { echo "kernel.sh: $*" >&2; exit 1; }

series=${1:-}
what=${2:---print-env}
case $series in
6.1|6.12) ;;
-h|--help|"") sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; [ -n "$series" ]; exit $? ;;
*) die "unknown kernel series '$series' (want 6.1 or 6.12)" ;;
esac

# --- resolve the exact ABI from apt's indexes -------------------------------
resolve() {
    # highest linux-image-amd64 version of the requested series that apt knows
    local v
    v=$(apt-cache madison linux-image-amd64 2>/dev/null |
        awk -F'|' -v s="$series" '{ gsub(/ /,"",$2); gsub(/ /,"",$1) }
             $1=="linux-image-amd64" && index($2, s".")==1 { print $2 }' | sort -V | tail -n1)
    if [ -z "$v" ]; then
        return 1
    fi
    metaver=$v
    imgpkg=$(apt-cache show "linux-image-amd64=$v" | awk -F': ' '/^Depends:/{print $2; exit}' |
             tr ',' '\n' | sed -n 's/^ *\(linux-image-[^ ]*\) .*/\1/p' | head -n1)
    [ -n "$imgpkg" ] || die "cannot parse Depends of linux-image-amd64=$v"
    kver=${imgpkg#linux-image-}
    pkgver=$(apt-cache show "linux-image-amd64=$v" | awk -F': ' '/^Depends:/{print $2; exit}' |
             tr ',' '\n' | sed -n 's/^ *linux-image-[^ ]* (= \([^)]*\)).*/\1/p' | head -n1)
    [ -n "$pkgver" ] || pkgver=$v
}

if ! resolve; then
    "$here/../setup/apt-sources.sh" >&2
    resolve || die "apt knows no linux-image-amd64 of series $series (sources: tools/setup/apt-sources.sh)"
fi

dir=$cache/kernel/${kver}_${pkgver}
kdir=$dir/root/usr/src/linux-headers-$kver
moddir=$dir/root/lib/modules/$kver

fetch() {
    [ -f "$dir/.complete" ] && return 0
    local tmp debs p
    mkdir -p "$cache/kernel"
    # one fetch at a time (parallel make jobs, concurrent test runs)
    exec 9>"$cache/kernel/.lock"
    flock 9
    [ -f "$dir/.complete" ] && { exec 9>&-; return 0; }
    tmp=$(mktemp -d "$cache/kernel/.tmp.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    # the headers package's own dependencies: -common and linux-kbuild-<series>
    local hdeps
    hdeps=$(apt-cache show "linux-headers-$kver=$pkgver" | awk -F': ' '/^Depends:/{print $2; exit}' |
            tr ',' '\n' | sed -n 's/^ *\(linux-\(headers\|kbuild\)-[^ ]*\).*/\1/p')
    debs=("linux-image-$kver=$pkgver" "linux-headers-$kver=$pkgver")
    for p in $hdeps; do
        if [[ $p == linux-headers-* ]]; then debs+=("$p=$pkgver"); else debs+=("$p"); fi
    done
    log "downloading ${debs[*]} (about 120 MB)"
    ( cd "$tmp" && chmod 777 . && apt-get download -q "${debs[@]}" >&2 ) ||
        die "apt-get download failed"
    mkdir -p "$tmp/root"
    for p in "$tmp"/*.deb; do
        log "extracting $(basename "$p")"
        dpkg-deb -x "$p" "$tmp/root"
    done
    # Debian's packages use /usr/lib/modules (6.12) or /lib/modules (6.1)
    if [ -d "$tmp/root/usr/lib/modules/$kver" ] && [ ! -d "$tmp/root/lib/modules/$kver" ]; then
        mkdir -p "$tmp/root/lib/modules"
        mv "$tmp/root/usr/lib/modules/$kver" "$tmp/root/lib/modules/$kver"
    fi
    [ -f "$tmp/root/boot/vmlinuz-$kver" ] || die "no /boot/vmlinuz-$kver in linux-image-$kver"
    cp "$tmp/root/boot/vmlinuz-$kver" "$tmp/vmlinuz"
    cp "$tmp/root/boot/config-$kver" "$tmp/config"
    cp "$tmp/root/boot/System.map-$kver" "$tmp/System.map" 2>/dev/null || true
    # point the kbuild dir at the extracted tree instead of /usr/src
    local hk=$tmp/root/usr/src/linux-headers-$kver
    sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" "$hk/Makefile"
    rm -f "$tmp/root/lib/modules/$kver/build" "$tmp/root/lib/modules/$kver/source"
    ln -s "../../../usr/src/linux-headers-$kver" "$tmp/root/lib/modules/$kver/build"
    # modules.dep etc. are not shipped in the .deb (postinst runs depmod)
    log "depmod"
    depmod -b "$tmp/root" "$kver"
    log "building modules.ext4"
    local size
    size=$(du -sm "$tmp/root/lib/modules/$kver" | cut -f1)
    mke2fs -q -t ext4 -L kite-modules -O ^has_journal -E root_owner=0:0 \
        -d "$tmp/root/lib/modules/$kver" "$tmp/modules.ext4" "$((size + size / 5 + 32))M" >&2
    rm -rf "$tmp"/*.deb "$tmp/root/boot"
    echo "$metaver" > "$tmp/metaver"
    echo "$kver" > "$tmp/kver"
    echo "$pkgver" > "$tmp/pkgver"
    touch "$tmp/.complete"
    rm -rf "$dir"
    mv "$tmp" "$dir"
    trap - EXIT
    exec 9>&-
    log "ready: $dir"
}

fetch

case $what in
--print-kver)    echo "$kver" ;;
--print-pkgver)  echo "$pkgver" ;;
--print-dir)     echo "$dir" ;;
--print-vmlinuz) echo "$dir/vmlinuz" ;;
--print-modules) echo "$moddir" ;;
--print-modimg)  echo "$dir/modules.ext4" ;;
--print-kdir)    echo "$kdir" ;;
--print-env)
    printf 'KVER=%s\nPKGVER=%s\nDIR=%s\nVMLINUZ=%s\nMODULES=%s\nMODIMG=%s\nKDIR=%s\n' \
        "$kver" "$pkgver" "$dir" "$dir/vmlinuz" "$moddir" "$dir/modules.ext4" "$kdir" ;;
*) die "unknown option $what" ;;
esac
