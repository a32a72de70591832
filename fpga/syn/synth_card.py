#!/usr/bin/env python3
"""yosys synthesis of the card top, bottom-up (out of context per block).

One flattened synth_xilinx run of all of kite_card did not finish in 45
minutes of CPU with yosys 0.23, so the top is synthesized the way large FPGA
designs are: each block out of context, then the top with its blocks as
black boxes.

  1. The top's own logic (kite_card, kite_card_txq, kite_card_txg,
     kite_card_fcs: TX descriptor queues, gather, FCS, glue) is synthesized by synth_xilinx with every block of
     fpga/rtl/blocks.list read as a black box (read_verilog -lib): yosys
     elaborates the whole hierarchy and checks every instance's ports.
  2. Every black-box instance is matched to its block. Instances with the
     block's default parameters use that block's own result (fpga/check.sh
     synthesizes the blocks first); others are synthesized again with the
     instance's parameters (chparam), cached like every block.
  3. build/rtl/syn/card/stat.txt is the sum of the top's cells and every
     instance's cells, which fpga/syn/report.py turns into the card's row;
     build/rtl/syn/card/parts.json lists the parts (for the report).

No optimization crosses a block boundary, so the sum is an upper bound of
what a flattened run would report.

The same way, kite_card_sys (the card with its control CPU) is its own
logic plus the results of kite_card (above), kite_cpu_sys, kite_cpu_io and
kite_flash:

  synth_card.py --top kite_card_sys --name card_sys --own kite_card_sys.sv FILE...

With --prepare it only fills the cache with what is this top's own work
(its logic, and its instances with other parameters), leaving the blocks
and the sum to the run without it: fpga/check.sh runs it beside the block
syntheses, so that neither core waits for the top at the end.

Usage: synth_card.py [--prepare] [--top T --name N --own FILE,...] FILE...
(the sources, as in blocks.list)
"""
import argparse
import functools
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SYN = ROOT / "build" / "rtl" / "syn"
CACHE = pathlib.Path(os.environ.get("KITE_CACHE", "/var/cache/kite")) / "rtl-syn"
TOP = "kite_card"
NAME = "card"
# Card-only modules: synthesized with the top, not black boxes.
CARD_OWN = {"kite_card.sv", "kite_card_txq.sv", "kite_card_txg.sv", "kite_card_fcs.sv"}
COMMON = {"kite_pkg.sv", "kite_rtl_pkg.sv"}
COMMON_SRCS = ["fpga/rtl/common/kite_pkg.sv", "fpga/rtl/common/kite_rtl_pkg.sv"]  # as fpga/check.sh passes them


def blocks():
    out = {}
    for line in (ROOT / "fpga/rtl/blocks.list").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, top, _tb, *srcs = line.split()
        if top != TOP:
            out[top] = (name, srcs)
    return out


@functools.lru_cache(maxsize=None)
def yosys_version():
    return subprocess.run(["yosys", "-V"], capture_output=True, text=True, check=True).stdout


def cached_yosys(tag, files, script, outputs):
    """Run a yosys script whose results are OUTPUTS (file names it writes in
    its working directory); cached by the content of FILES and the script,
    not by where the tree is (the script names files by absolute path, and
    every clone would otherwise synthesize the card again)."""
    h = hashlib.sha256()
    for f in files:
        h.update(pathlib.Path(f).read_bytes())
    h.update(script.replace(str(ROOT), "@ROOT@").encode())
    h.update(yosys_version().encode())
    stamp = h.hexdigest()[:16]
    cache = CACHE / stamp
    if all((cache / o).is_file() and (cache / o).stat().st_size for o in outputs):
        return cache
    work = SYN / NAME / tag
    work.mkdir(parents=True, exist_ok=True)
    print(f"# synthesizing {tag} (yosys)", flush=True)
    with open(work / "yosys.log", "w") as log:
        r = subprocess.run(["yosys", "-q", "-l", str(work / "yosys.log.full"), "-p", script],
                           cwd=work, stdout=log, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        tail = (work / "yosys.log.full").read_text(errors="replace").splitlines()[-20:]
        sys.exit(f"yosys failed for {tag}:\n" + "\n".join(tail))
    try:
        cache.mkdir(parents=True, exist_ok=True)
        for o in outputs:
            tmp = cache / (o + ".tmp")
            tmp.write_bytes((work / o).read_bytes())
            tmp.rename(cache / o)
        return cache
    except OSError:  # an unwritable cache only costs the next run time
        return work


def sv_value(text):
    """A SystemVerilog parameter literal or yosys constant as an int, else None."""
    t = text.strip().replace("_", "")
    if re.fullmatch(r"\d+", t):
        return int(t)
    if t in ("'0", "'1"):
        return 0 if t == "'0" else -1
    m = re.fullmatch(r"(\d*)'s?([hdbo])([0-9a-fA-F]+)", t)
    if m:
        return int(m.group(3), {"h": 16, "d": 10, "b": 2, "o": 8}[m.group(2)])
    m = re.fullmatch(r"(\d+)'([01]+)", t)  # yosys dump: width'bits
    if m:
        return int(m.group(2), 2)
    return None


def defaults(module, srcs):
    """Parameter defaults (as written) from the module's #(...) header."""
    for f in srcs:
        text = (ROOT / f).read_text()
        m = re.search(r"^module\s+" + module + r"\s*#\s*\((.*?)\)\s*\(", text, re.S | re.M)
        if m:
            body = re.sub(r"//[^\n]*", "", m.group(1))
            return {p: v.strip() for p, v in
                    re.findall(r"parameter\s+[^=,]*?(\w+)\s*=\s*([^,]+)", body)}
    return {}


def cells(stat):
    out = {}
    for m in re.finditer(r"^\s+([A-Za-z$\\][\w$\\]*)\s+(\d+)\s*$", stat, re.M):
        out[m.group(1)] = out.get(m.group(1), 0) + int(m.group(2))
    return out


def is_default(v, dflt):
    """A dumped parameter value against the header's default: numbers by
    value; an empty string default (ROM_HEX) against yosys's empty value."""
    if dflt is None:
        return False
    if sv_value(v) is not None:
        return sv_value(v) == sv_value(dflt)
    return dflt == '""' and v in ('""', "0'")


def main():
    global TOP, NAME, CARD_OWN
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--top", default=TOP)
    ap.add_argument("--name", default=NAME)
    ap.add_argument("--own", help="comma-separated file names synthesized with the top")
    ap.add_argument("--prepare", action="store_true",
                    help="only synthesize the top's logic and its instances with other parameters (cached)")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    TOP, NAME = a.top, a.name
    if a.own:
        CARD_OWN = set(a.own.split(","))
    files = [str(ROOT / f) if not os.path.isabs(f) else f for f in a.files]
    own = [f for f in files if os.path.basename(f) in CARD_OWN]
    common = [f for f in files if os.path.basename(f) in COMMON]
    lib = [f for f in files if f not in own and f not in common]
    glue = (f"read_verilog -sv {' '.join(common)}; read_verilog -sv -lib {' '.join(lib)}; "
            f"read_verilog -sv {' '.join(own)}; hierarchy -check -top {TOP}; "
            f"synth_xilinx -family xcup -top {TOP} -flatten -noiopad -noclkbuf; "
            "tee -q -o stat.txt stat; tee -q -o cells.txt dump t:kite_*")
    gdir = cached_yosys("top", files, glue, ["stat.txt", "cells.txt"])
    top_cells = cells((gdir / "stat.txt").read_text())

    # black-box instances: (module, overridden parameters)
    insts = []
    for m in re.finditer(r"^  cell \\(\S+) (\S+)\n((?:    parameter .*\n)*)",
                         (gdir / "cells.txt").read_text(), re.M):
        params = dict((p, v) for p, v in re.findall(r"parameter (?:signed )?\\(\w+) (\S+)", m.group(3)))
        insts.append((m.group(1), m.group(2), params))
    known = blocks()
    total = {k: v for k, v in top_cells.items() if re.fullmatch(r"[A-Z][A-Z0-9_]+", k)}
    parts = [{"instance": "(top)", "module": TOP + " own logic",
              "from": ", ".join(sorted(f.removesuffix(".sv") for f in CARD_OWN)), "cells": dict(total)}]
    prepared = 0
    for module, inst, params in insts:
        if module not in known:
            sys.exit(f"{inst}: black box {module} is not a block of fpga/rtl/blocks.list")
        name, srcs = known[module]
        dflt = defaults(module, srcs)
        over = {p: v for p, v in params.items() if not is_default(v, dflt.get(p))}
        if not over:
            if a.prepare:
                continue  # the block's own synthesis (fpga/check.sh's job)
            # The block's own result, brought up to date by synth.sh (a cache
            # hit when fpga/check.sh has just synthesized it; with --only card
            # the block's build/rtl/syn copy may be from older sources).
            # The card inside card_sys is this script's own bottom-up result.
            if name != "card":
                r = subprocess.run([str(ROOT / "fpga/syn/synth.sh"), name, module, *COMMON_SRCS, *srcs], cwd=ROOT)
                if r.returncode != 0:
                    sys.exit(f"synthesis of block {name} failed")
            stat = SYN / name / "stat.txt"
            if not stat.is_file():
                sys.exit(f"no synthesis result for block {name} (fpga/check.sh synthesizes it first)")
            how = f"block {name}"
        else:
            chp = " ".join(f"chparam -set {p} {sv_value(v)} {module};" for p, v in sorted(over.items()))
            srcs_abs = [str(ROOT / s) for s in COMMON_SRCS + srcs]
            script = (f"read_verilog -sv {' '.join(srcs_abs)}; {chp} "
                      f"synth_xilinx -family xcup -top {module} -flatten -noiopad -noclkbuf; tee -q -o stat.txt stat")
            tag = name + "-" + "-".join(f"{p}{sv_value(v)}" for p, v in sorted(over.items()))
            stat = cached_yosys(tag, srcs_abs, script, ["stat.txt"]) / "stat.txt"
            if a.prepare:
                prepared += 1
                continue
            how = f"block {name} with {', '.join(f'{p}={sv_value(v)}' for p, v in sorted(over.items()))}"
        # blocks are flattened: one section, primitive cells only
        c = {k: v for k, v in cells(stat.read_text()).items() if re.fullmatch(r"[A-Z][A-Z0-9_]+", k)}
        for k, v in c.items():
            total[k] = total.get(k, 0) + v
        parts.append({"instance": inst.lstrip("\\"), "module": module, "from": how, "cells": c})
    if a.prepare:
        print(f"# {TOP}: its own logic and {prepared} instances with other parameters are synthesized (cached)")
        return 0
    out = SYN / NAME
    out.mkdir(parents=True, exist_ok=True)
    (out / "parts.json").write_text(json.dumps(parts, indent=1) + "\n")
    (out / "stat.txt").write_text(
        f"=== {TOP} (own logic + {len(insts)} block instances, synthesized bottom-up) ===\n\n"
        "   Number of cells: " + str(sum(total.values())) + "\n" +
        "".join(f"     {k:<28}{v}\n" for k, v in sorted(total.items())))
    for p in parts:
        lut = sum(v for k, v in p["cells"].items() if re.fullmatch(r"LUT[1-6]", k))
        print(f"{p['instance']}: {p['module']} ({p['from']}): {lut} LUTs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
