#!/usr/bin/env bash
# yosys synthesis of one block for AMD UltraScale+ (synth_xilinx -family
# xcup). Results are kept in $KITE_CACHE/rtl-syn/<hash of sources, script and
# yosys version> (outside the tree, so a fresh clone reuses them) and copied to
# build/rtl/syn/<name>/ for fpga/syn/report.py.
# Usage: synth.sh NAME TOP FILE...   Exit status: yosys's.
set -euo pipefail
name=$1 top=$2; shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/rtl/syn/$name
mkdir -p "$out"
# No I/O buffers or clock buffers: blocks are synthesized out of context.
# The stamp leaves out where the tree is, so clones share cache entries.
synth="read_verilog -sv $*; synth_xilinx -family xcup -top $top -flatten -noiopad -noclkbuf"
script="$synth; tee -o $out/stat.txt stat"
stamp=$( (cat "$@"; echo "$synth"; yosys -V) | sha256sum | cut -c1-16)
if [ -s "$out/stat.txt" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then exit 0; fi
cache=${KITE_CACHE:-/var/cache/kite}/rtl-syn/$stamp
if [ -s "$cache/stat.txt" ]; then
    cp "$cache/stat.txt" "$out/stat.txt"
    echo "$stamp" >"$out/stamp"
    exit 0
fi
rm -f "$out/stamp" "$out/stat.txt"
(cd "$root" && yosys -q -l "$out/yosys.log" -p "$script") >/dev/null 2>&1 || { tail -20 "$out/yosys.log" >&2; exit 1; }
grep -q "Number of cells" "$out/stat.txt"
echo "$stamp" >"$out/stamp"
# The cache is an optimisation: an unwritable one only costs the next run time.
if mkdir -p "$cache" 2>/dev/null && cp "$out/stat.txt" "$cache/stat.txt.tmp" 2>/dev/null; then
    mv "$cache/stat.txt.tmp" "$cache/stat.txt"
fi
