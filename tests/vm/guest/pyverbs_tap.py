#!/usr/bin/env python3
"""Turns the verbose (-v) stderr of rdma-core's tests/run_tests.py into
unnumbered TAP lines for 77-rdma-pyverbs.sh to number: one per test class
(not ok if any of its tests failed or errored, SKIP when all were skipped),
the skip reasons with their counts, then the suite's own verdict.
Usage: pyverbs_tap.py LOG EXIT_STATUS"""
import collections
import re
import sys

START = re.compile(r"^(\w+) \((tests\.[\w.]+)\)")
RESULT = re.compile(r" \.\.\. (ok|FAIL|ERROR|skipped (.*)|expected failure|unexpected success)$")
VERDICT = re.compile(r"^(OK|FAILED)\b.*$")


def cls_short(cls):
    return cls[len("tests."):]


def main():
    log, status = sys.argv[1], int(sys.argv[2])
    lines = open(log, errors="replace").read().splitlines()
    classes = collections.OrderedDict()
    reasons = collections.OrderedDict()   # reason -> [test, ...]
    cur = None
    verdict = ran = None
    for line in lines:
        m = START.match(line)
        if m:
            cur = m.group(2).rsplit(".", 1)[0]   # tests.test_cq.CQTest
            m_test = m.group(1)
            classes.setdefault(cur, collections.Counter())
        r = RESULT.search(line)
        if r and cur:
            word = r.group(1)
            if word.startswith("skipped"):
                classes[cur]["skip"] += 1
                reasons.setdefault(r.group(2).strip("'\""), []).append(f"{cls_short(cur)}.{m_test}")
            elif word in ("ok", "expected failure"):
                classes[cur]["pass"] += 1
            else:
                classes[cur]["fail"] += 1
            cur = None
        if line.startswith("Ran "):
            ran = line
        v = VERDICT.match(line)
        if v:
            verdict = line
    failed = 0
    for cls, c in classes.items():
        name = cls_short(cls)
        desc = f"{name}: {c['pass']} passed, {c['skip']} skipped, {c['fail']} failed"
        if c["fail"]:
            failed += 1
            print(f"not ok - {desc}")
        elif c["pass"] == 0:
            print(f"ok - {desc} # SKIP all skipped")
        else:
            print(f"ok - {desc}")
    for why, which in sorted(reasons.items(), key=lambda x: -len(x[1])):
        print(f"# skipped {len(which)}x: {why}: {' '.join(which)}")
    # The failure reports (tracebacks) follow the per-test lines.
    tail = False
    for line in lines:
        if line.startswith(("FAIL: ", "ERROR: ")):
            tail = True
        if tail and not line.startswith("Ran "):
            print("# " + line)
        if line.startswith("Ran "):
            tail = False
    good = status == 0 and verdict is not None and verdict.startswith("OK")
    print(f"{'ok' if good else 'not ok'} - run_tests.py: {ran or 'no tests ran'}, "
          f"{verdict or 'no verdict'} (exit {status})")
    return 0 if good and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
