#!/usr/bin/env python3
"""rdma_cq_overflow.py DEV GIDX: a user's CQ overflows, and only its owner hears.

Two RC QPs of one device are connected to each other (the card loops frames
to its own GID back inside). The requester's send CQ has room for few
completions, the program posts many more signaled RDMA WRITEs without polling,
so the card finds the CQ full. Prints "cq_err" when IBV_EVENT_CQ_ERR arrives
for this CQ, then "done". The caller checks that kite.ko's netdev was not
disturbed."""
import sys

from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR
import pyverbs.enums as e

import rdma_loop

dev, gidx = sys.argv[1], int(sys.argv[2])
ctx = Context(name=dev)
pd = PD(ctx)
size = 64
acc = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
mr = MR(pd, 4096, acc)
small = CQ(ctx, 1)          # the card rounds up; still far below the posts
big = CQ(ctx, 256)
gid = ctx.query_gid(1, gidx)
# Four times what the CQ really holds (CQ.cqe is the size granted).
depth = 4 * max(small.cqe, 16)


def rc_qp(scq):
    return QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=scq, rcq=big,
                             cap=QPCap(max_send_wr=depth, max_recv_wr=4)))


qa, qb = rc_qp(small), rc_qp(big)


def connect(qp, remote):
    rdma_loop.connect(qp, remote, gid, gidx, acc)


connect(qa, qb)
connect(qb, qa)
for i in range(depth):
    wr = SendWR(wr_id=i, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(mr.buf, size, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(mr.rkey, mr.buf + 2048)
    qa.post_send(wr)
print("posted", depth, flush=True)
ev = ctx.get_async_event()          # the caller's timeout bounds the wait
print("event", ev.event_type, flush=True)
if ev.event_type == e.IBV_EVENT_CQ_ERR:
    print("cq_err", flush=True)
ev.ack()
print("done", flush=True)
