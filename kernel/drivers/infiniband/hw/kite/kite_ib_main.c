// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kite RoCEv2 driver: the auxiliary driver, the ib_device and its device,
 * port, GID, user context and mmap verbs, events and counters.
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/rdma_counter.h>
#include <rdma/uverbs_ioctl.h>
#include <uapi/rdma/kite-abi.h>

#include "kite_ib.h"

MODULE_DESCRIPTION("Kite FPGA AI NIC RoCEv2 driver");
MODULE_LICENSE("GPL");

int kite_ib_cmd(struct kite_ib_dev *dev, u16 opcode, const void *in,
		size_t in_len, void *out, size_t out_len)
{
	return kite_aux_cmd_exec(dev->kadev, opcode, in, in_len, out, out_len,
				 NULL);
}

int kite_ib_destroy_obj(struct kite_ib_dev *dev, u16 opcode, u32 id)
{
	struct kite_obj_in in = { .id = cpu_to_le32(id) };

	return kite_ib_cmd(dev, opcode, &in, sizeof(in), NULL, 0);
}

/* ------------------------------------------------------------ device, port */

static void kite_ib_guid(struct kite_ib_dev *dev, __be64 *guid)
{
	addrconf_addr_eui48((u8 *)guid, dev->netdev->dev_addr);
}

static int kite_ib_query_device(struct ib_device *ibdev,
				struct ib_device_attr *attr,
				struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibdev);
	struct kite_aux_dev *ka = dev->kadev;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = ka->fw_version;
	kite_ib_guid(dev, &attr->sys_image_guid);
	attr->max_mr_size = ka->max_mr_size;
	/* The MTT takes any power of two the card lists, from 4 KiB. */
	attr->page_size_cap = ka->page_size_cap & GENMASK_ULL(30, 12);
	attr->vendor_id = KITE_VENDOR_ID;
	attr->vendor_part_id = ka->pdev->device;
	attr->hw_ver = ka->hw_revision;
	attr->max_qp = ka->max_qp;
	attr->max_qp_wr = 1 << ka->log_max_wqe;
	attr->device_cap_flags = IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_MEM_MGT_EXTENSIONS;
	/* Kernel QPs may use bus addresses with the reserved lkey. */
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	attr->max_send_sge = min_t(u32, ka->max_sge, KITE_MAX_GATHER);
	attr->max_recv_sge = attr->max_send_sge;
	attr->max_sge_rd = attr->max_send_sge;
	attr->max_cq = ka->max_cq;
	attr->max_cqe = (1 << ka->log_max_cqe) - 1;
	attr->max_mr = ka->max_mr;
	attr->max_pd = ka->max_pd;
	attr->max_qp_rd_atom = ka->max_rd_atomic;
	attr->max_qp_init_rd_atom = ka->max_rd_atomic;
	attr->max_res_rd_atom = ka->max_rd_atomic * ka->max_qp;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = ka->max_ah;
	attr->max_srq = ka->max_srq;
	attr->max_srq_wr = (1 << ka->log_max_wqe) - 1;
	attr->max_srq_sge = attr->max_recv_sge;
	attr->max_fast_reg_page_list_len = KITE_IB_MAX_FR_PAGES;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	return 0;
}

static int kite_ib_modify_device(struct ib_device *ibdev, int mask,
				 struct ib_device_modify *props)
{
	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(ibdev->node_desc, props->node_desc, IB_DEVICE_NODE_DESC_MAX);
	return 0;
}

static int kite_ib_query_port(struct ib_device *ibdev, u32 port,
			      struct ib_port_attr *attr)
{
	struct kite_ib_dev *dev = to_kdev(ibdev);
	struct net_device *nd = dev->netdev;
	bool up = netif_running(nd) && netif_carrier_ok(nd);

	/* The core zeroed attr. */
	attr->gid_tbl_len = min_t(u32, dev->kadev->gid_table_size,
				  KITE_GID_TABLE_SIZE);
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = 1U << 31;
	attr->pkey_tbl_len = 1;
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = iboe_get_mtu(nd->mtu);
	/* 100 Gb/s: four lanes at 25 Gb/s. */
	attr->active_speed = IB_SPEED_EDR;
	attr->active_width = IB_WIDTH_4X;
	attr->max_vl_num = 1;
	return 0;
}

static int kite_ib_modify_port(struct ib_device *ibdev, u32 port, int mask,
			       struct ib_port_modify *props)
{
	/* Nothing of a RoCE port is settable through this verb. */
	if (mask & IB_PORT_SHUTDOWN)
		return -EOPNOTSUPP;
	return 0;
}

static int kite_ib_get_port_immutable(struct ib_device *ibdev, u32 port,
				      struct ib_port_immutable *im)
{
	struct ib_port_attr attr = {};
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	im->pkey_tbl_len = attr.pkey_tbl_len;
	im->gid_tbl_len = attr.gid_tbl_len;
	/* RoCEv2 only: the card has no RoCE v1 (EtherType 0x8915) path. */
	im->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	im->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer kite_ib_get_link_layer(struct ib_device *ibdev,
						   u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int kite_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			      u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static void kite_ib_get_fw_str(struct ib_device *ibdev, char *str)
{
	u32 v = to_kdev(ibdev)->kadev->fw_version;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u",
		 v >> 24, (v >> 16) & 0xff, v & 0xffff);
}

/* ------------------------------------------------------------ GID table */

static int kite_ib_gid_cmd(const struct ib_gid_attr *attr, u16 opcode)
{
	struct kite_ib_dev *dev = to_kdev(attr->device);
	struct kite_gid_in in = {};
	u16 vlan = 0xffff;
	int err;

	if (attr->index >= KITE_GID_TABLE_SIZE)
		return -EINVAL;
	in.index = attr->index;
	in.port = dev->card_port;
	if (opcode == KITE_CMD_OPCODE_ADD_GID) {
		if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
			return -EINVAL;
		err = rdma_read_gid_l2_fields(attr, &vlan, in.mac);
		if (err)
			return err;
		memcpy(in.gid, attr->gid.raw, sizeof(in.gid));
		in.gid_type = ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw) ?
			      KITE_GID_TYPE_ROCE_V2_IPV4 :
			      KITE_GID_TYPE_ROCE_V2_IPV6;
		in.vlan_tci = cpu_to_le16(vlan);
	}
	return kite_ib_cmd(dev, opcode, &in, sizeof(in), NULL, 0);
}

static int kite_ib_add_gid(const struct ib_gid_attr *attr, void **context)
{
	return kite_ib_gid_cmd(attr, KITE_CMD_OPCODE_ADD_GID);
}

static int kite_ib_del_gid(const struct ib_gid_attr *attr, void **context)
{
	return kite_ib_gid_cmd(attr, KITE_CMD_OPCODE_DEL_GID);
}

/* ------------------------------------------------------------ user context, mmap */

/*
 * A ring the provider maps: whole pages (so that a mapping shows nothing
 * else), physically contiguous (the card addresses it without an MTT).
 */
void *kite_ib_alloc_ring(struct kite_ib_dev *dev, size_t size, dma_addr_t *dma)
{
	void *cpu;

	cpu = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO);
	if (!cpu)
		return NULL;
	*dma = dma_map_single(kite_ib_dma_dev(dev), cpu, size,
			      DMA_BIDIRECTIONAL);
	if (dma_mapping_error(kite_ib_dma_dev(dev), *dma)) {
		free_pages_exact(cpu, size);
		return NULL;
	}
	return cpu;
}

void kite_ib_free_ring(struct kite_ib_dev *dev, void *cpu, dma_addr_t dma,
		       size_t size)
{
	dma_unmap_single(kite_ib_dma_dev(dev), dma, size, DMA_BIDIRECTIONAL);
	free_pages_exact(cpu, size);
}

struct rdma_user_mmap_entry *
kite_ib_mmap_insert(struct kite_ib_ucontext *uc, enum kite_ib_mmap_type type,
		    void *cpu, dma_addr_t dma, size_t size, u32 db_page,
		    u64 *key)
{
	struct kite_ib_mmap *e;
	int err;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->dev = to_kdev(uc->ibuc.device);
	e->type = type;
	e->cpu = cpu;
	e->dma = dma;
	e->size = size;
	e->db_page = db_page;
	err = rdma_user_mmap_entry_insert(&uc->ibuc, &e->rdma_entry, size);
	if (err) {
		kfree(e);
		return ERR_PTR(err);
	}
	*key = rdma_user_mmap_get_offset(&e->rdma_entry);
	return &e->rdma_entry;
}

/* The last mapping is gone (or never existed): release what it showed. */
static void kite_ib_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct kite_ib_mmap *e = to_kmmap(rdma_entry);
	struct kite_ib_dev *dev = e->dev;

	switch (e->type) {
	case KITE_IB_MMAP_DB:
		/* Only now can another context get this page. */
		kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_FREE_DB_PAGE,
				    e->db_page);
		break;
	case KITE_IB_MMAP_RING:
		kite_ib_free_ring(dev, e->cpu, e->dma, e->size);
		break;
	}
	kfree(e);
}

static int kite_ib_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct kite_ib_dev *dev = to_kdev(ibuc->device);
	struct rdma_user_mmap_entry *rdma_entry;
	struct kite_ib_mmap *e;
	unsigned long pfn;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma_entry)
		return -EINVAL;
	e = to_kmmap(rdma_entry);
	if (vma->vm_end - vma->vm_start != rdma_entry->npages * PAGE_SIZE) {
		err = -EINVAL;
		goto out;
	}

	switch (e->type) {
	case KITE_IB_MMAP_DB:
		if (vma->vm_flags & (VM_READ | VM_EXEC)) {
			/* Doorbells are write-only registers. */
			err = -EPERM;
			goto out;
		}
		pfn = (dev->kadev->db_bar_start >> PAGE_SHIFT) + e->db_page;
		err = rdma_user_mmap_io(ibuc, vma, pfn, PAGE_SIZE,
					pgprot_noncached(vma->vm_page_prot),
					rdma_entry);
		break;
	case KITE_IB_MMAP_RING:
		if (vma->vm_flags & VM_EXEC) {
			err = -EPERM;
			goto out;
		}
		/* Cached: the card's writes are coherent with the CPU's reads. */
		err = rdma_user_mmap_io(ibuc, vma, page_to_pfn(virt_to_page(e->cpu)),
					e->size, vma->vm_page_prot, rdma_entry);
		break;
	default:
		err = -EINVAL;
	}
out:
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

static int kite_ib_alloc_ucontext(struct ib_ucontext *ibuc,
				  struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibuc->device);
	struct kite_ib_ucontext *uc = to_kuc(ibuc);
	struct kite_alloc_ucontext_resp resp = {};
	struct kite_aux_dev *ka = dev->kadev;
	struct kite_obj_out out;
	u64 key;
	int err;

	/* A process must map its doorbell page and nothing beside it. */
	if (PAGE_SIZE != KITE_DB_PAGE_SIZE)
		return -EOPNOTSUPP;

	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_ALLOC_DB_PAGE, NULL, 0, &out,
			  sizeof(out));
	if (err)
		return err;
	uc->db_page = le32_to_cpu(out.id);
	uc->db_entry = kite_ib_mmap_insert(uc, KITE_IB_MMAP_DB, NULL, 0,
					   KITE_DB_PAGE_SIZE, uc->db_page,
					   &key);
	if (IS_ERR(uc->db_entry)) {
		err = PTR_ERR(uc->db_entry);
		kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_FREE_DB_PAGE,
				    uc->db_page);
		return err;
	}

	resp.comp_mask = KITE_UCTX_RESP_BASE;
	resp.caps = KITE_UCTX_CAP_SRQ | KITE_UCTX_CAP_ATOMIC |
		    KITE_UCTX_CAP_UD | KITE_UCTX_CAP_DMABUF;
	resp.db_mmap_key = key;
	resp.db_mmap_len = KITE_DB_PAGE_SIZE;
	resp.db_page = uc->db_page;
	resp.spec_version = KITE_SPEC_MAJOR << 16 | KITE_SPEC_MINOR;
	resp.max_inline = ka->max_inline;
	resp.max_sge = ka->max_sge;
	resp.log_max_wqe = ka->log_max_wqe;
	resp.log_max_cqe = ka->log_max_cqe;
	resp.log_min_stride = KITE_MIN_LOG_STRIDE;
	resp.log_max_stride = KITE_MAX_LOG_STRIDE;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err) {
		/* mmap_free gives the page back. */
		rdma_user_mmap_entry_remove(uc->db_entry);
		return err;
	}
	return 0;
}

static void kite_ib_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	rdma_user_mmap_entry_remove(to_kuc(ibuc)->db_entry);
}

/*
 * The device is going away under open contexts: the core has zapped their
 * mappings and will destroy their objects; nothing else to stop here.
 */
static void kite_ib_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/* ------------------------------------------------------------ events */

static void kite_ib_comp(void *ctx, u32 cqn)
{
	struct kite_ib_dev *dev = ctx;
	struct kite_ib_cq *cq;

	/* kite.ko calls us under rcu_read_lock; destroy waits for RCU. */
	cq = xa_load(&dev->cqs, cqn);
	if (cq && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

static void kite_ib_qp_event(struct kite_ib_dev *dev, u8 subtype, u32 qpn)
{
	static const enum ib_event_type map[] = {
		[KITE_QP_EVENT_FATAL] = IB_EVENT_QP_FATAL,
		[KITE_QP_EVENT_REQ_ERR] = IB_EVENT_QP_REQ_ERR,
		[KITE_QP_EVENT_ACCESS_ERR] = IB_EVENT_QP_ACCESS_ERR,
		[KITE_QP_EVENT_COMM_EST] = IB_EVENT_COMM_EST,
		[KITE_QP_EVENT_LAST_WQE] = IB_EVENT_QP_LAST_WQE_REACHED,
		[KITE_QP_EVENT_SQ_DRAINED] = IB_EVENT_SQ_DRAINED,
	};
	struct kite_ib_qp *qp;
	struct ib_event ev;

	if (subtype >= ARRAY_SIZE(map))
		return;
	qp = xa_load(&dev->qps, qpn);
	if (!qp || !qp->ibqp.event_handler)
		return;
	if (subtype == KITE_QP_EVENT_FATAL ||
	    subtype == KITE_QP_EVENT_REQ_ERR ||
	    subtype == KITE_QP_EVENT_ACCESS_ERR)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
	ev.device = &dev->ibdev;
	ev.element.qp = &qp->ibqp;
	ev.event = map[subtype];
	qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

static void kite_ib_event(void *ctx, u8 type, u8 subtype, u32 obj, u32 data)
{
	struct kite_ib_dev *dev = ctx;
	struct kite_ib_srq *srq;
	struct kite_ib_cq *cq;
	struct ib_event ev;

	ev.device = &dev->ibdev;
	switch (type) {
	case KITE_EQE_TYPE_QP_EVENT:
		kite_ib_qp_event(dev, subtype, obj);
		return;
	case KITE_EQE_TYPE_CQ_ERROR:
		cq = xa_load(&dev->cqs, obj);
		if (cq && cq->ibcq.event_handler) {
			ev.event = IB_EVENT_CQ_ERR;
			ev.element.cq = &cq->ibcq;
			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
		return;
	case KITE_EQE_TYPE_SRQ_LIMIT:
		srq = xa_load(&dev->srqs, obj);
		if (srq && srq->ibsrq.event_handler) {
			ev.event = IB_EVENT_SRQ_LIMIT_REACHED;
			ev.element.srq = &srq->ibsrq;
			srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
		}
		return;
	case KITE_EQE_TYPE_PORT_CHANGE:
		if (obj != dev->card_port)
			return;
		/* ib_dispatch_event() sleeps: hand it to the work. */
		set_bit(subtype == KITE_PORT_EVENT_UP ? KITE_IB_EV_PORT_ACTIVE :
			KITE_IB_EV_PORT_ERR, &dev->pending);
		break;
	case KITE_EQE_TYPE_HEALTH:
		set_bit(KITE_IB_EV_FATAL, &dev->pending);
		break;
	default:
		return;
	}
	schedule_work(&dev->event_work);
}

static void kite_ib_event_work(struct work_struct *work)
{
	struct kite_ib_dev *dev = container_of(work, struct kite_ib_dev,
					       event_work);
	struct ib_event ev = { .device = &dev->ibdev };

	ev.element.port_num = KITE_IB_PORT;
	if (test_and_clear_bit(KITE_IB_EV_PORT_ERR, &dev->pending)) {
		ev.event = IB_EVENT_PORT_ERR;
		ib_dispatch_event(&ev);
	}
	if (test_and_clear_bit(KITE_IB_EV_PORT_ACTIVE, &dev->pending)) {
		ev.event = IB_EVENT_PORT_ACTIVE;
		ib_dispatch_event(&ev);
	}
	if (test_and_clear_bit(KITE_IB_EV_FATAL, &dev->pending)) {
		ev.event = IB_EVENT_DEVICE_FATAL;
		ib_dispatch_event(&ev);
	}
}

static const struct kite_aux_event_ops kite_ib_event_ops = {
	.comp = kite_ib_comp,
	.event = kite_ib_event,
};

/* ------------------------------------------------------------ counters */

/* In the order of struct kite_rdma_stats. */
static const struct rdma_stat_desc kite_ib_stat_descs[] = {
	{ .name = "tx_packets" },
	{ .name = "tx_bytes" },
	{ .name = "rx_packets" },
	{ .name = "rx_bytes" },
	{ .name = "retransmits" },
	{ .name = "seq_errors" },
	{ .name = "rnr_naks" },
	{ .name = "out_of_sequence" },
	{ .name = "icrc_errors" },
	{ .name = "cnp_sent" },
	{ .name = "cnp_received" },
	{ .name = "ecn_marked" },
	{ .name = "timeouts" },
	{ .name = "rnr_retries" },
	{ .name = "remote_access_errors" },
};

static_assert(ARRAY_SIZE(kite_ib_stat_descs) == KITE_IB_NUM_STATS);

static struct rdma_hw_stats *kite_ib_alloc_stats(void)
{
	return rdma_alloc_hw_stats_struct(kite_ib_stat_descs,
					  ARRAY_SIZE(kite_ib_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static struct rdma_hw_stats *kite_ib_alloc_hw_port_stats(struct ib_device *ibdev,
							 u32 port)
{
	return kite_ib_alloc_stats();
}

/* The card's counters of one port or QP (QUERY_STATS). */
static int kite_ib_query_stats(struct kite_ib_dev *dev, u8 scope, u32 id,
			       u64 *val)
{
	struct kite_query_stats_in in = {};
	const __le64 *v;
	int err, i;

	mutex_lock(&dev->stats_lock);
	in.addr = cpu_to_le64(dev->stats_dma);
	in.len = cpu_to_le32(sizeof(*dev->stats));
	in.scope = scope;
	in.id = cpu_to_le32(id);
	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_QUERY_STATS, &in, sizeof(in),
			  NULL, 0);
	if (!err) {
		v = (const __le64 *)dev->stats;
		for (i = 0; i < KITE_IB_NUM_STATS; i++)
			val[i] = le64_to_cpu(v[i]);
	}
	mutex_unlock(&dev->stats_lock);
	return err;
}

static int kite_ib_get_hw_stats(struct ib_device *ibdev,
				struct rdma_hw_stats *stats, u32 port,
				int index)
{
	struct kite_ib_dev *dev = to_kdev(ibdev);
	int err;

	if (!port)
		return -EOPNOTSUPP;
	err = kite_ib_query_stats(dev, KITE_STATS_SCOPE_RDMA_PORT,
				  dev->card_port, stats->value);
	return err ? err : KITE_IB_NUM_STATS;
}

/*
 * QP counters. The core serialises bind, unbind and update of one counter
 * (counter->lock), which guards the counter's QP list.
 */
static struct rdma_hw_stats *kite_ib_counter_alloc_stats(struct rdma_counter *counter)
{
	return kite_ib_alloc_stats();
}

static int kite_ib_counter_bind_qp(struct rdma_counter *counter,
				   struct ib_qp *ibqp)
{
	struct kite_ib_dev *dev = to_kdev(ibqp->device);
	struct kite_ib_qp *qp = to_kqp(ibqp);
	struct kite_ib_counter *kc;
	bool new = !counter->id;
	u32 id;
	int err;

	if (new) {
		kc = kzalloc(sizeof(*kc), GFP_KERNEL);
		if (!kc)
			return -ENOMEM;
		INIT_LIST_HEAD(&kc->qps);
		err = xa_alloc(&dev->counters, &id, kc, xa_limit_31b,
			       GFP_KERNEL);
		if (err) {
			kfree(kc);
			return err;
		}
		counter->id = id;
	} else {
		kc = xa_load(&dev->counters, counter->id);
		if (!kc)
			return -EINVAL;
	}
	err = kite_ib_query_stats(dev, KITE_STATS_SCOPE_QP, qp->qpn,
				  qp->cntr_base);
	if (err) {
		if (new) {
			xa_erase(&dev->counters, counter->id);
			counter->id = 0;
			kfree(kc);
		}
		return err;
	}
	list_add_tail(&qp->cntr_node, &kc->qps);
	ibqp->counter = counter;
	return 0;
}

static int kite_ib_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct kite_ib_dev *dev = to_kdev(ibqp->device);
	struct kite_ib_qp *qp = to_kqp(ibqp);
	struct kite_ib_counter *kc;
	u64 now[KITE_IB_NUM_STATS];
	int i;

	kc = xa_load(&dev->counters, ibqp->counter->id);
	if (WARN_ON(!kc))
		return -EINVAL;
	/* A card that no longer answers loses this QP's share, nothing else. */
	if (!kite_ib_query_stats(dev, KITE_STATS_SCOPE_QP, qp->qpn, now))
		for (i = 0; i < KITE_IB_NUM_STATS; i++)
			kc->done[i] += now[i] - qp->cntr_base[i];
	list_del(&qp->cntr_node);
	ibqp->counter = NULL;
	return 0;
}

int kite_ib_qp_stats(struct kite_ib_dev *dev, u32 qpn, u64 *val)
{
	return kite_ib_query_stats(dev, KITE_STATS_SCOPE_QP, qpn, val);
}

/*
 * The card zeroes a QP's counts when the QP enters RESET: what the QP had
 * counted (@now, read before the transition) goes into its counter first.
 */
void kite_ib_counter_qp_reset(struct ib_qp *ibqp, const u64 *now)
{
	struct kite_ib_dev *dev = to_kdev(ibqp->device);
	struct rdma_counter *counter = READ_ONCE(ibqp->counter);
	struct kite_ib_qp *qp = to_kqp(ibqp);
	struct kite_ib_counter *kc;
	int i;

	if (!counter)
		return;
	mutex_lock(&counter->lock);
	kc = xa_load(&dev->counters, counter->id);
	if (kc && ibqp->counter == counter) {
		for (i = 0; i < KITE_IB_NUM_STATS; i++) {
			kc->done[i] += now[i] - qp->cntr_base[i];
			qp->cntr_base[i] = 0;
		}
	}
	mutex_unlock(&counter->lock);
}

static int kite_ib_counter_update_stats(struct rdma_counter *counter)
{
	struct kite_ib_dev *dev = to_kdev(counter->device);
	u64 sum[KITE_IB_NUM_STATS], now[KITE_IB_NUM_STATS];
	struct kite_ib_counter *kc;
	struct kite_ib_qp *qp;
	int err, i;

	kc = xa_load(&dev->counters, counter->id);
	if (!kc)
		return -EINVAL;
	memcpy(sum, kc->done, sizeof(sum));
	list_for_each_entry(qp, &kc->qps, cntr_node) {
		err = kite_ib_query_stats(dev, KITE_STATS_SCOPE_QP, qp->qpn,
					  now);
		if (err)
			return err;
		for (i = 0; i < KITE_IB_NUM_STATS; i++)
			sum[i] += now[i] - qp->cntr_base[i];
	}
	for (i = 0; i < KITE_IB_NUM_STATS; i++)
		counter->stats->value[i] = sum[i];
	return 0;
}

static int kite_ib_counter_dealloc(struct rdma_counter *counter)
{
	struct kite_ib_dev *dev = to_kdev(counter->device);
	struct kite_ib_counter *kc;

	kc = xa_erase(&dev->counters, counter->id);
	if (kc) {
		WARN_ON(!list_empty(&kc->qps));
		kfree(kc);
	}
	return 0;
}

/* ------------------------------------------------------------ device */

static const struct ib_device_ops kite_ib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = KITE_ABI_VERSION,

	.add_gid = kite_ib_add_gid,
	.alloc_hw_port_stats = kite_ib_alloc_hw_port_stats,
	.alloc_mr = kite_ib_alloc_mr,
	.alloc_pd = kite_ib_alloc_pd,
	.alloc_ucontext = kite_ib_alloc_ucontext,
	.counter_alloc_stats = kite_ib_counter_alloc_stats,
	.counter_bind_qp = kite_ib_counter_bind_qp,
	.counter_dealloc = kite_ib_counter_dealloc,
	.counter_unbind_qp = kite_ib_counter_unbind_qp,
	.counter_update_stats = kite_ib_counter_update_stats,
	.create_ah = kite_ib_create_ah,
	.create_cq = kite_ib_create_cq,
	.create_qp = kite_ib_create_qp,
	.create_srq = kite_ib_create_srq,
	.create_user_ah = kite_ib_create_ah,
	.dealloc_pd = kite_ib_dealloc_pd,
	.dealloc_ucontext = kite_ib_dealloc_ucontext,
	.del_gid = kite_ib_del_gid,
	.dereg_mr = kite_ib_dereg_mr,
	.destroy_ah = kite_ib_destroy_ah,
	.destroy_cq = kite_ib_destroy_cq,
	.destroy_qp = kite_ib_destroy_qp,
	.destroy_srq = kite_ib_destroy_srq,
	.disassociate_ucontext = kite_ib_disassociate_ucontext,
	.fill_res_cq_entry = kite_ib_fill_res_cq_entry,
	.fill_res_qp_entry = kite_ib_fill_res_qp_entry,
	.get_dev_fw_str = kite_ib_get_fw_str,
	.get_dma_mr = kite_ib_get_dma_mr,
	.get_hw_stats = kite_ib_get_hw_stats,
	.get_link_layer = kite_ib_get_link_layer,
	.get_port_immutable = kite_ib_get_port_immutable,
	.map_mr_sg = kite_ib_map_mr_sg,
	.mmap = kite_ib_mmap,
	.mmap_free = kite_ib_mmap_free,
	.modify_device = kite_ib_modify_device,
	.modify_port = kite_ib_modify_port,
	.modify_qp = kite_ib_modify_qp,
	.modify_srq = kite_ib_modify_srq,
	.poll_cq = kite_ib_poll_cq,
	.post_recv = kite_ib_post_recv,
	.post_send = kite_ib_post_send,
	.post_srq_recv = kite_ib_post_srq_recv,
	.query_device = kite_ib_query_device,
	.query_pkey = kite_ib_query_pkey,
	.query_port = kite_ib_query_port,
	.query_qp = kite_ib_query_qp,
	.query_srq = kite_ib_query_srq,
	.reg_user_mr = kite_ib_reg_user_mr,
	.reg_user_mr_dmabuf = kite_ib_reg_user_mr_dmabuf,
	.req_notify_cq = kite_ib_req_notify_cq,
	.resize_cq = kite_ib_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, kite_ib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, kite_ib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, kite_ib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, kite_ib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, kite_ib_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, kite_ib_ucontext, ibuc),
};

static int kite_ib_probe(struct auxiliary_device *adev,
			 const struct auxiliary_device_id *id)
{
	struct kite_aux_dev *ka = to_kite_aux_dev(adev);
	struct kite_ib_dev *dev;
	struct ib_device *ibdev;
	int err;

	if (!(ka->caps & KITE_REG_CAPS_RDMA) || !ka->netdev ||
	    !ka->num_comp_eqs) {
		dev_info(&adev->dev, "card offers no RoCE on this function\n");
		return -ENODEV;
	}

	dev = ib_alloc_device(kite_ib_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	ibdev = &dev->ibdev;
	dev->kadev = ka;
	dev->netdev = ka->netdev;
	dev->card_port = ka->port;
	dev->kdb = kite_aux_kernel_db(ka);
	xa_init(&dev->cqs);
	xa_init(&dev->qps);
	xa_init(&dev->srqs);
	xa_init_flags(&dev->counters, XA_FLAGS_ALLOC1);
	mutex_init(&dev->stats_lock);
	INIT_WORK(&dev->event_work, kite_ib_event_work);

	dev->stats = dma_alloc_coherent(&ka->pdev->dev, sizeof(*dev->stats),
					&dev->stats_dma, GFP_KERNEL);
	if (!dev->stats) {
		err = -ENOMEM;
		goto err_dealloc;
	}

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = ka->num_comp_eqs;
	ibdev->local_dma_lkey = KITE_LKEY_PHYS;
	/* rdma-core's provider matches the PCI function's IDs. */
	ibdev->dev.parent = &ka->pdev->dev;
	kite_ib_guid(dev, &ibdev->node_guid);
	strscpy(ibdev->node_desc, "Kite RoCEv2", sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &kite_ib_dev_ops);

	/* The core fills the RoCEv2 GIDs from the netdev's addresses. */
	err = ib_device_set_netdev(ibdev, dev->netdev, KITE_IB_PORT);
	if (err)
		goto err_stats;

	err = kite_aux_register_events(ka, &kite_ib_event_ops, dev);
	if (err)
		goto err_stats;

	err = ib_register_device(ibdev, "kite_%d", &ka->pdev->dev);
	if (err)
		goto err_events;

	auxiliary_set_drvdata(adev, dev);
	return 0;

err_events:
	kite_aux_unregister_events(ka);
	cancel_work_sync(&dev->event_work);
err_stats:
	dma_free_coherent(&ka->pdev->dev, sizeof(*dev->stats), dev->stats,
			  dev->stats_dma);
err_dealloc:
	ib_dealloc_device(ibdev);
	return err;
}

static void kite_ib_remove(struct auxiliary_device *adev)
{
	struct kite_ib_dev *dev = auxiliary_get_drvdata(adev);
	struct kite_aux_dev *ka = dev->kadev;

	/* Open user contexts are disassociated: they get DEVICE_FATAL. */
	ib_unregister_device(&dev->ibdev);
	kite_aux_unregister_events(ka);
	cancel_work_sync(&dev->event_work);
	WARN_ON(!xa_empty(&dev->cqs) || !xa_empty(&dev->qps) ||
		!xa_empty(&dev->srqs) || !xa_empty(&dev->counters));
	dma_free_coherent(&ka->pdev->dev, sizeof(*dev->stats), dev->stats,
			  dev->stats_dma);
	ib_dealloc_device(&dev->ibdev);
}

static const struct auxiliary_device_id kite_ib_id_table[] = {
	{ .name = "kite." KITE_AUX_RDMA_NAME },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, kite_ib_id_table);

static struct auxiliary_driver kite_ib_driver = {
	.name = "rdma",
	.probe = kite_ib_probe,
	.remove = kite_ib_remove,
	.id_table = kite_ib_id_table,
};
module_auxiliary_driver(kite_ib_driver);
