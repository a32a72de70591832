// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kite RoCEv2 driver: QPs, SRQs and address handles, and the kernel data
 * path (post_send, post_recv, CQE parsing) that the MAD/CM stack uses on
 * the GSI QP. User QPs keep their rings in user memory that the kernel pins
 * and registers as an MR the card reads them through (RING_MR); kernel QPs
 * use coherent memory addressed by bus address.
 */

#include <linux/dma-mapping.h>
#include <linux/if_vlan.h>
#include <rdma/ib_cache.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>
#include <uapi/rdma/kite-abi.h>

#include "kite_ib.h"

/* qp_attr.mask is Linux's enum ib_qp_attr_mask up to IB_QP_DEST_QPN. */
#define KITE_IB_QP_ATTR_KNOWN	(IB_QP_DEST_QPN | (IB_QP_DEST_QPN - 1))

static int kite_ib_card_qp_type(enum ib_qp_type t)
{
	switch (t) {
	case IB_QPT_RC:
		return KITE_QP_TYPE_RC;
	case IB_QPT_UD:
		return KITE_QP_TYPE_UD;
	case IB_QPT_GSI:
		return KITE_QP_TYPE_GSI;
	default:
		return -EOPNOTSUPP;
	}
}

/* ------------------------------------------------------------ kernel rings */

static int kite_ib_wq_alloc(struct kite_ib_dev *dev, struct kite_ib_wq *wq,
			    u32 entries, u32 bytes)
{
	u32 log_size = max_t(u32, order_base_2(max_t(u32, entries, 1)),
			     KITE_MIN_LOG_RING);
	u32 log_stride = max_t(u32, order_base_2(bytes), KITE_MIN_LOG_STRIDE);

	if (log_size > dev->kadev->log_max_wqe ||
	    log_stride > KITE_MAX_LOG_STRIDE)
		return -EINVAL;
	wq->log_size = log_size;
	wq->log_stride = log_stride;
	wq->size = PAGE_ALIGN((size_t)1 << (log_size + log_stride));
	wq->buf = dma_alloc_coherent(kite_ib_dma_dev(dev), wq->size, &wq->dma,
				     GFP_KERNEL);
	if (!wq->buf)
		return -ENOMEM;
	wq->wrid = kcalloc(1U << log_size, sizeof(u64), GFP_KERNEL);
	if (!wq->wrid) {
		dma_free_coherent(kite_ib_dma_dev(dev), wq->size, wq->buf,
				  wq->dma);
		wq->buf = NULL;
		return -ENOMEM;
	}
	spin_lock_init(&wq->lock);
	return 0;
}

static void kite_ib_wq_free(struct kite_ib_dev *dev, struct kite_ib_wq *wq)
{
	if (!wq->buf)
		return;
	dma_free_coherent(kite_ib_dma_dev(dev), wq->size, wq->buf, wq->dma);
	kfree(wq->wrid);
	wq->buf = NULL;
}

static inline void *kite_ib_wq_slot(struct kite_ib_wq *wq, u32 idx)
{
	return wq->buf + ((size_t)(idx & ((1U << wq->log_size) - 1)) <<
			  wq->log_stride);
}

static inline bool kite_ib_wq_full(struct kite_ib_wq *wq)
{
	return wq->pi - READ_ONCE(wq->ci) >= (1U << wq->log_size);
}

/*
 * Header segments before the data: the UD vector, or an RC remote address.
 * An RC WQE with more header (atomics, REG_MR) carries at most one SGE.
 */
static u32 kite_ib_sq_hdr(u8 type)
{
	return type == KITE_QP_TYPE_RC ? sizeof(struct kite_wqe_raddr) :
					 sizeof(struct kite_wqe_ud);
}

static u32 kite_ib_sq_min_stride(u8 type)
{
	if (type != KITE_QP_TYPE_RC)
		return 0;
	return sizeof(struct kite_wqe_ctrl) +
	       max(sizeof(struct kite_wqe_raddr) +
		   sizeof(struct kite_wqe_atomic) + KITE_DS_SIZE,
		   sizeof(struct kite_wqe_reg_mr));
}

static int kite_ib_kernel_rings(struct kite_ib_dev *dev, struct kite_ib_qp *qp,
				struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 hdr = sizeof(struct kite_wqe_ctrl) + kite_ib_sq_hdr(qp->type);
	u32 data, max_sge = min_t(u32, dev->kadev->max_sge, KITE_MAX_GATHER);
	int err;

	if (cap->max_send_sge > max_sge || cap->max_recv_sge > max_sge ||
	    cap->max_inline_data > dev->kadev->max_inline)
		return -EINVAL;
	data = max3(cap->max_send_sge * KITE_DS_SIZE,
		    ALIGN(cap->max_inline_data, KITE_DS_SIZE), (u32)KITE_DS_SIZE);
	err = kite_ib_wq_alloc(dev, &qp->sq, cap->max_send_wr,
			       max(hdr + data, kite_ib_sq_min_stride(qp->type)));
	if (err)
		return err;
	qp->sq.max_sge = min_t(u32, ((1U << qp->sq.log_stride) - hdr) /
				    KITE_DS_SIZE, max_sge);
	qp->max_inline = min_t(u32, (1U << qp->sq.log_stride) - hdr,
			       dev->kadev->max_inline);
	cap->max_send_wr = 1U << qp->sq.log_size;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->max_inline;
	if (init->srq)
		return 0;	/* receives come from the SRQ */
	err = kite_ib_wq_alloc(dev, &qp->rq, cap->max_recv_wr,
			       max_t(u32, cap->max_recv_sge, 1) * KITE_DS_SIZE);
	if (err) {
		kite_ib_wq_free(dev, &qp->sq);
		return err;
	}
	qp->rq.max_sge = min_t(u32, (1U << qp->rq.log_stride) / KITE_DS_SIZE,
			       max_sge);
	cap->max_recv_wr = 1U << qp->rq.log_size;
	cap->max_recv_sge = qp->rq.max_sge;
	return 0;
}

/* ------------------------------------------------------------ user rings */

static bool kite_ib_ring_ok(u32 log_size, u32 log_stride, u8 log_max)
{
	return log_size >= KITE_MIN_LOG_RING && log_size <= log_max &&
	       log_stride >= KITE_MIN_LOG_STRIDE &&
	       log_stride <= KITE_MAX_LOG_STRIDE;
}

static int kite_ib_user_qp_req(struct kite_ib_dev *dev,
			       struct kite_create_qp_req *req, bool srq)
{
	u64 sq_bytes, rq_bytes;

	if (req->reserved || (req->flags & ~KITE_QP_SIG_ALL))
		return -EINVAL;
	if (!PAGE_ALIGNED(req->buf_va) || !req->buf_len ||
	    !PAGE_ALIGNED(req->buf_len))
		return -EINVAL;
	if (!kite_ib_ring_ok(req->sq_log_size, req->sq_log_stride,
			     dev->kadev->log_max_wqe) ||
	    req->max_inline > dev->kadev->max_inline)
		return -EINVAL;
	sq_bytes = 1ULL << (req->sq_log_size + req->sq_log_stride);
	if (sq_bytes > req->buf_len)
		return -EINVAL;
	if (srq)
		return req->rq_log_size || req->rq_log_stride ||
		       req->rq_offset ? -EINVAL : 0;
	if (!kite_ib_ring_ok(req->rq_log_size, req->rq_log_stride,
			     dev->kadev->log_max_wqe) ||
	    !IS_ALIGNED(req->rq_offset, KITE_DB_PAGE_SIZE) ||
	    req->rq_offset < sq_bytes)
		return -EINVAL;
	rq_bytes = 1ULL << (req->rq_log_size + req->rq_log_stride);
	if ((u64)req->rq_offset + rq_bytes > req->buf_len)
		return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------ QP */

int kite_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		      struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibqp->device);
	struct kite_ib_ucontext *uc = rdma_udata_to_drv_context(udata,
			struct kite_ib_ucontext, ibuc);
	struct kite_ib_qp *qp = to_kqp(ibqp);
	struct kite_create_qp_resp resp = {};
	struct kite_create_qp_req req = {};
	struct kite_create_qp_in in = {};
	struct kite_obj_out out;
	u16 flags = 0;
	int type, err;

	type = kite_ib_card_qp_type(init->qp_type);
	if (type < 0)
		return type;
	if (init->create_flags || (uc && type == KITE_QP_TYPE_GSI))
		return -EOPNOTSUPP;
	if (!init->send_cq || (!init->recv_cq && !init->srq))
		return -EINVAL;
	if (init->srq && !uc && to_ksrq(init->srq)->user)
		return -EINVAL;
	qp->type = type;
	qp->user = !!uc;
	qp->state = IB_QPS_RESET;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;

	if (uc) {
		err = ib_copy_from_udata(&req, udata,
					 min(udata->inlen, sizeof(req)));
		if (err)
			return err;
		err = kite_ib_user_qp_req(dev, &req, !!init->srq);
		if (err)
			return err;
		if (req.flags & KITE_QP_SIG_ALL)
			qp->sig_all = true;
		qp->max_inline = req.max_inline;
		/* Pinned writable, so the pages are the ones the provider writes. */
		qp->umem = ib_umem_get(ibqp->device, req.buf_va, req.buf_len,
				       IB_ACCESS_LOCAL_WRITE);
		if (IS_ERR(qp->umem))
			return PTR_ERR(qp->umem);
		qp->ring_mr = kite_ib_ring_mr(dev, to_kpd(ibqp->pd)->pdn,
					      qp->umem, req.buf_va);
		if (IS_ERR(qp->ring_mr)) {
			err = PTR_ERR(qp->ring_mr);
			goto err_umem;
		}
		flags = KITE_CREATE_QP_IN_FLAGS_USER |
			KITE_CREATE_QP_IN_FLAGS_RING_MR;
		in.ring_lkey = cpu_to_le32(qp->ring_mr->ibmr.lkey);
		in.sq_base = cpu_to_le64(req.buf_va);
		if (!init->srq)
			in.rq_base = cpu_to_le64(req.buf_va + req.rq_offset);
		in.sq_log_size = req.sq_log_size;
		in.sq_log_stride = req.sq_log_stride;
		in.rq_log_size = req.rq_log_size;
		in.rq_log_stride = req.rq_log_stride;
		in.db_page = cpu_to_le32(uc->db_page);
		qp->cap = init->cap;
	} else {
		err = kite_ib_kernel_rings(dev, qp, init);
		if (err)
			return err;
		in.sq_base = cpu_to_le64(qp->sq.dma);
		in.rq_base = cpu_to_le64(qp->rq.dma);
		in.sq_log_size = qp->sq.log_size;
		in.sq_log_stride = qp->sq.log_stride;
		in.rq_log_size = qp->rq.log_size;
		in.rq_log_stride = qp->rq.log_stride;
		qp->cap = init->cap;
	}
	if (qp->sig_all)
		flags |= KITE_CREATE_QP_IN_FLAGS_SIG_ALL;

	in.pdn = cpu_to_le32(to_kpd(ibqp->pd)->pdn);
	in.send_cqn = cpu_to_le32(to_kcq(init->send_cq)->cqn);
	/* With an SRQ the card wants some owned CQ here: use the send CQ. */
	in.recv_cqn = cpu_to_le32(to_kcq(init->recv_cq ?: init->send_cq)->cqn);
	in.srqn = cpu_to_le32(init->srq ? to_ksrq(init->srq)->srqn :
			      KITE_NO_OBJECT);
	in.qp_type = type;
	in.port = dev->card_port;
	in.flags = cpu_to_le16(flags);
	in.max_inline = cpu_to_le16(qp->max_inline);
	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_CREATE_QP, &in, sizeof(in),
			  &out, sizeof(out));
	if (err)
		goto err_rings;
	qp->qpn = le32_to_cpu(out.id);
	ibqp->qp_num = type == KITE_QP_TYPE_GSI ? KITE_IB_GSI_QPN : qp->qpn;

	if (uc) {
		resp.qpn = qp->qpn;
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_destroy;
	}
	err = xa_insert(&dev->qps, qp->qpn, qp, GFP_KERNEL);
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	if (kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_DESTROY_QP, qp->qpn))
		return err;	/* leak: the card may still use the rings */
err_rings:
	if (uc) {
		if (kite_ib_ring_mr_free(dev, qp->ring_mr))
			return err;
	} else {
		kite_ib_wq_free(dev, &qp->sq);
		kite_ib_wq_free(dev, &qp->rq);
	}
err_umem:
	if (uc)
		ib_umem_release(qp->umem);
	return err;
}

int kite_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibqp->device);
	struct kite_ib_qp *qp = to_kqp(ibqp);
	int err;

	err = kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_DESTROY_QP, qp->qpn);
	xa_erase(&dev->qps, qp->qpn);
	/* Event callbacks run under RCU: none uses this QP after this. */
	synchronize_rcu();
	if (err && err != -ENOENT)
		return 0;	/* leak the rings the card may still read */
	if (qp->user) {
		if (!kite_ib_ring_mr_free(dev, qp->ring_mr))
			ib_umem_release(qp->umem);
	} else {
		kite_ib_wq_free(dev, &qp->sq);
		kite_ib_wq_free(dev, &qp->rq);
	}
	return 0;
}

static int kite_ib_av_from_ah_attr(struct kite_ib_dev *dev,
				   const struct rdma_ah_attr *ah,
				   u8 *dmac, __le16 *vlan_tci, u8 *dgid,
				   __le32 *flow_label, u8 *hop_limit,
				   u8 *tclass, u8 *sgid_index, u8 *av_flags)
{
	const struct ib_global_route *grh;
	u16 vlan = 0xffff;
	int err;

	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;	/* RoCE addresses by GID */
	grh = rdma_ah_read_grh(ah);
	if (grh->sgid_attr) {
		err = rdma_read_gid_l2_fields(grh->sgid_attr, &vlan, NULL);
		if (err)
			return err;
		if (rdma_gid_attr_network_type(grh->sgid_attr) ==
		    RDMA_NETWORK_IPV4)
			*av_flags |= KITE_WQE_UD_FLAGS_IPV4;
	}
	if (vlan < VLAN_N_VID) {
		*av_flags |= KITE_WQE_UD_FLAGS_VLAN;
		*vlan_tci = cpu_to_le16(vlan | rdma_ah_get_sl(ah) <<
					VLAN_PRIO_SHIFT);
	}
	memcpy(dmac, ah->roce.dmac, ETH_ALEN);
	memcpy(dgid, grh->dgid.raw, 16);
	*flow_label = cpu_to_le32(grh->flow_label & 0xfffff);
	*hop_limit = grh->hop_limit;
	*tclass = grh->traffic_class;
	*sgid_index = grh->sgid_index;
	return 0;
}

int kite_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibqp->device);
	struct kite_ib_qp *qp = to_kqp(ibqp);
	u64 seen[KITE_IB_NUM_STATS];
	enum ib_qp_state cur, next;
	bool fold = false;
	struct kite_qp_attr in = {};
	int err;

	if (udata && udata->inlen)
		return -EINVAL;
	if (mask & ~KITE_IB_QP_ATTR_KNOWN)
		return -EOPNOTSUPP;
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state :
					 READ_ONCE(qp->state);
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask))
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != KITE_IB_PORT)
		return -EINVAL;

	in.qpn = cpu_to_le32(qp->qpn);
	in.mask = cpu_to_le32(mask);
	in.state = attr->qp_state;
	in.cur_state = attr->cur_qp_state;
	in.path_mtu = attr->path_mtu;
	in.timeout = attr->timeout;
	in.retry_cnt = attr->retry_cnt;
	in.rnr_retry = attr->rnr_retry;
	in.min_rnr_timer = attr->min_rnr_timer;
	in.max_rd_atomic = attr->max_rd_atomic;
	in.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	in.access = attr->qp_access_flags & (IB_ACCESS_LOCAL_WRITE |
					     IB_ACCESS_REMOTE_WRITE |
					     IB_ACCESS_REMOTE_READ |
					     IB_ACCESS_REMOTE_ATOMIC);
	in.port = dev->card_port;
	in.qkey = cpu_to_le32(attr->qkey);
	in.rq_psn = cpu_to_le32(attr->rq_psn);
	in.sq_psn = cpu_to_le32(attr->sq_psn);
	in.dest_qpn = cpu_to_le32(attr->dest_qp_num);
	in.pkey_index = cpu_to_le16(attr->pkey_index);
	if (mask & IB_QP_AV) {
		err = kite_ib_av_from_ah_attr(dev, &attr->ah_attr, in.dmac,
					      &in.vlan_tci, in.dgid,
					      &in.flow_label, &in.hop_limit,
					      &in.tclass, &in.sgid_index,
					      &in.av_flags);
		if (err)
			return err;
	}
	if (next == IB_QPS_RESET && cur != IB_QPS_RESET && ibqp->counter)
		fold = !kite_ib_qp_stats(dev, qp->qpn, seen);
	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_MODIFY_QP, &in, sizeof(in),
			  NULL, 0);
	if (err)
		return err;
	if (fold)
		kite_ib_counter_qp_reset(ibqp, seen);

	if (next == IB_QPS_RESET && !qp->user) {
		/* The card restarted both rings at index 0. */
		spin_lock_irq(&qp->sq.lock);
		qp->sq.pi = 0;
		WRITE_ONCE(qp->sq.ci, 0);
		spin_unlock_irq(&qp->sq.lock);
		spin_lock_irq(&qp->rq.lock);
		qp->rq.pi = 0;
		WRITE_ONCE(qp->rq.ci, 0);
		spin_unlock_irq(&qp->rq.lock);
	}
	WRITE_ONCE(qp->state, next);
	return 0;
}

int kite_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init)
{
	struct kite_ib_dev *dev = to_kdev(ibqp->device);
	struct kite_ib_qp *qp = to_kqp(ibqp);
	struct kite_obj_in in = { .id = cpu_to_le32(qp->qpn) };
	struct kite_qp_attr out;
	union ib_gid dgid;
	int err;

	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_QUERY_QP, &in, sizeof(in), &out,
			  sizeof(out));
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = out.state;
	attr->cur_qp_state = out.state;
	WRITE_ONCE(qp->state, out.state);
	attr->path_mtu = out.path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = le32_to_cpu(out.qkey);
	attr->rq_psn = le32_to_cpu(out.rq_psn);
	attr->sq_psn = le32_to_cpu(out.sq_psn);
	attr->dest_qp_num = le32_to_cpu(out.dest_qpn);
	attr->qp_access_flags = out.access;
	attr->cap = qp->cap;
	attr->pkey_index = 0;
	attr->sq_draining = out.sq_draining;
	attr->max_rd_atomic = out.max_rd_atomic;
	attr->max_dest_rd_atomic = out.max_dest_rd_atomic;
	attr->min_rnr_timer = out.min_rnr_timer;
	attr->port_num = KITE_IB_PORT;
	attr->timeout = out.timeout;
	attr->retry_cnt = out.retry_cnt;
	attr->rnr_retry = out.rnr_retry;
	if (qp->type == KITE_QP_TYPE_RC) {
		attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
		rdma_ah_set_port_num(&attr->ah_attr, KITE_IB_PORT);
		memcpy(dgid.raw, out.dgid, sizeof(dgid.raw));
		rdma_ah_set_grh(&attr->ah_attr, &dgid,
				le32_to_cpu(out.flow_label), out.sgid_index,
				out.hop_limit, out.tclass);
		memcpy(attr->ah_attr.roce.dmac, out.dmac, ETH_ALEN);
	}

	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

int kite_ib_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct kite_ib_qp *qp = to_kqp(ibqp);

	/* The GSI QP is QP1 on the wire but has its own card number. */
	if (rdma_nl_put_driver_u32(msg, "card_qpn", qp->qpn))
		return -EMSGSIZE;
	return 0;
}

/* ------------------------------------------------------------ kernel data path */

static int kite_ib_wqe_opcode(u8 type, enum ib_wr_opcode op)
{
	if (type != KITE_QP_TYPE_RC && op != IB_WR_SEND &&
	    op != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	switch (op) {
	case IB_WR_SEND:
		return KITE_WQE_OPCODE_SEND;
	case IB_WR_SEND_WITH_IMM:
		return KITE_WQE_OPCODE_SEND_IMM;
	case IB_WR_SEND_WITH_INV:
		return KITE_WQE_OPCODE_SEND_INV;
	case IB_WR_RDMA_WRITE:
		return KITE_WQE_OPCODE_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return KITE_WQE_OPCODE_WRITE_IMM;
	case IB_WR_RDMA_READ:
		return KITE_WQE_OPCODE_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return KITE_WQE_OPCODE_ATOMIC_CS;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return KITE_WQE_OPCODE_ATOMIC_FA;
	case IB_WR_LOCAL_INV:
		return KITE_WQE_OPCODE_LOCAL_INV;
	case IB_WR_REG_MR:
		return KITE_WQE_OPCODE_REG_MR;
	default:
		return -EOPNOTSUPP;
	}
}

static int kite_ib_build_send(struct kite_ib_qp *qp,
			      const struct ib_send_wr *wr)
{
	struct kite_ib_wq *sq = &qp->sq;
	u32 ds_max = ((1U << sq->log_stride) - sizeof(struct kite_wqe_ctrl)) /
		     KITE_DS_SIZE;
	struct kite_wqe_ctrl *ctrl;
	struct kite_wqe_sge *sge;
	u32 hdr = 0, n, len, i;
	void *seg;
	u8 flags = 0;
	int op;

	op = kite_ib_wqe_opcode(qp->type, wr->opcode);
	if (op < 0)
		return op;
	if (wr->num_sge > sq->max_sge)
		return -EINVAL;
	if (kite_ib_wq_full(sq))
		return -ENOMEM;

	ctrl = kite_ib_wq_slot(sq, sq->pi);
	memset(ctrl, 0, 1U << sq->log_stride);
	seg = ctrl + 1;
	if (qp->type != KITE_QP_TYPE_RC) {
		struct kite_wqe_ud *ud = seg;

		*ud = to_kah(ud_wr(wr)->ah)->av;
		ud->remote_qpn = cpu_to_le32(ud_wr(wr)->remote_qpn & 0xffffff);
		ud->qkey = cpu_to_le32(ud_wr(wr)->remote_qkey);
		hdr = sizeof(*ud) / KITE_DS_SIZE;
	} else if (op == KITE_WQE_OPCODE_ATOMIC_CS ||
		   op == KITE_WQE_OPCODE_ATOMIC_FA) {
		struct kite_wqe_raddr *ra = seg;
		struct kite_wqe_atomic *at = seg + sizeof(*ra);

		ra->raddr = cpu_to_le64(atomic_wr(wr)->remote_addr);
		ra->rkey = cpu_to_le32(atomic_wr(wr)->rkey);
		at->swap_add = cpu_to_le64(op == KITE_WQE_OPCODE_ATOMIC_CS ?
					   atomic_wr(wr)->swap :
					   atomic_wr(wr)->compare_add);
		at->compare = cpu_to_le64(atomic_wr(wr)->compare_add);
		hdr = 2;
	} else if (op == KITE_WQE_OPCODE_WRITE ||
		   op == KITE_WQE_OPCODE_WRITE_IMM ||
		   op == KITE_WQE_OPCODE_READ) {
		struct kite_wqe_raddr *ra = seg;

		ra->raddr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		ra->rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		hdr = 1;
	} else if (op == KITE_WQE_OPCODE_REG_MR) {
		struct kite_ib_mr *mr = to_kmr(reg_wr(wr)->mr);
		struct kite_wqe_reg_mr *reg = seg;

		hdr = sizeof(*reg) / KITE_DS_SIZE;
		if (!mr->fr_max || hdr > ds_max ||
		    !is_power_of_2(mr->ibmr.page_size))
			return -EINVAL;
		reg->key = cpu_to_le32(reg_wr(wr)->key);
		reg->access = cpu_to_le32(kite_ib_mr_access(reg_wr(wr)->access));
		reg->iova = cpu_to_le64(mr->ibmr.iova);
		reg->length = cpu_to_le64(mr->ibmr.length);
		reg->mtt_addr = cpu_to_le64(mr->mtt.dma);
		reg->mtt_count = cpu_to_le32(mr->mtt.count);
		reg->page_shift = ilog2(mr->ibmr.page_size);
	}

	if (op == KITE_WQE_OPCODE_SEND_IMM || op == KITE_WQE_OPCODE_WRITE_IMM)
		ctrl->imm = wr->ex.imm_data;
	else if (op == KITE_WQE_OPCODE_SEND_INV ||
		 op == KITE_WQE_OPCODE_LOCAL_INV)
		ctrl->imm = cpu_to_be32(wr->ex.invalidate_rkey);

	n = hdr;
	if ((wr->send_flags & IB_SEND_INLINE) && op != KITE_WQE_OPCODE_READ &&
	    op != KITE_WQE_OPCODE_ATOMIC_CS && op != KITE_WQE_OPCODE_ATOMIC_FA) {
		u8 *dst = seg + hdr * KITE_DS_SIZE;

		for (len = 0, i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > qp->max_inline ||
		    hdr + DIV_ROUND_UP(len, KITE_DS_SIZE) > ds_max)
			return -EINVAL;
		/* Kernel inline SGEs carry kernel virtual addresses. */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(dst, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			dst += wr->sg_list[i].length;
		}
		flags |= KITE_WQE_CTRL_FLAGS_INLINE;
		ctrl->inline_len = cpu_to_le16(len);
		n = hdr + max_t(u32, 1, DIV_ROUND_UP(len, KITE_DS_SIZE));
	} else if (op != KITE_WQE_OPCODE_LOCAL_INV &&
		   op != KITE_WQE_OPCODE_REG_MR) {
		for (i = 0; i < wr->num_sge; i++) {
			if (!wr->sg_list[i].length)
				continue;
			if (n >= ds_max)
				return -EINVAL;
			sge = seg + n++ * KITE_DS_SIZE;
			sge->addr = cpu_to_le64(wr->sg_list[i].addr);
			sge->len = cpu_to_le32(wr->sg_list[i].length);
			sge->lkey = cpu_to_le32(wr->sg_list[i].lkey);
		}
	}
	/* A message of no bytes carries one empty SGE (zeroed above). */
	if (n == hdr && op != KITE_WQE_OPCODE_REG_MR)
		n++;

	if ((wr->send_flags & IB_SEND_SIGNALED) || qp->sig_all)
		flags |= KITE_WQE_CTRL_FLAGS_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		flags |= KITE_WQE_CTRL_FLAGS_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		flags |= KITE_WQE_CTRL_FLAGS_FENCE;
	ctrl->opcode = op;
	ctrl->flags = flags;
	ctrl->num_ds = n;
	ctrl->wqe_index = cpu_to_le16(sq->pi & 0xffff);
	sq->wrid[sq->pi & ((1U << sq->log_size) - 1)] = wr->wr_id;
	sq->pi++;
	return 0;
}

int kite_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr)
{
	struct kite_ib_dev *dev = to_kdev(ibqp->device);
	struct kite_ib_qp *qp = to_kqp(ibqp);
	struct kite_ib_wq *sq = &qp->sq;
	unsigned long flags;
	u32 start;
	int err = 0;

	if (READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&sq->lock, flags);
	start = sq->pi;
	for (; wr; wr = wr->next) {
		err = kite_ib_build_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	/* writel orders the WQE stores before the doorbell. */
	if (sq->pi != start)
		writel(kite_ib_db_val(qp->qpn, sq->pi), dev->kdb + KITE_DB_SQ);
	spin_unlock_irqrestore(&sq->lock, flags);
	return err;
}

/* A receive WQE at the ring's pi: its SGEs, ended by a zero length. */
static void kite_ib_write_recv(struct kite_ib_wq *wq,
			       const struct ib_recv_wr *wr)
{
	u32 slots = (1U << wq->log_stride) / KITE_DS_SIZE;
	struct kite_wqe_sge *sge = kite_ib_wq_slot(wq, wq->pi);
	u32 n, i;

	for (n = 0, i = 0; i < wr->num_sge; i++) {
		if (!wr->sg_list[i].length)
			continue;
		sge[n].addr = cpu_to_le64(wr->sg_list[i].addr);
		sge[n].len = cpu_to_le32(wr->sg_list[i].length);
		sge[n].lkey = cpu_to_le32(wr->sg_list[i].lkey);
		n++;
	}
	if (n < slots)
		memset(&sge[n], 0, sizeof(*sge));
	wq->wrid[wq->pi & ((1U << wq->log_size) - 1)] = wr->wr_id;
}

int kite_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct kite_ib_dev *dev = to_kdev(ibqp->device);
	struct kite_ib_qp *qp = to_kqp(ibqp);
	struct kite_ib_wq *rq = &qp->rq;
	unsigned long flags;
	int err = 0;
	u32 start;

	if (READ_ONCE(qp->state) == IB_QPS_RESET || ibqp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&rq->lock, flags);
	start = rq->pi;
	for (; wr; wr = wr->next) {
		if (wr->num_sge > rq->max_sge || kite_ib_wq_full(rq)) {
			err = wr->num_sge > rq->max_sge ? -EINVAL : -ENOMEM;
			*bad_wr = wr;
			break;
		}
		kite_ib_write_recv(rq, wr);
		rq->pi++;
	}
	if (rq->pi != start)
		writel(kite_ib_db_val(qp->qpn, rq->pi), dev->kdb + KITE_DB_RQ);
	spin_unlock_irqrestore(&rq->lock, flags);
	return err;
}

struct kite_ib_qp *kite_ib_cqe_qp(struct kite_ib_dev *dev, u32 qpn)
{
	struct kite_ib_qp *qp = xa_load(&dev->qps, qpn);

	/* User QPs are polled by the provider, never here. */
	return qp && !qp->user ? qp : NULL;
}

static enum ib_wc_opcode kite_ib_req_wc_opcode(u8 wqe_opcode)
{
	switch (wqe_opcode) {
	case KITE_WQE_OPCODE_WRITE:
	case KITE_WQE_OPCODE_WRITE_IMM:
		return IB_WC_RDMA_WRITE;
	case KITE_WQE_OPCODE_READ:
		return IB_WC_RDMA_READ;
	case KITE_WQE_OPCODE_ATOMIC_CS:
		return IB_WC_COMP_SWAP;
	case KITE_WQE_OPCODE_ATOMIC_FA:
		return IB_WC_FETCH_ADD;
	case KITE_WQE_OPCODE_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case KITE_WQE_OPCODE_REG_MR:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

/* Move a free-running ci past the 16-bit index a CQE reports. */
static void kite_ib_wq_complete(struct kite_ib_wq *wq, u16 idx)
{
	WRITE_ONCE(wq->ci, wq->ci + (u16)(idx - (u16)wq->ci) + 1);
}

void kite_ib_qp_complete(struct kite_ib_qp *qp, const struct kite_cqe *cqe,
			 struct ib_wc *wc)
{
	u16 idx = le16_to_cpu(cqe->wqe_index);
	bool is_send;

	memset(wc, 0, sizeof(*wc));
	wc->qp = &qp->ibqp;
	wc->status = cqe->status <= IB_WC_GENERAL_ERR ? cqe->status :
							IB_WC_GENERAL_ERR;
	wc->port_num = KITE_IB_PORT;
	if (cqe->opcode == KITE_CQE_OPCODE_ERROR) {
		wc->vendor_err = le32_to_cpu(cqe->csum_syndrome);
		if (wc->status == IB_WC_SUCCESS)
			wc->status = IB_WC_GENERAL_ERR;
		is_send = !(cqe->side & KITE_CQE_SIDE_RQ);
	} else {
		is_send = cqe->opcode == KITE_CQE_OPCODE_REQ;
	}

	if (is_send) {
		wc->wr_id = qp->sq.wrid[idx & ((1U << qp->sq.log_size) - 1)];
		kite_ib_wq_complete(&qp->sq, idx);
		wc->opcode = kite_ib_req_wc_opcode(cqe->hash_type);
		wc->byte_len = le32_to_cpu(cqe->byte_cnt);
		return;
	}

	if (qp->ibqp.srq) {
		struct kite_ib_srq *srq = to_ksrq(qp->ibqp.srq);
		u32 slot = idx & ((1U << srq->wq.log_size) - 1);
		unsigned long flags;

		spin_lock_irqsave(&srq->wq.lock, flags);
		wc->wr_id = srq->wq.wrid[slot];
		clear_bit(slot, srq->busy);
		spin_unlock_irqrestore(&srq->wq.lock, flags);
	} else {
		wc->wr_id = qp->rq.wrid[idx & ((1U << qp->rq.log_size) - 1)];
		kite_ib_wq_complete(&qp->rq, idx);
	}
	wc->byte_len = le32_to_cpu(cqe->byte_cnt);
	wc->src_qp = le32_to_cpu(cqe->src_qp) & 0xffffff;
	wc->opcode = cqe->opcode == KITE_CQE_OPCODE_RESP_WRITE_IMM ?
		     IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV;
	if (cqe->flags & KITE_CQE_FLAGS_GRH) {
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = (cqe->flags & KITE_CQE_FLAGS_IPV4) ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	}
	if (cqe->flags & KITE_CQE_FLAGS_IMM) {
		/* imm_hash holds the immediate in wire order already. */
		wc->ex.imm_data = (__force __be32)cqe->imm_hash;
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (cqe->flags & KITE_CQE_FLAGS_INV) {
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->imm_hash);
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
}

/* ------------------------------------------------------------ SRQ */

/* A kernel SRQ: ring in coherent memory, posted by kite_ib_post_srq_recv. */
static int kite_ib_create_kernel_srq(struct kite_ib_dev *dev,
				     struct kite_ib_srq *srq,
				     struct ib_srq_init_attr *init)
{
	u32 max_sge = min_t(u32, dev->kadev->max_sge, KITE_MAX_GATHER);
	struct kite_create_srq_in in = {};
	struct kite_obj_out out;
	int err;

	if (!init->attr.max_wr ||
	    init->attr.max_wr > (1U << dev->kadev->log_max_wqe) - 1 ||
	    init->attr.max_sge > max_sge)
		return -EINVAL;
	err = kite_ib_wq_alloc(dev, &srq->wq, init->attr.max_wr,
			       max_t(u32, init->attr.max_sge, 1) *
			       KITE_DS_SIZE);
	if (err)
		return err;
	if (init->attr.srq_limit >= (1U << srq->wq.log_size)) {
		err = -EINVAL;
		goto err_ring;
	}
	srq->busy = bitmap_zalloc(1U << srq->wq.log_size, GFP_KERNEL);
	if (!srq->busy) {
		err = -ENOMEM;
		goto err_ring;
	}
	in.base = cpu_to_le64(srq->wq.dma);
	in.pdn = cpu_to_le32(to_kpd(srq->ibsrq.pd)->pdn);
	in.log_size = srq->wq.log_size;
	in.log_stride = srq->wq.log_stride;
	in.limit = cpu_to_le32(init->attr.srq_limit);
	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_CREATE_SRQ, &in, sizeof(in),
			  &out, sizeof(out));
	if (err)
		goto err_busy;
	srq->srqn = le32_to_cpu(out.id);
	err = xa_insert(&dev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err) {
		if (kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_DESTROY_SRQ,
					srq->srqn))
			return err;	/* leak the ring the card may read */
		goto err_busy;
	}
	srq->limit = init->attr.srq_limit;
	srq->max_wr = 1U << srq->wq.log_size;
	srq->max_sge = min_t(u32, (1U << srq->wq.log_stride) / KITE_DS_SIZE,
			     max_sge);
	init->attr.max_wr = srq->max_wr;
	init->attr.max_sge = srq->max_sge;
	return 0;

err_busy:
	bitmap_free(srq->busy);
err_ring:
	kite_ib_wq_free(dev, &srq->wq);
	return err;
}

int kite_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct kite_ib_dev *dev = to_kdev(ibsrq->device);
	struct kite_ib_srq *srq = to_ksrq(ibsrq);
	struct kite_ib_wq *wq = &srq->wq;
	unsigned long flags;
	int err = 0;
	u32 start, slot;

	spin_lock_irqsave(&wq->lock, flags);
	start = wq->pi;
	for (; wr; wr = wr->next) {
		slot = wq->pi & ((1U << wq->log_size) - 1);
		if (wr->num_sge > srq->max_sge || test_bit(slot, srq->busy)) {
			err = wr->num_sge > srq->max_sge ? -EINVAL : -ENOMEM;
			*bad_wr = wr;
			break;
		}
		kite_ib_write_recv(wq, wr);
		set_bit(slot, srq->busy);
		wq->pi++;
	}
	if (wq->pi != start)
		writel(kite_ib_db_val(srq->srqn, wq->pi), dev->kdb + KITE_DB_RQ);
	spin_unlock_irqrestore(&wq->lock, flags);
	return err;
}

int kite_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		       struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibsrq->device);
	struct kite_ib_ucontext *uc = rdma_udata_to_drv_context(udata,
			struct kite_ib_ucontext, ibuc);
	struct kite_ib_srq *srq = to_ksrq(ibsrq);
	struct kite_create_srq_resp resp = {};
	struct kite_create_srq_req req = {};
	struct kite_create_srq_in in = {};
	struct kite_obj_out out;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!uc)
		return kite_ib_create_kernel_srq(dev, srq, init);
	srq->user = true;
	err = ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req)));
	if (err)
		return err;
	if (req.flags || req.reserved || req.reserved0 ||
	    !PAGE_ALIGNED(req.buf_va) || !req.buf_len ||
	    !PAGE_ALIGNED(req.buf_len) ||
	    !kite_ib_ring_ok(req.log_size, req.log_stride,
			     dev->kadev->log_max_wqe) ||
	    (1ULL << (req.log_size + req.log_stride)) > req.buf_len)
		return -EINVAL;
	if (init->attr.srq_limit >= (1U << req.log_size))
		return -EINVAL;

	srq->umem = ib_umem_get(ibsrq->device, req.buf_va, req.buf_len,
				IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(srq->umem))
		return PTR_ERR(srq->umem);
	srq->ring_mr = kite_ib_ring_mr(dev, to_kpd(ibsrq->pd)->pdn, srq->umem,
				       req.buf_va);
	if (IS_ERR(srq->ring_mr)) {
		err = PTR_ERR(srq->ring_mr);
		goto err_umem;
	}

	in.base = cpu_to_le64(req.buf_va);
	in.pdn = cpu_to_le32(to_kpd(ibsrq->pd)->pdn);
	in.db_page = cpu_to_le32(uc->db_page);
	in.log_size = req.log_size;
	in.log_stride = req.log_stride;
	/* CREATE_SRQ takes the CREATE_QP flag bits. */
	in.flags = cpu_to_le16(KITE_CREATE_QP_IN_FLAGS_USER |
			       KITE_CREATE_QP_IN_FLAGS_RING_MR);
	in.limit = cpu_to_le32(init->attr.srq_limit);
	in.ring_lkey = cpu_to_le32(srq->ring_mr->ibmr.lkey);
	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_CREATE_SRQ, &in, sizeof(in),
			  &out, sizeof(out));
	if (err)
		goto err_mr;
	srq->srqn = le32_to_cpu(out.id);
	srq->limit = init->attr.srq_limit;
	srq->max_wr = 1U << req.log_size;
	srq->max_sge = min_t(u32, (1U << req.log_stride) / KITE_DS_SIZE,
			     dev->kadev->max_sge);
	init->attr.max_wr = srq->max_wr;
	init->attr.max_sge = srq->max_sge;

	resp.srqn = srq->srqn;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err)
		goto err_destroy;
	err = xa_insert(&dev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	if (kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_DESTROY_SRQ, srq->srqn))
		return err;
err_mr:
	if (kite_ib_ring_mr_free(dev, srq->ring_mr))
		return err;
err_umem:
	ib_umem_release(srq->umem);
	return err;
}

int kite_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibsrq->device);
	struct kite_ib_srq *srq = to_ksrq(ibsrq);
	struct kite_create_srq_in in = {};
	int err;

	/* The ring is pinned user memory sized at creation. */
	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	in.id = cpu_to_le32(srq->srqn);
	in.limit = cpu_to_le32(attr->srq_limit);
	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_MODIFY_SRQ, &in, sizeof(in),
			  NULL, 0);
	if (!err)
		srq->limit = attr->srq_limit;
	return err;
}

int kite_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct kite_ib_dev *dev = to_kdev(ibsrq->device);
	struct kite_ib_srq *srq = to_ksrq(ibsrq);
	struct kite_obj_in in = { .id = cpu_to_le32(srq->srqn) };
	struct kite_create_srq_in out;
	int err;

	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_QUERY_SRQ, &in, sizeof(in),
			  &out, sizeof(out));
	if (err)
		return err;
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = le32_to_cpu(out.limit);
	return 0;
}

int kite_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibsrq->device);
	struct kite_ib_srq *srq = to_ksrq(ibsrq);
	int err;

	err = kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_DESTROY_SRQ, srq->srqn);
	xa_erase(&dev->srqs, srq->srqn);
	synchronize_rcu();
	if (err && err != -ENOENT)
		return 0;	/* leak the ring the card may still read */
	if (!srq->user) {
		kite_ib_wq_free(dev, &srq->wq);
		bitmap_free(srq->busy);
	} else if (!kite_ib_ring_mr_free(dev, srq->ring_mr)) {
		ib_umem_release(srq->umem);
	}
	return 0;
}

/* ------------------------------------------------------------ AH */

/*
 * The address vector lives in the driver (kernel) or the provider (user):
 * every UD WQE carries it whole, so no card AH is needed. The core has
 * resolved the destination MAC already; user space learns it from us.
 */
int kite_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		      struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibah->device);
	struct kite_create_ah_resp resp = {};
	struct kite_ib_ah *ah = to_kah(ibah);
	struct kite_wqe_ud *av = &ah->av;
	int err;

	memset(av, 0, sizeof(*av));
	err = kite_ib_av_from_ah_attr(dev, init->ah_attr, av->dmac,
				      &av->vlan_tci, av->dgid, &av->flow_label,
				      &av->hop_limit, &av->tclass,
				      &av->sgid_index, &av->flags);
	if (err)
		return err;
	if (!udata)
		return 0;
	memcpy(resp.dmac, av->dmac, ETH_ALEN);
	if (av->flags & KITE_WQE_UD_FLAGS_VLAN) {
		resp.av_flags |= KITE_AH_VLAN;
		resp.vlan_tci = le16_to_cpu(av->vlan_tci);
	}
	if (av->flags & KITE_WQE_UD_FLAGS_IPV4)
		resp.av_flags |= KITE_AH_IPV4;
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

int kite_ib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}
