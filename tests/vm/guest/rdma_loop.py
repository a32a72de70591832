"""RC connection helpers the pyverbs guest programs share: two QPs of one
device connected to each other (the card loops RoCE frames to its own GID
back inside: rdma_cq_overflow.py, rdma_qp_counter.py), or one QP to a peer
known by its QP number and GID (rdma_rkey.py, rdma_xfer.py)."""
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.qp import QPAttr
import pyverbs.enums as e


def connect(qp, remote, gid, gidx, access):
    """RESET -> INIT -> RTR -> RTS towards @remote at @gid (index @gidx)."""
    a = QPAttr(qp_state=e.IBV_QPS_INIT)
    a.qp_access_flags = access
    a.pkey_index = 0
    a.port_num = 1
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
              e.IBV_QP_ACCESS_FLAGS)
    a = QPAttr(qp_state=e.IBV_QPS_RTR, path_mtu=e.IBV_MTU_1024)
    a.dest_qp_num = remote.qp_num
    a.rq_psn = 0
    a.max_dest_rd_atomic = 1
    a.min_rnr_timer = 12
    a.ah_attr = AHAttr(gr=GlobalRoute(dgid=GID(str(gid)), sgid_index=gidx),
                       is_global=1, port_num=1)
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
              e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
              e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER)
    a = QPAttr(qp_state=e.IBV_QPS_RTS)
    a.timeout = 14
    a.retry_cnt = 7
    a.rnr_retry = 7
    a.sq_psn = 0
    a.max_rd_atomic = 1
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
              e.IBV_QP_RNR_RETRY | e.IBV_QP_SQ_PSN | e.IBV_QP_MAX_QP_RD_ATOMIC)


def connect_remote(qp, gid, gidx, dest_qpn, access, rd=1):
    """RESET -> RTS towards QP @dest_qpn at GID string @gid (ours: index
    @gidx): MTU 1024, PSNs 0, @rd READs/atomics each way, timeout 14 (67 ms),
    seven retries, RNR retries without limit."""
    g = GID()
    g.gid = gid
    a = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
    a.qp_access_flags = access
    a.ah_attr = AHAttr(gr=GlobalRoute(dgid=g, sgid_index=gidx, hop_limit=64), is_global=1, port_num=1)
    a.dest_qp_num = dest_qpn
    a.path_mtu = e.IBV_MTU_1024
    a.rq_psn = a.sq_psn = 0
    a.max_dest_rd_atomic = a.max_rd_atomic = rd
    a.min_rnr_timer = 12
    a.timeout = 14
    a.retry_cnt = a.rnr_retry = 7
    qp.to_rts(a)
