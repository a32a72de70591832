#!/usr/bin/env python3
"""Run Kite's VM tests and print TAP.

    tests/vm/run.py --topology b2b    one VM, two Kite cards back to back; runs the
                                      in-guest TAP scripts in tests/vm/guest/
    tests/vm/run.py --topology b2b --rdma
                                      the same for the RDMA scripts (*-rdma-*.sh), with
                                      rdma-core 56.1 and the Kite provider in the guest
    tests/vm/run.py --topology pair   two VMs whose Kite cards meet in tools/fabric;
                                      host-driven checks across the fabric

A guest that hangs is killed after its timeout and the test fails with the tail
of its console log; the topology is rebooted for the next script.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "vm"))
import kitevm  # noqa: E402

TAP_RE = re.compile(r"^(not ok|ok)\s+\d+\s*-?\s*(.*)$")


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def result(self, good, name, directive=""):
        self.n += 1
        if not good:
            self.failed += 1
        print(f"{'ok' if good else 'not ok'} {self.n} - {name}{(' # ' + directive) if directive else ''}", flush=True)

    def diag(self, text):
        for line in str(text).splitlines():
            print(f"# {line}", flush=True)


# What of the rdma-core install tree the guest needs: libraries, providers,
# tools, pyverbs; not headers, docs, diags or service files.
RDMA_CORE_PARTS = ["usr/bin", "usr/lib/x86_64-linux-gnu", "usr/lib/python3", "etc/libibverbs.d", "etc/rdma"]


def add_rdma_core(dst):
    """rdma-core 56.1 with the Kite provider (tools/rdma-core/build.sh), laid over
    the guest's root at boot by init.d/10-rdma-core, ahead of Debian's 44.0."""
    inst = subprocess.run([os.path.join(ROOT, "tools", "rdma-core", "build.sh"), "--print-install"],
                          check=True, stdout=subprocess.PIPE, text=True).stdout.strip().splitlines()[-1]
    for part in RDMA_CORE_PARTS:
        src = os.path.join(inst, part)
        if os.path.exists(src):
            shutil.copytree(src, os.path.join(dst, "rdma-core", part), symlinks=True)
    os.makedirs(os.path.join(dst, "init.d"), exist_ok=True)
    with open(os.path.join(dst, "init.d", "10-rdma-core"), "w") as f:
        f.write("cp -a /kite/rdma-core/. / && ldconfig\n")


def build_payload(series, rdma=False):
    """/kite in the guest: modules/ (our .ko files) and tests/ (guest scripts);
    with rdma, also rdma-core/ and init.d/ (add_rdma_core)."""
    dst = os.path.join(ROOT, "build", "payload", series + ("-rdma" if rdma else ""))
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(os.path.join(dst, "modules"))
    kos = glob.glob(os.path.join(ROOT, "build", "kernel", series, "**", "*.ko"), recursive=True)
    if not kos:
        sys.exit(f"no modules built for {series}: run make kernel KVER_SERIES={series}")
    for ko in kos:
        shutil.copy(ko, os.path.join(dst, "modules"))
    shutil.copytree(os.path.join(HERE, "guest"), os.path.join(dst, "tests"))
    if rdma:
        add_rdma_core(dst)
    return dst


def run_guest_scripts(args, tap, payload):
    scripts = sorted(glob.glob(os.path.join(HERE, "guest", "[0-9]*.sh")))
    # RDMA scripts need rdma-core in the payload: they run with --rdma only.
    scripts = [s for s in scripts if ("-rdma-" in os.path.basename(s)) == args.rdma]
    if args.only:
        scripts = [s for s in scripts if any(o in os.path.basename(s) for o in args.only)]
    topo = None
    try:
        for script in scripts:
            name = os.path.basename(script)[:-3]
            if topo is None:
                t0 = time.time()
                topo = kitevm.b2b(kernel=args.kernel, payload=payload, mem=args.mem)
                tap.diag(f"b2b VM booted in {time.time() - t0:.0f}s")
            vm = topo.vms[0]
            try:
                rc, out, err = vm.run(f"bash /kite/tests/{os.path.basename(script)}", timeout=args.timeout,
                                      check=False)
            except kitevm.VMError as e:
                tap.result(False, f"{name}: guest hung or died")
                tap.diag(e)
                topo.close()
                topo = None
                continue
            seen = 0
            for line in out.splitlines():
                m = TAP_RE.match(line)
                if m:
                    seen += 1
                    desc = m.group(2)
                    directive = ""
                    if " # " in desc:
                        desc, directive = desc.split(" # ", 1)
                    tap.result(m.group(1) == "ok", f"{name}: {desc}", directive)
                elif line.startswith("#") or line.startswith("Bail out"):
                    print(line if line.startswith("#") else f"# {line}", flush=True)
            if rc == -9:
                tap.result(False, f"{name}: finished within {args.timeout}s")
                tap.diag(vm.console_tail(30))
            elif rc != 0 and seen == 0:
                tap.result(False, f"{name}: produced TAP output (exit {rc})")
                tap.diag(err[-2000:])
            if rc != 0:
                dm = vm.run("dmesg | tail -n 40", timeout=30, check=False)[1]
                tap.diag("dmesg tail:\n" + dm)
    finally:
        if topo:
            topo.close()


def run_pair(args, tap, payload):
    t0 = time.time()
    try:
        topo = kitevm.pair(kernel=args.kernel, payload=payload, mem=args.mem, extra=())
    except kitevm.VMError as e:
        tap.result(False, "pair: two VMs boot")
        tap.diag(e)
        return
    tap.result(True, "pair: two VMs boot")
    tap.diag(f"booted in {time.time() - t0:.0f}s")
    with topo:
        a, b = topo.vms
        ips = {a: ("192.0.2.1", "2001:db8::1"), b: ("192.0.2.2", "2001:db8::2")}

        def step(name, fn):
            try:
                fn()
                tap.result(True, f"pair: {name}")
                return True
            except (kitevm.CommandError, kitevm.VMError, AssertionError) as e:
                tap.result(False, f"pair: {name}")
                tap.diag(e)
                return False

        def up():
            for vm in (a, b):
                v4, v6 = ips[vm]
                vm.run(". /kite/tests/lib.sh && load_kite 1 && dev=$(kite_netdevs) && "
                       f"ip link set $dev name kite0 && ip link set kite0 up && "
                       f"ip addr add {v4}/24 dev kite0 && ip addr add {v6}/64 dev kite0 nodad", timeout=60)
            for vm in (a, b):
                vm.run("for i in $(seq 100); do [ $(cat /sys/class/net/kite0/carrier) = 1 ] && exit 0; "
                       "sleep 0.1; done; exit 1", timeout=30)

        if not step("driver loads on both hosts, link up through the fabric", up):
            return
        step("ping host1 -> host2", lambda: a.run("ping -c 3 -i 0.2 -W 2 192.0.2.2", timeout=30))
        step("ping host2 -> host1 (IPv6)", lambda: b.run("ping -6 -c 3 -i 0.2 -W 2 2001:db8::1", timeout=30))

        def jumbo():
            for vm in (a, b):
                vm.run("ip link set kite0 mtu 9000", timeout=30)
            a.run("ping -M do -s 8972 -c 3 -i 0.2 -W 2 192.0.2.2", timeout=30)
        step("ping at MTU 9000 across the fabric", jumbo)

        def iperf(reverse):
            b.run("iperf3 -s -D -1 -p 5201", timeout=30)
            time.sleep(0.5)
            rc, out, _ = a.run(f"iperf3 -c 192.0.2.2 -p 5201 -t 4 {'-R' if reverse else ''} "
                               "| tail -n 4", timeout=60)
            tap.diag(out.strip())
        step("iperf3 TCP host1 -> host2", lambda: iperf(False))
        step("iperf3 TCP host2 -> host1", lambda: iperf(True))

        def clean():
            for vm in (a, b):
                rc, out, _ = vm.run("dmesg | grep -E 'WARNING:|BUG:|Oops|kite.*timed? ?out' || true", timeout=30)
                assert not out.strip(), out
        step("no warnings in either dmesg", clean)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--topology", choices=["b2b", "pair"], default="b2b")
    ap.add_argument("--kernel", default="6.1")
    ap.add_argument("--mem", type=int, default=1024)
    ap.add_argument("--timeout", type=int, default=600, help="per guest script, seconds")
    ap.add_argument("--only", action="append", help="run only guest scripts whose name contains this")
    ap.add_argument("--rdma", action="store_true",
                    help="b2b: run the RDMA scripts (*-rdma-*.sh) with rdma-core in the payload")
    args = ap.parse_args()
    payload = build_payload(args.kernel, rdma=args.rdma)
    tap = Tap()
    print("TAP version 13", flush=True)
    if args.topology == "b2b":
        run_guest_scripts(args, tap, payload)
    else:
        run_pair(args, tap, payload)
    print(f"1..{tap.n}", flush=True)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
