#!/usr/bin/env python3
"""Kite test runner: builds what is stale, runs every suite, prints one summary.

Each suite is a command whose output is TAP ("ok N - name", "not ok N - name",
"# SKIP reason") or CTest. A build step that fails counts as one failed test and
the suites that need it are skipped with the reason. The last line is
"N passed, N failed, N skipped".

    tests/run.py                 all suites of `make test`
    tests/run.py --list          list suites
    tests/run.py SUITE...        only these suites (and the steps they need)
"""
import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGDIR = os.path.join(ROOT, "build", "test-logs")

# name, command, kind (step|tap|ctest), needs, in default `make test`
SUITES = [
    ("deps", ["tools/setup/deps.sh", "build", "qemu", "vm", "rtl"], "step", [], True),
    ("spec", ["python3", "tests/spec/check_spec.py"], "tap", [], True),
    ("test-tools", ["python3", "tests/tools/test_pcapcheck.py"], "tap", [], True),
    ("model-build", ["make", "-s", "model"], "step", ["deps"], True),
    ("model-unit", ["ctest", "--test-dir", "build/model", "--output-on-failure"], "ctest", ["model-build"], True),
    ("firmware-rv32", ["make", "-s", "firmware-rv32"], "step", ["deps"], True),
    ("kernel-build", ["make", "-s", "kernel", "KVER_SERIES=6.1"], "step", ["deps"], True),
    ("kernel-static", ["tests/static/kernel_checks.sh"], "tap", ["kernel-build"], True),
    ("fabric-build", ["make", "-s", "fabric"], "step", ["deps"], True),
    ("fabric-unit", ["python3", "tools/fabric/test_fabric.py"], "tap", ["fabric-build"], True),
    ("qemu-build", ["make", "-s", "qemu"], "step", ["deps"], True),
    ("images", ["make", "-s", "images", "KVER_SERIES=6.1"], "step", ["deps"], True),
    ("vm-b2b", ["python3", "tests/vm/run.py", "--topology", "b2b"], "tap",
     ["model-build", "kernel-build", "qemu-build", "images"], True),
    ("vm-pair", ["python3", "tests/vm/run.py", "--topology", "pair"], "tap",
     ["model-build", "kernel-build", "qemu-build", "images", "fabric-build"], True),
    ("rdma-core", ["tools/rdma-core/build.sh"], "step", ["deps"], True),
    ("vm-rdma", ["python3", "tests/vm/run.py", "--topology", "b2b", "--rdma"], "tap",
     ["model-build", "kernel-build", "qemu-build", "images", "rdma-core"], True),
    ("vm-rdma-pair", ["python3", "tests/vm/run.py", "--topology", "pair", "--rdma"], "tap",
     ["model-build", "kernel-build", "qemu-build", "images", "fabric-build", "rdma-core"], True),
    ("rtl", ["fpga/check.sh"], "tap", ["deps"], True),
    # Co-simulation of the RTL card (make cosim, not in `make test`): the
    # model's unit scenarios through the card ABI against both libraries,
    # then kite.ko in a VM on the Verilated card against a model card. Out
    # of `make test` for its time on a fresh machine (about 6 minutes, the
    # library's build most of it), which the rtl suite's syntheses need.
    ("rtl-card-abi", ["python3", "fpga/cosim/check_abi.py"], "tap", ["model-build"], False),
    ("vm-cosim", ["python3", "tests/vm/cosim.py"], "tap",
     ["model-build", "kernel-build", "qemu-build", "images", "fabric-build"], False),
    # Extra suites (not in `make test`): the b2b guest scripts on Debian's
    # 6.12 kernel, and the kernel's own NIC selftests (linux-source-6.12).
    ("kernel-build-6.12", ["make", "-s", "kernel", "KVER_SERIES=6.12"], "step", ["deps"], False),
    ("images-6.12", ["make", "-s", "images", "KVER_SERIES=6.12"], "step", ["deps"], False),
    ("vm-b2b-6.12", ["python3", "tests/vm/run.py", "--topology", "b2b", "--kernel", "6.12"], "tap",
     ["model-build", "kernel-build-6.12", "qemu-build", "images-6.12"], False),
    ("vm-rdma-6.12", ["python3", "tests/vm/run.py", "--topology", "b2b", "--rdma", "--kernel", "6.12"], "tap",
     ["model-build", "kernel-build-6.12", "qemu-build", "images-6.12", "rdma-core"], False),
    ("selftests", ["python3", "tests/vm/selftests.py", "--kernel", "6.12"], "tap",
     ["model-build", "kernel-build-6.12", "qemu-build", "images-6.12"], False),
]

TAP_RE = re.compile(r"^\s*(not ok|ok)\b\s*(\d+)?\s*-?\s*(.*)$")
CTEST_RE = re.compile(r"Test\s+#\d+:\s+(\S+)\s+\.*\s*(?:\*+)?\s*(Passed|Failed|Not Run|Skipped|Timeout|Exception|\w+)")


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.failures = []

    def add(self, suite, name, status, why=""):
        if status == "pass":
            self.passed += 1
        elif status == "skip":
            self.skipped += 1
        else:
            self.failed += 1
            self.failures.append(f"{suite}: {name}" + (f" ({why})" if why else ""))
        mark = {"pass": "ok", "skip": "skip", "fail": "FAIL"}[status]
        print(f"  [{mark}] {suite}: {name}" + (f" # {why}" if why and status != "pass" else ""), flush=True)


def run_suite(name, cmd, kind, tally):
    os.makedirs(LOGDIR, exist_ok=True)
    log = os.path.join(LOGDIR, f"{name}.log")
    t0 = time.time()
    print(f"== {name}: {' '.join(cmd)} (log: {os.path.relpath(log, ROOT)})", flush=True)
    results = []
    with open(log, "w") as lf:
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace", stdin=subprocess.DEVNULL)
        for line in p.stdout:
            lf.write(line)
            lf.flush()
            s = line.rstrip("\n")
            if kind == "tap":
                m = TAP_RE.match(s)
                if m and not s.lstrip().startswith("#"):
                    desc = m.group(3)
                    skip = re.search(r"#\s*SKIP\b\s*(.*)$", desc, re.I)
                    title = re.sub(r"\s*#.*$", "", desc).strip() or f"test {m.group(2)}"
                    if skip:
                        results.append((title, "skip", skip.group(1)))
                    else:
                        results.append((title, "pass" if m.group(1) == "ok" else "fail", ""))
                    tally.add(name, *results[-1])
                    continue
            elif kind == "ctest":
                m = CTEST_RE.search(s)
                if m:
                    st = {"Passed": "pass", "Skipped": "skip", "Not Run": "skip"}.get(m.group(2), "fail")
                    results.append((m.group(1), st, "" if st == "pass" else m.group(2)))
                    tally.add(name, *results[-1])
                    continue
            if kind == "step" or s.startswith(("[", "==", "#")) or "progress" in s.lower():
                print(f"    {s}", flush=True)
        rc = p.wait()
    dt = time.time() - t0
    if kind == "step":
        tally.add(name, "build", "pass" if rc == 0 else "fail", "" if rc == 0 else f"exit {rc}, see {os.path.relpath(log, ROOT)}")
    elif rc != 0 and not any(r[1] == "fail" for r in results):
        # a crash or harness failure that reported no failing test is still a failure
        tally.add(name, "suite exit status", "fail", f"exit {rc}, see {os.path.relpath(log, ROOT)}")
    elif not results:
        tally.add(name, "suite ran no test", "fail", f"see {os.path.relpath(log, ROOT)}")
    if rc != 0:
        tail = open(log, errors="replace").read().splitlines()[-25:]
        print("    --- last lines of the log ---")
        for t in tail:
            print(f"    | {t}")
    print(f"== {name}: done in {dt:.0f}s (exit {rc})", flush=True)
    return rc == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suites", nargs="*")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    table = {s[0]: s for s in SUITES}
    if args.list:
        for s in SUITES:
            print(f"{s[0]:16} {'default' if s[4] else 'extra':8} {' '.join(s[1])}")
        return 0
    if args.suites:
        want = set()

        def add(n):
            if n not in table:
                sys.exit(f"unknown suite {n}")
            want.add(n)
            for d in table[n][3]:
                add(d)
        for n in args.suites:
            add(n)
        order = [s for s in SUITES if s[0] in want]
    else:
        order = [s for s in SUITES if s[4]]
    tally = Tally()
    ok = {}
    t0 = time.time()
    for name, cmd, kind, needs, _ in order:
        missing = [d for d in needs if not ok.get(d, False)]
        if missing:
            tally.add(name, "suite", "skip", f"needs {', '.join(missing)}, which failed")
            ok[name] = False
            continue
        ok[name] = run_suite(name, cmd, kind, tally)
    print(f"\nTotal time {time.time() - t0:.0f}s")
    if tally.failures:
        print("Failures:")
        for f in tally.failures:
            print(f"  {f}")
    print(f"{tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
