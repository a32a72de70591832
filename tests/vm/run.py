#!/usr/bin/env python3
"""Run Kite's VM tests and print TAP.

    tests/vm/run.py --topology b2b    one VM, two Kite cards back to back; runs the
                                      in-guest TAP scripts in tests/vm/guest/
    tests/vm/run.py --topology b2b --rdma
                                      the same for the RDMA scripts (*-rdma-*.sh), with
                                      rdma-core 56.1 and the Kite provider in the guest
    tests/vm/run.py --topology pair   two VMs whose Kite cards meet in tools/fabric;
                                      host-driven checks across the fabric
    tests/vm/run.py --topology pair --rdma
                                      RDMA across two VMs: Kite<->Kite and Kite<->rdma_rxe
                                      on one L2 with the wire dissected by tshark, then
                                      a Kite wire that drops 1 % of frames

A guest that hangs is killed after its timeout and the test fails with the tail
of its console log; the topology is rebooted for the next script.
"""
import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import time
import zlib

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
# tools, pyverbs and its test suite (installed under the docs); not headers,
# other docs, diags or service files.
RDMA_CORE_PARTS = ["usr/bin", "usr/lib/x86_64-linux-gnu", "usr/lib/python3", "usr/share/doc/rdma-core/tests",
                   "etc/libibverbs.d", "etc/rdma"]


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
            # A script may ask for more time than --timeout: "# vm-timeout: SECONDS".
            with open(script) as f:
                m = re.search(r"^# vm-timeout: (\d+)$", f.read(), re.M)
            limit = max(args.timeout, int(m.group(1))) if m else args.timeout
            try:
                rc, out, err = vm.run(f"bash /kite/tests/{os.path.basename(script)}", timeout=limit,
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
                tap.result(False, f"{name}: finished within {limit}s")
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


# ---------------------------------------------------------------- RDMA across two VMs
# Guest side of run_rdma_pair: load the RDMA modules and Kite (kite0), or rdma_rxe
# on the virtio NIC; GID index of an IPv4 RoCEv2 GID for a given address.
KITE_RDMA_UP = (". /kite/tests/lib.sh && modprobe -a ib_uverbs rdma_ucm && load_kite 1 && "
                "{ grep -q '^kite_ib ' /proc/modules || insmod /kite/modules/kite_ib.ko; } && "
                "dev=$(kite_netdevs) && ip link set $dev name kite0 && ip link set kite0 up")
# Run on both VMs once both are up (a wire partner's carrier follows ours).
KITE_CARRIER = ("for i in $(seq 100); do [ $(cat /sys/class/net/kite0/carrier) = 1 ] && exit 0; "
                "sleep 0.1; done; exit 1")
GID_OF = ("for i in $(seq 50); do for g in /sys/class/infiniband/{ib}/ports/1/gids/*; do "
          "n=${{g##*/}}; [ \"$(cat $g)\" = \"{gid}\" ] && "
          "[ \"$(cat /sys/class/infiniband/{ib}/ports/1/gid_attrs/types/$n 2>/dev/null)\" = 'RoCE v2' ] && "
          "echo $n && exit 0; done; sleep 0.1; done; exit 1")

# The first frames after both links come up can be lost: ping until one answer.
PING_UNTIL = "timeout 30 sh -c 'until ping -c 1 -W 1 -q {ip} >/dev/null; do :; done'"


def v4_gid(ip):
    a, b, c, d = (int(x) for x in ip.split("."))
    return "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % (a, b, c, d)


def ib_of(vm, netdev):
    """ib device whose parent is netdev's PCI function (Kite), or bound to it (rxe)."""
    out = vm.run("for d in /sys/class/infiniband/*; do n=${d##*/}; "
                 f"rdma link show $n/1 2>/dev/null | grep -qw 'netdev {netdev}' && echo $n; done; true",
                 timeout=30)[1].split()
    assert out, f"no ib device on {netdev}"
    return out[0]


def stat(vm, ib, name):
    out = vm.run(f"rdma statistic show link {ib}/1", timeout=30)[1]
    m = re.search(r"\b%s (\d+)" % name, out)
    assert m, f"no {name} in: {out}"
    return int(m.group(1))


def rdma_pair_run(tap, srv, cli, name, srv_cmd, cli_cmd, t=90):
    """Server in background on srv, client on cli; both must exit 0. Returns client output."""
    srv.run(f"rm -f /tmp/srv.rc; (timeout {t} {srv_cmd}; echo $? > /tmp/srv.rc) > /tmp/srv.log 2>&1 &",
            timeout=30)
    time.sleep(1.5)
    rc, out, err = cli.run(f"timeout {t} {cli_cmd}", timeout=t + 30, check=False)
    srv.run(f"for i in $(seq {t * 5}); do [ -s /tmp/srv.rc ] && exit 0; sleep 0.2; done; exit 1",
            timeout=t + 30, check=False)
    src = srv.run("cat /tmp/srv.rc 2>/dev/null; echo; tail -n 6 /tmp/srv.log", timeout=30)[1]
    if rc != 0 or not src.strip().startswith("0"):
        raise AssertionError(f"{name}: client exit {rc}, server {src.strip()[:400]}\n"
                             f"client: {(out + err)[-800:]}")
    return out


def perf_row(out):
    rows = [ln for ln in out.splitlines() if re.match(r"^\s*\d+\s+\d+\s+[\d.]+", ln)]
    assert rows, "no result row:\n" + out[-600:]
    return " ".join(rows[-1].split())


def roce_icrc_check(pcap):
    """RoCEv2 ICRC of every IPv4/UDP 4791 frame in an Ethernet pcap, recomputed
    here (IBA A17.2.2: CRC-32 over 8 bytes of ones, the IP header with TOS, TTL
    and checksum masked, the UDP header with its checksum masked, the BTH with
    resv8a masked, and the rest up to the ICRC). Returns {src_ip: [good, bad]}."""
    data = open(pcap, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    off = 24
    res = {}
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        f = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(f) < 14 + 20 + 8 + 12 + 4 or f[12:14] != b"\x08\x00":
            continue
        ip = bytearray(f[14:])
        ihl = (ip[0] & 15) * 4
        tot = struct.unpack(">H", ip[2:4])[0]
        if ip[9] != 17 or struct.unpack(">H", ip[ihl + 2:ihl + 4])[0] != 4791:
            continue
        ip = ip[:tot]
        ip[1] = 0xff
        ip[8] = 0xff
        ip[10:12] = b"\xff\xff"
        ip[ihl + 6:ihl + 8] = b"\xff\xff"
        ip[ihl + 8 + 4] = 0xff
        want = struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(ip[:-4])))
        src = ".".join(str(x) for x in f[14 + 12:14 + 16])
        r = res.setdefault(src, [0, 0])
        r[0 if want == bytes(ip[-4:]) else 1] += 1
    return res


def tshark_check(tap, pcap, label):
    """Dissect pcap with the host's tshark: every UDP/4791 frame is InfiniBand
    (BTH), no malformed frames and no expert errors. Returns opcode counts."""
    assert shutil.which("tshark"), "no tshark on the host (tools/setup/deps.sh vm)"
    # tshark 4.0 shows the ICRC but does not check it: recompute it here.
    for src, (good, bad) in sorted(roce_icrc_check(pcap).items()):
        tap.diag(f"{label}: ICRC from {src}: {good} correct, {bad} wrong")
        assert bad == 0 and good > 0, f"ICRC wrong in {bad} of {good + bad} frames from {src}"
    tsh = ["tshark", "-n", "-r", pcap]
    n_udp = int(subprocess.run(tsh + ["-Y", "udp.port == 4791"], capture_output=True, text=True)
                .stdout.count("\n"))
    rows = subprocess.run(tsh + ["-Y", "udp.port == 4791", "-T", "fields", "-e", "infiniband.bth.opcode",
                                 "-e", "_ws.malformed", "-e", "_ws.expert.severity"],
                          capture_output=True, text=True)
    assert rows.returncode == 0, rows.stderr
    ops = {}
    bad = []
    for ln in rows.stdout.splitlines():
        f = ln.split("\t")
        if not f[0]:
            bad.append("not dissected as BTH: " + ln)
            continue
        ops[f[0]] = ops.get(f[0], 0) + 1
        if len(f) > 1 and f[1]:
            bad.append("malformed: " + ln)
    exp = subprocess.run(tsh + ["-q", "-z", "expert,error"], capture_output=True, text=True).stdout
    errs = [ln for ln in exp.splitlines() if ln.strip() and not ln.startswith("=") and "Errors (" not in ln
            and "Frequency" not in ln and "No expert" not in ln]
    tap.diag(f"{label}: {n_udp} RoCEv2 frames, BTH opcodes {dict(sorted(ops.items()))}")
    assert n_udp > 0, "no RoCEv2 frames captured"
    assert sum(ops.values()) == n_udp, f"{n_udp - sum(ops.values())} frames not dissected as BTH"
    assert not bad, "\n".join(bad[:10])
    assert not errs, "expert errors:\n" + exp[-1500:]
    return ops


def run_rdma_pair(args, tap, payload):
    """Kite RDMA across two VMs: Kite<->Kite and Kite<->rdma_rxe (virtio-net) on one
    L2, the wire dissected by tshark; then a 1 % lossy fabric."""
    def step(name, fn):
        try:
            fn()
            tap.result(True, name)
            return True
        except (kitevm.CommandError, kitevm.VMError, AssertionError, subprocess.SubprocessError) as e:
            tap.result(False, name)
            tap.diag(e)
            return False

    outdir = os.path.join(ROOT, "build", "rdma-pair")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)

    # ---- one L2: Kite on both VMs, virtio on both; rxe on VM2's virtio.
    t0 = time.time()
    try:
        topo = kitevm.pair(kernel=args.kernel, payload=payload, mem=args.mem, extra=("virtio",), one_l2=True)
    except kitevm.VMError as e:
        tap.result(False, "l2: two VMs boot")
        tap.diag(e)
        return
    tap.result(True, "l2: two VMs boot (Kite + virtio each, one switch)")
    tap.diag(f"booted in {time.time() - t0:.0f}s")
    with topo:
        a, b = topo.vms
        env = {}

        def up():
            for vm, ip in ((a, "192.0.2.1"), (b, "192.0.2.2")):
                # Both NICs of a VM share the L2: answer ARP only on the NIC that
                # holds the address, or the rxe peer resolves to Kite's MAC.
                vm.run("sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2", timeout=30)
                vm.run(KITE_RDMA_UP + f" && ip addr add {ip}/24 dev kite0", timeout=90)
            for vm in (a, b):
                tap.diag(vm.run(KITE_CARRIER, timeout=60)[1].strip())
            # The interop subnet: VM1's Kite, VM2's virtio (+ rxe).
            a.run("ip addr add 198.51.100.1/24 dev kite0", timeout=30)
            vb = b.ifname(b.nics[1])
            b.run(f"ip link set {vb} up && ip addr add 198.51.100.2/24 dev {vb} && "
                  "{ modprobe crc32_generic || modprobe crc32_pclmul; } && modprobe rdma_rxe && "
                  f"rdma link add rxe0 type rxe netdev {vb}", timeout=60)
            env["ka"], env["kb"] = ib_of(a, "kite0"), ib_of(b, "kite0")
            env["rxe"] = "rxe0"
            env["ga"] = a.run(GID_OF.format(ib=env["ka"], gid=v4_gid("192.0.2.1")), timeout=30)[1].strip()
            env["gb"] = b.run(GID_OF.format(ib=env["kb"], gid=v4_gid("192.0.2.2")), timeout=30)[1].strip()
            env["gai"] = a.run(GID_OF.format(ib=env["ka"], gid=v4_gid("198.51.100.1")), timeout=30)[1].strip()
            env["gr"] = b.run(GID_OF.format(ib="rxe0", gid=v4_gid("198.51.100.2")), timeout=30)[1].strip()
            for ip in ("192.0.2.2", "198.51.100.2"):
                if a.run(PING_UNTIL.format(ip=ip), timeout=60, check=False)[0] != 0:
                    for vm in (a, b):
                        tap.diag(vm.name + ":\n" + vm.run(
                            "ip -br link; ip -br addr; ip neigh; cat /sys/class/net/kite0/carrier; "
                            "ethtool -S kite0 | grep -v ': 0$'; dmesg | tail -n 15", timeout=30, check=False)[1])
                    raise AssertionError(f"VM1 cannot ping {ip}")
            tap.diag("devices: VM1 {ka} gid {ga} / {gai}, VM2 {kb} gid {gb}, rxe0 gid {gr}".format(**env))
        if not step("l2: Kite on both VMs, rdma_rxe on VM2's virtio-net, GIDs present", up):
            return

        # -- 1. wire: Kite <-> Kite, captured where it can be seen.
        def kite_kite(tool, extra):
            def fn():
                out = rdma_pair_run(tap, b, a, tool, f"{tool} -d {env['kb']} -F -x {env['gb']} {extra}",
                                    f"{tool} -d {env['ka']} -F -x {env['ga']} {extra} 192.0.2.2")
                tap.diag(f"{tool} {extra}: {perf_row(out)}")
            return fn
        step("wire: ib_write_bw Kite VM1 -> Kite VM2", kite_kite("ib_write_bw", "-s 4096 -n 200"))
        step("wire: ib_send_bw Kite VM1 -> Kite VM2", kite_kite("ib_send_bw", "-s 4096 -n 200"))
        step("wire: ib_read_bw Kite VM1 -> Kite VM2", kite_kite("ib_read_bw", "-s 4096 -n 200"))

        # -- 3. interop with rdma_rxe, captured on VM2's virtio (both directions' frames).
        vb = b.ifname(b.nics[1])

        def interop(tool, kite_client, extra="-s 4096 -n 200"):
            def fn():
                kite = f"{tool} -d {env['ka']} -F -x {env['gai']} {extra}"
                rxe = f"{tool} -d rxe0 -F -x {env['gr']} {extra}"
                if kite_client:
                    out = rdma_pair_run(tap, b, a, tool, rxe, kite + " 198.51.100.2")
                else:
                    out = rdma_pair_run(tap, a, b, tool, kite, rxe + " 198.51.100.1")
                tap.diag(f"{tool} {extra} Kite {'client' if kite_client else 'server'}: {perf_row(out)}")
            return fn
        b.run(f"rm -f /tmp/rxe.pcap; tcpdump -i {vb} -U -s 0 -w /tmp/rxe.pcap udp port 4791 "
              "> /tmp/tcpdump.log 2>&1 &", timeout=30)
        time.sleep(1)
        step("interop: ib_send_bw Kite client -> rxe server", interop("ib_send_bw", True))
        step("interop: ib_send_bw rxe client -> Kite server", interop("ib_send_bw", False))
        step("interop: ib_write_bw Kite client -> rxe server", interop("ib_write_bw", True))
        step("interop: ib_write_bw rxe client -> Kite server", interop("ib_write_bw", False))
        step("interop: ib_read_bw Kite client -> rxe server", interop("ib_read_bw", True, "-s 4096 -n 100 -o 16"))
        step("interop: ib_read_bw rxe client -> Kite server", interop("ib_read_bw", False, "-s 4096 -n 100 -o 16"))

        def wire():
            b.run("kill -INT $(pidof tcpdump); sleep 1", timeout=30, check=False)
            # Megabytes of full frames: compressed for the ~100 KB/s serial
            # link (perftest's payloads are mostly repeats), else the copy
            # alone can outlast the agent's limit on a loaded host.
            data = zlib.decompress(b.run("gzip -1 -c /tmp/rxe.pcap", timeout=120, binary=True)[1],
                                   wbits=16 + zlib.MAX_WBITS)
            pcap = os.path.join(outdir, "kite-rxe.pcap")
            with open(pcap, "wb") as f:
                f.write(data)
            tap.diag(f"capture: {pcap} ({len(data)} bytes)")
            tshark_check(tap, pcap, "Kite<->rxe capture")
        step("wire: Kite and rxe RoCEv2 frames dissect as BTH over UDP 4791, no malformed, no expert "
             "errors, ICRC correct",
             wire)

        def clean():
            for vm in (a, b):
                out = vm.run("dmesg | grep -E 'WARNING:|BUG:|Oops|kite.*timed? ?out' || true", timeout=30)[1]
                assert not out.strip(), out
        step("l2: no warnings in either dmesg", clean)

    # ---- 2. loss: Kite wire dropping 1 % of frames.
    t0 = time.time()
    try:
        topo = kitevm.pair(kernel=args.kernel, payload=payload, mem=args.mem, extra=(), loss=1.0)
    except kitevm.VMError as e:
        tap.result(False, "loss: two VMs boot")
        tap.diag(e)
        return
    tap.result(True, "loss: two VMs boot (Kite wire with 1 % loss)")
    tap.diag(f"booted in {time.time() - t0:.0f}s")
    with topo:
        a, b = topo.vms
        env = {}

        def up():
            for vm, ip in ((a, "192.0.2.1"), (b, "192.0.2.2")):
                vm.run(KITE_RDMA_UP + f" && ip addr add {ip}/24 dev kite0", timeout=90)
            for vm in (a, b):
                tap.diag(vm.run(KITE_CARRIER, timeout=60)[1].strip())
            env["ka"], env["kb"] = ib_of(a, "kite0"), ib_of(b, "kite0")
            env["ga"] = a.run(GID_OF.format(ib=env["ka"], gid=v4_gid("192.0.2.1")), timeout=30)[1].strip()
            env["gb"] = b.run(GID_OF.format(ib=env["kb"], gid=v4_gid("192.0.2.2")), timeout=30)[1].strip()
            a.run(PING_UNTIL.format(ip="192.0.2.2"), timeout=60)
        if not step("loss: Kite RDMA up on both VMs", up):
            return
        r0 = stat(a, env["ka"], "retransmits")

        def lossy(tool, extra):
            def fn():
                out = rdma_pair_run(tap, b, a, tool, f"{tool} -d {env['kb']} -F -x {env['gb']} {extra}",
                                    f"{tool} -d {env['ka']} -F -x {env['ga']} {extra} 192.0.2.2", t=120)
                tap.diag(f"{tool} {extra}: {perf_row(out)}")
            return fn
        # perftest's default depth (128 x 64 KiB, ~8,000 packets posted at once):
        # the card's 256-packet send window keeps go-back-N from collapsing.
        step("loss: ib_write_bw completes at 1 % loss", lossy("ib_write_bw", "-s 65536 -n 300"))
        r1 = stat(a, env["ka"], "retransmits")
        step("loss: ib_read_bw completes at 1 % loss", lossy("ib_read_bw", "-s 65536 -n 100"))

        def xfer():
            # ibv_rc_pingpong leaves as soon as its own side is done: when the
            # ACK of its peer's last SEND is lost (1 % of the time here), the
            # peer retransmits to a QP that is gone and fails with
            # RETRY_EXC_ERR. rdma_xfer.py holds both QPs until both sides'
            # work has completed, and checks every byte, not one per page.
            py = "python3 /kite/tests/rdma_xfer.py"
            out = rdma_pair_run(tap, b, a, "rdma_xfer.py", f"{py} {env['kb']} {env['gb']} server 18600",
                                f"{py} {env['ka']} {env['ga']} client 18600 192.0.2.2 300 65536 4194304",
                                t=240)
            for line in out.strip().splitlines():
                tap.diag(line)
        step("loss: SEND ping-pong 300 x 64 KiB each way, 4 MiB RDMA READ and WRITE, every byte "
             "checked, at 1 % loss", xfer)

        def retrans():
            r2 = stat(a, env["ka"], "retransmits")
            tap.diag(f"requester retransmits: {r0} before, {r1} after ib_write_bw, {r2} at the end")
            assert r1 > r0, "retransmits did not move during ib_write_bw"
        step("loss: requester's retransmits counter moved", retrans)


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
    elif args.rdma:
        run_rdma_pair(args, tap, payload)
    else:
        run_pair(args, tap, payload)
    print(f"1..{tap.n}", flush=True)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
