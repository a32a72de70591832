// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * Kite provider verbs: control path through uverbs commands, data path on
 * the mmapped rings (see Documentation/hw/operation.rst for the card side).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ccan/ilog.h>

#include "kite.h"

/* ------------------------------------------------------------ device, PD, MR */

int kite_query_device(struct ibv_context *context,
		      const struct ibv_query_device_ex_input *input,
		      struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);

	return ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
					&resp_size);
}

int kite_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

struct ibv_pd *kite_alloc_pd(struct ibv_context *context)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	ret = ibv_cmd_alloc_pd(context, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

int kite_dealloc_pd(struct ibv_pd *pd)
{
	int ret;

	ret = ibv_cmd_dealloc_pd(pd);
	if (ret)
		return ret;
	free(pd);
	return 0;
}

struct ibv_mr *kite_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

struct ibv_mr *kite_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access)
{
	struct verbs_mr *vmr;
	int ret;

	if (!(to_kctx(pd->context)->caps & KITE_UCTX_CAP_DMABUF)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr,
				    NULL);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

int kite_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	free(vmr);
	return 0;
}

/* ------------------------------------------------------------ helpers */

static unsigned int kite_log2_ceil(uint32_t v)
{
	return v <= 1 ? 0 : ilog32(v - 1);
}

static size_t kite_page_size(void)
{
	static size_t page;

	if (!page)
		page = sysconf(_SC_PAGESIZE);
	return page;
}

static void *kite_alloc_ring(size_t len)
{
	void *buf;

	if (posix_memalign(&buf, kite_page_size(), len))
		return NULL;
	memset(buf, 0, len);
	/* the kernel pins the pages; a fork must not COW them away */
	if (ibv_dontfork_range(buf, len)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void kite_free_ring(void *buf, size_t len)
{
	if (!buf)
		return;
	ibv_dofork_range(buf, len);
	free(buf);
}

static int kite_wq_init(struct kite_wq *wq, unsigned int log_size,
			unsigned int log_stride, uint32_t max_sge, void *buf)
{
	wq->buf = buf;
	wq->log_size = log_size;
	wq->log_stride = log_stride;
	wq->max_sge = max_sge;
	wq->pi = 0;
	wq->ci = 0;
	wq->wrid = calloc(1U << log_size, sizeof(*wq->wrid));
	if (!wq->wrid)
		return ENOMEM;
	pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

static void kite_wq_cleanup(struct kite_wq *wq)
{
	if (!wq->wrid)
		return;
	pthread_spin_destroy(&wq->lock);
	free(wq->wrid);
	wq->wrid = NULL;
}

static inline uint32_t kite_wq_size(const struct kite_wq *wq)
{
	return 1U << wq->log_size;
}

static inline bool kite_wq_full(const struct kite_wq *wq)
{
	return wq->pi - wq->ci >= kite_wq_size(wq);
}

static inline void *kite_wq_slot(const struct kite_wq *wq, uint32_t idx)
{
	return (uint8_t *)wq->buf +
	       ((size_t)(idx & (kite_wq_size(wq) - 1)) << wq->log_stride);
}

/* 16-byte data segments a WQE slot holds after its ctrl segment */
static inline uint32_t kite_wq_ds_max(const struct kite_wq *wq)
{
	return ((1U << wq->log_stride) - sizeof(struct kite_wqe_ctrl)) /
	       KITE_DS_SIZE;
}

/* Move a free-running ci past the 16-bit wqe_index a CQE reports. */
static inline void kite_wq_complete(struct kite_wq *wq, uint16_t wqe_index)
{
	wq->ci += (uint16_t)(wqe_index - (uint16_t)wq->ci) + 1;
}

static struct kite_qp *kite_find_qp(struct kite_context *ctx, uint32_t qpn)
{
	struct kite_qp **tbl = ctx->qp_table[(qpn >> KITE_QP_TABLE_SHIFT) &
					     KITE_QP_TABLE_MASK];

	return tbl ? tbl[qpn & KITE_QP_TABLE_MASK] : NULL;
}

static int kite_store_qp(struct kite_context *ctx, uint32_t qpn,
			 struct kite_qp *qp)
{
	unsigned int top = (qpn >> KITE_QP_TABLE_SHIFT) & KITE_QP_TABLE_MASK;
	int ret = 0;

	if (qpn > KITE_MAX_QUEUE_NUM)
		return EINVAL;
	pthread_mutex_lock(&ctx->qp_table_mutex);
	if (!ctx->qp_table[top])
		ctx->qp_table[top] = calloc(KITE_QP_TABLE_SIZE, sizeof(qp));
	if (ctx->qp_table[top])
		ctx->qp_table[top][qpn & KITE_QP_TABLE_MASK] = qp;
	else
		ret = ENOMEM;
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	return ret;
}

/* ------------------------------------------------------------ CQ */

enum {
	KITE_CQ_WC_FLAGS = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
			   IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
			   IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
			   IBV_WC_EX_WITH_DLID_PATH_BITS,
};

static struct kite_cqe *kite_next_cqe(struct kite_cq *cq)
{
	struct kite_cqe *cqe = &cq->ring[cq->ci & ((1U << cq->log_size) - 1)];
	uint8_t phase = ((cq->ci >> cq->log_size) & 1) ^ 1;

	if ((*(volatile uint8_t *)&cqe->owner & KITE_CQE_OWNER_OWNER) != phase)
		return NULL;
	/* the card writes the owner byte last: read the rest after it */
	udma_from_device_barrier();
	return cqe;
}

static enum ibv_wc_opcode kite_req_wc_opcode(uint8_t wqe_opcode)
{
	switch (wqe_opcode) {
	case KITE_WQE_OPCODE_SEND:
	case KITE_WQE_OPCODE_SEND_IMM:
	case KITE_WQE_OPCODE_SEND_INV:
		return IBV_WC_SEND;
	case KITE_WQE_OPCODE_WRITE:
	case KITE_WQE_OPCODE_WRITE_IMM:
		return IBV_WC_RDMA_WRITE;
	case KITE_WQE_OPCODE_READ:
		return IBV_WC_RDMA_READ;
	case KITE_WQE_OPCODE_ATOMIC_CS:
		return IBV_WC_COMP_SWAP;
	case KITE_WQE_OPCODE_ATOMIC_FA:
		return IBV_WC_FETCH_ADD;
	case KITE_WQE_OPCODE_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	default:
		return IBV_WC_DRIVER1;
	}
}

/*
 * Translate one CQE. Returns false for an entry of a QP this context no
 * longer knows (destroyed while completions were in flight): it is dropped.
 */
static bool kite_parse_cqe(struct kite_cq *cq, struct kite_cqe *cqe,
			   struct ibv_wc *wc)
{
	struct kite_context *ctx = to_kctx(cq->vcq.cq.context);
	uint16_t idx = le16toh(cqe->wqe_index);
	uint8_t opcode = cqe->opcode;
	struct kite_qp *qp;
	bool is_send;

	qp = kite_find_qp(ctx, le32toh(cqe->qpn));
	if (!qp)
		return false;

	memset(wc, 0, sizeof(*wc));
	wc->qp_num = qp->vqp.qp.qp_num;
	wc->status = cqe->status <= IBV_WC_GENERAL_ERR ? cqe->status :
							 IBV_WC_GENERAL_ERR;
	if (opcode == KITE_CQE_OPCODE_ERROR) {
		wc->vendor_err = le32toh(cqe->csum_syndrome);
		if (wc->status == IBV_WC_SUCCESS)
			wc->status = IBV_WC_GENERAL_ERR;
		is_send = !(cqe->side & KITE_CQE_SIDE_RQ);
	} else {
		is_send = opcode == KITE_CQE_OPCODE_REQ;
	}

	if (is_send) {
		wc->wr_id = qp->sq.wrid[idx & (kite_wq_size(&qp->sq) - 1)];
		kite_wq_complete(&qp->sq, idx);
		wc->opcode = kite_req_wc_opcode(cqe->hash_type);
		if (wc->opcode == IBV_WC_RDMA_READ ||
		    wc->opcode == IBV_WC_COMP_SWAP ||
		    wc->opcode == IBV_WC_FETCH_ADD)
			wc->byte_len = le32toh(cqe->byte_cnt);
		return true;
	}

	if (qp->srq) {
		struct kite_srq *srq = qp->srq;
		uint32_t slot = idx & (kite_wq_size(&srq->wq) - 1);

		pthread_spin_lock(&srq->wq.lock);
		wc->wr_id = srq->wq.wrid[slot];
		srq->busy[slot] = 0;
		pthread_spin_unlock(&srq->wq.lock);
	} else {
		wc->wr_id = qp->rq.wrid[idx & (kite_wq_size(&qp->rq) - 1)];
		kite_wq_complete(&qp->rq, idx);
	}

	wc->byte_len = le32toh(cqe->byte_cnt);
	wc->src_qp = le32toh(cqe->src_qp) & 0xffffff;
	if (cqe->flags & KITE_CQE_FLAGS_GRH)
		wc->wc_flags |= IBV_WC_GRH;
	switch (opcode) {
	case KITE_CQE_OPCODE_RESP_WRITE_IMM:
		wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		break;
	default:
		wc->opcode = IBV_WC_RECV;
		break;
	}
	if (cqe->flags & KITE_CQE_FLAGS_IMM) {
		/* imm_hash carries the immediate in wire order already */
		wc->imm_data = (__force __be32)cqe->imm_hash;
		wc->wc_flags |= IBV_WC_WITH_IMM;
	} else if (cqe->flags & KITE_CQE_FLAGS_INV) {
		wc->invalidated_rkey = le32toh(cqe->imm_hash);
		wc->wc_flags |= IBV_WC_WITH_INV;
	}
	return true;
}

/* The card needs the consumer index to know the ring has room again. */
static void kite_cq_update_ci(struct kite_cq *cq)
{
	if (cq->ci == cq->ci_reported)
		return;
	cq->ci_reported = cq->ci;
	kite_ring_db(to_kctx(cq->vcq.cq.context), KITE_DB_CQ_CI, cq->cqn,
		     cq->ci);
}

int kite_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct kite_cq *cq = to_kcq(ibcq);
	struct kite_cqe *cqe;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	while (n < ne && (cqe = kite_next_cqe(cq))) {
		cq->ci++;
		if (kite_parse_cqe(cq, cqe, &wc[n]))
			n++;
	}
	kite_cq_update_ci(cq);
	pthread_spin_unlock(&cq->lock);
	return n;
}

int kite_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct kite_cq *cq = to_kcq(ibcq);

	pthread_spin_lock(&cq->lock);
	cq->ci_reported = cq->ci;
	kite_ring_db(to_kctx(ibcq->context),
		     solicited_only ? KITE_DB_CQ_ARM_SOLICITED : KITE_DB_CQ_ARM,
		     cq->cqn, cq->ci);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

/* ibv_cq_ex polling: one parsed entry at a time in cq->cur */
static int kite_cq_next(struct kite_cq *cq)
{
	struct kite_cqe *cqe;

	while ((cqe = kite_next_cqe(cq))) {
		cq->ci++;
		if (kite_parse_cqe(cq, cqe, &cq->cur)) {
			cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
			cq->vcq.cq_ex.status = cq->cur.status;
			return 0;
		}
	}
	return ENOENT;
}

static int kite_start_poll(struct ibv_cq_ex *ibcq,
			   struct ibv_poll_cq_attr *attr)
{
	struct kite_cq *cq = ex_to_kcq(ibcq);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	if (!cq->single_threaded)
		pthread_spin_lock(&cq->lock);
	ret = kite_cq_next(cq);
	if (ret) {
		kite_cq_update_ci(cq);
		if (!cq->single_threaded)
			pthread_spin_unlock(&cq->lock);
	}
	return ret;
}

static int kite_next_poll(struct ibv_cq_ex *ibcq)
{
	return kite_cq_next(ex_to_kcq(ibcq));
}

static void kite_end_poll(struct ibv_cq_ex *ibcq)
{
	struct kite_cq *cq = ex_to_kcq(ibcq);

	kite_cq_update_ci(cq);
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode kite_read_opcode(struct ibv_cq_ex *ibcq)
{
	return ex_to_kcq(ibcq)->cur.opcode;
}

static uint32_t kite_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return ex_to_kcq(ibcq)->cur.vendor_err;
}

static uint32_t kite_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return ex_to_kcq(ibcq)->cur.byte_len;
}

static __be32 kite_read_imm_data(struct ibv_cq_ex *ibcq)
{
	struct ibv_wc *wc = &ex_to_kcq(ibcq)->cur;

	/* ibv_wc_read_invalidated_rkey() reads the same union */
	if (wc->wc_flags & IBV_WC_WITH_INV)
		return (__force __be32)wc->invalidated_rkey;
	return wc->imm_data;
}

static uint32_t kite_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return ex_to_kcq(ibcq)->cur.qp_num;
}

static uint32_t kite_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return ex_to_kcq(ibcq)->cur.src_qp;
}

static unsigned int kite_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return ex_to_kcq(ibcq)->cur.wc_flags;
}

/* RoCE has no LIDs and no SL in the CQE */
static uint32_t kite_read_slid(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint8_t kite_read_sl(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint8_t kite_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static struct kite_cq *kite_do_create_cq(struct ibv_context *context,
					 struct ibv_cq_init_attr_ex *attr)
{
	struct kite_context *ctx = to_kctx(context);
	struct kite_cmd_create_cq_resp resp = {};
	struct kite_cmd_create_cq cmd = {};
	struct ibv_cq_init_attr_ex kattr;
	unsigned int log_size;
	struct kite_cq *cq;
	int ret;

	if (attr->comp_mask & ~(IBV_CQ_INIT_ATTR_MASK_FLAGS |
				IBV_CQ_INIT_ATTR_MASK_PD)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->wc_flags & ~(uint64_t)KITE_CQ_WC_FLAGS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* max_cqe, as query_device reports it */
	if (!attr->cqe || attr->cqe > (1U << ctx->log_max_cqe) - 1 ||
	    attr->comp_vector >= (uint32_t)context->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	log_size = max_t(unsigned int, kite_log2_ceil(attr->cqe),
			 KITE_MIN_LOG_RING);

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	cq->single_threaded = (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
			      (attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED);

	kattr = *attr;
	kattr.cqe = 1U << log_size;
	cmd.log_size = log_size;
	ret = ibv_cmd_create_cq_ex(context, &kattr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp), 0);
	if (ret) {
		errno = ret;
		goto err_free;
	}
	if (resp.log_size != log_size || !resp.mmap_len) {
		errno = EPROTO;
		goto err_destroy;
	}

	cq->cqn = resp.cqn;
	cq->log_size = log_size;
	cq->map_len = resp.mmap_len;
	cq->ring = mmap(NULL, cq->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			context->cmd_fd, resp.mmap_key);
	if (cq->ring == MAP_FAILED)
		goto err_destroy;
	return cq;

err_destroy:
	ret = errno;
	ibv_cmd_destroy_cq(&cq->vcq.cq);
	errno = ret;
err_free:
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return NULL;
}

struct ibv_cq *kite_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe,
		.channel = channel,
		.comp_vector = comp_vector,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct kite_cq *cq;

	if (cqe <= 0) {
		errno = EINVAL;
		return NULL;
	}
	cq = kite_do_create_cq(context, &attr);
	return cq ? &cq->vcq.cq : NULL;
}

struct ibv_cq_ex *kite_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	struct kite_cq *cq;
	struct ibv_cq_ex *ex;

	cq = kite_do_create_cq(context, attr);
	if (!cq)
		return NULL;

	ex = &cq->vcq.cq_ex;
	ex->start_poll = kite_start_poll;
	ex->next_poll = kite_next_poll;
	ex->end_poll = kite_end_poll;
	ex->read_opcode = kite_read_opcode;
	ex->read_vendor_err = kite_read_vendor_err;
	ex->read_wc_flags = kite_read_wc_flags;
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		ex->read_byte_len = kite_read_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		ex->read_imm_data = kite_read_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		ex->read_qp_num = kite_read_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		ex->read_src_qp = kite_read_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		ex->read_slid = kite_read_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		ex->read_sl = kite_read_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ex->read_dlid_path_bits = kite_read_dlid_path_bits;
	return ex;
}

int kite_destroy_cq(struct ibv_cq *ibcq)
{
	struct kite_cq *cq = to_kcq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	munmap(cq->ring, cq->map_len);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

/*
 * The card re-points the CQ and continues after the CQEs not yet consumed
 * by the index reported here; those are copied to the front of the new ring
 * (kite-abi.h). After the command the CQ is on the new ring whatever happens,
 * so a failure to map it leaves the CQ unusable.
 */
int kite_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct kite_context *ctx = to_kctx(ibcq->context);
	struct kite_cmd_resize_cq_resp resp = {};
	struct kite_cmd_resize_cq cmd = {};
	struct kite_cq *cq = to_kcq(ibcq);
	struct kite_cqe *ring, *src;
	unsigned int log_size;
	uint32_t n, idx, mask;
	int ret;

	if (cqe <= 0 || (uint32_t)cqe > (1U << ctx->log_max_cqe) - 1)
		return EINVAL;
	log_size = max_t(unsigned int, kite_log2_ceil(cqe), KITE_MIN_LOG_RING);

	pthread_spin_lock(&cq->lock);
	cq->ci_reported = cq->ci;
	kite_ring_db(ctx, KITE_DB_CQ_CI, cq->cqn, cq->ci);
	mmio_flush_writes();	/* before the command the kernel posts */
	cmd.log_size = log_size;
	ret = ibv_cmd_resize_cq(ibcq, 1U << log_size, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto out;
	if (resp.log_size != log_size || !resp.mmap_len) {
		ret = EPROTO;
		goto out;
	}
	ring = mmap(NULL, resp.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		    ibcq->context->cmd_fd, resp.mmap_key);
	if (ring == MAP_FAILED) {
		ret = errno;
		goto out;
	}
	/* Valid entries from ci on, in order; the card checked they fit. */
	mask = (1U << cq->log_size) - 1;
	for (n = 0; n <= mask && n < (1U << log_size); n++) {
		idx = cq->ci + n;
		src = &cq->ring[idx & mask];
		if ((src->owner & KITE_CQE_OWNER_OWNER) !=
		    (((idx >> cq->log_size) & 1) ^ 1))
			break;
		ring[n] = *src;
		ring[n].owner = src->owner | KITE_CQE_OWNER_OWNER; /* pass 0 */
	}
	munmap(cq->ring, cq->map_len);
	cq->ring = ring;
	cq->map_len = resp.mmap_len;
	cq->log_size = log_size;
	cq->ci = 0;
	cq->ci_reported = 0;
out:
	pthread_spin_unlock(&cq->lock);
	return ret;
}

/* ------------------------------------------------------------ send WQEs */

static int kite_wqe_opcode(enum ibv_qp_type qpt, enum ibv_wr_opcode op,
			   uint8_t *out)
{
	static const uint8_t map[] = {
		[IBV_WR_SEND] = KITE_WQE_OPCODE_SEND,
		[IBV_WR_SEND_WITH_IMM] = KITE_WQE_OPCODE_SEND_IMM,
		[IBV_WR_SEND_WITH_INV] = KITE_WQE_OPCODE_SEND_INV,
		[IBV_WR_RDMA_WRITE] = KITE_WQE_OPCODE_WRITE,
		[IBV_WR_RDMA_WRITE_WITH_IMM] = KITE_WQE_OPCODE_WRITE_IMM,
		[IBV_WR_RDMA_READ] = KITE_WQE_OPCODE_READ,
		[IBV_WR_ATOMIC_CMP_AND_SWP] = KITE_WQE_OPCODE_ATOMIC_CS,
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = KITE_WQE_OPCODE_ATOMIC_FA,
		[IBV_WR_LOCAL_INV] = KITE_WQE_OPCODE_LOCAL_INV,
	};

	if (qpt == IBV_QPT_UD && op != IBV_WR_SEND &&
	    op != IBV_WR_SEND_WITH_IMM)
		return EINVAL;
	/* memory windows, TSO, atomic write, flush: not on this card */
	if (op >= ARRAY_SIZE(map) || (!map[op] && op != IBV_WR_SEND))
		return EOPNOTSUPP;
	*out = map[op];
	return 0;
}

/* Segments between ctrl and the data: UD address vector, remote address, atomic */
static unsigned int kite_hdr_ds(enum ibv_qp_type qpt, uint8_t opcode)
{
	if (qpt == IBV_QPT_UD)
		return sizeof(struct kite_wqe_ud) / KITE_DS_SIZE;
	switch (opcode) {
	case KITE_WQE_OPCODE_WRITE:
	case KITE_WQE_OPCODE_WRITE_IMM:
	case KITE_WQE_OPCODE_READ:
		return 1;
	case KITE_WQE_OPCODE_ATOMIC_CS:
	case KITE_WQE_OPCODE_ATOMIC_FA:
		return 2;
	default:
		return 0;
	}
}

/* Start a WQE at sq.pi: ctrl filled, header segments reserved. */
static struct kite_wqe_ctrl *kite_wqe_begin(struct kite_qp *qp, uint8_t opcode,
					    unsigned int send_flags,
					    uint64_t wr_id)
{
	struct kite_wq *sq = &qp->sq;
	struct kite_wqe_ctrl *ctrl;
	uint8_t flags = 0;

	if (kite_wq_full(sq))
		return NULL;
	ctrl = kite_wq_slot(sq, sq->pi);
	memset(ctrl, 0, sizeof(*ctrl));
	if ((send_flags & IBV_SEND_SIGNALED) || qp->sig_all)
		flags |= KITE_WQE_CTRL_FLAGS_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		flags |= KITE_WQE_CTRL_FLAGS_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		flags |= KITE_WQE_CTRL_FLAGS_FENCE;
	ctrl->opcode = opcode;
	ctrl->flags = flags;
	ctrl->num_ds = kite_hdr_ds(qp->vqp.qp.qp_type, opcode);
	ctrl->wqe_index = htole16(sq->pi & 0xffff);
	sq->wrid[sq->pi & (kite_wq_size(sq) - 1)] = wr_id;
	sq->pi++;
	return ctrl;
}

static inline void *kite_wqe_ds(struct kite_wqe_ctrl *ctrl, unsigned int n)
{
	return (uint8_t *)(ctrl + 1) + n * KITE_DS_SIZE;
}

static void kite_set_raddr(struct kite_wqe_ctrl *ctrl, uint64_t raddr,
			   uint32_t rkey)
{
	struct kite_wqe_raddr *seg = kite_wqe_ds(ctrl, 0);

	seg->raddr = htole64(raddr);
	seg->rkey = htole32(rkey);
	seg->rsvd = 0;
}

static void kite_set_atomic(struct kite_wqe_ctrl *ctrl, uint64_t swap_add,
			    uint64_t compare)
{
	struct kite_wqe_atomic *seg = kite_wqe_ds(ctrl, 1);

	seg->swap_add = htole64(swap_add);
	seg->compare = htole64(compare);
}

static void kite_set_ud(struct kite_wqe_ctrl *ctrl, struct ibv_ah *ah,
			uint32_t remote_qpn, uint32_t qkey)
{
	struct kite_wqe_ud *seg = kite_wqe_ds(ctrl, 0);

	*seg = to_kah(ah)->av;
	seg->remote_qpn = htole32(remote_qpn & 0xffffff);
	seg->qkey = htole32(qkey);
}

static int kite_add_sge(struct kite_qp *qp, struct kite_wqe_ctrl *ctrl,
			uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct kite_wqe_sge *sge;

	if (ctrl->num_ds >= kite_wq_ds_max(&qp->sq))
		return EINVAL;
	sge = kite_wqe_ds(ctrl, ctrl->num_ds++);
	sge->addr = htole64(addr);
	sge->len = htole32(length);
	sge->lkey = htole32(lkey);
	return 0;
}

/* Inline data follows the header segments, padded to whole segments. */
static int kite_add_inline(struct kite_qp *qp, struct kite_wqe_ctrl *ctrl,
			   const struct ibv_data_buf *bufs, size_t num)
{
	unsigned int hdr = kite_hdr_ds(qp->vqp.qp.qp_type, ctrl->opcode);
	uint8_t *dst = kite_wqe_ds(ctrl, hdr);
	size_t len = 0, i;

	for (i = 0; i < num; i++)
		len += bufs[i].length;
	if (len > qp->max_inline ||
	    hdr + DIV_ROUND_UP(len, KITE_DS_SIZE) > kite_wq_ds_max(&qp->sq))
		return EINVAL;
	for (i = 0; i < num; i++) {
		memcpy(dst, bufs[i].addr, bufs[i].length);
		dst += bufs[i].length;
	}
	ctrl->flags |= KITE_WQE_CTRL_FLAGS_INLINE;
	ctrl->inline_len = htole16(len);
	ctrl->num_ds = hdr + max_t(unsigned int, 1,
				   DIV_ROUND_UP(len, KITE_DS_SIZE));
	return 0;
}

/* num_ds must be at least 1: a zero-length message carries one empty SGE. */
static void kite_wqe_end(struct kite_qp *qp, struct kite_wqe_ctrl *ctrl)
{
	if (!ctrl->num_ds)
		kite_add_sge(qp, ctrl, 0, 0, 0);
}

static int kite_post_one(struct kite_qp *qp, struct ibv_send_wr *wr)
{
	enum ibv_qp_type qpt = qp->vqp.qp.qp_type;
	struct kite_wqe_ctrl *ctrl;
	uint8_t opcode;
	int ret, i;

	ret = kite_wqe_opcode(qpt, wr->opcode, &opcode);
	if (ret)
		return ret;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	if (qpt == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;

	ctrl = kite_wqe_begin(qp, opcode, wr->send_flags, wr->wr_id);
	if (!ctrl)
		return ENOMEM;

	switch (opcode) {
	case KITE_WQE_OPCODE_SEND_IMM:
	case KITE_WQE_OPCODE_WRITE_IMM:
		ctrl->imm = wr->imm_data;
		break;
	case KITE_WQE_OPCODE_SEND_INV:
	case KITE_WQE_OPCODE_LOCAL_INV:
		ctrl->imm = htobe32(wr->invalidate_rkey);
		break;
	}

	if (qpt == IBV_QPT_UD) {
		kite_set_ud(ctrl, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
			    wr->wr.ud.remote_qkey);
	} else if (opcode == KITE_WQE_OPCODE_ATOMIC_CS ||
		   opcode == KITE_WQE_OPCODE_ATOMIC_FA) {
		kite_set_raddr(ctrl, wr->wr.atomic.remote_addr,
			       wr->wr.atomic.rkey);
		kite_set_atomic(ctrl, opcode == KITE_WQE_OPCODE_ATOMIC_CS ?
					      wr->wr.atomic.swap :
					      wr->wr.atomic.compare_add,
				wr->wr.atomic.compare_add);
	} else if (opcode == KITE_WQE_OPCODE_WRITE ||
		   opcode == KITE_WQE_OPCODE_WRITE_IMM ||
		   opcode == KITE_WQE_OPCODE_READ) {
		kite_set_raddr(ctrl, wr->wr.rdma.remote_addr, wr->wr.rdma.rkey);
	}

	if ((wr->send_flags & IBV_SEND_INLINE) &&
	    opcode != KITE_WQE_OPCODE_READ &&
	    opcode != KITE_WQE_OPCODE_ATOMIC_CS &&
	    opcode != KITE_WQE_OPCODE_ATOMIC_FA) {
		struct ibv_data_buf bufs[KITE_MAX_GATHER];

		for (i = 0; i < wr->num_sge; i++) {
			bufs[i].addr = (void *)(uintptr_t)wr->sg_list[i].addr;
			bufs[i].length = wr->sg_list[i].length;
		}
		ret = kite_add_inline(qp, ctrl, bufs, wr->num_sge);
	} else if (opcode != KITE_WQE_OPCODE_LOCAL_INV) {
		for (i = 0; i < wr->num_sge && !ret; i++) {
			/* empty SGEs carry nothing; skip them */
			if (!wr->sg_list[i].length)
				continue;
			ret = kite_add_sge(qp, ctrl, wr->sg_list[i].lkey,
					   wr->sg_list[i].addr,
					   wr->sg_list[i].length);
		}
	}
	if (ret) {
		qp->sq.pi--;
		return ret;
	}
	kite_wqe_end(qp, ctrl);
	return 0;
}

int kite_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct kite_qp *qp = to_kqp(ibqp);
	uint32_t start;
	int ret = 0;

	/* IBA 11.4.1.1: posting to the SQ before RTS is an immediate error */
	if (ibqp->state < IBV_QPS_RTS) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->sq.lock);
	start = qp->sq.pi;
	for (; wr; wr = wr->next) {
		ret = kite_post_one(qp, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	if (qp->sq.pi != start)
		kite_ring_db(to_kctx(ibqp->context), KITE_DB_SQ, qp->qpn,
			     qp->sq.pi);
	pthread_spin_unlock(&qp->sq.lock);
	return ret;
}

/* ------------------------------------------------------------ receive WQEs */

/* An RQ/SRQ WQE is a list of SGEs filling the stride; length 0 ends it. */
static int kite_write_recv(struct kite_wq *wq, uint32_t idx,
			   struct ibv_recv_wr *wr)
{
	struct kite_wqe_sge *sge = kite_wq_slot(wq, idx);
	uint32_t slots = (1U << wq->log_stride) / sizeof(*sge);
	uint32_t n = 0;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		if (!wr->sg_list[i].length)
			continue;
		sge[n].addr = htole64(wr->sg_list[i].addr);
		sge[n].len = htole32(wr->sg_list[i].length);
		sge[n].lkey = htole32(wr->sg_list[i].lkey);
		n++;
	}
	if (n < slots)
		memset(&sge[n], 0, sizeof(*sge));
	wq->wrid[idx & (kite_wq_size(wq) - 1)] = wr->wr_id;
	return 0;
}

int kite_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct kite_qp *qp = to_kqp(ibqp);
	struct kite_wq *rq = &qp->rq;
	uint32_t start;
	int ret = 0;

	/* and to the RQ in Reset */
	if (qp->srq || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&rq->lock);
	start = rq->pi;
	for (; wr; wr = wr->next) {
		ret = kite_wq_full(rq) ? ENOMEM : kite_write_recv(rq, rq->pi, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
		rq->pi++;
	}
	if (rq->pi != start)
		kite_ring_db(to_kctx(ibqp->context), KITE_DB_RQ, qp->qpn,
			     rq->pi);
	pthread_spin_unlock(&rq->lock);
	return ret;
}

/*
 * The card consumes SRQ WQEs in ring order but QPs complete them in any
 * order, so a slot is reused only after its completion was polled.
 */
int kite_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct kite_srq *srq = to_ksrq(ibsrq);
	struct kite_wq *wq = &srq->wq;
	uint32_t start, slot;
	int ret = 0;

	pthread_spin_lock(&wq->lock);
	start = wq->pi;
	for (; wr; wr = wr->next) {
		slot = wq->pi & (kite_wq_size(wq) - 1);
		ret = srq->busy[slot] ? ENOMEM : kite_write_recv(wq, wq->pi, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
		srq->busy[slot] = 1;
		wq->pi++;
	}
	if (wq->pi != start)
		kite_ring_db(to_kctx(ibsrq->context), KITE_DB_RQ, srq->srqn,
			     wq->pi);
	pthread_spin_unlock(&wq->lock);
	return ret;
}

/* ------------------------------------------------------------ ibv_qp_ex */

static void kite_wr_start(struct ibv_qp_ex *ibqp)
{
	struct kite_qp *qp = ex_to_kqp(ibqp);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_start_pi = qp->sq.pi;
	qp->wr_err = 0;
	qp->cur = NULL;
}

static int kite_wr_complete(struct ibv_qp_ex *ibqp)
{
	struct kite_qp *qp = ex_to_kqp(ibqp);
	int ret = qp->wr_err;

	if (!ret && ibqp->qp_base.state < IBV_QPS_RTS)
		ret = EINVAL;
	if (qp->cur)
		kite_wqe_end(qp, qp->cur);
	if (ret)
		qp->sq.pi = qp->wr_start_pi;	/* nothing of the batch is posted */
	else if (qp->sq.pi != qp->wr_start_pi)
		kite_ring_db(to_kctx(ibqp->qp_base.context), KITE_DB_SQ,
			     qp->qpn, qp->sq.pi);
	qp->cur = NULL;
	pthread_spin_unlock(&qp->sq.lock);
	return ret;
}

static void kite_wr_abort(struct ibv_qp_ex *ibqp)
{
	struct kite_qp *qp = ex_to_kqp(ibqp);

	qp->sq.pi = qp->wr_start_pi;
	qp->cur = NULL;
	pthread_spin_unlock(&qp->sq.lock);
}

static struct kite_wqe_ctrl *kite_wr_new(struct ibv_qp_ex *ibqp,
					 uint8_t opcode)
{
	struct kite_qp *qp = ex_to_kqp(ibqp);
	struct kite_wqe_ctrl *ctrl;

	if (qp->cur)
		kite_wqe_end(qp, qp->cur);
	qp->cur = NULL;
	if (qp->wr_err)
		return NULL;
	ctrl = kite_wqe_begin(qp, opcode, ibqp->wr_flags, ibqp->wr_id);
	if (!ctrl) {
		qp->wr_err = ENOMEM;
		return NULL;
	}
	qp->cur = ctrl;
	return ctrl;
}

static void kite_wr_send(struct ibv_qp_ex *ibqp)
{
	kite_wr_new(ibqp, KITE_WQE_OPCODE_SEND);
}

static void kite_wr_send_imm(struct ibv_qp_ex *ibqp, __be32 imm)
{
	struct kite_wqe_ctrl *ctrl = kite_wr_new(ibqp, KITE_WQE_OPCODE_SEND_IMM);

	if (ctrl)
		ctrl->imm = imm;
}

static void kite_wr_send_inv(struct ibv_qp_ex *ibqp, uint32_t rkey)
{
	struct kite_wqe_ctrl *ctrl = kite_wr_new(ibqp, KITE_WQE_OPCODE_SEND_INV);

	if (ctrl)
		ctrl->imm = htobe32(rkey);
}

static void kite_wr_local_inv(struct ibv_qp_ex *ibqp, uint32_t rkey)
{
	struct kite_wqe_ctrl *ctrl = kite_wr_new(ibqp, KITE_WQE_OPCODE_LOCAL_INV);

	if (ctrl)
		ctrl->imm = htobe32(rkey);
}

static void kite_wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			       uint64_t raddr)
{
	struct kite_wqe_ctrl *ctrl = kite_wr_new(ibqp, KITE_WQE_OPCODE_WRITE);

	if (ctrl)
		kite_set_raddr(ctrl, raddr, rkey);
}

static void kite_wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
				   uint64_t raddr, __be32 imm)
{
	struct kite_wqe_ctrl *ctrl = kite_wr_new(ibqp, KITE_WQE_OPCODE_WRITE_IMM);

	if (ctrl) {
		kite_set_raddr(ctrl, raddr, rkey);
		ctrl->imm = imm;
	}
}

static void kite_wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t raddr)
{
	struct kite_wqe_ctrl *ctrl = kite_wr_new(ibqp, KITE_WQE_OPCODE_READ);

	if (ctrl)
		kite_set_raddr(ctrl, raddr, rkey);
}

static void kite_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
				   uint64_t raddr, uint64_t compare,
				   uint64_t swap)
{
	struct kite_wqe_ctrl *ctrl = kite_wr_new(ibqp, KITE_WQE_OPCODE_ATOMIC_CS);

	if (ctrl) {
		kite_set_raddr(ctrl, raddr, rkey);
		kite_set_atomic(ctrl, swap, compare);
	}
}

static void kite_wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				     uint64_t raddr, uint64_t add)
{
	struct kite_wqe_ctrl *ctrl = kite_wr_new(ibqp, KITE_WQE_OPCODE_ATOMIC_FA);

	if (ctrl) {
		kite_set_raddr(ctrl, raddr, rkey);
		kite_set_atomic(ctrl, add, 0);
	}
}

static void kite_wr_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah,
				uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct kite_qp *qp = ex_to_kqp(ibqp);

	if (!qp->cur)
		return;
	if (!ah) {
		qp->wr_err = EINVAL;
		return;
	}
	kite_set_ud(qp->cur, ah, remote_qpn, remote_qkey);
}

static void kite_wr_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey,
			    uint64_t addr, uint32_t length)
{
	struct kite_qp *qp = ex_to_kqp(ibqp);

	if (!qp->cur || !length)
		return;
	if (kite_add_sge(qp, qp->cur, lkey, addr, length))
		qp->wr_err = EINVAL;
}

static void kite_wr_set_sge_list(struct ibv_qp_ex *ibqp, size_t num_sge,
				 const struct ibv_sge *sg_list)
{
	struct kite_qp *qp = ex_to_kqp(ibqp);
	size_t i;

	if (!qp->cur)
		return;
	if (num_sge > qp->sq.max_sge) {
		qp->wr_err = EINVAL;
		return;
	}
	for (i = 0; i < num_sge; i++)
		kite_wr_set_sge(ibqp, sg_list[i].lkey, sg_list[i].addr,
				sg_list[i].length);
}

static void kite_wr_set_inline_data_list(struct ibv_qp_ex *ibqp,
					 size_t num_buf,
					 const struct ibv_data_buf *buf_list)
{
	struct kite_qp *qp = ex_to_kqp(ibqp);

	if (!qp->cur)
		return;
	if (kite_add_inline(qp, qp->cur, buf_list, num_buf))
		qp->wr_err = EINVAL;
}

static void kite_wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr,
				    size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	kite_wr_set_inline_data_list(ibqp, 1, &buf);
}

enum {
	KITE_RC_SEND_OPS = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			   IBV_QP_EX_WITH_SEND_WITH_INV |
			   IBV_QP_EX_WITH_RDMA_WRITE |
			   IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			   IBV_QP_EX_WITH_RDMA_READ |
			   IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			   IBV_QP_EX_WITH_LOCAL_INV,
	KITE_UD_SEND_OPS = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM,
};

static void kite_init_qp_ex(struct kite_qp *qp)
{
	struct ibv_qp_ex *ex = &qp->vqp.qp_ex;

	qp->vqp.comp_mask |= VERBS_QP_EX;
	ex->wr_start = kite_wr_start;
	ex->wr_complete = kite_wr_complete;
	ex->wr_abort = kite_wr_abort;
	ex->wr_send = kite_wr_send;
	ex->wr_send_imm = kite_wr_send_imm;
	ex->wr_send_inv = kite_wr_send_inv;
	ex->wr_local_inv = kite_wr_local_inv;
	ex->wr_rdma_write = kite_wr_rdma_write;
	ex->wr_rdma_write_imm = kite_wr_rdma_write_imm;
	ex->wr_rdma_read = kite_wr_rdma_read;
	ex->wr_atomic_cmp_swp = kite_wr_atomic_cmp_swp;
	ex->wr_atomic_fetch_add = kite_wr_atomic_fetch_add;
	ex->wr_set_ud_addr = kite_wr_set_ud_addr;
	ex->wr_set_sge = kite_wr_set_sge;
	ex->wr_set_sge_list = kite_wr_set_sge_list;
	ex->wr_set_inline_data = kite_wr_set_inline_data;
	ex->wr_set_inline_data_list = kite_wr_set_inline_data_list;
}

/* ------------------------------------------------------------ QP */

struct ibv_qp *kite_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct kite_context *ctx = to_kctx(context);
	struct kite_cmd_create_qp_resp resp = {};
	struct kite_cmd_create_qp cmd = {};
	unsigned int sq_log, sq_stride_log, rq_log = 0, rq_stride_log = 0;
	unsigned int hdr, data, max_wr = 1U << ctx->log_max_wqe;
	uint32_t max_inline, sq_sge, rq_sge = 0;
	size_t sq_bytes, rq_off = 0, len;
	struct kite_qp *qp;
	uint32_t mask;
	int ret;

	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UD) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->qp_type == IBV_QPT_UD && !(ctx->caps & KITE_UCTX_CAP_UD)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* No create flags and no TSO; asking for none of them is fine. */
	if ((attr->comp_mask & ~(IBV_QP_INIT_ATTR_PD |
				 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
				 IBV_QP_INIT_ATTR_CREATE_FLAGS |
				 IBV_QP_INIT_ATTR_MAX_TSO_HEADER)) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_MAX_TSO_HEADER) &&
	     attr->max_tso_header)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->send_cq ||
	    (!attr->recv_cq && !attr->srq)) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		uint64_t ok = attr->qp_type == IBV_QPT_UD ? KITE_UD_SEND_OPS :
							    KITE_RC_SEND_OPS;

		if (attr->send_ops_flags & ~ok) {
			errno = EOPNOTSUPP;
			return NULL;
		}
	}
	if (attr->cap.max_send_wr > max_wr || attr->cap.max_send_sge > ctx->max_sge ||
	    attr->cap.max_inline_data > ctx->max_inline ||
	    (!attr->srq && (attr->cap.max_recv_wr > max_wr ||
			    attr->cap.max_recv_sge > ctx->max_sge))) {
		errno = EINVAL;
		return NULL;
	}

	/* SQ: ctrl, UD vector or remote address, then data */
	hdr = sizeof(struct kite_wqe_ctrl) +
	      (attr->qp_type == IBV_QPT_UD ? sizeof(struct kite_wqe_ud) :
					     sizeof(struct kite_wqe_raddr));
	data = max_t(unsigned int, attr->cap.max_send_sge * KITE_DS_SIZE,
		     align(attr->cap.max_inline_data, KITE_DS_SIZE));
	data = max_t(unsigned int, data, KITE_DS_SIZE);
	sq_stride_log = max_t(unsigned int, kite_log2_ceil(hdr + data),
			      ctx->log_min_stride);
	if (sq_stride_log > ctx->log_max_stride) {
		errno = EINVAL;
		return NULL;
	}
	sq_log = max_t(unsigned int, kite_log2_ceil(attr->cap.max_send_wr),
		       KITE_MIN_LOG_RING);
	sq_sge = min_t(uint32_t, ((1U << sq_stride_log) - hdr) / KITE_DS_SIZE,
		       ctx->max_sge);
	max_inline = min_t(uint32_t, (1U << sq_stride_log) - hdr,
			   ctx->max_inline);
	sq_bytes = (size_t)1 << (sq_log + sq_stride_log);
	len = sq_bytes;

	if (!attr->srq) {
		rq_sge = max_t(uint32_t, attr->cap.max_recv_sge, 1);
		rq_stride_log = max_t(unsigned int,
				      kite_log2_ceil(rq_sge *
						     sizeof(struct kite_wqe_sge)),
				      ctx->log_min_stride);
		if (rq_stride_log > ctx->log_max_stride) {
			errno = EINVAL;
			return NULL;
		}
		rq_log = max_t(unsigned int,
			       kite_log2_ceil(attr->cap.max_recv_wr),
			       KITE_MIN_LOG_RING);
		rq_sge = min_t(uint32_t, (1U << rq_stride_log) /
					 sizeof(struct kite_wqe_sge),
			       ctx->max_sge);
		rq_off = align(sq_bytes, KITE_DB_PAGE_SIZE);
		len = rq_off + ((size_t)1 << (rq_log + rq_stride_log));
	}
	len = align(len, kite_page_size());

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	qp->buf_len = len;
	qp->buf = kite_alloc_ring(len);
	if (!qp->buf)
		goto err_free;
	ret = kite_wq_init(&qp->sq, sq_log, sq_stride_log, sq_sge, qp->buf);
	if (!ret && !attr->srq)
		ret = kite_wq_init(&qp->rq, rq_log, rq_stride_log, rq_sge,
				   (uint8_t *)qp->buf + rq_off);
	if (ret) {
		errno = ret;
		goto err_wq;
	}
	qp->srq = attr->srq ? to_ksrq(attr->srq) : NULL;
	qp->max_inline = max_inline;
	qp->sig_all = attr->sq_sig_all;

	cmd.buf_va = (uintptr_t)qp->buf;
	cmd.buf_len = len;
	cmd.rq_offset = rq_off;
	cmd.sq_log_size = sq_log;
	cmd.sq_log_stride = sq_stride_log;
	cmd.rq_log_size = rq_log;
	cmd.rq_log_stride = rq_stride_log;
	cmd.max_inline = max_inline;
	cmd.flags = attr->sq_sig_all ? KITE_QP_SIG_ALL : 0;

	/* the kernel sees what the rings really hold */
	attr->cap.max_send_wr = 1U << sq_log;
	attr->cap.max_send_sge = sq_sge;
	attr->cap.max_inline_data = max_inline;
	if (!attr->srq) {
		attr->cap.max_recv_wr = 1U << rq_log;
		attr->cap.max_recv_sge = rq_sge;
	}

	/* the command takes no (empty) create flags or TSO header */
	mask = attr->comp_mask;
	attr->comp_mask &= IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ret = ibv_cmd_create_qp_ex(context, &qp->vqp, attr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	attr->comp_mask = mask;
	if (ret) {
		errno = ret;
		goto err_wq;
	}
	qp->qpn = resp.qpn;
	ret = kite_store_qp(ctx, qp->qpn, qp);
	if (ret) {
		ibv_cmd_destroy_qp(&qp->vqp.qp);
		errno = ret;
		goto err_wq;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		kite_init_qp_ex(qp);
	return &qp->vqp.qp;

err_wq:
	kite_wq_cleanup(&qp->rq);
	kite_wq_cleanup(&qp->sq);
	kite_free_ring(qp->buf, qp->buf_len);
err_free:
	free(qp);
	return NULL;
}

struct ibv_qp *kite_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp;

	qp = kite_create_qp_ex(pd->context, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

/* Back in RESET the card restarts the rings at index 0, and so do we. */
static void kite_qp_reset(struct kite_qp *qp)
{
	pthread_spin_lock(&qp->sq.lock);
	qp->sq.pi = qp->sq.ci = 0;
	pthread_spin_unlock(&qp->sq.lock);
	if (!qp->srq) {
		pthread_spin_lock(&qp->rq.lock);
		qp->rq.pi = qp->rq.ci = 0;
		pthread_spin_unlock(&qp->rq.lock);
	}
	memset(qp->buf, 0, qp->buf_len);
}

int kite_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct ibv_modify_qp cmd = {};
	int ret;

	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if ((attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET)
		kite_qp_reset(to_kqp(ibqp));
	return 0;
}

int kite_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr)
{
	struct kite_qp *qp = to_kqp(ibqp);
	struct ibv_query_qp cmd;
	int ret;

	ret = ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
			       sizeof(cmd));
	if (ret)
		return ret;
	/* the provider owns the ring geometry */
	attr->cap.max_send_wr = kite_wq_size(&qp->sq);
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_inline_data = qp->max_inline;
	attr->cap.max_recv_wr = qp->srq ? 0 : kite_wq_size(&qp->rq);
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->rq.max_sge;
	init_attr->cap = attr->cap;
	return 0;
}

int kite_destroy_qp(struct ibv_qp *ibqp)
{
	struct kite_context *ctx = to_kctx(ibqp->context);
	struct kite_qp *qp = to_kqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	/*
	 * CQEs of this QP still in a CQ are dropped by the poller once the
	 * number is gone from the table; take the CQ locks so no poller is
	 * using the QP right now.
	 */
	pthread_spin_lock(&to_kcq(ibqp->send_cq)->lock);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		pthread_spin_lock(&to_kcq(ibqp->recv_cq)->lock);
	kite_store_qp(ctx, qp->qpn, NULL);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		pthread_spin_unlock(&to_kcq(ibqp->recv_cq)->lock);
	pthread_spin_unlock(&to_kcq(ibqp->send_cq)->lock);

	kite_wq_cleanup(&qp->rq);
	kite_wq_cleanup(&qp->sq);
	kite_free_ring(qp->buf, qp->buf_len);
	free(qp);
	return 0;
}

/* ------------------------------------------------------------ SRQ */

struct ibv_srq *kite_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr)
{
	struct kite_context *ctx = to_kctx(pd->context);
	struct kite_cmd_create_srq_resp resp = {};
	struct kite_cmd_create_srq cmd = {};
	unsigned int log_size, log_stride;
	struct kite_srq *srq;
	uint32_t sge;
	int ret;

	if (!(ctx->caps & KITE_UCTX_CAP_SRQ)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->attr.max_wr > (1U << ctx->log_max_wqe) ||
	    attr->attr.max_sge > ctx->max_sge ||
	    attr->attr.srq_limit > attr->attr.max_wr) {
		errno = EINVAL;
		return NULL;
	}
	sge = max_t(uint32_t, attr->attr.max_sge, 1);
	log_stride = max_t(unsigned int,
			   kite_log2_ceil(sge * sizeof(struct kite_wqe_sge)),
			   ctx->log_min_stride);
	if (log_stride > ctx->log_max_stride) {
		errno = EINVAL;
		return NULL;
	}
	log_size = max_t(unsigned int, kite_log2_ceil(attr->attr.max_wr),
			 KITE_MIN_LOG_RING);
	sge = min_t(uint32_t, (1U << log_stride) / sizeof(struct kite_wqe_sge),
		    ctx->max_sge);

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	srq->buf_len = align((size_t)1 << (log_size + log_stride),
			     kite_page_size());
	srq->buf = kite_alloc_ring(srq->buf_len);
	srq->busy = calloc(1U << log_size, 1);
	if (!srq->buf || !srq->busy)
		goto err_free;
	ret = kite_wq_init(&srq->wq, log_size, log_stride, sge, srq->buf);
	if (ret) {
		errno = ret;
		goto err_free;
	}

	cmd.buf_va = (uintptr_t)srq->buf;
	cmd.buf_len = srq->buf_len;
	cmd.log_size = log_size;
	cmd.log_stride = log_stride;
	attr->attr.max_wr = 1U << log_size;
	attr->attr.max_sge = sge;
	ret = ibv_cmd_create_srq(pd, &srq->vsrq.srq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret) {
		errno = ret;
		goto err_wq;
	}
	srq->srqn = resp.srqn;
	return &srq->vsrq.srq;

err_wq:
	kite_wq_cleanup(&srq->wq);
err_free:
	free(srq->busy);
	kite_free_ring(srq->buf, srq->buf_len);
	free(srq);
	return NULL;
}

int kite_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_srq cmd;

	/* the ring lives in pinned user memory sized at creation */
	if (attr_mask & IBV_SRQ_MAX_WR)
		return EOPNOTSUPP;
	return ibv_cmd_modify_srq(srq, attr, attr_mask, &cmd, sizeof(cmd));
}

int kite_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct kite_srq *srq = to_ksrq(ibsrq);
	struct ibv_query_srq cmd;
	int ret;

	ret = ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	attr->max_wr = kite_wq_size(&srq->wq);
	attr->max_sge = srq->wq.max_sge;
	return 0;
}

int kite_destroy_srq(struct ibv_srq *ibsrq)
{
	struct kite_srq *srq = to_ksrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	kite_wq_cleanup(&srq->wq);
	free(srq->busy);
	kite_free_ring(srq->buf, srq->buf_len);
	free(srq);
	return 0;
}

/* ------------------------------------------------------------ AH */

struct ibv_ah *kite_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct kite_cmd_create_ah_resp resp = {};
	struct kite_wqe_ud *av;
	struct kite_ah *ah;
	int ret;

	/* RoCE addresses by GID: there is no LID-only route */
	if (!attr->is_global) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}

	av = &ah->av;
	memcpy(av->dmac, resp.dmac, sizeof(av->dmac));
	memcpy(av->dgid, attr->grh.dgid.raw, sizeof(av->dgid));
	av->flow_label = htole32(attr->grh.flow_label & 0xfffff);
	av->hop_limit = attr->grh.hop_limit;
	av->tclass = attr->grh.traffic_class;
	av->sgid_index = attr->grh.sgid_index;
	if (resp.av_flags & KITE_AH_VLAN) {
		av->flags |= KITE_WQE_UD_FLAGS_VLAN;
		av->vlan_tci = htole16(resp.vlan_tci);
	}
	if (resp.av_flags & KITE_AH_IPV4)
		av->flags |= KITE_WQE_UD_FLAGS_IPV4;
	av->ah = 0;		/* the WQE carries the whole vector */
	return &ah->ibv_ah;
}

int kite_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;
	free(to_kah(ibah));
	return 0;
}
