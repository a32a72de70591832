#!/usr/bin/env python3
"""Tests of kite-fabric, run on the host (no VM): python sockets stand in for
QEMU's -netdev dgram / stream. Usage: test_fabric.py [path/to/kite-fabric].
Prints TAP."""
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

FABRIC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "fabric", "kite-fabric")
results = []


def free_ports(n):
    ss = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
    for s in ss:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in ss]
    for s in ss:
        s.close()
    return ports


def fcs(frame):
    return frame + struct.pack("<I", zlib.crc32(frame) & 0xffffffff)


def eth(dst, src, payload=b"x" * 50, ethertype=0x0800):
    return bytes.fromhex(dst.replace(":", "")) + bytes.fromhex(src.replace(":", "")) + \
        struct.pack("!H", ethertype) + payload


class Fab:
    """A fabric whose ports are UDP (list of fcs flags) or unix."""

    def __init__(self, flags, mode="wire", transport="udp", extra=()):
        self.dir = tempfile.mkdtemp(prefix="fabtest-")
        self.ends = []
        args = [FABRIC, "--name", "t", "--mode", mode]
        for i, f in enumerate(flags):
            if transport == "udp":
                fp, qp = free_ports(2)
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind(("127.0.0.1", qp))
                s.connect(("127.0.0.1", fp))
                s.settimeout(0.5)
                self.ends.append(s)
                spec = "udp:127.0.0.1:%d:127.0.0.1:%d" % (fp, qp)
            else:
                spec = "unix:%s/p%d.sock" % (self.dir, i)
            args += ["--port", spec + (",fcs" if f else "")]
        self.p = subprocess.Popen(args + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert "ready" in self.p.stdout.readline()
        if transport == "unix":
            for i in range(len(flags)):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect("%s/p%d.sock" % (self.dir, i))
                s.settimeout(0.5)
                self.ends.append(s)
            time.sleep(0.1)
        self.transport = transport

    def send(self, i, frame):
        if self.transport == "udp":
            self.ends[i].send(frame)
        else:
            self.ends[i].sendall(struct.pack("!I", len(frame)) + frame)

    def recv(self, i, timeout=0.5):
        s = self.ends[i]
        s.settimeout(timeout)
        try:
            if self.transport == "udp":
                return s.recv(70000)
            hdr = b""
            while len(hdr) < 4:
                c = s.recv(4 - len(hdr))
                if not c:
                    return None
                hdr += c
            n = struct.unpack("!I", hdr)[0]
            data = b""
            while len(data) < n:
                data += s.recv(n - len(data))
            return data
        except socket.timeout:
            return None

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        _, err = self.p.communicate(5)
        for s in self.ends:
            s.close()
        return err


def check(name, cond, diag=""):
    results.append((name, bool(cond), diag))


A, B, C = "02:00:00:00:00:0a", "02:00:00:00:00:0b", "02:00:00:00:00:0c"


def t_wire_plain():
    f = Fab([False, False])
    fr = eth(B, A)
    f.send(0, fr)
    check("wire: frame 0->1 unchanged", f.recv(1) == fr)
    f.send(1, fr[:20])
    check("wire: short frame 1->0 unchanged (no fcs ports)", f.recv(0) == fr[:20])
    f.stop()


def t_wire_fcs():
    f = Fab([True, False])
    fr = eth(B, A, b"y" * 100)
    f.send(0, fcs(fr))
    check("fcs->plain: FCS stripped", f.recv(1) == fr)
    small = eth(A, B, b"z" * 10)
    f.send(1, small)
    got = f.recv(0)
    want = fcs(small + b"\0" * (60 - len(small)))
    check("plain->fcs: padded to 60, FCS appended (64 bytes)", got == want and len(got) == 64, repr(got))
    f.send(0, b"KITEOS" + b"\x01" * 10)
    check("fcs->plain: ordered set dropped", f.recv(1, 0.3) is None)
    bad = bytearray(fcs(fr))
    bad[-1] ^= 0xff
    f.send(0, bytes(bad))
    check("fcs->plain: bad FCS dropped", f.recv(1, 0.3) is None)
    err = f.stop()
    check("counters: os_dropped=1 bad_fcs=1 on port0", "os_dropped=1 bad_fcs=1" in err, err)


def t_wire_fcs_both():
    f = Fab([True, True], transport="unix")
    os_frame = b"KITEOS" + b"\x02" * 8
    f.send(0, os_frame)
    check("fcs wire (unix): ordered set passes the cable", f.recv(1) == os_frame)
    fr = fcs(eth(A, B))
    f.send(1, fr)
    check("fcs wire (unix): frame with FCS unchanged", f.recv(0) == fr)
    f.stop()


def t_switch():
    f = Fab([False, False, False], mode="switch", transport="unix")
    bc = eth("ff:ff:ff:ff:ff:ff", A)
    f.send(0, bc)
    check("switch: broadcast floods", f.recv(1) == bc and f.recv(2) == bc)
    f.send(1, eth(A, B))
    check("switch: unicast to learned MAC goes to its port only",
          f.recv(0) == eth(A, B) and f.recv(2, 0.3) is None)
    f.send(0, eth(B, A))
    check("switch: reply to learned MAC", f.recv(1) == eth(B, A) and f.recv(2, 0.3) is None)
    f.send(0, eth(C, A))
    check("switch: unknown unicast floods", f.recv(1) == eth(C, A) and f.recv(2) == eth(C, A))
    f.stop()


def t_switch_mixed():
    f = Fab([True, False], mode="switch")
    f.send(0, b"KITEOS\x00\x00")
    check("switch: ordered sets stay on their link", f.recv(1, 0.3) is None)
    f.send(0, fcs(b"KITEOS\x01\x03\x00\x00\x00\x00"))
    check("switch: answers a link partner's request with state up",
          f.recv(0) == fcs(b"KITEOS\x01\x01\x00\x00\x00\x00"))
    fr = eth("ff:ff:ff:ff:ff:ff", A, b"q" * 60)
    f.send(1, fr)
    check("switch: plain->fcs gets FCS", f.recv(0) == fcs(fr))
    f.stop()


def t_loss():
    counts = []
    for _ in range(2):
        f = Fab([False, False], extra=["--loss", "50", "--seed", "7"])
        got = 0
        for i in range(200):
            f.send(0, eth(B, A, struct.pack("!I", i) + b"p" * 46))
            if f.recv(1, 0.05 if got else 0.5) is not None:
                got += 1
        err = f.stop()
        counts.append(got)
    check("loss 50%%: about half delivered (%d/200)" % counts[0], 60 < counts[0] < 140)
    check("loss: same seed, same result (%s)" % counts, counts[0] == counts[1])
    check("loss: counted", "loss_dropped=%d" % (200 - counts[1]) in err, err)


def t_delay():
    f = Fab([False, False], extra=["--delay-us", "200000"])
    t0 = time.monotonic()
    f.send(0, eth(B, A))
    got = f.recv(1, 2)
    dt = time.monotonic() - t0
    check("delay 200 ms: frame arrives after %.3f s" % dt, got is not None and 0.19 < dt < 0.6)
    f.stop()


def t_refuse():
    for knob in (["--ecn-threshold", "10"], ["--pfc", "on"], ["--bogus"]):
        p = subprocess.run([FABRIC, "--port", "unix:/tmp/x.sock"] + knob, capture_output=True, text=True)
        check("refuses %s (rc=%d)" % (knob[0], p.returncode), p.returncode != 0 and p.stderr, p.stderr)
    p = subprocess.run([FABRIC, "--mode", "wire", "--port", "unix:/tmp/x.sock"], capture_output=True, text=True)
    check("wire mode needs 2 ports", p.returncode != 0)


def t_parent_death():
    d = tempfile.mkdtemp(prefix="fabtest-")
    code = ("import subprocess,sys,time; p=subprocess.Popen([%r,'--port','unix:%s/a','--port','unix:%s/b'],"
            "stdout=subprocess.PIPE); p.stdout.readline(); print(p.pid, flush=True)" % (FABRIC, d, d))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    pid = int(out.split()[0])
    time.sleep(0.5)
    alive = os.path.exists("/proc/%d" % pid) and "zombie" not in open("/proc/%d/status" % pid).read().lower()
    check("exits when its parent dies", not alive)


for t in (t_wire_plain, t_wire_fcs, t_wire_fcs_both, t_switch, t_switch_mixed, t_loss, t_delay, t_refuse,
          t_parent_death):
    try:
        t()
    except Exception as e:
        check(t.__name__ + " raised %r" % e, False)
print("1..%d" % len(results))
for i, (name, ok, diag) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
    if not ok and diag:
        for line in str(diag).splitlines()[:10]:
            print("# " + line)
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
