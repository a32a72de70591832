/* SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file */
/*
 * Kite RoCEv2 provider. The fast path (post_send, post_recv, poll_cq,
 * req_notify_cq) touches only the mmapped rings and the context's doorbell
 * page; everything else is a uverbs command to kite_ib.ko.
 */
#ifndef __KITE_H__
#define __KITE_H__

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ccan/array_size.h>
#include <ccan/minmax.h>
#include <infiniband/driver.h>
#include <util/mmio.h>
#include <util/udma_barrier.h>
#include <util/util.h>

#include "kite_hw.h"
#include "kite_abi.h"

/* Card QP numbers are 16 bit: a two-level table of 256 x 256. */
#define KITE_QP_TABLE_SHIFT 8
#define KITE_QP_TABLE_SIZE (1 << KITE_QP_TABLE_SHIFT)
#define KITE_QP_TABLE_MASK (KITE_QP_TABLE_SIZE - 1)

struct kite_device {
	struct verbs_device ibv_dev;
};

struct kite_qp;

struct kite_context {
	struct verbs_context ibv_ctx;
	void *db;			/* doorbell page, uncached */
	size_t db_len;
	uint32_t caps;			/* enum kite_uctx_caps */
	uint32_t max_inline;
	uint32_t max_sge;
	uint8_t log_max_wqe;
	uint8_t log_max_cqe;
	uint8_t log_min_stride;
	uint8_t log_max_stride;

	pthread_mutex_t qp_table_mutex;
	struct kite_qp **qp_table[KITE_QP_TABLE_SIZE];
};

/* A work queue ring: SQ, RQ or SRQ. pi and ci are free running. */
struct kite_wq {
	void *buf;
	uint64_t *wrid;
	pthread_spinlock_t lock;
	uint32_t pi;
	uint32_t ci;
	uint8_t log_size;
	uint8_t log_stride;
	uint32_t max_sge;
};

struct kite_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	bool single_threaded;
	struct kite_cqe *ring;
	size_t map_len;
	uint32_t cqn;
	uint8_t log_size;
	uint32_t ci;
	uint32_t ci_reported;		/* last CI written to the card */
	struct ibv_wc cur;		/* current entry of the ibv_cq_ex poll */
};

struct kite_srq {
	struct verbs_srq vsrq;
	struct kite_wq wq;
	uint8_t *busy;			/* slot posted and not yet completed */
	void *buf;
	size_t buf_len;
	uint32_t srqn;
};

struct kite_qp {
	struct verbs_qp vqp;
	struct kite_wq sq;
	struct kite_wq rq;
	struct kite_srq *srq;
	void *buf;
	size_t buf_len;
	uint32_t qpn;
	uint32_t max_inline;
	bool sig_all;

	/* ibv_wr_* state, valid between wr_start and wr_complete/abort */
	struct kite_wqe_ctrl *cur;
	uint32_t wr_start_pi;
	int wr_err;
};

struct kite_ah {
	struct ibv_ah ibv_ah;
	struct kite_wqe_ud av;
};

static inline struct kite_context *to_kctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct kite_context, ibv_ctx.context);
}

static inline struct kite_cq *to_kcq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct kite_cq, vcq.cq);
}

static inline struct kite_cq *ex_to_kcq(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct kite_cq, vcq.cq_ex);
}

static inline struct kite_qp *to_kqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct kite_qp, vqp.qp);
}

static inline struct kite_qp *ex_to_kqp(struct ibv_qp_ex *ibqp)
{
	return container_of(ibqp, struct kite_qp, vqp.qp_ex);
}

static inline struct kite_srq *to_ksrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct kite_srq, vsrq.srq);
}

static inline struct kite_ah *to_kah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct kite_ah, ibv_ah);
}

/* Doorbell: WQEs/consumer state must be visible to the card first. */
static inline void kite_ring_db(struct kite_context *ctx, unsigned int off,
				uint32_t qn, uint32_t index)
{
	udma_to_device_barrier();
	mmio_write32_le((uint8_t *)ctx->db + off,
			htole32(qn << KITE_DB_QN_SHIFT |
				(index & KITE_DB_INDEX_MASK)));
}

int kite_query_device(struct ibv_context *context,
		      const struct ibv_query_device_ex_input *input,
		      struct ibv_device_attr_ex *attr, size_t attr_size);
int kite_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);

struct ibv_pd *kite_alloc_pd(struct ibv_context *context);
int kite_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *kite_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access);
struct ibv_mr *kite_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access);
int kite_dereg_mr(struct verbs_mr *vmr);

struct ibv_cq *kite_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
struct ibv_cq_ex *kite_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);
int kite_destroy_cq(struct ibv_cq *cq);
int kite_resize_cq(struct ibv_cq *cq, int cqe);
int kite_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int kite_req_notify_cq(struct ibv_cq *cq, int solicited_only);

struct ibv_qp *kite_create_qp(struct ibv_pd *pd,
			      struct ibv_qp_init_attr *attr);
struct ibv_qp *kite_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
int kite_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		   int attr_mask);
int kite_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr);
int kite_destroy_qp(struct ibv_qp *qp);
int kite_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int kite_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);

struct ibv_srq *kite_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr);
int kite_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		    int attr_mask);
int kite_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int kite_destroy_srq(struct ibv_srq *srq);
int kite_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);

struct ibv_ah *kite_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int kite_destroy_ah(struct ibv_ah *ah);

#endif
