#!/usr/bin/env bash
# Builds one Verilator testbench into build/rtl/<name>/, reusing the previous
# build when no input changed (hash of RTL, testbench sources and flags).
# Executables are also kept in $KITE_CACHE/rtl-tb/<hash> (the hash leaves
# out where the tree is), so a fresh clone does not rebuild them.
# Verilator's functions are split at 500 statements: g++ is superlinear in
# a function's size and its wide temporaries, and the queue manager's
# unsplit scheduler functions took 35 minutes of -Os (40 s split, the same
# cycles).
# Usage: build.sh NAME TOP TB_CPP RTL_FILE...
# Prints the path of the executable.
set -euo pipefail
name=$1 top=$2 tbcpp=$3; shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/rtl/$name
mkdir -p "$out"
flags=(--cc --exe --build -j 2 --top-module "$top" -Wno-fatal -Wno-lint -Wno-style
       --x-assign unique --x-initial unique --output-split-cfuncs 500
       -CFLAGS "-std=c++20 -O1 -I$root/fpga/tb/common -I$root/fpga/model/include -I$root/fpga/model"
       --Mdir "$out/obj" -o "$out/tb")
# A block folder's own headers (fpga/tb/<block>/*.hpp) count when it has any,
# and so do headers included from a sibling folder ("../rxp/frames.hpp").
shopt -s nullglob
sib=()
while read -r h; do sib+=("$(dirname "$tbcpp")/$h"); done \
    < <(sed -n 's|^#include "\(\.\./[a-z_]*/[a-z_]*\.hpp\)"|\1|p' "$tbcpp")
# So do the firmware headers (the port formats, the CPU window's map) and
# the control CPU's model (cpu/rv32.hpp, cpu/elf.hpp), for the testbenches
# that include them: a change there rebuilds only those.
while read -r h; do sib+=("$(dirname "$tbcpp")/$h"); done \
    < <(sed -n 's|^#include "\(\.\./\.\./\.\./firmware/include/kite_fw/[a-z_]*\.hpp\)"|\1|p' "$tbcpp" "$(dirname "$tbcpp")"/*.hpp)
while read -r h; do sib+=("$root/fpga/model/$h"); done \
    < <(sed -n 's|^#include "\(cpu/[a-z_0-9]*\.hpp\)"|\1|p' "$tbcpp" "$(dirname "$tbcpp")"/*.hpp)
# A testbench with the whole model card as its reference (card/card.cpp and
# the native firmware compiled in) counts them too, and finds their headers.
if grep -q '^#include "\.\./\.\./model/card/card\.cpp"' "$tbcpp"; then
    sib+=("$root"/fpga/model/{card,pcie,regs}/*.?pp "$root"/firmware/src/*.cpp "$root"/firmware/include/kite_fw/*.hpp)
    flags+=(-CFLAGS "-I$root/firmware/include")
fi
stamp=$( (cat "$tbcpp" "$(dirname "$tbcpp")"/*.hpp "${sib[@]}" "$root"/fpga/tb/common/*.hpp "$root"/fpga/model/include/kite/*.hpp \
    "$root"/fpga/model/txp/*.?pp "$root"/fpga/model/card/hw.hpp \
    "$root"/fpga/model/{queue,doorbell,mac,roce,stats,rss,rxp}/*.?pp "$@"; echo "${flags[*]//$root/@ROOT@}"; verilator --version; g++ --version) | sha256sum | cut -c1-16)
if [ -x "$out/tb" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "$out/tb"; exit 0
fi
rm -f "$out/stamp"
cache=${KITE_CACHE:-/var/cache/kite}/rtl-tb/$stamp
if [ -x "$cache/tb" ]; then
    cp "$cache/tb" "$out/tb"
else
    (cd "$out" && verilator "${flags[@]}" "$@" "$tbcpp") >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
    # The cache only saves time: an unwritable one is not an error.
    if mkdir -p "$cache" 2>/dev/null && cp "$out/tb" "$cache/tb.tmp" 2>/dev/null; then
        mv "$cache/tb.tmp" "$cache/tb"
    fi
fi
echo "$stamp" >"$out/stamp"
echo "$out/tb"
