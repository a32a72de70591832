/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kite RoCEv2 driver (kite_ib.ko): an ib_device on the "kite.rdma"
 * auxiliary device of kite.ko. See Documentation/hw/operation.rst, section
 * "RDMA (RoCEv2)", for what the card does with the commands issued here.
 */
#ifndef _KITE_IB_H
#define _KITE_IB_H

#include <linux/kite/kite_aux.h>
#include <linux/kite/kite_hw.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "kite_ib_compat.h"

#define KITE_IB_PORT		1	/* the one ib port of a function */
#define KITE_IB_GSI_QPN		1	/* the GSI QP's number on the wire */
#define KITE_IB_NUM_STATS	15	/* counters of struct kite_rdma_stats */
#define KITE_IB_MAX_FR_PAGES	512	/* a fast-reg page list fills a page */

struct kite_ib_dev {
	struct ib_device ibdev;
	struct kite_aux_dev *kadev;
	struct net_device *netdev;
	void __iomem *kdb;		/* kernel doorbell page (page 0) */
	u32 card_port;

	/* card object number -> object, for events (RCU readers) */
	struct xarray cqs;
	struct xarray qps;
	struct xarray srqs;

	atomic_t key_variant;		/* next MR key variant */
	struct work_struct event_work;
	unsigned long pending;		/* KITE_IB_EV_* bits for event_work */

	struct mutex stats_lock;	/* stats buffer */
	struct kite_rdma_stats *stats;
	dma_addr_t stats_dma;

	/* rdma_counter id -> struct kite_ib_counter (QP counters) */
	struct xarray counters;
};

/*
 * A QP counter of `rdma statistic qp`. The card counts per QP from the QP's
 * creation; a counter is what its QPs did while bound, so binding takes a
 * snapshot and unbinding folds the QP's share into @done.
 */
struct kite_ib_counter {
	struct list_head qps;		/* kite_ib_qp.cntr_node */
	u64 done[KITE_IB_NUM_STATS];
};

enum {
	KITE_IB_EV_PORT_ACTIVE,
	KITE_IB_EV_PORT_ERR,
	KITE_IB_EV_FATAL,
};

enum kite_ib_mmap_type {
	KITE_IB_MMAP_DB,		/* a doorbell page of the BAR */
	KITE_IB_MMAP_RING,		/* a user CQ ring (kite_ib_alloc_ring) */
};

/*
 * What an mmap key stands for. The memory (or the doorbell page) stays
 * allocated until the last mapping is gone (mmap_free), so that a process
 * never sees memory or a doorbell page reused by someone else.
 */
struct kite_ib_mmap {
	struct rdma_user_mmap_entry rdma_entry;
	struct kite_ib_dev *dev;
	enum kite_ib_mmap_type type;
	u32 db_page;			/* DB */
	void *cpu;			/* RING */
	dma_addr_t dma;
	size_t size;
};

struct kite_ib_ucontext {
	struct ib_ucontext ibuc;
	u32 db_page;
	struct rdma_user_mmap_entry *db_entry;
};

struct kite_ib_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/* An MTT: the page list the card reads for one MR. */
struct kite_ib_mtt {
	__le64 *pages;
	dma_addr_t dma;
	u32 count;
	size_t size;
};

struct kite_ib_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	struct kite_ib_mtt mtt;
	bool phys;			/* get_dma_mr: no card object */
	/* fast registration (alloc_mr): mtt.count pages mapped of fr_max */
	u32 fr_max;
	u32 create_key;			/* the card's name for it; lkey varies */
};

struct kite_ib_cq {
	struct ib_cq ibcq;
	u32 cqn;
	u8 log_size;
	bool user;
	spinlock_t lock;		/* kernel CQ polling */
	u32 ci;
	struct kite_cqe *ring;
	dma_addr_t ring_dma;
	size_t ring_size;
	struct rdma_user_mmap_entry *mmap_entry;	/* user CQ */
};

/* A kernel work queue: ring in coherent memory, wr_ids by slot. */
struct kite_ib_wq {
	void *buf;
	dma_addr_t dma;
	size_t size;
	u64 *wrid;
	spinlock_t lock;		/* producer */
	u32 pi;
	u32 ci;
	u8 log_size;
	u8 log_stride;
	u32 max_sge;
};

struct kite_ib_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	u32 limit;
	u32 max_wr;
	u32 max_sge;
	bool user;
	struct ib_umem *umem;		/* user SRQ */
	struct kite_ib_mr *ring_mr;
	/*
	 * Kernel SRQ: QPs complete its WQEs in any order, so a slot is free
	 * again when its own receive completion is polled (busy bit).
	 */
	struct kite_ib_wq wq;
	unsigned long *busy;
};

struct kite_ib_qp {
	struct ib_qp ibqp;
	u32 qpn;			/* card number */
	u8 type;			/* enum kite_qp_type */
	enum ib_qp_state state;
	bool user;
	bool sig_all;
	u32 max_inline;
	struct kite_ib_wq sq;		/* kernel QPs */
	struct kite_ib_wq rq;
	struct ib_qp_cap cap;
	struct ib_umem *umem;		/* user rings */
	struct kite_ib_mr *ring_mr;
	struct list_head cntr_node;	/* bound to an rdma_counter */
	u64 cntr_base[KITE_IB_NUM_STATS];	/* card counts at binding */
};

struct kite_ib_ah {
	struct ib_ah ibah;
	struct kite_wqe_ud av;		/* remote_qpn and qkey filled per WQE */
};

static inline struct kite_ib_dev *to_kdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct kite_ib_dev, ibdev);
}

static inline struct kite_ib_ucontext *to_kuc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct kite_ib_ucontext, ibuc);
}

static inline struct kite_ib_pd *to_kpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct kite_ib_pd, ibpd);
}

static inline struct kite_ib_mr *to_kmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct kite_ib_mr, ibmr);
}

static inline struct kite_ib_cq *to_kcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct kite_ib_cq, ibcq);
}

static inline struct kite_ib_qp *to_kqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct kite_ib_qp, ibqp);
}

static inline struct kite_ib_srq *to_ksrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct kite_ib_srq, ibsrq);
}

static inline struct kite_ib_ah *to_kah(struct ib_ah *ibah)
{
	return container_of(ibah, struct kite_ib_ah, ibah);
}

static inline struct kite_ib_mmap *to_kmmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct kite_ib_mmap, rdma_entry);
}

static inline struct device *kite_ib_dma_dev(struct kite_ib_dev *dev)
{
	return &dev->kadev->pdev->dev;
}

static inline u32 kite_ib_db_val(u32 qn, u32 index)
{
	return qn << KITE_DB_QN_SHIFT | (index & KITE_DB_INDEX_MASK);
}

/* An entry at free-running index ci is new when its owner bit says so. */
static inline bool kite_ib_owner_new(u8 owner, u32 ci, u8 log_size)
{
	return (owner & 1) == (((ci >> log_size) & 1) ^ 1);
}

int kite_ib_cmd(struct kite_ib_dev *dev, u16 opcode, const void *in,
		size_t in_len, void *out, size_t out_len);
int kite_ib_destroy_obj(struct kite_ib_dev *dev, u16 opcode, u32 id);

/* kite_ib_main.c */
int kite_ib_qp_stats(struct kite_ib_dev *dev, u32 qpn, u64 *val);
void kite_ib_counter_qp_reset(struct ib_qp *ibqp, const u64 *now);
void *kite_ib_alloc_ring(struct kite_ib_dev *dev, size_t size, dma_addr_t *dma);
void kite_ib_free_ring(struct kite_ib_dev *dev, void *cpu, dma_addr_t dma,
		       size_t size);
struct rdma_user_mmap_entry *
kite_ib_mmap_insert(struct kite_ib_ucontext *uc, enum kite_ib_mmap_type type,
		    void *cpu, dma_addr_t dma, size_t size, u32 db_page,
		    u64 *key);

/* kite_ib_mr.c */
int kite_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int kite_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
struct ib_mr *kite_ib_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *kite_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata);
#ifdef KITE_IB_HAVE_DMABUF_ATTRS
struct ib_mr *kite_ib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					 u64 length, u64 virt_addr, int fd,
					 int access,
					 struct uverbs_attr_bundle *attrs);
#else
struct ib_mr *kite_ib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					 u64 length, u64 virt_addr, int fd,
					 int access, struct ib_udata *udata);
#endif
int kite_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *kite_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg);
int kite_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		      int sg_nents, unsigned int *sg_offset);
u32 kite_ib_mr_access(int access);
struct kite_ib_mr *kite_ib_ring_mr(struct kite_ib_dev *dev, u32 pdn,
				   struct ib_umem *umem, u64 iova);
int kite_ib_ring_mr_free(struct kite_ib_dev *dev, struct kite_ib_mr *mr);

/* kite_ib_cq.c */
#ifdef KITE_IB_HAVE_CQ_ATTRS
int kite_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct uverbs_attr_bundle *attrs);
#else
int kite_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata);
#endif
int kite_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int kite_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int kite_ib_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int kite_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* kite_ib_qp.c */
int kite_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		      struct ib_udata *udata);
int kite_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		      struct ib_udata *udata);
int kite_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		     struct ib_qp_init_attr *init);
int kite_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int kite_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr);
int kite_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
int kite_ib_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		       struct ib_udata *udata);
int kite_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask mask, struct ib_udata *udata);
int kite_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int kite_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int kite_ib_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr);
int kite_ib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		      struct ib_udata *udata);
int kite_ib_destroy_ah(struct ib_ah *ibah, u32 flags);
int kite_ib_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int kite_ib_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
/* Called with the CQ lock held: the QP of a CQE, or NULL. */
struct kite_ib_qp *kite_ib_cqe_qp(struct kite_ib_dev *dev, u32 qpn);
void kite_ib_qp_complete(struct kite_ib_qp *qp, const struct kite_cqe *cqe,
			 struct ib_wc *wc);

#endif /* _KITE_IB_H */
