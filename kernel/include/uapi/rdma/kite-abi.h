/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * Kite uverbs ABI: the driver-private data that kite_ib.ko and the rdma-core
 * provider (libkite-rdmav*.so) exchange in the udata of the uverbs commands.
 *
 * The ABI version is reported as the ib_device's uverbs_abi_ver; the provider
 * refuses a kernel whose version is outside [KITE_ABI_VERSION_MIN,
 * KITE_ABI_VERSION]. Within one version the structs only grow at their end
 * and every new field is announced by a comp_mask bit, so an old provider
 * (shorter udata) and a newer kernel keep working (ib_copy_from_udata of the
 * shorter length, ib_copy_to_udata of min(sizeof, outlen)).
 *
 * Object numbers (cqn, qpn, srqn) below are the card's 16-bit object numbers
 * (fpga/spec/kite.toml): the numbers the provider writes in doorbell values
 * ((qn << KITE_DB_QN_SHIFT) | index) and finds in CQE.qpn. The kernel must
 * report the same number as the ib qp_num of user QPs.
 *
 * Queue memory. The card reads SQ, RQ and SRQ rings through an MR
 * (create_qp_in.flags RING_MR: ring addresses are virtual addresses in
 * ring_lkey), so those rings are ordinary user memory that the provider
 * allocates (page aligned) and the kernel pins (ib_umem) and registers for
 * the card. A CQ ring, however, is addressed by bus address with no
 * translation (create_cq_in.base), so it must be physically contiguous: the
 * kernel allocates it (dma_alloc_coherent, zeroed) and the provider mmaps it.
 *
 * mmap offsets ("keys") are opaque values returned by the kernel
 * (rdma_user_mmap_entry_insert); the provider passes them unchanged as the
 * offset argument of mmap() on the uverbs command fd. Each mapping belongs to
 * one ucontext and is zapped on disassociate.
 *
 * All fields are little-endian host order (the kernel and the provider run
 * on the same host); reserved fields must be zero and are checked by the
 * kernel so that they can be given a meaning later.
 */
#ifndef KITE_ABI_USER_H
#define KITE_ABI_USER_H

#include <linux/types.h>

/* uverbs_abi_ver of a kite ib_device; bump on an incompatible change. */
#define KITE_ABI_VERSION	1
#define KITE_ABI_VERSION_MIN	1

/* kite_alloc_ucontext_resp.comp_mask: fields valid in the response. */
enum kite_ucontext_resp_mask {
	KITE_UCTX_RESP_BASE = 1 << 0,	/* everything in version 1 */
};

/* kite_alloc_ucontext_resp.caps: what this device lets user space do. */
enum kite_uctx_caps {
	KITE_UCTX_CAP_PUSH_WQE	= 1 << 0, /* KITE_DB_PUSH area usable (CAPS.PUSH_WQE) */
	KITE_UCTX_CAP_SRQ	= 1 << 1, /* CREATE_SRQ allowed */
	KITE_UCTX_CAP_ATOMIC	= 1 << 2, /* ATOMIC_CS / ATOMIC_FA supported */
	KITE_UCTX_CAP_UD	= 1 << 3, /* UD QPs allowed from user space */
	KITE_UCTX_CAP_DMABUF	= 1 << 4, /* reg_user_mr_dmabuf implemented */
};

/*
 * ALLOC_UCONTEXT (IB_USER_VERBS_CMD_GET_CONTEXT).
 * The request carries no driver data. The kernel allocates one doorbell page
 * for the context (card command ALLOC_DB_PAGE; page 0 is the kernel's), binds
 * every CQ/QP/SRQ created later in this context to it, and offers it for
 * mmap. Doorbells are 32-bit writes at KITE_DB_* offsets of that page.
 */
struct kite_alloc_ucontext_resp {
	__u32 comp_mask;	/* enum kite_ucontext_resp_mask */
	__u32 caps;		/* enum kite_uctx_caps */
	__aligned_u64 db_mmap_key; /* mmap offset of the doorbell page; map uncached, PROT_WRITE */
	__u32 db_mmap_len;	/* bytes to map: KITE_DB_PAGE_SIZE (4096) */
	__u32 db_page;		/* card doorbell page number (informational, for debugging) */
	__u32 spec_version;	/* card SPEC_VERSION register: major << 16 | minor */
	__u32 max_inline;	/* largest inline send the card accepts (caps_out.max_inline) */
	__u32 max_sge;		/* gather/scatter entries per WQE (caps_out.max_sge) */
	__u8 log_max_wqe;	/* largest SQ/RQ/SRQ ring, log2 of WQEs (caps_out.log_max_wqe) */
	__u8 log_max_cqe;	/* largest CQ ring, log2 of CQEs (caps_out.log_max_cqe) */
	__u8 log_min_stride;	/* smallest WQE stride, log2 bytes (KITE_MIN_LOG_STRIDE) */
	__u8 log_max_stride;	/* largest WQE stride, log2 bytes (KITE_MAX_LOG_STRIDE) */
	__u32 reserved[2];
};

/*
 * CREATE_CQ (IB_USER_VERBS_CMD_CREATE_CQ and the ioctl/ex variants).
 * The provider picks the ring size; the kernel allocates a zeroed,
 * physically contiguous, 4 KiB aligned ring of 2^log_size CQEs
 * (KITE_CQE_SIZE bytes each), issues CREATE_CQ with flags.USER, the
 * context's doorbell page and an EQ of its choice, and offers the ring for
 * mmap (cached, read/write: the provider only reads it). The card writes
 * CQEs with the owner bit of kite_hw.h; the provider reports its consumer
 * index with the CQ_CI / CQ_ARM doorbells.
 */
struct kite_create_cq_req {
	__u32 log_size;		/* log2 of ring entries, KITE_MIN_LOG_RING..log_max_cqe */
	__u32 flags;		/* none defined; must be 0 */
};

struct kite_create_cq_resp {
	__u32 cqn;		/* card CQ number: doorbell qn */
	__u32 log_size;		/* ring entries actually allocated (== request) */
	__aligned_u64 mmap_key;	/* mmap offset of the ring */
	__u32 mmap_len;		/* bytes to map: 2^log_size * KITE_CQE_SIZE, page rounded */
	__u32 reserved;
};

/*
 * RESIZE_CQ (IB_USER_VERBS_CMD_RESIZE_CQ) of a user CQ. The provider holds
 * the CQ's lock and has reported its consumer index (CQ_CI) before the
 * command; the kernel allocates the new ring, re-points the CQ at it and
 * returns its mmap key. The provider then copies the CQEs it had not polled
 * from the old ring to entries 0.. of the new one (owner bit of pass 0),
 * where the card continues after them, and unmaps the old ring.
 */
struct kite_resize_cq_req {
	__u32 log_size;		/* log2 of the new ring's entries */
	__u32 flags;		/* none defined; must be 0 */
};

struct kite_resize_cq_resp {
	__u32 log_size;		/* == request */
	__u32 mmap_len;		/* bytes to map */
	__aligned_u64 mmap_key;	/* mmap offset of the new ring */
};

/* kite_create_qp_req.flags */
enum kite_create_qp_flags {
	KITE_QP_SIG_ALL = 1 << 0,	/* the provider signals every WQE (sq_sig_all) */
};

/*
 * CREATE_QP (IB_USER_VERBS_CMD_CREATE_QP and the ex variant), RC and UD.
 * The provider allocates one page-aligned buffer holding the SQ ring at
 * offset 0 and the RQ ring at rq_offset (4 KiB aligned). The kernel pins
 * [buf_va, buf_va + buf_len) (ib_umem_get, local write not needed: the card
 * only reads rings), registers it on the card as a user MR of the QP's PD
 * (CREATE_MR flags.USER, LOCAL access only) and issues CREATE_QP with
 * flags.USER | RING_MR, ring_lkey = that MR, sq_base = buf_va and
 * rq_base = buf_va + rq_offset. With an SRQ, rq_log_size is 0 and there is
 * no RQ ring. The MR lives as long as the QP.
 */
struct kite_create_qp_req {
	__aligned_u64 buf_va;	/* user address of the ring buffer (page aligned) */
	__u32 buf_len;		/* bytes, page multiple, covers both rings */
	__u32 rq_offset;	/* RQ ring offset in the buffer (4 KiB multiple; 0: no RQ) */
	__u8 sq_log_size;	/* log2 of SQ WQEs */
	__u8 sq_log_stride;	/* log2 of SQ WQE bytes, log_min_stride..log_max_stride */
	__u8 rq_log_size;	/* log2 of RQ WQEs (0 with an SRQ) */
	__u8 rq_log_stride;	/* log2 of RQ WQE bytes (0 with an SRQ) */
	__u32 max_inline;	/* inline bytes the provider will use (create_qp_in.max_inline) */
	__u32 flags;		/* enum kite_create_qp_flags */
	__u32 reserved;
};

struct kite_create_qp_resp {
	__u32 qpn;		/* card QP number: doorbell qn, CQE.qpn, and the ib qp_num */
	__u32 reserved;
};

/*
 * CREATE_SRQ (IB_USER_VERBS_CMD_CREATE_SRQ / CREATE_XSRQ basic SRQs only).
 * As for a QP: the ring is user memory pinned and registered by the kernel
 * (CREATE_SRQ flags.USER | RING_MR, base = buf_va). The provider posts with
 * the RQ doorbell (qn = srqn) on the context's doorbell page.
 */
struct kite_create_srq_req {
	__aligned_u64 buf_va;	/* user address of the ring (page aligned) */
	__u32 buf_len;		/* bytes, page multiple */
	__u8 log_size;		/* log2 of WQEs */
	__u8 log_stride;	/* log2 of WQE bytes */
	__u16 reserved0;
	__u32 flags;		/* none defined; must be 0 */
	__u32 reserved;
};

struct kite_create_srq_resp {
	__u32 srqn;		/* card SRQ number: doorbell qn */
	__u32 reserved;
};

/* kite_create_ah_resp.av_flags: same bits as kite_wqe_ud.flags */
enum kite_ah_flags {
	KITE_AH_VLAN = 1 << 0,	/* vlan_tci is valid: send tagged */
	KITE_AH_IPV4 = 1 << 1,	/* RoCEv2 over IPv4 (sgid is IPv4-mapped) */
};

/*
 * CREATE_AH (IB_USER_VERBS_CMD_CREATE_AH). The provider builds the UD
 * address vector (kite_wqe_ud) in user space from ibv_ah_attr and puts it in
 * every UD WQE with ah = 0; the kernel supplies what user space cannot know:
 * the destination MAC (rdma_resolve / ib_resolve_eth_dmac), the VLAN of the
 * source GID's netdev and the RoCE network type of the source GID. It may
 * also create a card AH (CREATE_AH) and return its number, which the
 * provider may place in kite_wqe_ud.ah instead (0: none created).
 */
struct kite_create_ah_resp {
	__u8 dmac[6];		/* destination MAC */
	__u16 vlan_tci;		/* VLAN tag when av_flags has KITE_AH_VLAN */
	__u32 av_flags;		/* enum kite_ah_flags */
	__u32 ah_id;		/* card AH number, or 0 */
};

#endif /* KITE_ABI_USER_H */
