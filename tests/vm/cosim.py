#!/usr/bin/env python3
"""QEMU co-simulation of the RTL card (TAP).

Two VMs whose Kite cards meet on a tools/fabric wire (the vm-pair topology).
Host A's QEMU loads libkite_rtlcard.so (the Verilated kite_card with the
firmware beside it, fpga/cosim), host B the C++ model. The real kite.ko
boots on both; then ping, ping at MTU 9000 and a short iperf3 each way. The
same steps run first with the model on both sides, so the RTL figures (ping
RTT, iperf3 throughput) come with a model-vs-model baseline from the same
run. Then the RTL's offload engines on the wire: a TCP transfer from A with
TSO, captured on B and checked by tests/vm/guest/pcapcheck.py (every segment
within the MSS, checksums valid, sequence contiguous), and one from B whose
checksums A's RTL parser verified.

    tests/vm/cosim.py [--kernel 6.1] [--no-baseline] [--iperf-seconds N]
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "vm"))
import kitevm  # noqa: E402

_spec = importlib.util.spec_from_file_location("vmrun", os.path.join(HERE, "run.py"))
vmrun = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vmrun)

MODEL = os.path.join(ROOT, "build", "model", "libkite_model.so")
IPS = ("192.0.2.1", "192.0.2.2")


def one_pair(args, tap, payload, tag, card_a, stats_file=None):
    """Boots host A (card_a) and host B (the model), runs the steps; returns figures."""
    fig = {}
    t0 = time.time()
    if stats_file:
        os.environ["KITE_RTL_STATS"] = stats_file
    try:
        topo = kitevm.pair(kernel=args.kernel, payload=payload, mem=args.mem, extra=(), start=False)
        topo.vms[0].card = card_a
        topo.vms[1].card = MODEL
        topo.start(timeout=300)
    except kitevm.VMError as e:
        tap.result(False, f"{tag}: two VMs boot")
        tap.diag(e)
        return fig
    finally:
        os.environ.pop("KITE_RTL_STATS", None)
    tap.result(True, f"{tag}: two VMs boot")
    tap.diag(f"booted in {time.time() - t0:.0f}s")
    with topo:
        a, b = topo.vms

        def step(name, fn):
            t = time.time()
            try:
                fn()
                tap.result(True, f"{tag}: {name}")
                tap.diag(f"{time.time() - t:.1f}s")
                return True
            except (kitevm.CommandError, kitevm.VMError, AssertionError) as e:
                tap.result(False, f"{tag}: {name}")
                tap.diag(e)
                return False

        def up():
            for vm, ip in ((a, IPS[0]), (b, IPS[1])):
                vm.run(". /kite/tests/lib.sh && load_kite 1 && dev=$(kite_netdevs) && "
                       f"ip link set $dev name kite0 && ip link set kite0 up && "
                       f"ip addr add {ip}/24 dev kite0", timeout=300)
            for vm in (a, b):
                vm.run("for i in $(seq 300); do [ $(cat /sys/class/net/kite0/carrier) = 1 ] && exit 0; "
                       "sleep 0.1; done; exit 1", timeout=60)

        if not step("kite.ko loads on both hosts, link up through the fabric", up):
            return fig

        def rtt(out):
            m = re.search(r"= [\d.]+/([\d.]+)/", out)
            assert m, out
            return float(m.group(1))

        def ping():
            a.run(vmrun.PING_UNTIL.format(ip=IPS[1]).replace("timeout 30", "timeout 120"), timeout=150)
            rc, out, _ = a.run(f"ping -c 5 -i 0.2 -W 5 {IPS[1]}", timeout=120)
            fig["rtt_ms"] = rtt(out)
            tap.diag(out.strip().splitlines()[-1])
        step("ping A -> B", ping)

        def jumbo():
            for vm in (a, b):
                vm.run("ip link set kite0 mtu 9000", timeout=60)
            rc, out, _ = a.run(f"ping -M do -s 8972 -c 3 -i 0.5 -W 5 {IPS[1]}", timeout=120)
            fig["rtt9000_ms"] = rtt(out)
            tap.diag(out.strip().splitlines()[-1])
        step("ping at MTU 9000 (both sides mtu 9000)", jumbo)

        def iperf(reverse):
            b.run("iperf3 -s -D -1 -p 5201", timeout=30)
            time.sleep(0.5)
            rc, out, _ = a.run(f"iperf3 -c {IPS[1]} -p 5201 -t {args.iperf_seconds} -f m "
                               f"{'-R' if reverse else ''} | tail -n 4",
                               timeout=args.iperf_seconds * 10 + 120)
            tap.diag(out.strip())
            m = re.search(r"([\d.]+) Mbits/sec.*receiver", out)
            assert m, out
            assert float(m.group(1)) > 0, out
            fig["iperf_ba" if reverse else "iperf_ab"] = float(m.group(1))
        step("iperf3 TCP A -> B", lambda: iperf(False))
        step("iperf3 TCP B -> A", lambda: iperf(True))

        def ethtool_sum(vm, regex):
            rc, out, _ = vm.run(f"ethtool -S kite0 | awk '{{n = $1; sub(/:$/, \"\", n)}} n ~ /{regex}/ "
                                "{ s += $2 } END { print s + 0 }'", timeout=30)
            return int(out.strip())

        def nonzero_counters(vm):
            """ethtool -S's non-zero counters on one line, for a failure's report."""
            return vm.run("ethtool -S kite0 | awk '$2 != 0 { printf \"%s %s \", $1, $2 }'",
                          timeout=30, check=False)[1].strip()

        def transfer(src, dst, dst_ip, port, capture):
            """256 KiB of random bytes src -> dst over TCP, byte-exact; optional capture on dst."""
            for vm in (a, b):
                vm.run("ip link set kite0 mtu 1500", timeout=60)
            # Keep the flow on one TX queue: with the RTL card's RTT (~150 ms)
            # a spurious RTO re-hashes a socket onto another queue, and frames
            # of two queues may pass each other on the wire, which the
            # capture check would read as a hole. What is checked here is the
            # segmentation, not the order between queues.
            src.run("sysctl -qw net.core.txrehash=0 || true", timeout=30)
            dst.run("ethtool -K kite0 gro off; rm -f /tmp/x.rx /tmp/x.pcap /tmp/y.pcap /tmp/x.err /tmp/x.done",
                    timeout=30)
            # The flow checked, and beside it (for a failure's report) any
            # other frame that arrives meanwhile.
            cap = f"tcpdump -i kite0 -s 0 -B 65536 -U -Z root -w /tmp/x.pcap tcp port {port} 2>/tmp/x.err & T=$!; " \
                f"tcpdump -i kite0 -s 128 -U -Z root -w /tmp/y.pcap not tcp port {port} 2>/dev/null & T=\"$T $!\"; " \
                if capture else "T=; "
            dst.run(f"setsid sh -c '{cap}sleep 1; timeout 300 nc -l -p {port} > /tmp/x.rx; sleep 1; "
                    "[ -n \"$T\" ] && kill -INT $T && wait $T; touch /tmp/x.done' </dev/null >/dev/null 2>&1 &",
                    timeout=30)
            dst.run(f"for i in $(seq 100); do ss -Hlnt 'sport = :{port}' | grep -q . && exit 0; sleep 0.1; done; "
                    "exit 1", timeout=30)
            src.run("head -c 262144 /dev/urandom > /tmp/x.tx", timeout=30)
            src.run(f"nc -N -w 30 {dst_ip} {port} < /tmp/x.tx", timeout=300)
            dst.run("for i in $(seq 600); do [ -e /tmp/x.done ] && exit 0; sleep 0.1; done; exit 1", timeout=90)
            want = src.run("sha256sum < /tmp/x.tx", timeout=30)[1].split()[0]
            got = dst.run("sha256sum < /tmp/x.rx", timeout=30)[1].split()[0]
            assert want == got, f"256 KiB sent, received bytes differ ({want} vs {got})"

        def tso():
            lso0 = ethtool_sum(a, "^tx_lso$")
            transfer(a, b, IPS[1], 7001, True)
            rc, out, err = b.run("python3 /kite/tests/pcapcheck.py /tmp/x.pcap --l4 tcp --ip 4 --mss 1448 "
                                 "--min 150 --capture-log /tmp/x.err", timeout=60, check=False)
            tap.diag(out.strip())
            if rc:
                # For the report: the flow as B captured it, both sides'
                # counters (a frame B's card counted but never captured is
                # not a frame lost on the wire).
                _, cap, _ = b.run("tcpdump -nn -tt -r /tmp/x.pcap 2>/dev/null | head -120 | cut -c1-160; "
                                  "echo 'other frames:'; tcpdump -nn -tt -e -r /tmp/y.pcap 2>/dev/null | head -40 | "
                                  "cut -c1-200", timeout=60, check=False)
                tap.diag(cap.strip())
                for name, vm in (("A", a), ("B", b)):
                    tap.diag(f"{name}: {nonzero_counters(vm)}")
            assert rc == 0, out + err
            lso = ethtool_sum(a, "^tx_lso$") - lso0
            tap.diag(f"tx_lso on the RTL card: {lso}")
            assert lso > 0, "the RTL card segmented no super-frame (tx_lso did not move)"
        step("TSO from the RTL card: 256 KiB intact, on the wire every segment <= MSS, checksums valid, "
             "sequence contiguous", tso)

        def rx_csum():
            ok0 = ethtool_sum(a, "^rx[0-9]+_csum_ok$")
            transfer(b, a, IPS[0], 7002, False)
            ok = ethtool_sum(a, "^rx[0-9]+_csum_ok$") - ok0
            tap.diag(f"rx csum_ok on the RTL card: {ok}")
            assert ok >= 150, f"the RTL card verified {ok} TCP checksums of 256 KiB of segments"
        step("RX from the model card: 256 KiB intact, TCP checksums verified by the RTL card", rx_csum)

        def clean():
            for vm in (a, b):
                rc, out, _ = vm.run("dmesg | grep -E 'WARNING:|BUG:|Oops|kite.*(timed? ?out|stalled)' || true",
                                    timeout=30)
                if out.strip():
                    # What the card and the driver counted, for the report.
                    out += "\n" + nonzero_counters(vm)
                assert not out.strip(), out
        step("no warnings in either dmesg", clean)
    fig["wall_s"] = time.time() - t0
    return fig


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", default="6.1")
    ap.add_argument("--mem", type=int, default=1024)
    ap.add_argument("--no-baseline", action="store_true", help="skip the model-vs-model run")
    ap.add_argument("--iperf-seconds", type=int, default=3)
    args = ap.parse_args()
    print("TAP version 13", flush=True)
    tap = vmrun.Tap()
    t0 = time.time()
    rtl = subprocess.run([os.path.join(ROOT, "fpga", "cosim", "build.sh")], check=True, text=True,
                         stdout=subprocess.PIPE).stdout.strip()
    tap.diag(f"libkite_rtlcard.so ready in {time.time() - t0:.0f}s")
    payload = vmrun.build_payload(args.kernel)
    base = {} if args.no_baseline else one_pair(args, tap, payload, "model-model", MODEL)
    stats = os.path.join(tempfile.mkdtemp(prefix="kite-cosim-"), "rtl-stats")
    cos = one_pair(args, tap, payload, "rtl-model", rtl, stats)
    if os.path.exists(stats):
        with open(stats) as f:
            tap.diag("RTL card simulation: " + " ".join(f.read().split()))

    def f(d, k, unit):
        return f"{d[k]:.2f} {unit}" if k in d else "-"
    for k, unit, what in (("rtt_ms", "ms", "ping RTT avg"), ("rtt9000_ms", "ms", "ping 8972 B RTT avg"),
                          ("iperf_ab", "Mbit/s", "iperf3 A->B"), ("iperf_ba", "Mbit/s", "iperf3 B->A"),
                          ("wall_s", "s", "wall time (boot to dmesg check)")):
        tap.diag(f"{what}: rtl-model {f(cos, k, unit)}, model-model {f(base, k, unit)}")
    print(f"1..{tap.n}", flush=True)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
