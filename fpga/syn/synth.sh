#!/usr/bin/env bash
# yosys synthesis of one block for AMD UltraScale+ (synth_xilinx -family
# xcup): its resources (stat.txt) and its deepest logic (depth.txt, from
# fpga/syn/depth.py on the netlist). Results are kept in
# $KITE_CACHE/rtl-syn/<hash of sources, script and yosys version> (outside
# the tree, so a fresh clone reuses them) and copied to build/rtl/syn/<name>/
# for fpga/syn/report.py.
# Usage: synth.sh NAME TOP FILE...   Exit status: yosys's.
set -euo pipefail
name=$1 top=$2; shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/rtl/syn/$name
mkdir -p "$out"
# No I/O buffers or clock buffers: blocks are synthesized out of context.
# The stamp leaves out where the tree is, so clones share cache entries.
synth="read_verilog -sv $*; synth_xilinx -family xcup -top $top -flatten -noiopad -noclkbuf"
script="$synth; tee -o $out/stat.txt stat; write_json $out/netlist.json"
stamp=$( (cat "$@"; echo "$synth"; yosys -V) | sha256sum | cut -c1-16)
# depth.txt also depends on depth.py: the netlist is cached (gzipped), so a
# change to depth.py re-reads it instead of synthesizing again.
dkey=$(sha256sum "$root/fpga/syn/depth.py" | cut -c1-16)
if [ -s "$out/stat.txt" ] && [ -s "$out/depth.txt" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp $dkey" ]; then
    exit 0
fi
rm -f "$out/stamp" "$out/depth.txt"
cache=${KITE_CACHE:-/var/cache/kite}/rtl-syn/$stamp
# The cache is an optimisation: an unwritable one only costs the next run time.
keep() {
    if mkdir -p "$cache" 2>/dev/null && cp "$1" "$cache/$2.tmp" 2>/dev/null; then
        mv "$cache/$2.tmp" "$cache/$2"
    fi
}
# depth.txt from out/netlist.json, which it removes (tens of MB).
depth() {
    python3 "$root/fpga/syn/depth.py" --top "$top" "$out/netlist.json" >"$out/depth.txt"
    keep "$out/depth.txt" "depth-$dkey.txt"
    rm -f "$out/netlist.json"
}
if [ -s "$cache/stat.txt" ] && [ -s "$cache/netlist.json.gz" ]; then
    cp "$cache/stat.txt" "$out/stat.txt"
    if [ -s "$cache/depth-$dkey.txt" ]; then
        cp "$cache/depth-$dkey.txt" "$out/depth.txt"
    else
        gzip -dc "$cache/netlist.json.gz" >"$out/netlist.json"
        depth
    fi
    echo "$stamp $dkey" >"$out/stamp"
    exit 0
fi
rm -f "$out/stat.txt"
(cd "$root" && yosys -q -l "$out/yosys.log" -p "$script") >/dev/null 2>&1 || { tail -20 "$out/yosys.log" >&2; exit 1; }
grep -q "Number of cells" "$out/stat.txt"
gzip -c "$out/netlist.json" >"$out/netlist.json.gz"
depth
echo "$stamp $dkey" >"$out/stamp"
# stat.txt goes last: an entry is whole once it is there.
keep "$out/netlist.json.gz" netlist.json.gz
rm -f "$out/netlist.json.gz"
keep "$out/stat.txt" stat.txt
