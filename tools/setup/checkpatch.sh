#!/usr/bin/env bash
# Prints the path of checkpatch.pl from Debian's linux-source-6.12, extracting
# just the scripts it needs into the cache (keyed by the package version).
set -euo pipefail
cache=${KITE_CACHE:-/var/cache/kite}
here=$(cd "$(dirname "$0")" && pwd)
"$here/apt-sources.sh" >&2
pkg=linux-source-6.12
ver=$(apt-cache policy "$pkg" | awk '/Candidate:/ {print $2}')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || { echo "checkpatch: $pkg not available" >&2; exit 1; }
dir=$cache/checkpatch/$ver
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
    echo "[setup] extracting checkpatch.pl from $pkg $ver" >&2
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && apt-get download -q "$pkg=$ver" >&2)
    dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
    mkdir -p "$dir.tmp"
    tar -xJf "$tmp"/usr/src/linux-source-*.tar.xz -C "$dir.tmp" --strip-components=1 --wildcards \
        '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
fi
echo "$dir/scripts/checkpatch.pl"
