#!/usr/bin/env python3
"""RC transfers between two hosts with every byte checked (pyverbs), for
vm-rdma-pair's lossy fabric.

    rdma_xfer.py DEV GID_INDEX server PORT
    rdma_xfer.py DEV GID_INDEX client PORT SERVER_IP [ITERS SIZE REGION]

Both sides exchange QP numbers, GIDs and keys over TCP, then:

1. SEND ping-pong: the client sends ITERS messages of SIZE bytes; the server
   checks each against the generator and answers with one of its own, which
   the client checks (byte count and content, both directions).
2. RDMA READ: the client reads REGION bytes of the server's buffer (filled
   by the server before the connection) in 256 KiB WRs, as many in flight as
   the initiator depth allows, and compares them.
3. RDMA WRITE: the client writes REGION bytes over the same buffer in 256 KiB
   WRs, four in flight; once they have completed, the server compares it.

Contents come from seeded generators, different for each message and phase,
so a misplaced, repeated or stale packet changes what is compared. Both sides
report "done" over TCP only when all their own work requests have completed
and wait for the peer's: a requester whose last ACK was lost retransmits to a
responder that still exists (ibv_rc_pingpong exits as soon as its own side is
done, so one lost final ACK fails its peer with RETRY_EXC_ERR after it leaves).
Prints one line per phase; exits 1 with the first difference or error.
"""
import json
import random
import socket
import sys
import time

from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR
import pyverbs.enums as e

from rdma_loop import connect_remote

RECV_SLOTS = 8
CHUNK = 256 * 1024
DEPTH = 4
TIMEOUT = 100  # seconds without a completion


def gen(*key, n):
    return random.Random("-".join(str(k) for k in key)).randbytes(n)


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def fail(msg):
    print("FAIL:", msg, flush=True)
    sys.exit(1)


class Peer:
    """The TCP control connection: JSON lines."""

    def __init__(self, sock):
        self.s = sock
        self.f = sock.makefile("r")

    def send(self, obj):
        self.s.sendall((json.dumps(obj) + "\n").encode())

    def recv(self):
        line = self.f.readline()
        if not line:
            fail("control connection closed by the peer")
        return json.loads(line)


def main():
    dev, gidx, role, port = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    iters, size, region = 300, 65536, 4 << 20
    if role == "client":
        server = sys.argv[5]
        if len(sys.argv) > 6:
            iters, size, region = (int(x) for x in sys.argv[6:9])
    if size > CHUNK or region % CHUNK:
        fail("SIZE must be at most 256 KiB and REGION a multiple of it")

    ctx = Context(name=dev)
    pd = PD(ctx)
    acc = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
    # [send slot][RECV_SLOTS recv slots][region]
    slot = CHUNK
    reg_off = slot * (1 + RECV_SLOTS)
    mr = MR(pd, reg_off + region, acc)
    cq = CQ(ctx, 64)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=DEPTH + 2, max_recv_wr=RECV_SLOTS,
                                     max_send_sge=1, max_recv_sge=1)))
    rd = max(1, min(DEPTH, ctx.query_device().max_qp_rd_atom))

    def post_recv(i):
        off = slot * (1 + i)
        qp.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[SGE(mr.buf + off, slot, mr.lkey)]))

    seed = random.SystemRandom().randrange(1 << 62)
    if role == "server":
        mr.write(gen("read", seed, n=region), region, reg_off)
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("0.0.0.0", port))
        ls.listen(1)
        print(f"listening on {port}", flush=True)
        ls.settimeout(60)
        peer = Peer(ls.accept()[0])
    else:
        s = None
        end = time.time() + 30
        while s is None:
            try:
                s = socket.create_connection((server, port), timeout=5)
            except OSError:
                if time.time() > end:
                    raise
                time.sleep(0.2)
        peer = Peer(s)
    s = peer.s
    s.settimeout(TIMEOUT + 60)

    me = {"qpn": qp.qp_num, "gid": str(ctx.query_gid(1, gidx)), "addr": mr.buf + reg_off,
          "rkey": mr.rkey, "seed": seed, "iters": iters, "size": size, "region": region}
    peer.send(me)
    other = peer.recv()
    if role == "server":
        iters, size, region = other["iters"], other["size"], other["region"]
        if region > mr.length - reg_off or size > slot:
            fail("the client asks for more than this side registered")
    connect_remote(qp, other["gid"], gidx, other["qpn"], acc, rd)
    for i in range(RECV_SLOTS):
        post_recv(i)  # not in RESET (IBA 10.8.2.3)
    # Both QPs in RTS, receives posted, before anything is sent.
    peer.send({"rts": True})
    peer.recv()

    sends = [0]
    recvs = []

    def poll(want):
        """Polls until want() is true; SEND completions count in sends[0],
        receive completions are queued in recvs as (slot, byte_len)."""
        last = time.time()
        while not want():
            n, wcs = cq.poll(8)
            if not n:
                if time.time() - last > TIMEOUT:
                    fail(f"no completion for {TIMEOUT} s")
                continue
            last = time.time()
            for wc in wcs[:n]:
                if wc.status != e.IBV_WC_SUCCESS:
                    names = {v: k for k, v in vars(e).items() if k.startswith("IBV_WC_")}
                    fail(f"wr_id {wc.wr_id} opcode {wc.opcode}: {names.get(wc.status, wc.status)}"
                         f" (vendor syndrome {wc.vendor_err:#x})")
                if wc.opcode & e.IBV_WC_RECV:
                    recvs.append((wc.wr_id, wc.byte_len))
                else:
                    sends[0] += 1

    def send_msg(data, wr_id):
        mr.write(data, len(data), 0)
        qp.post_send(SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                            sg=[SGE(mr.buf, len(data), mr.lkey)], send_flags=e.IBV_SEND_SIGNALED))

    def take_msg(seed_of, i):
        poll(lambda: recvs)
        k, n = recvs.pop(0)
        got = mr.read(n, slot * (1 + k))
        want = gen(seed_of, i, n=size)
        if n != size or got != want:
            fail(f"message {i}: {n} bytes, first difference at byte {first_diff(got, want)}")
        post_recv(k)

    # 1. SEND ping-pong, both directions checked.
    t0 = time.time()
    for i in range(iters):
        if role == "client":
            send_msg(gen(seed, i, n=size), i)
            take_msg(other["seed"], i)
        else:
            take_msg(other["seed"], i)
            send_msg(gen(seed, i, n=size), i)
        poll(lambda: sends[0] == i + 1)
    print(f"pingpong: {iters} x {size} B each way intact ({time.time() - t0:.1f} s)", flush=True)

    # 2./3. READ from the server's buffer, then WRITE over it (client side posts).
    if role == "client":
        for op, name in ((e.IBV_WR_RDMA_READ, "read"), (e.IBV_WR_RDMA_WRITE, "write")):
            t0 = time.time()
            if name == "read":
                mr.write(bytes(region), region, reg_off)
            else:
                mr.write(gen("write", seed, n=region), region, reg_off)
            base = sends[0]
            posted = 0
            nchunk = region // CHUNK
            while sends[0] - base < nchunk:
                while posted < nchunk and posted - (sends[0] - base) < (rd if name == "read" else DEPTH):
                    wr = SendWR(wr_id=1000 + posted, opcode=op, num_sge=1,
                                sg=[SGE(mr.buf + reg_off + posted * CHUNK, CHUNK, mr.lkey)],
                                send_flags=e.IBV_SEND_SIGNALED)
                    wr.set_wr_rdma(other["rkey"], other["addr"] + posted * CHUNK)
                    qp.post_send(wr)
                    posted += 1
                done = sends[0]
                poll(lambda: sends[0] > done)
            if name == "read":
                got = mr.read(region, reg_off)
                want = gen("read", other["seed"], n=region)
                if got != want:
                    fail(f"read: first difference at byte {first_diff(got, want)}")
            else:
                peer.send({"written": region})
                v = peer.recv()
                if not v.get("ok"):
                    fail(f"write: the server's buffer differs at byte {v.get('diff')}")
            print(f"{name}: {region} B in {CHUNK // 1024} KiB WRs intact ({time.time() - t0:.1f} s)", flush=True)
    else:
        v = peer.recv()
        got = mr.read(v["written"], reg_off)
        want = gen("write", other["seed"], n=v["written"])
        ok = got == want
        peer.send({"ok": ok, "diff": None if ok else first_diff(got, want)})
        print(f"write: {v['written']} B {'intact' if ok else 'DIFFERENT'} in this side's buffer", flush=True)
        if not ok:
            sys.exit(1)

    # Every WR of this side has completed; the QPs stay until both say so.
    peer.send({"done": True})
    peer.recv()
    print("done", flush=True)


if __name__ == "__main__":
    main()
