#!/usr/bin/env bash
# Prints the directory holding the kernel's NIC selftests, extracted from
# Debian's linux-source-6.12 into the cache (keyed by the package version):
# tools/testing/selftests/drivers/net (and hw/), the shared Python library in
# tools/testing/selftests/net/lib, and YNL (tools/net/ynl with the netlink
# specs in Documentation/netlink/specs) that the library uses; builds the
# csum helper of hw/csum.py.
set -euo pipefail
cache=${KITE_CACHE:-/var/cache/kite}
here=$(cd "$(dirname "$0")" && pwd)
"$here/apt-sources.sh" >&2
pkg=linux-source-6.12
ver=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || { echo "selftests: $pkg not available" >&2; exit 1; }
recipe=2   # bump when what is extracted or built changes
dir=$cache/selftests/$ver-r$recipe
if [ ! -f "$dir/.done" ]; then
    echo "[setup] extracting the NIC selftests from $pkg $ver" >&2
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && apt-get download -q "$pkg=$ver" >&2)
    dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    tar -xJf "$tmp"/usr/src/linux-source-*.tar.xz -C "$dir.tmp" --strip-components=1 --wildcards \
        '*/tools/testing/selftests/drivers/net/*' '*/tools/testing/selftests/net/lib/*' \
        '*/tools/testing/selftests/kselftest/*' '*/tools/testing/selftests/kselftest.h' \
        '*/tools/net/ynl/*' '*/Documentation/netlink/*'
    # hw/csum.py runs this helper on both ends; static, so the guest needs nothing
    gcc -O2 -static -I"$dir.tmp/tools/testing/selftests" -o "$dir.tmp/tools/testing/selftests/net/lib/csum" \
        "$dir.tmp/tools/testing/selftests/net/lib/csum.c" >&2
    touch "$dir.tmp/.done"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
fi
echo "$dir"
