#!/usr/bin/env python3
"""rdma_qp_counter.py DEV GIDX: per-QP counters as `rdma statistic qp` shows them.

Two RC QPs of one device are connected to each other (the card loops frames
to its own GID back inside). Writes of 4 KiB over a 1024-byte path MTU are
4 packets each, so the requester's counter must move by exactly 4 packets a
write while it is bound and not at all before. Prints one line per check,
"ok NAME" or "not ok NAME: why", then "done"."""
import json
import subprocess
import sys

from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR
import pyverbs.enums as e

import rdma_loop

dev, gidx = sys.argv[1], int(sys.argv[2])
link = dev + "/1"
ctx = Context(name=dev)
pd = PD(ctx)
acc = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
mr = MR(pd, 2 * 4096, acc)
cq = CQ(ctx, 256)
gid = ctx.query_gid(1, gidx)
SIZE, PKTS = 4096, 4          # one write, its packets at path MTU 1024


def rdma(*args):
    r = subprocess.run(["rdma"] + list(args), capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def check(name, ok, why=""):
    print(("ok " if ok else "not ok ") + name + ("" if ok else ": " + why), flush=True)


def rc_qp():
    return QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                             cap=QPCap(max_send_wr=64, max_recv_wr=4)))


def connect(qp, remote):
    rdma_loop.connect(qp, remote, gid, gidx, acc)


def writes(qp, n):
    for i in range(n):
        wr = SendWR(wr_id=i, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                    sg=[SGE(mr.buf, SIZE, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(mr.rkey, mr.buf + 4096)
        qp.post_send(wr)
    got = 0
    while got < n:                      # the caller's timeout bounds the wait
        npolled, wcs = cq.poll(n - got)
        for wc in wcs[:npolled]:
            if wc.status != e.IBV_WC_SUCCESS:
                raise SystemExit("not ok write completion status %d" % wc.status)
        got += npolled


def walk(o):
    if isinstance(o, dict):
        yield o
        for v in o.values():
            yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)


def qpns(d):
    """The QP numbers an `rdma -j statistic qp show` entry lists."""
    out = set()
    for k, v in d.items():
        if "qpn" in k.lower():
            for x in (v if isinstance(v, list) else [v]):
                if isinstance(x, dict):
                    out |= qpns(x)
                elif str(x).isdigit():
                    out.add(int(x))
    return out


def counters():
    rc, out = rdma("-j", "statistic", "qp", "show", "link", link)
    print("# rdma -j statistic qp show: " + out.strip().replace("\n", " "), flush=True)
    try:
        return [d for d in walk(json.loads(out or "[]")) if "cntn" in d]
    except ValueError:
        return []


def counter_of(qpn):
    for d in counters():
        if qpn in qpns(d):
            return d
    return None


def stat(d, name):
    for x in walk(d):
        if name in x:
            return int(x[name])
    return None


qa, qb = rc_qp(), rc_qp()
connect(qa, qb)
connect(qb, qa)
writes(qa, 3)                           # before binding: not counted
check("no counter before binding", counter_of(qa.qp_num) is None)

rc, out = rdma("statistic", "qp", "bind", "link", link, "lqpn", str(qa.qp_num))
check("rdma statistic qp bind allocates a counter", rc == 0, out)
c = counter_of(qa.qp_num)
check("the new counter lists the QP", c is not None)
check("a fresh counter reads 0 packets", c is not None and stat(c, "tx_packets") == 0,
      "tx_packets %s" % (c and stat(c, "tx_packets")))
writes(qa, 10)
c = counter_of(qa.qp_num)
tx, txb, rx = (stat(c, k) if c else None for k in ("tx_packets", "tx_bytes", "rx_packets"))
check("tx_packets counts exactly the bound QP's packets", tx == 10 * PKTS, "tx_packets %s" % tx)
check("tx_bytes counts their frames", txb is not None and 10 * SIZE < txb < 10 * (SIZE + PKTS * 100),
      "tx_bytes %s" % txb)
check("rx_packets counts the ACKs it received", rx is not None and 1 <= rx <= 10 * PKTS, "rx_packets %s" % rx)
check("the peer QP is not in it", qb.qp_num not in qpns(c or {}))

cntn = str(stat(c, "cntn")) if c else "0"
rc, out = rdma("statistic", "qp", "bind", "link", link, "lqpn", str(qb.qp_num), "cntn", cntn)
check("a second QP binds into the same counter", rc == 0 and qb.qp_num in qpns(counter_of(qa.qp_num) or {}), out)
writes(qa, 2)                           # qb now counts the ACKs it sends
before = stat(counter_of(qa.qp_num) or {}, "tx_packets")
rc, out = rdma("statistic", "qp", "unbind", "link", link, "cntn", cntn, "lqpn", str(qb.qp_num))
after = stat(counter_of(qa.qp_num) or {}, "tx_packets")
check("unbinding a QP keeps what it counted", rc == 0 and before is not None and before > 12 * PKTS and after == before,
      "%s; tx_packets %s before, %s after" % (out, before, after))
qa.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)  # the card zeroes its own counts
reset = stat(counter_of(qa.qp_num) or {}, "tx_packets")
check("a bound QP's reset keeps its counter", reset == after, "tx_packets %s, %s before the reset" % (reset, after))
rc, out = rdma("statistic", "qp", "unbind", "link", link, "cntn", cntn, "lqpn", str(qa.qp_num))
check("rdma statistic qp unbind", rc == 0, out)
check("the counter is gone with its last QP", counter_of(qa.qp_num) is None)

rc, out = rdma("statistic", "qp", "set", "link", link, "auto", "type", "on")
check("auto mode by QP type", rc == 0, out)
qc, qd = rc_qp(), rc_qp()
connect(qc, qd)
connect(qd, qc)
writes(qc, 5)
c = counter_of(qc.qp_num)
check("auto mode binds both new RC QPs to one counter",
      c is not None and qd.qp_num in qpns(c) and qa.qp_num not in qpns(c))
tx = stat(c, "tx_packets") if c else None
# qc's 20 data packets and qd's ACKs for them
check("auto counter counts both QPs", tx is not None and 5 * PKTS < tx <= 10 * PKTS,
      "tx_packets %s" % tx)
rc, out = rdma("statistic", "qp", "set", "link", link, "auto", "off")
check("auto mode off", rc == 0, out)
for q in (qc, qd, qa, qb):
    q.close()
check("destroying the QPs frees the auto counter", not counters())
print("done", flush=True)
