#!/usr/bin/env bash
# yosys synthesis of one block for AMD UltraScale+ (synth_xilinx -family
# xcup), cached under build/rtl/syn/<name>/ by a hash of the sources.
# Usage: synth.sh NAME TOP FILE...   Exit status: yosys's.
set -euo pipefail
name=$1 top=$2; shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/rtl/syn/$name
mkdir -p "$out"
# No I/O buffers or clock buffers: blocks are synthesized out of context.
script="read_verilog -sv $*; synth_xilinx -family xcup -top $top -flatten -noiopad -noclkbuf; tee -o $out/stat.txt stat"
stamp=$( (cat "$@"; echo "$script"; yosys -V) | sha256sum | cut -c1-16)
if [ -s "$out/stat.txt" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then exit 0; fi
rm -f "$out/stamp" "$out/stat.txt"
(cd "$root" && yosys -q -l "$out/yosys.log" -p "$script") >/dev/null 2>&1 || { tail -20 "$out/yosys.log" >&2; exit 1; }
grep -q "Number of cells" "$out/stat.txt"
echo "$stamp" >"$out/stamp"
