#!/usr/bin/env python3
"""make bench: Kite against the NICs and the software RDMA a guest would use
otherwise, all between the same two VMs in one invocation, printed as ratios.
Not a test: nothing here gates CI, and absolute figures under TCG mean little.

  1. TCP (iperf3, 1 and 4 streams) over Kite, virtio-net and e1000e: throughput,
     and guest instructions per GB on the sender and on the receiver, counted by
     a QEMU TCG plugin (tools/bench/insn_count.c). Instructions are counted, not
     timed: they move far less with the host's load than any timing does.
  2. RDMA: ib_write_bw (4 KiB, 64 KiB, 1 MiB) and ib_send_lat, Kite<->Kite on the
     Kite cards against rdma_rxe<->rdma_rxe on the virtio-net NICs, and the guest
     instructions per GB of ib_send_bw -e (event-driven, so not polling time).
  3. RTL: the cycle counts the Verilator testbenches measure (fpga/tb: each
     block's throughput and latency lines, the whole card's doorbell -> MAC and
     MAC -> CQE latency from fpga/tb/queue/tb_latency.cpp). Runs first, needs
     no VM; builds are cached (the whole-card one takes about 10 minutes the
     first time).

Environment: BENCH_BYTES (per iperf3 run, default 128M), BENCH_ROUNDS (default 3),
BENCH_ONLY=tcp|rdma|rtl, BENCH_INSNS=0 (no instruction counting, e.g. with a QEMU
built without plugins), BENCH_RTL=0 (no RTL section).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "vm"))
sys.path.insert(0, os.path.join(ROOT, "tests", "vm"))
import kitevm  # noqa: E402
from run import GID_OF, build_payload, ib_of, perf_row, rdma_pair_run, v4_gid  # noqa: E402

BYTES = os.environ.get("BENCH_BYTES", "128M")
# Socket buffers: small enough that the unsent tail at the end of a run is
# under 1 % of BYTES per stream, large enough not to limit TCG-speed links.
WINDOW = "256K"
# Each measurement is repeated: timings under TCG follow the host's load, and
# even instruction counts move with it (batching, interrupt coalescing).
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
ONLY = os.environ.get("BENCH_ONLY", "")
COUNT = os.environ.get("BENCH_INSNS", "1") != "0"
RTL = os.environ.get("BENCH_RTL", "1") != "0" and ONLY in ("", "rtl")
NETS = {"kite": "192.0.2", "virtio": "198.51.100", "e1000e": "203.0.113"}
# (message size, perftest options): a few tens of MB each, enough for rxe under
# TCG. 1 MiB with perftest's default depth of 128 posts every message at once
# (30 MiB in flight), which ends in IBV_WC_RETRY_EXC_ERR on Kite: -t 8 keeps
# 8 MiB in flight, as 64 KiB x 128 does.
WRITE_BW = ((4096, "-n 2000"), (65536, "-n 300"), (1 << 20, "-n 30 -t 8"))
LAT_ITERS = 1000
# ib_send_bw -e runs whose instruction counts are subtracted: size, (n0, n1).
COST_SEND = (65536, (100, 2100))
PLUGIN_SRC = os.path.join(ROOT, "tools", "bench", "insn_count.c")
PLUGIN = os.path.join(ROOT, "build", "bench", "libkite_insn.so")
T0 = time.monotonic()


def progress(msg):
    print(f"[bench {time.monotonic() - T0:5.0f}s] {msg}", flush=True)


def build_plugin():
    """The instruction-count plugin, built against the QEMU tree it is loaded into."""
    qemu = kitevm.qemu_binary()
    header = os.path.join(os.path.dirname(os.path.dirname(qemu)), "src", "include", "qemu", "qemu-plugin.h")
    if not os.path.exists(header):
        sys.exit(f"bench: no {header}: rebuild QEMU with tools/qemu/build.sh")
    with open(os.path.join(os.path.dirname(qemu), "config-host.h")) as f:
        if "CONFIG_PLUGIN" not in f.read():
            sys.exit(f"bench: {qemu} was built without TCG plugins; run tools/qemu/build.sh")
    if (not os.path.exists(PLUGIN) or os.path.getmtime(PLUGIN) < os.path.getmtime(PLUGIN_SRC)
            or os.path.getmtime(PLUGIN) < os.path.getmtime(header)):
        progress("building the instruction-count plugin")
        os.makedirs(os.path.dirname(PLUGIN), exist_ok=True)
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror",
                        "-I", os.path.dirname(header), "-o", PLUGIN, PLUGIN_SRC, "-lpthread"], check=True)
    return PLUGIN


def insns(vm):
    """Guest instructions the VM has executed so far (0 without counting)."""
    if not COUNT:
        return 0
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(vm.insn_sock)
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(64)
        if not chunk:
            break
        data += chunk
    s.close()
    return int(data)


def setup(a, b):
    """Kite (netdev + kite_ib), virtio-net and e1000e up and addressed on both VMs,
    rdma_rxe on both virtio-nets; returns the RDMA devices and GID indices."""
    env = {}
    for vm, host in ((a, 1), (b, 2)):
        vm.run(". /kite/tests/lib.sh && modprobe -a ib_uverbs rdma_ucm && load_kite 1 && "
               "{ grep -q '^kite_ib ' /proc/modules || insmod /kite/modules/kite_ib.ko; } && "
               "modprobe -a virtio_net e1000e", timeout=120)
        for nic in vm.nics:
            dev = vm.ifname(nic)
            vm.run(f"ip link set {dev} name b{nic.model} && ip link set b{nic.model} up && "
                   f"ip addr add {NETS[nic.model]}.{host}/24 dev b{nic.model}", timeout=60)
        vm.run("{ modprobe crc32_generic || modprobe crc32_pclmul; } && modprobe rdma_rxe && "
               "rdma link add rxe0 type rxe netdev bvirtio", timeout=60)
    for vm in (a, b):
        vm.run("for n in bkite bvirtio be1000e; do for i in $(seq 100); do "
               "[ $(cat /sys/class/net/$n/carrier) = 1 ] && continue 2; sleep 0.1; done; exit 1; done",
               timeout=60)
    for kind in NETS:
        a.run(f"timeout 30 sh -c 'until ping -c 1 -W 1 -q {NETS[kind]}.2 >/dev/null; do :; done'", timeout=60)
    for vm, host, key in ((a, 1, "a"), (b, 2, "b")):
        env["k" + key] = ib_of(vm, "bkite")
        env["gk" + key] = vm.run(GID_OF.format(ib=env["k" + key], gid=v4_gid(f"{NETS['kite']}.{host}")),
                                 timeout=30)[1].strip()
        env["gr" + key] = vm.run(GID_OF.format(ib="rxe0", gid=v4_gid(f"{NETS['virtio']}.{host}")),
                                 timeout=30)[1].strip()
    return env


def spread(xs, digits=2):
    """Median of the per-round ratios, with their range when there are several."""
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return "failed"
    med = xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2
    return f"{med:.{digits}f}x" + (f" [{xs[0]:.{digits}f}-{xs[-1]:.{digits}f}]" if len(xs) > 1 else "")


def bench_tcp(a, b):
    """{(kind, streams): [{bps, bytes, tx, rx} per round]}; tx/rx: guest instructions per GB."""
    res = {}
    # What one agent round trip costs (it is inside every figure below).
    i0 = insns(a)
    a.run("true", timeout=30)
    agent = insns(a) - i0
    # Rounds go over every NIC in turn, so a change in host load hits them all.
    for rnd in range(1, ROUNDS + 1):
        for streams in (1, 4):
            for kind in NETS:
                progress(f"round {rnd}/{ROUNDS}: iperf3 -n {BYTES} -P {streams} over {kind}")
                b.run("iperf3 -s -D -1 -p 5201", timeout=30)
                b.run("for i in $(seq 50); do ss -Hltn 'sport = :5201' | grep -q . && exit 0; sleep 0.1; done; "
                      "exit 1", timeout=30)
                rx = f"/sys/class/net/b{kind}/statistics/rx_bytes"
                rx0 = int(b.run(f"cat {rx}", timeout=30)[1])
                a0, b0 = insns(a), insns(b)
                rc, out, err = a.run(f"iperf3 -c {NETS[kind]}.2 -p 5201 -n {BYTES} -P {streams} -w {WINDOW} -J",
                                     timeout=900, check=False)
                # iperf3 ends the test at the sender's last write and the server closes
                # its sockets: what is still in the send buffer may never arrive (-w
                # bounds that to WINDOW per stream). Divide by what the receiving NIC
                # took in once the wire is quiet, inside the same instruction window.
                rx1 = int(b.run(f"p=0; while :; do sleep 0.5; n=$(cat {rx}); [ $n = $p ] && break; p=$n; done; "
                                "echo $n", timeout=120)[1])
                a1, b1 = insns(a), insns(b)
                try:
                    bps = json.loads(out)["end"]["sum_received"]["bits_per_second"]
                except (ValueError, KeyError):
                    raise SystemExit(f"bench: iperf3 over {kind} failed (rc {rc}): {(out + err)[-1500:]}")
                nbytes = rx1 - rx0
                if not COUNT:
                    a1 = b1 = nbytes  # avoid dividing by zero in report()
                r = {"bps": bps, "bytes": nbytes, "tx": (a1 - a0) * 1e9 / nbytes, "rx": (b1 - b0) * 1e9 / nbytes}
                res.setdefault((kind, streams), []).append(r)
                progress(f"  {nbytes / 2**20:.0f} MiB received (frames), {bps / 1e6:.0f} Mbit/s under TCG"
                         + (f", {r['tx'] / 1e9:.2f} G insns/GB sender, {r['rx'] / 1e9:.2f} receiver"
                            if COUNT else ""))
    return res, agent


def bench_rdma(a, b, env):
    """{"write": {size: {kite: [MB/s per round]}}, "lat": {kite: [(t_typical, t_avg) us per round]},
    "cost": {kite: [(sender, receiver) insns/GB per round]}, "failed": [each failed try]}; kite is True (Kite)
    or False (rxe); None: both tries failed."""
    def pair(tool, args, kite):
        """perftest's result row and the instructions (client VM, server VM) of the
        successful try; (None, None) when both tries fail."""
        if kite:
            srv = f"{tool} -d {env['kb']} -F -x {env['gkb']} {args}"
            cli = f"{tool} -d {env['ka']} -F -x {env['gka']} {args} {NETS['kite']}.2"
        else:
            srv = f"{tool} -d rxe0 -F -x {env['grb']} {args}"
            cli = f"{tool} -d rxe0 -F -x {env['gra']} {args} {NETS['virtio']}.2"
        for attempt in (1, 2):
            a0, b0 = insns(a), insns(b)
            try:
                row = perf_row(rdma_pair_run(None, b, a, tool, srv, cli, t=300)).split()
                return row, (insns(a) - a0, insns(b) - b0)
            except AssertionError as e:
                why = re.findall(r"Failed status \d+[^\n]*|Couldn't[^\n]*|Unable[^\n]*|[^\n]*not available[^\n]*",
                                 str(e))
                why = why[0].strip() if why else str(e)[-300:]
                progress(f"  FAILED (try {attempt} of 2): {why}")
                res["failed"].append(f"{tool} {args} {'Kite' if kite else 'rxe'}: {why}")
        return None, None
    res = {"write": {}, "lat": {True: [], False: []}, "cost": {}, "failed": []}
    for rnd in range(1, ROUNDS + 1):
        for size, args in WRITE_BW:
            for kite in (True, False):
                progress(f"round {rnd}/{ROUNDS}: ib_write_bw -s {size} {args} {'Kite' if kite else 'rxe'}")
                row, _ = pair("ib_write_bw", f"-s {size} {args}", kite)
                # #bytes #iterations BW-peak BW-average MsgRate (MB/s = 2^20 bytes/s)
                res["write"].setdefault(size, {True: [], False: []})[kite].append(float(row[3]) if row else None)
                if row:
                    progress(f"  {row[3]} MB/s")
        for kite in (True, False):
            progress(f"round {rnd}/{ROUNDS}: ib_send_lat -n {LAT_ITERS} {'Kite' if kite else 'rxe'}")
            row, _ = pair("ib_send_lat", f"-n {LAT_ITERS}", kite)
            # #bytes #iterations t_min t_max t_typical t_avg ...
            res["lat"][kite].append((float(row[4]), float(row[5])) if row else None)
            if row:
                progress(f"  typical {row[4]} us, average {row[5]} us")
    # Guest CPU cost: with -e perftest sleeps on completion events instead of
    # polling, so the count is work, not waiting (perftest offers -e for SEND,
    # not WRITE). Two runs that differ only in their iteration count cancel
    # setup and teardown.
    size, (n0, n1) = COST_SEND
    for rnd in range(1, ROUNDS + 1) if COUNT else ():
        for kite in (True, False):
            progress(f"round {rnd}/{ROUNDS}: ib_send_bw -e -s {size} -n {n0} and -n {n1} "
                     f"{'Kite' if kite else 'rxe'}: instructions")
            used = []
            for n in (n0, n1):
                row, cnt = pair("ib_send_bw", f"-e -s {size} -n {n}", kite)
                if not row:
                    res["cost"].setdefault(kite, []).append(None)
                    break
                used.append(cnt)
            else:
                nbytes = (n1 - n0) * size
                c = tuple((used[1][i] - used[0][i]) * 1e9 / nbytes for i in (0, 1))
                res["cost"].setdefault(kite, []).append(c)
                progress("  %.3f G insns/GB sender, %.3f receiver" % (c[0] / 1e9, c[1] / 1e9))
    return res


def rtl_tb(name, top, tbcpp, srcs, pattern=r"(throughput|latency)\b"):
    """Builds one Verilator testbench (fpga/tb/build.sh, cached) and returns the
    throughput and latency lines of its --bench run."""
    common = ["fpga/rtl/common/kite_pkg.sv", "fpga/rtl/common/kite_rtl_pkg.sv"]
    files = [os.path.join(ROOT, f) for f in [tbcpp] + common + srcs]
    exe = subprocess.run([os.path.join(ROOT, "fpga", "tb", "build.sh"), name, top] + files, check=True,
                         capture_output=True, text=True).stdout.strip()
    r = subprocess.run([exe, "--seed", "1", "--bench"], capture_output=True, text=True, timeout=1800)
    lines = [ln for ln in (re.sub(r"^\[[^]]*\] ", "", x) for x in r.stdout.splitlines())
             if re.match(pattern, ln) and "back-pressure)" not in ln]
    if r.returncode:
        lines.append(f"FAILED (exit {r.returncode}): {(r.stdout + r.stderr).strip().splitlines()[-1:]}")
    return lines


def bench_rtl():
    """The RTL section: every block's testbench figures, then the whole card's latency."""
    if not shutil.which("verilator"):
        print("RTL: skipped (no verilator: tools/setup/deps.sh rtl)")
        return
    progress("RTL: building (cached) and running the testbenches")
    blocks = []
    with open(os.path.join(ROOT, "fpga", "rtl", "blocks.list")) as f:
        for ln in f:
            if ln.strip() and not ln.lstrip().startswith("#"):
                name, top, tbcpp, *srcs = ln.split()
                blocks.append((name, top, tbcpp, srcs))
    print("\nRTL, cycle counts of the Verilator testbenches (fpga/tb, seed 1; Documentation/hw/rtl.rst):")
    card = None
    for name, top, tbcpp, srcs in blocks:
        if name == "card":
            card = srcs
            continue
        for ln in rtl_tb(name, top, tbcpp, srcs):
            print(f"  {name:9} {ln}")
    if card:
        progress("RTL: whole-card latency (fpga/tb/queue/tb_latency.cpp)")
        for ln in rtl_tb("latency", "kite_card", "fpga/tb/queue/tb_latency.cpp", card, r"(TX|RX) "):
            print(f"  {'card':9} {ln}")
    sys.stdout.flush()


def size_name(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def report(tcp, agent, rdma):
    print()
    rounds = f"median of {ROUNDS} rounds [range]" if ROUNDS > 1 else "one round"
    if tcp:
        print(f"TCP, iperf3 -n {BYTES} -w {WINDOW}, Kite vs virtio-net vs e1000e (same two VMs, same run; {rounds})")
        print("  throughput: ratio to virtio-net (>1 = faster)")
        for s in (1, 4):
            print(f"    {s} stream(s): " + "  ".join(
                f"{k}=" + spread([r["bps"] / v["bps"] for r, v in zip(tcp[(k, s)], tcp[("virtio", s)])])
                for k in NETS if k != "virtio"))
        if COUNT:
            print("  guest CPU cost: guest instructions per GB of Ethernet frames received, counted by the TCG plugin")
            print("  on the sending and on the receiving VM; ratio to virtio-net (<1 = fewer instructions)")
        for s in (1, 4) if COUNT else ():
            for side, what in (("tx", "sender"), ("rx", "receiver")):
                line = "  ".join(f"{k}=" + spread([r[side] / v[side] for r, v in zip(tcp[(k, s)], tcp[("virtio", s)])])
                                 for k in NETS if k != "virtio")
                absl = " ".join(f"{k} {sorted(r[side] for r in tcp[(k, s)])[len(tcp[(k, s)]) // 2] / 1e9:.2f}"
                                for k in NETS)
                print(f"    {s} stream(s) {what:8}: {line}   (G insns/GB: {absl})")
        if COUNT:
            print(f"  (each count includes about one guest-agent round trip, {agent / 1e6:.1f} M instructions)")
        else:
            print("    (instructions not counted: BENCH_INSNS=0)")
    if rdma:
        print(f"RDMA, Kite<->Kite vs rdma_rxe<->rdma_rxe on virtio-net (same two VMs, same run; {rounds})")
        opts = dict(WRITE_BW)
        for size, r in rdma["write"].items():
            ratios = [k / x if k is not None and x else None for k, x in zip(r[True], r[False])]
            fails = sum(v is None for v in r[True] + r[False])
            med = {w: sorted(v for v in r[w] if v is not None) for w in (True, False)}
            mb = " ".join(f"{n} {med[w][len(med[w]) // 2]:.1f}" if med[w] else f"{n} failed"
                          for n, w in (("Kite", True), ("rxe", False)))
            print(f"  ib_write_bw {size_name(size):7} ({opts[size]}): Kite/rxe bandwidth = {spread(ratios)}   "
                  f"(MB/s under TCG: {mb}" + (f"; {fails} run(s) failed" if fails else "") + ")")
        for i, what in ((0, "typical"), (1, "average")):
            ratios = [k[i] / x[i] if k and x else None for k, x in zip(rdma["lat"][True], rdma["lat"][False])]
            print(f"  ib_send_lat ({what:7}): Kite/rxe latency = {spread(ratios)}")
        if COUNT:
            print(f"  guest CPU cost, ib_send_bw -e {size_name(COST_SEND[0])}: Kite/rxe guest instructions per GB")
            # Each count carries one guest-agent round trip: a difference of
            # two counts below that is noise, not work.
            cs, (c0, c1) = COST_SEND
            noise = (agent or 0) * 1e9 / ((c1 - c0) * cs)
            for i, what in ((0, "sender"), (1, "receiver")):
                k, r = rdma["cost"][True], rdma["cost"][False]
                ratios = [x[i] / y[i] if x and y else None for x, y in zip(k, r)]
                med = [sorted(c[i] for c in v if c) for v in (k, r)]
                absl = " ".join(f"{n} {m[len(m) // 2] / 1e9:.3f}" if m else f"{n} failed"
                                for n, m in zip(("Kite", "rxe"), med))
                if med[0] and med[1] and med[0][len(med[0]) // 2] < noise:
                    ratio = (f"< {noise / med[1][len(med[1]) // 2]:.3f}x (Kite's count is within the "
                             f"{noise / 1e9:.3f} G insns/GB noise of a difference of two runs)")
                else:
                    ratio = spread(ratios, 3)
                print(f"    {what:8}: {ratio}   (G insns/GB: {absl})")
        for f in rdma["failed"]:
            print(f"  failed try (retried once): {f}")
        print("  goal (issue 4): bandwidth >= 10x, latency < 0.2x")


def main():
    if RTL:
        bench_rtl()
        if ONLY == "rtl":
            return 0
    progress("preparing: instruction-count plugin, payload with rdma-core")
    plugin = build_plugin() if COUNT else None
    payload = build_payload("6.1", rdma=ONLY != "tcp")
    topo = kitevm.pair(kernel="6.1", payload=payload, extra=("virtio", "e1000e"), smp=1, start=False)
    for vm in topo.vms:
        vm.insn_sock = os.path.join(vm.workdir, "insn.sock")
        if plugin:
            vm.extra_args += ["-plugin", f"{plugin},sock={vm.insn_sock}"]
    progress("booting two VMs (Kite, virtio-net, e1000e each; one wire per NIC kind)")
    topo.start(timeout=300)
    tcp = agent = rdma = None
    with topo:
        a, b = topo.vms
        progress(f"booted; setting up NICs{'' if ONLY == 'tcp' else ' and RDMA devices'}")
        env = setup(a, b)
        if ONLY != "rdma":
            tcp, agent = bench_tcp(a, b)
        if ONLY != "tcp":
            rdma = bench_rdma(a, b, env)
    report(tcp, agent, rdma)
    progress("done")
    return 0


if __name__ == "__main__":
    shutil.which("gcc") or sys.exit("bench: needs gcc (tools/setup/deps.sh build)")
    sys.exit(main())
