#!/usr/bin/env bash
# Adds the apt sources Kite needs (bookworm-backports binaries; deb-src for
# bookworm, bookworm-backports and trixie), reusing the archive URI that this
# machine already has configured. No archive host name is written in the repo.
set -euo pipefail
out=/etc/apt/sources.list.d/kite.sources
uri=$(awk '/^URIs:/{u=$2} /^Suites:/{ for(i=2;i<=NF;i++) if ($i=="bookworm") { print u; exit } }' \
      /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1=="deb" && $0 ~ / bookworm / { for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list)
fi
[ -n "$uri" ] || { echo "apt-sources: no configured bookworm archive URI found" >&2; exit 1; }
key=/usr/share/keyrings/debian-archive-keyring.gpg
want="Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: $key

Types: deb-src
URIs: $uri
Suites: bookworm bookworm-backports trixie
Components: main
Signed-By: $key
"
if ! printf '%s' "$want" | cmp -s - "$out"; then
    printf '%s' "$want" > "$out"
    rm -f /var/lib/apt/kite-updated
fi
# one apt-get update per change of sources (and at least once per boot of a fresh machine)
if [ ! -f /var/lib/apt/kite-updated ]; then
    echo "[setup] apt-get update"
    apt-get update -qq
    touch /var/lib/apt/kite-updated
fi
