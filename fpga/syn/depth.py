#!/usr/bin/env python3
"""Logic depth of a yosys synth_xilinx netlist (write_json): the stand-in
for the timing report yosys cannot give. It finds the longest combinational
path between sequential cells and counts its logic levels as Vivado does:
each LUT, MUXF7/8/9 and CARRY4/8 on the path is one level, and a LUT RAM's
asynchronous read counts as a LUT. Paths start at flip-flop, block RAM,
UltraRAM, DSP and SRL outputs and end at their inputs and at a LUT RAM's
write inputs. A DSP slice counts as a register even where it is built
without its pipeline registers. Paths that start at the block's input ports
or end at its output ports are reported apart: out of context, the other
half of such a path lies in the neighbouring block.

yosys maps logic as written (it does not rebalance a chain of XORs into a
tree), so the figure is an upper bound of what Vivado's synthesis gives, and
counts no routing delay.

The deepest path in levels need not be the slowest: a LUT and its route
cost several times a MUXF or a CARRY step. So the register-to-register path
with the most LUTs is reported too.

Usage: depth.py NETLIST.json [--top NAME] [--trace reg|port|lut]
Prints three lines. "reg" and "port": levels, then LUT / CARRY / MUXF counts,
then the path's start and end register (by the net its output drives).
"lut": the most LUTs on a register-to-register path, then that path's
levels, CARRY and MUXF counts, start and end. --trace then lists that
path's cells from its end back to its start: the net each drives, with
the levels, LUTs and CARRYs up to it (the netlist of a block is kept,
gzipped, beside its cached results in /var/cache/kite/rtl-syn).
"""
import argparse
import json
from collections import defaultdict

LUT = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "LUT6_2", "INV"}
MUXF = {"MUXF7", "MUXF8", "MUXF9"}
CARRY = {"CARRY4", "CARRY8"}
# LUT RAMs: the read data follows the read address without a clock.
LUTRAM = {"RAM16X1D", "RAM32X1D", "RAM64X1D", "RAM128X1D", "RAM256X1D", "RAM32X1S", "RAM64X1S",
          "RAM128X1S", "RAM256X1S", "RAM512X1S", "RAM32M", "RAM32M16", "RAM64M", "RAM64M8"}
WIRE = {"BUF", "VCC", "GND"}                 # no level


def read_addr(out_port, in_port):
    """Whether a LUT RAM's read output follows this input: each read port
    its own address (DOx <- ADDRx, SPO/O <- A, DPO <- DPRA)."""
    if out_port.startswith("DO"):
        return in_port == "ADDR" + out_port[2:]
    if out_port == "DPO":
        return in_port.startswith("DPRA")
    return in_port.startswith("A") and not in_port.startswith("ADDR")


def analyse(mod, trace=None):
    cells = mod["cells"]
    names = {}                                # net bit -> readable name
    for n, x in sorted(mod["netnames"].items(), key=lambda kv: (kv[0].startswith("$"), len(kv[0]))):
        for i, b in enumerate(x["bits"]):
            if isinstance(b, int) and b not in names:
                names[b] = f"{n}[{i}]" if len(x["bits"]) > 1 else n
    # driver: net bit -> (cell, output port); inputs: (cell, output port) ->
    # the input bits that output follows without a clock.
    driver, inputs, kind = {}, defaultdict(list), {}
    for cname, c in cells.items():
        t = c["type"]
        k = ("lut" if t in LUT or t in LUTRAM else "muxf" if t in MUXF else "carry" if t in CARRY
             else "wire" if t in WIRE else "seq")
        kind[cname] = k
        dirs = c.get("port_directions", {})
        outs = [p for p in c["connections"] if dirs.get(p) == "output"]
        for port in outs:
            for b in c["connections"][port]:
                if isinstance(b, int):
                    driver[b] = (cname, port)
        if k == "seq":
            continue
        for port, bits in c["connections"].items():
            if dirs.get(port) != "input":
                continue
            for o in outs:
                if t in LUTRAM and not read_addr(o, port):
                    continue                  # the write side ends at the clock
                inputs[(cname, o)] += [b for b in bits if isinstance(b, int)]
    port_in, port_out = set(), set()
    for p in mod["ports"].values():
        for b in p["bits"]:
            if isinstance(b, int):
                (port_in if p["direction"] == "input" else port_out).add(b)

    def seq_name(cname):
        for port, bits in cells[cname]["connections"].items():
            if cells[cname].get("port_directions", {}).get(port) == "output":
                for b in bits:
                    if isinstance(b, int) and b in names:
                        return names[b]
        return cells[cname]["type"]

    # Per net bit: the deepest path to it from a register and from an input
    # port, and the path from a register with the most LUTs, each (levels,
    # luts, carries, start) or None. SIDES: which of them, and what max means.
    memo = {}
    by_levels = lambda t: t
    by_luts = lambda t: (t[1], t[0], t[2], t[3])
    SIDES = (by_levels, by_levels, by_luts)   # reg, port, reg by LUTs

    def depth(bit):
        stack = [bit]
        while stack:
            b = stack[-1]
            if b in memo:
                stack.pop()
                continue
            drv = driver.get(b)
            if drv is None:
                memo[b] = (None, (0, 0, 0, "input " + names.get(b, "?")) if b in port_in else None, None)
                stack.pop()
                continue
            cname = drv[0]
            if kind[cname] == "seq":
                memo[b] = ((0, 0, 0, seq_name(cname)), None, (0, 0, 0, seq_name(cname)))
                stack.pop()
                continue
            ins = inputs[drv]
            pend = [i for i in ins if i not in memo]
            if pend:
                if len(stack) > 4 * len(driver) + 16:
                    raise SystemExit(f"depth.py: combinational loop through {cname}")
                stack.extend(pend)
                continue
            k = kind[cname]
            out = []
            for side, key in enumerate(SIDES):
                cand = [memo[i][side] for i in ins if memo[i][side] is not None]
                if not cand:
                    out.append(None)
                    continue
                d = max(cand, key=key)
                out.append((d[0] + (k != "wire"), d[1] + (k == "lut"), d[2] + (k == "carry"), d[3]))
            memo[b] = tuple(out)
            stack.pop()
        return memo[bit]

    best = [None, None, None]                 # as SIDES: (depth tuple, end)
    for cname, c in cells.items():
        if kind[cname] != "seq" and c["type"] not in LUTRAM:   # a LUT RAM's inputs meet its write clock
            continue
        dirs = c.get("port_directions", {})
        for port, bits in c["connections"].items():
            if dirs.get(port) != "input":
                continue
            for b in bits:
                if not isinstance(b, int):
                    continue
                for side, d in enumerate(depth(b)):
                    key = SIDES[side]
                    if d and (best[side] is None or key(d) > key(best[side][0])):
                        best[side] = (d, seq_name(cname), b)
    for b in port_out:
        d = depth(b)[1]
        if d and (best[1] is None or d > best[1][0]):
            best[1] = (d, "output " + names.get(b, "?"), b)
    path = []
    if trace is not None and best[trace]:
        # Back from the end: at each cell, the input the path came through.
        b, key = best[trace][2], SIDES[trace]
        while True:
            drv = driver.get(b)
            path.append((memo[b][trace][:3], names.get(b, "?"), cells[drv[0]]["type"] if drv else "port"))
            if drv is None or kind[drv[0]] == "seq":
                break
            b = max((i for i in inputs[drv] if memo[i][trace] is not None), key=lambda i: key(memo[i][trace]))
    return [r[:2] if r else None for r in best], path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("netlist")
    ap.add_argument("--top")
    ap.add_argument("--trace", choices=("reg", "port", "lut"))
    a = ap.parse_args()
    with open(a.netlist) as f:
        mods = json.load(f)["modules"]
    top = a.top or next(n for n, m in mods.items() if int(m.get("attributes", {}).get("top", "0"), 2))
    labels = ("reg", "port", "lut")
    best, path = analyse(mods[top], labels.index(a.trace) if a.trace else None)
    for label, r in zip(labels, best):
        if r is None:
            print(f"{label} 0 levels" if label != "lut" else "lut 0 LUTs")
            continue
        (lv, luts, car, start), end = r
        if label == "lut":
            print(f"lut {luts} LUTs: {lv} levels, {car} CARRY, {lv - luts - car} MUXF; {start} -> {end}")
        else:
            print(f"{label} {lv} levels: {luts} LUT, {car} CARRY, {lv - luts - car} MUXF; {start} -> {end}")

    for (lv, luts, car), net, cell in path:
        print(f"  {lv:3} levels {luts:3} LUTs {car:2} CARRY  {cell:10} {net}")


if __name__ == "__main__":
    main()
