#!/usr/bin/env bash
# Builds the guest root filesystem: Debian bookworm (debootstrap, minbase) plus
# the packages below, written into an ext4 image with `mke2fs -d` (no loop
# mounts). The image is cached, keyed by a hash of everything that defines it.
#
# Usage: tools/vm/rootfs.sh [--print-path|--print-hash|--force]
#   prints the image path on stdout when done (progress goes to stderr)
# Env:
#   KITE_CACHE                 cache root (default /var/cache/kite)
#   KITE_ROOTFS_EXTRA_PACKAGES extra packages (space separated), part of the key
#
# Output: $KITE_CACHE/rootfs/<hash>/rootfs.ext4 (VMs must open it read-only
# or with a snapshot overlay; tools/vm/kitevm.py does).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${KITE_CACHE:-/var/cache/kite}

# The one list of guest packages. Changing it (or the recipe below) changes the
# cache key. Keep it lean: CI builds this from scratch.
ROOTFS_PACKAGES="iproute2 ethtool iperf3 tcpdump python3 pciutils kmod procps
iputils-ping netcat-openbsd strace python3-yaml socat
perftest rdmacm-utils ibverbs-utils libnl-3-200 libnl-route-3-200 libudev1 libpython3.11"
# RDMA: Debian's perftest/rdmacm-utils/ibverbs-utils (and pyverbs, which
# needs libpython3.11) run on the rdma-core
# 56.1 build with the Kite provider, which tests/vm/run.py --rdma lays over
# the root at boot (payload rdma-core/, then ldconfig).
ROOTFS_PACKAGES="$ROOTFS_PACKAGES ${KITE_ROOTFS_EXTRA_PACKAGES:-}"
SUITE=bookworm
RECIPE=3   # bump when the recipe below changes in a way the hash cannot see

log() { echo "[rootfs] $(date +%T) $*" >&2; }
die() { echo "rootfs.sh: $*" >&2; exit 1; }

# Guest customisation, run after debootstrap with $1 = the root directory.
customize() {
    local r=$1
    echo kite > "$r/etc/hostname"
    printf '127.0.0.1\tlocalhost\n127.0.1.1\tkite\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$r/etc/hosts"
    : > "$r/etc/fstab"
    mkdir -p "$r/kite" "$r/lib/modules" "$r/opt/kite-guest"
    chroot "$r" passwd -dq root >/dev/null 2>&1 || chroot "$r" passwd -d root >/dev/null
    # trim what a test guest never reads
    rm -rf "$r"/var/cache/apt/*.bin "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/* \
           "$r"/usr/share/doc/* "$r"/usr/share/man/* "$r"/usr/share/info/* "$r"/usr/share/locale/* \
           "$r"/var/log/*.log "$r"/var/cache/debconf/*-old
    # the image is shared read-only; nothing may depend on machine identity
    : > "$r/etc/machine-id"
    rm -f "$r"/etc/ssh/ssh_host_* 2>/dev/null || true
}

pkgs=$(echo "$ROOTFS_PACKAGES" | tr ' \n' '\n\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
pkgs=${pkgs% }
hash=$( { echo "recipe=$RECIPE suite=$SUITE variant=minbase"; echo "packages=$pkgs"
          declare -f customize; } | sha256sum | cut -c1-16)
dir=$cache/rootfs/$hash
img=$dir/rootfs.ext4

case ${1:-} in
--print-hash) echo "$hash"; exit 0 ;;
--print-path) [ -f "$img" ] || die "not built yet: run tools/vm/rootfs.sh"; echo "$img"; exit 0 ;;
--force) rm -rf "$dir" ;;
"") ;;
*) die "usage: rootfs.sh [--print-path|--print-hash|--force]" ;;
esac

if [ -f "$dir/.complete" ] && [ -f "$img" ]; then
    echo "$img"
    exit 0
fi

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap)"
command -v debootstrap >/dev/null && command -v mke2fs >/dev/null || "$here/../setup/deps.sh" vm

# mirror: reuse the archive URI this machine already has for bookworm
mirror=$(awk '/^URIs:/{u=$2} /^Suites:/{ for(i=2;i<=NF;i++) if ($i=="bookworm") { print u; exit } }' \
         /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
    mirror=$(awk '$1=="deb" && $0 ~ / bookworm / { for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
             /etc/apt/sources.list)
fi
[ -n "$mirror" ] || die "no configured bookworm archive URI in /etc/apt/sources.list.d/*.sources"

mkdir -p "$cache/rootfs" "$cache/debs"
exec 9>"$cache/rootfs/.lock"
flock 9
if [ -f "$dir/.complete" ] && [ -f "$img" ]; then
    echo "$img"
    exit 0
fi
tmp=$(mktemp -d "$cache/rootfs/.tmp.XXXXXX")
cleanup() {
    # debootstrap may leave mounts behind when interrupted
    for m in proc sys dev/pts dev; do umount -l "$tmp/root/$m" 2>/dev/null || true; done
    rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
start=$SECONDS
log "debootstrap $SUITE minbase from $mirror (key $hash)"
log "packages: $pkgs"
debootstrap --variant=minbase --include="${pkgs// /,}" --cache-dir="$cache/debs" \
    "$SUITE" "$tmp/root" "$mirror" 2>&1 |
    while IFS= read -r line; do
        case $line in I:\ Retrieving*|I:\ Validating*|I:\ Extracting*|I:\ Unpacking*|I:\ Configuring*) ;;
        *) echo "[rootfs]   $line" >&2 ;; esac
    done
[ "${PIPESTATUS[0]}" = 0 ] || die "debootstrap failed"
[ -x "$tmp/root/usr/bin/python3" ] || die "debootstrap produced no python3"
log "customising"
customize "$tmp/root"
size=$(du -sm "$tmp/root" | cut -f1)
# sparse: free space for tests costs nothing on the host disk
log "mke2fs -d (${size} MiB of files)"
mke2fs -q -t ext4 -L kite-root -E root_owner=0:0 -d "$tmp/root" "$tmp/rootfs.ext4" "$((size + 1024))M" >&2
echo "$pkgs" > "$tmp/packages"
rm -rf --one-file-system "$tmp/root"
touch "$tmp/.complete"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
log "done in $((SECONDS - start)) s: $img"
echo "$img"
