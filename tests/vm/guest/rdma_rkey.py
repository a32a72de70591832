#!/usr/bin/env python3
"""One side of an RC pair over pyverbs, for 76-rdma-errors.sh.

    rdma_rkey.py DEV GID_INDEX ROLE DIR
ROLE responder: exposes a 4 KiB buffer of 0x5a (remote write and read),
writes its QP number, GID, address and rkey to DIR/responder, waits for
DIR/requester, connects and then for DIR/done; prints "intact" if the buffer
is unchanged. ROLE requester: connects, RDMA-WRITEs with the rkey off by one
variant, and prints the completion status name.
"""
import json
import os
import sys
import time

from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR
import pyverbs.enums as e

from rdma_loop import connect_remote

dev, gidx, role, d = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
peer = "requester" if role == "responder" else "responder"
ctx = Context(name=dev)
pd = PD(ctx)
size = 4096
acc = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
mr = MR(pd, size, acc)
mr.write(b"\x5a" * size, size)
cq = CQ(ctx, 16)
qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                       cap=QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)))
me = {"qpn": qp.qp_num, "gid": str(ctx.query_gid(1, gidx)), "addr": mr.buf, "rkey": mr.rkey}
with open(os.path.join(d, role + ".tmp"), "w") as f:
    json.dump(me, f)
os.rename(os.path.join(d, role + ".tmp"), os.path.join(d, role))


def wait_for(name, t=30):
    p = os.path.join(d, name)
    end = time.time() + t
    while not os.path.exists(p):
        if time.time() > end:
            sys.exit(f"timed out waiting for {name}")
        time.sleep(0.05)
    return p


with open(wait_for(peer)) as f:
    other = json.load(f)
connect_remote(qp, other["gid"], gidx, other["qpn"], acc)

if role == "responder":
    open(os.path.join(d, "ready"), "w").close()
    wait_for("done", 60)
    print("intact" if mr.read(size, 0) == b"\x5a" * size else "CHANGED")
    sys.exit(0)

wait_for("ready")
wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)],
            send_flags=e.IBV_SEND_SIGNALED)
# Same MR index, another variant: a key that no MR holds.
wr.set_wr_rdma(other["rkey"] ^ 1, other["addr"])
mr.write(b"\xa5" * 64, 64)
qp.post_send(wr)
end = time.time() + 20
while time.time() < end:
    n, wcs = cq.poll()
    if n:
        names = {v: k for k, v in vars(e).items() if k.startswith("IBV_WC_") and "ERR" in k or k == "IBV_WC_SUCCESS"}
        print(names.get(wcs[0].status, wcs[0].status))
        break
    time.sleep(0.01)
else:
    print("no completion")
open(os.path.join(d, "done"), "w").close()
