#!/usr/bin/env python3
"""Run the kernel's own NIC selftests (linux-source-6.12:
tools/testing/selftests/drivers/net and drivers/net/hw) against Kite in the
6.12 b2b VM: port 1 is NETIF, port 2 in a namespace is the remote end. Prints
TAP: one line per selftest case ("ok - drivers/net/ping.py: test_v4"); cases
the selftest skips are reported as skips with its reason.

    tests/vm/selftests.py [--kernel 6.12] [TEST...]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "vm"))
import kitevm  # noqa: E402
import run as vmrun  # noqa: E402

TESTS = ["ping.py", "stats.py", "queues.py", "hw/csum.py", "hw/rss_ctx.py", "hw/pp_alloc_fail.py"]
CASE_RE = re.compile(r"^\s*(not ok|ok)\s+\d+\s+(\S+)(?:\s+#\s*(\w+)\s*(.*))?$")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tests", nargs="*", default=TESTS)
    ap.add_argument("--kernel", default="6.12")
    ap.add_argument("--mem", type=int, default=1536)
    args = ap.parse_args()
    src = subprocess.run([os.path.join(ROOT, "tools", "setup", "selftests.sh")], check=True,
                         capture_output=True, text=True).stdout.strip()
    payload = vmrun.build_payload(args.kernel)
    dst = os.path.join(payload, "selftests")
    for sub in ("tools/testing/selftests/drivers/net", "tools/testing/selftests/net/lib",
                "tools/testing/selftests/kselftest", "tools/net/ynl", "Documentation/netlink"):
        shutil.copytree(os.path.join(src, sub), os.path.join(dst, sub), dirs_exist_ok=True)
    n = failed = 0
    print("TAP version 13", flush=True)

    def result(good, name, directive=""):
        nonlocal n, failed
        n += 1
        failed += not good
        print(f"{'ok' if good else 'not ok'} {n} - {name}{(' # ' + directive) if directive else ''}", flush=True)

    topo = kitevm.b2b(kernel=args.kernel, payload=payload, mem=args.mem)
    try:
        rc, out, err = topo.vms[0].run("bash /kite/tests/selftests-run.sh " + " ".join(args.tests),
                                       timeout=300 * len(args.tests) + 120, check=False)
    finally:
        topo.close()
    current, seen = None, 0
    for line in out.splitlines():
        if line.startswith("=== exit"):
            if current and not seen:
                result(False, f"drivers/net/{current}: ran ({line[4:]})")
            current = None
            continue
        if line.startswith("=== "):
            current, seen = line[4:], 0
            continue
        m = CASE_RE.match(line)
        if current and m and not line.startswith(" "):
            seen += 1
            directive = m.group(3) or ""
            name = f"drivers/net/{current}: {m.group(2)}"
            if directive.upper() in ("SKIP", "XFAIL"):
                result(True, name, f"SKIP {m.group(4)}")
            else:
                result(m.group(1) == "ok", name)
        elif line.startswith("#") or (current and line.strip()):
            print(f"# {line}", flush=True)
    if rc != 0 and not n:
        result(False, f"selftests ran (exit {rc})")
        print("# " + err[-2000:].replace("\n", "\n# "))
    print(f"1..{n}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
