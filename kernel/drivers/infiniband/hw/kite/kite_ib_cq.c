// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kite RoCEv2 driver: completion queues. A CQ ring is addressed by bus
 * address without translation, so it is physically contiguous; a user CQ's
 * ring is mmapped by the provider and belongs to the mmap entry, which
 * frees it when the last mapping is gone.
 */

#include <linux/dma-mapping.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>
#include <uapi/rdma/kite-abi.h>

#include "kite_ib.h"

static void kite_ib_cq_free_ring(struct kite_ib_dev *dev, struct kite_ib_cq *cq)
{
	if (cq->user)
		kite_ib_free_ring(dev, cq->ring, cq->ring_dma, cq->ring_size);
	else
		dma_free_coherent(kite_ib_dma_dev(dev), cq->ring_size,
				  cq->ring, cq->ring_dma);
}

#ifdef KITE_IB_HAVE_CQ_ATTRS
int kite_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct uverbs_attr_bundle *attrs)
#else
int kite_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata)
#endif
{
	struct ib_udata *ud = kite_ib_cq_udata();
	struct kite_ib_dev *dev = to_kdev(ibcq->device);
	struct kite_ib_ucontext *uc = rdma_udata_to_drv_context(ud,
			struct kite_ib_ucontext, ibuc);
	struct kite_aux_dev *ka = dev->kadev;
	struct kite_ib_cq *cq = to_kcq(ibcq);
	struct kite_create_cq_resp resp = {};
	struct kite_create_cq_req req = {};
	struct kite_create_cq_in in = {};
	struct kite_obj_out out;
	u32 log_size;
	u64 key = 0;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (uc) {
		err = ib_copy_from_udata(&req, ud, min(ud->inlen, sizeof(req)));
		if (err)
			return err;
		if (req.flags)
			return -EINVAL;
		log_size = req.log_size;
		if (log_size > KITE_MAX_LOG_RING || (1U << log_size) < attr->cqe)
			return -EINVAL;
	} else {
		/* the provider checks max_cqe itself and asks for a whole ring */
		if (attr->cqe > (1U << ka->log_max_cqe) - 1)
			return -EINVAL;
		log_size = order_base_2(attr->cqe);
	}
	log_size = max_t(u32, log_size, KITE_MIN_LOG_RING);
	if (log_size > ka->log_max_cqe)
		return -EINVAL;

	cq->user = !!uc;
	cq->log_size = log_size;
	spin_lock_init(&cq->lock);
	cq->ring_size = PAGE_ALIGN((size_t)KITE_CQE_SIZE << log_size);
	if (uc)
		cq->ring = kite_ib_alloc_ring(dev, cq->ring_size, &cq->ring_dma);
	else
		cq->ring = dma_alloc_coherent(kite_ib_dma_dev(dev),
					      cq->ring_size, &cq->ring_dma,
					      GFP_KERNEL);
	if (!cq->ring)
		return -ENOMEM;

	in.base = cpu_to_le64(cq->ring_dma);
	in.log_size = log_size;
	in.flags = uc ? KITE_CREATE_CQ_IN_FLAGS_USER : 0;
	in.eqn = cpu_to_le16(kite_aux_comp_eqn(ka, attr->comp_vector));
	in.db_page = cpu_to_le32(uc ? uc->db_page : 0);
	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_CREATE_CQ, &in, sizeof(in),
			  &out, sizeof(out));
	if (err)
		goto err_ring;
	cq->cqn = le32_to_cpu(out.id);

	if (uc) {
		cq->mmap_entry = kite_ib_mmap_insert(uc, KITE_IB_MMAP_RING,
						     cq->ring, cq->ring_dma,
						     cq->ring_size, 0, &key);
		if (IS_ERR(cq->mmap_entry)) {
			err = PTR_ERR(cq->mmap_entry);
			cq->mmap_entry = NULL;
			goto err_destroy;
		}
		resp.cqn = cq->cqn;
		resp.log_size = log_size;
		resp.mmap_key = key;
		resp.mmap_len = cq->ring_size;
		err = ib_copy_to_udata(ud, &resp, min(ud->outlen, sizeof(resp)));
		if (err)
			goto err_destroy;
	}

	err = xa_insert(&dev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err)
		goto err_destroy;
	ibcq->cqe = 1 << log_size;
	return 0;

err_destroy:
	if (kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_DESTROY_CQ, cq->cqn))
		return err;	/* leak the ring the card may still write */
	if (cq->mmap_entry) {
		/* The entry owns the ring now and frees it. */
		rdma_user_mmap_entry_remove(cq->mmap_entry);
		return err;
	}
err_ring:
	kite_ib_cq_free_ring(dev, cq);
	return err;
}

int kite_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibcq->device);
	struct kite_ib_cq *cq = to_kcq(ibcq);
	int err;

	err = kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_DESTROY_CQ, cq->cqn);
	xa_erase(&dev->cqs, cq->cqn);
	/* Event callbacks run under RCU: none uses this CQ after this. */
	synchronize_rcu();
	if (err && err != -ENOENT)
		return 0;	/* leak the ring the card may still write */
	if (cq->mmap_entry)
		rdma_user_mmap_entry_remove(cq->mmap_entry);
	else
		kite_ib_cq_free_ring(dev, cq);
	return 0;
}

/*
 * A user CQ only: the provider holds the CQ and copies what it had not
 * polled (see kite-abi.h). A kernel CQ would need its poller stopped across
 * a sleeping command, so it is not resizable.
 */
int kite_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct kite_ib_ucontext *uc = rdma_udata_to_drv_context(udata,
			struct kite_ib_ucontext, ibuc);
	struct kite_ib_dev *dev = to_kdev(ibcq->device);
	struct kite_ib_cq *cq = to_kcq(ibcq);
	struct kite_resize_cq_resp resp = {};
	struct kite_resize_cq_req req = {};
	struct rdma_user_mmap_entry *entry;
	struct kite_create_cq_in in = {};
	dma_addr_t ring_dma;
	size_t ring_size;
	void *ring;
	u64 key = 0;
	int err;

	if (!uc || !cq->user)
		return -EOPNOTSUPP;
	err = ib_copy_from_udata(&req, udata, min(udata->inlen, sizeof(req)));
	if (err)
		return err;
	if (req.flags || cqe < 1 || req.log_size < KITE_MIN_LOG_RING ||
	    req.log_size > dev->kadev->log_max_cqe ||
	    (1U << req.log_size) < cqe)
		return -EINVAL;

	ring_size = PAGE_ALIGN((size_t)KITE_CQE_SIZE << req.log_size);
	ring = kite_ib_alloc_ring(dev, ring_size, &ring_dma);
	if (!ring)
		return -ENOMEM;
	/* From here the entry owns the new ring and frees it. */
	entry = kite_ib_mmap_insert(uc, KITE_IB_MMAP_RING, ring, ring_dma,
				    ring_size, 0, &key);
	if (IS_ERR(entry)) {
		kite_ib_free_ring(dev, ring, ring_dma, ring_size);
		return PTR_ERR(entry);
	}

	in.base = cpu_to_le64(ring_dma);
	in.log_size = req.log_size;
	in.cqn = cpu_to_le32(cq->cqn);
	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_RESIZE_CQ, &in, sizeof(in),
			  NULL, 0);
	if (err) {
		/*
		 * Without an answer the card may use either ring: both stay
		 * until the context goes.
		 */
		if (err != -ETIMEDOUT && err != -EIO)
			rdma_user_mmap_entry_remove(entry);
		return err;
	}
	/* The old ring goes when the provider unmaps it. */
	rdma_user_mmap_entry_remove(cq->mmap_entry);
	cq->mmap_entry = entry;
	cq->ring = ring;
	cq->ring_dma = ring_dma;
	cq->ring_size = ring_size;
	cq->log_size = req.log_size;
	ibcq->cqe = 1 << req.log_size;

	resp.log_size = req.log_size;
	resp.mmap_len = ring_size;
	resp.mmap_key = key;
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

int kite_ib_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct kite_ib_dev *dev = to_kdev(ibcq->device);
	struct kite_ib_cq *cq = to_kcq(ibcq);
	u32 mask = (1U << cq->log_size) - 1;
	struct kite_cqe *cqe;
	struct kite_ib_qp *qp;
	unsigned long flags;
	u32 start;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	start = cq->ci;
	while (n < num) {
		cqe = &cq->ring[cq->ci & mask];
		if (!kite_ib_owner_new(READ_ONCE(cqe->owner), cq->ci,
				       cq->log_size))
			break;
		/* The owner byte is written last: read the rest after it. */
		dma_rmb();
		cq->ci++;
		qp = kite_ib_cqe_qp(dev, le32_to_cpu(cqe->qpn));
		if (!qp)
			continue;	/* a QP destroyed with CQEs in flight */
		kite_ib_qp_complete(qp, cqe, &wc[n++]);
	}
	/* The card judges the ring full by the consumer index we report. */
	if (cq->ci != start)
		writel(kite_ib_db_val(cq->cqn, cq->ci), dev->kdb + KITE_DB_CQ_CI);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int kite_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct kite_ib_dev *dev = to_kdev(ibcq->device);
	struct kite_ib_cq *cq = to_kcq(ibcq);
	struct kite_cqe *cqe;
	unsigned long irqflags;
	u32 off;
	int ret = 0;

	off = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
	      KITE_DB_CQ_ARM_SOLICITED : KITE_DB_CQ_ARM;
	spin_lock_irqsave(&cq->lock, irqflags);
	writel(kite_ib_db_val(cq->cqn, cq->ci), dev->kdb + off);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		cqe = &cq->ring[cq->ci & ((1U << cq->log_size) - 1)];
		ret = kite_ib_owner_new(READ_ONCE(cqe->owner), cq->ci,
					cq->log_size);
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

int kite_ib_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct kite_ib_cq *cq = to_kcq(ibcq);

	if (rdma_nl_put_driver_u32(msg, "cqn", cq->cqn) ||
	    rdma_nl_put_driver_u32(msg, "log_size", cq->log_size))
		return -EMSGSIZE;
	return 0;
}
