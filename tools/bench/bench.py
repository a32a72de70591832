#!/usr/bin/env python3
"""make bench: iperf3 TCP between the same two VMs over Kite, virtio-net and
e1000e in one invocation, printed as ratios (not a test; numbers under TCG are
noisy and only meaningful relative to each other)."""
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "vm"))
sys.path.insert(0, os.path.join(ROOT, "tests", "vm"))
import kitevm  # noqa: E402
from run import build_payload  # noqa: E402

SECONDS = int(os.environ.get("BENCH_SECONDS", "8"))
NETS = {"kite": "192.0.2", "virtio": "198.51.100", "e1000e": "203.0.113"}


def main():
    payload = build_payload("6.1")
    results = {}
    with kitevm.pair(kernel="6.1", payload=payload, extra=("virtio", "e1000e")) as topo:
        a, b = topo.vms
        for vm, host in ((a, 1), (b, 2)):
            vm.run(". /kite/tests/lib.sh && load_kite 1", timeout=60)
            # NICs in the order the topology added them: kite, virtio, e1000e
            for kind, drv in (("kite", "kite"), ("virtio", "virtio_net"), ("e1000e", "e1000e")):
                vm.run(f"modprobe {drv} 2>/dev/null; for d in /sys/class/net/*; do "
                       f"[ \"$(basename $(readlink -f $d/device/driver 2>/dev/null) 2>/dev/null)\" = {drv} ] && "
                       f"ip link set $(basename $d) name b{kind} && break; done; "
                       f"ip link set b{kind} up && ip addr add {NETS[kind]}.{host}/24 dev b{kind}", timeout=60)
        time.sleep(3)
        for streams in (1, 4):
            for kind in NETS:
                b.run("iperf3 -s -D -1 -p 5201", timeout=30)
                time.sleep(0.5)
                rc, out, err = a.run(f"iperf3 -c {NETS[kind]}.2 -p 5201 -t {SECONDS} -P {streams} -J",
                                     timeout=SECONDS + 60, check=False)
                try:
                    bps = json.loads(out)["end"]["sum_received"]["bits_per_second"]
                except (ValueError, KeyError):
                    bps = 0.0
                results[(kind, streams)] = bps
                print(f"  measured {kind:7} P={streams}", flush=True)
    print("\niperf3 TCP throughput, ratio to virtio-net (same VMs, same run; >1 means faster):")
    for streams in (1, 4):
        base = results[("virtio", streams)] or float("nan")
        line = "  ".join(f"{k}={results[(k, streams)] / base:.2f}x" for k in NETS)
        print(f"  {streams} stream(s): {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
