#!/usr/bin/env bash
# TAP: the kernel sources are checkpatch --strict clean, sparse clean and build
# without warnings (W=1) against Debian's 6.1 and 6.12 headers.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
show() { sed 's/^/# /' | tail -n 30; }

checkpatch=$(tools/setup/checkpatch.sh 2>/dev/null) || checkpatch=
files=$(git ls-files 'kernel/*.c' 'kernel/*.h' | grep -v '/kite_hw\.h$')
if [ -z "$checkpatch" ]; then
    not_ok "checkpatch.pl available"
else
    # --no-tree cannot seed checkpatch's list of CamelCase names the kernel
    # itself defines (in a kernel tree it reads include/): drop CAMELCASE
    # checks whose identifier occurs in the target kernel's headers
    # (ethtool's IEEE 802.3 counter names, link-mode names), keep the rest.
    kinc=$(tools/vm/kernel.sh 6.12 --print-kdir 2>/dev/null)
    kinc=$(ls -d "${kinc%-amd64}"-common/include 2>/dev/null || true)
    kernel_camel() {
        local line id
        while IFS= read -r line; do
            id=$(echo "$line" | sed -n 's/.*CAMELCASE: Avoid CamelCase: <\(.*\)>.*/\1/p')
            if [ -n "$id" ] && [ -n "$kinc" ] && grep -rqF -- "$id" "$kinc/linux/ethtool.h" "$kinc/uapi/linux/ethtool.h"; then
                continue
            fi
            echo "$line"
        done
    }
    for f in $files; do
        out=$(perl "$checkpatch" --strict --no-tree --terse --show-types --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "$f" 2>&1 | kernel_camel)
        if echo "$out" | grep -qE '(ERROR|WARNING|CHECK):'; then
            not_ok "checkpatch --strict $f"; echo "$out" | grep -E '(ERROR|WARNING|CHECK):' | show
        else
            ok "checkpatch --strict $f"
        fi
    done
fi

# build MODDIR KVER_SERIES EXTRA...: out-of-tree build in a scratch copy
build() {
    local series=$1 kdir tmp out
    shift
    kdir=$(tools/vm/kernel.sh "$series" --print-kdir 2>/dev/null) || { echo "no headers for $series"; return 1; }
    tmp=$(mktemp -d)
    cp -a kernel/. "$tmp/"
    local rc=0
    # kite_ib.ko links against kite.ko's exports (its Module.symvers).
    local extra=()
    for m in drivers/net/ethernet/kite drivers/infiniband/hw/kite; do
        [ -d "$tmp/$m" ] || continue
        out=$(make -s -C "$kdir" M="$tmp/$m" KITE_INCLUDE="$tmp/include" "${extra[@]}" "$@" modules 2>&1) || rc=1
        extra=(KBUILD_EXTRA_SYMBOLS="$tmp/drivers/net/ethernet/kite/Module.symvers")
        echo "$out" | grep -iE 'warning|error' && rc=1
    done
    rm -rf "$tmp"
    return $rc
}
for series in 6.1 6.12; do
    if out=$(build "$series" W=1 2>&1); then ok "W=1 build without warnings against $series headers"
    else not_ok "W=1 build without warnings against $series headers"; echo "$out" | show; fi
done
if out=$(build 6.1 C=2 CHECK="sparse -Wno-decl" 2>&1); then ok "sparse clean (C=2)"
else not_ok "sparse clean (C=2)"; echo "$out" | show; fi
echo "1..$n"
[ $fail -eq 0 ]
