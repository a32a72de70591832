#!/usr/bin/env python3
"""make demo: two emulated hosts, each with a Kite card, cabled through the
fabric switch process. Loads kite.ko, shows the link, pings, runs iperf3,
then loads kite_ib.ko and runs RDMA between the hosts with the standard tools
over the rdma-core provider, and prints a summary."""
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "vm"))
sys.path.insert(0, os.path.join(ROOT, "tests", "vm"))
import kitevm  # noqa: E402
from run import GID_OF, build_payload, perf_row, rdma_pair_run, v4_gid  # noqa: E402

HOSTS = {"host1": ("192.0.2.1", "2001:db8::1"), "host2": ("192.0.2.2", "2001:db8::2")}


def say(msg):
    print(f"\n\033[1m==> {msg}\033[0m", flush=True)


def show(vm, cmd, timeout=60):
    print(f"[{vm.label}]$ {cmd}", flush=True)
    rc, out, err = vm.run(cmd, timeout=timeout, check=False)
    for line in (out + err).rstrip().splitlines():
        print(f"    {line}")
    if rc != 0:
        raise SystemExit(f"demo: '{cmd}' failed on {vm.label} (exit {rc})")
    return out


def rdma(a, b):
    """RoCEv2 between the two cards: kite_ib.ko, rdma-core's Kite provider,
    perftest and libibverbs' own example, with data checked where the tool can."""
    say("RDMA: kite_ib.ko on both hosts, the ib device and its RoCEv2 GIDs")
    ib, gid = {}, {}
    for vm in (a, b):
        show(vm, "modprobe -a ib_uverbs rdma_ucm && { grep -q '^kite_ib ' /proc/modules || "
                 "insmod /kite/modules/kite_ib.ko; }")
        ib[vm] = show(vm, "for i in $(seq 50); do d=$(ls /sys/class/infiniband 2>/dev/null | head -n 1); "
                          "[ -n \"$d\" ] && echo $d && exit 0; sleep 0.1; done; exit 1").strip()
        gid[vm] = vm.run(GID_OF.format(ib=ib[vm], gid=v4_gid(HOSTS[vm.label][0])), timeout=30)[1].strip()
    show(a, f"rdma link show; ibv_devinfo -d {ib[a]} | grep -E 'hca_id|fw_ver|vendor_part|state|active_mtu|link_layer'")
    show(a, f"cat /sys/class/infiniband/{ib[a]}/ports/1/gids/{gid[a]} "
            f"/sys/class/infiniband/{ib[a]}/ports/1/gid_attrs/types/{gid[a]}")
    out = []
    say("ibv_rc_pingpong, 4 KiB x 500, receive buffers checked (-c)")
    r = rdma_pair_run(None, b, a, "ibv_rc_pingpong",
                      f"ibv_rc_pingpong -d {ib[b]} -g {gid[b]} -s 4096 -n 500 -c",
                      f"ibv_rc_pingpong -d {ib[a]} -g {gid[a]} -s 4096 -n 500 -c 192.0.2.2")
    print("    " + "\n    ".join(r.strip().splitlines()[-2:]))
    out.append("ibv_rc_pingpong: " + r.strip().splitlines()[-1])
    for tool, extra in (("ib_write_bw", "-s 65536 -n 300"), ("ib_read_bw", "-s 65536 -n 300"),
                        ("ib_send_lat", "-s 64 -n 500")):
        say(f"perftest {tool} {extra}, host1 -> host2")
        r = rdma_pair_run(None, b, a, tool, f"{tool} -d {ib[b]} -F -x {gid[b]} {extra}",
                          f"{tool} -d {ib[a]} -F -x {gid[a]} {extra} 192.0.2.2")
        row = perf_row(r)
        print(f"    {row}")
        f = row.split()
        if tool.endswith("_lat"):   # bytes iters min max typical avg stdev 99% 99.9% (usec)
            out.append(f"{tool} {extra}: typical {f[4]} us, average {f[5]} us (emulated)")
        else:                       # bytes iters peak average (MB/s) msg rate
            out.append(f"{tool} {extra}: {f[3]} MB/s average (emulated)")
    say("RoCE counters the card kept (rdma statistic)")
    show(a, f"rdma statistic show link {ib[a]}/1")
    return out


def main():
    summary = []
    payload = build_payload("6.1", rdma=True)
    say("Booting two Debian 6.1 guests under QEMU (TCG), one Kite card each, cabled through tools/fabric")
    t0 = time.time()
    with kitevm.pair(kernel="6.1", payload=payload, extra=()) as topo:
        a, b = topo.vms
        a.label, b.label = "host1", "host2"
        summary.append(f"boot: both hosts ready in {time.time() - t0:.0f}s")
        for vm in (a, b):
            v4, v6 = HOSTS[vm.label]
            say(f"{vm.label}: the card on the PCI bus, load kite.ko")
            show(vm, "lspci -nn -d 4b49:")
            show(vm, ". /kite/tests/lib.sh && load_kite 1 && dev=$(kite_netdevs) && ip link set $dev name kite0 "
                     f"&& ip link set kite0 up && ip addr add {v4}/24 dev kite0 && ip addr add {v6}/64 dev kite0 nodad"
                     " && dmesg | grep -i kite | tail -n 5")
        for vm in (a, b):
            show(vm, "for i in $(seq 100); do [ $(cat /sys/class/net/kite0/carrier) = 1 ] && break; sleep 0.1; done; "
                     "ip -br link show kite0; ethtool kite0 | grep -E 'Speed|Duplex|Link detected'")
        say("Identity: ethtool -i, devlink dev info")
        show(a, "ethtool -i kite0 | head -n 5; devlink dev info")
        summary.append("link: up on both hosts")
        say("ping across the fabric (IPv4, IPv6, MTU 9000)")
        out = show(a, "ping -c 5 -i 0.2 192.0.2.2 | tail -n 2")
        summary.append("ping v4: " + out.strip().splitlines()[-1])
        show(b, "ping -6 -c 3 -i 0.2 2001:db8::1 | tail -n 2")
        show(a, "ip link set kite0 mtu 9000")
        show(b, "ip link set kite0 mtu 9000")
        out = show(a, "ping -M do -s 8972 -c 3 -i 0.2 192.0.2.2 | tail -n 2")
        summary.append("ping 9000-byte frames: " + out.strip().splitlines()[0])
        say("iperf3 TCP, host1 -> host2, 5 s")
        show(b, "iperf3 -s -D -1 -p 5201")
        time.sleep(0.5)
        out = a.run("iperf3 -c 192.0.2.2 -p 5201 -t 5 -J", timeout=90)[1]
        j = json.loads(out)
        mbit = j["end"]["sum_received"]["bits_per_second"] / 1e6
        print(f"    received {j['end']['sum_received']['bytes'] / 1e6:.1f} MB at {mbit:.0f} Mbit/s, "
              f"{j['end']['sum_sent'].get('retransmits', 0)} retransmits")
        summary.append(f"iperf3 TCP: {mbit:.0f} Mbit/s (emulated: TCG guests, model on the host)")
        say("Counters the card kept (ethtool -S, non-zero)")
        show(a, "ethtool -S kite0 | awk '$2 != 0' | head -n 30")
        summary += rdma(a, b)
    say("Summary")
    for line in summary:
        print(f"  - {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
