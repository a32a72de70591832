// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kite event queues and completion queues.
 *
 * MSI-X vector 0 carries the async EQ (command completions, port changes,
 * errors, health); vector n carries the completion EQ of channel n - 1.
 * EQEs are consumed in the hard interrupt handler, which schedules the
 * channel's NAPI (or forwards to the RDMA driver) and re-arms the EQ.
 */

#include <linux/dma-mapping.h>

#include "kite.h"

static size_t kite_ring_bytes(u32 entries, size_t entry_size)
{
	/* Whole pages: the card wants 4 KiB aligned, contiguous rings. */
	return PAGE_ALIGN(entries * entry_size);
}

static struct kite_eqe *kite_eq_next(struct kite_eq *eq)
{
	struct kite_eqe *eqe = &eq->ring[eq->ci & ((1U << eq->log_size) - 1)];

	if (!kite_owner_new(READ_ONCE(eqe->owner), eq->ci, eq->log_size))
		return NULL;
	dma_rmb();
	return eqe;
}

static void kite_eq_arm(struct kite_eq *eq)
{
	writel(kite_db_val(eq->eqn, eq->ci), eq->kdev->db + KITE_DB_EQ_ARM);
}

int kite_own_init(struct kite_dev *kdev)
{
	struct device *dev = kite_dev_dev(kdev);
	u32 max[KITE_OWN_NR] = {
		[KITE_OWN_CQ] = le16_to_cpu(kdev->caps.max_cq),
		[KITE_OWN_SQ] = le16_to_cpu(kdev->caps.max_sq),
		[KITE_OWN_RQ] = le16_to_cpu(kdev->caps.max_rq),
	};
	int i;

	for (i = 0; i < KITE_OWN_NR; i++) {
		/* Queue numbers start at 1; 0 means none. */
		kdev->eth_own_bits[i] = max[i] + 1;
		kdev->eth_own[i] = devm_bitmap_zalloc(dev, max[i] + 1,
						      GFP_KERNEL);
		if (!kdev->eth_own[i])
			return -ENOMEM;
	}
	return 0;
}

void kite_own_set(struct kite_dev *kdev, enum kite_own_kind kind, u32 id,
		  bool own)
{
	if (id >= kdev->eth_own_bits[kind])
		return;
	if (own)
		set_bit(id, kdev->eth_own[kind]);
	else
		clear_bit(id, kdev->eth_own[kind]);
}

bool kite_owns(struct kite_dev *kdev, enum kite_own_kind kind, u32 id)
{
	return id && id < kdev->eth_own_bits[kind] &&
	       test_bit(id, kdev->eth_own[kind]);
}

static void kite_async_eqe(struct kite_dev *kdev, const struct kite_eqe *eqe)
{
	struct device *dev = kite_dev_dev(kdev);
	u32 obj = le32_to_cpu(eqe->obj);
	u32 data = le32_to_cpu(eqe->data);

	switch (eqe->ev_type) {
	case KITE_EQE_TYPE_CMD_DONE:
		kite_cmd_event(kdev, obj);
		return;
	case KITE_EQE_TYPE_PORT_CHANGE:
		kite_netdev_port_event(kdev, obj,
				       eqe->subtype == KITE_PORT_EVENT_UP);
		break;
	case KITE_EQE_TYPE_HEALTH:
		dev_err_ratelimited(dev, "health event: syndrome %s (%u)\n",
				    kite_health_syndrome_str(data), data);
		break;
	case KITE_EQE_TYPE_WQ_ERROR:
		if (!kite_owns(kdev, eqe->subtype ? KITE_OWN_RQ : KITE_OWN_SQ,
			       obj))
			break;
		dev_err_ratelimited(dev,
				    "queue %u entered the error state: syndrome %s (0x%x)\n",
				    obj, kite_syndrome_str(data), data);
		kite_netdev_queue_error(kdev);
		break;
	case KITE_EQE_TYPE_CQ_ERROR:
		/* A user's RDMA CQ that overflowed is kite_ib's business. */
		if (!kite_owns(kdev, KITE_OWN_CQ, obj))
			break;
		dev_err_ratelimited(dev, "CQ %u error (overflow or DMA)\n",
				    obj);
		kite_netdev_queue_error(kdev);
		break;
	default:
		break;
	}
	kite_aux_dispatch_event(kdev, eqe);
}

static irqreturn_t kite_async_irq(int irq, void *data)
{
	struct kite_eq *eq = data;
	struct kite_eqe *eqe;

	do {
		while ((eqe = kite_eq_next(eq))) {
			kite_async_eqe(eq->kdev, eqe);
			eq->ci++;
		}
		kite_eq_arm(eq);
		/* An EQE written while the EQ was disarmed raised nothing. */
	} while (kite_eq_next(eq));
	return IRQ_HANDLED;
}

static irqreturn_t kite_comp_irq(int irq, void *data)
{
	struct kite_eq *eq = data;
	struct kite_channel *ch = READ_ONCE(eq->ch);
	struct kite_eqe *eqe;
	u32 cqn;

	do {
		while ((eqe = kite_eq_next(eq))) {
			cqn = le32_to_cpu(eqe->obj);
			if (eqe->ev_type != KITE_EQE_TYPE_COMP) {
				kite_async_eqe(eq->kdev, eqe);
			} else if (ch && READ_ONCE(ch->active) &&
				   (cqn == ch->txq.cq.cqn ||
				    cqn == ch->rxq.cq.cqn)) {
				napi_schedule_irqoff(&ch->napi);
			} else {
				kite_aux_dispatch_comp(eq->kdev, cqn);
			}
			eq->ci++;
		}
		kite_eq_arm(eq);
	} while (kite_eq_next(eq));
	return IRQ_HANDLED;
}

static int kite_eq_create(struct kite_dev *kdev, struct kite_eq *eq,
			  u32 log_size, u16 vector, bool async)
{
	struct device *dev = kite_dev_dev(kdev);
	size_t sz = kite_ring_bytes(1U << log_size, sizeof(struct kite_eqe));
	struct kite_create_eq_in in = {};
	struct kite_obj_out out = {};
	int err;

	eq->kdev = kdev;
	eq->log_size = log_size;
	eq->vector = vector;
	eq->ci = 0;
	eq->irq = pci_irq_vector(kdev->pdev, vector);
	if (eq->irq < 0)
		return eq->irq;

	eq->ring = dma_alloc_coherent(dev, sz, &eq->dma, GFP_KERNEL);
	if (!eq->ring)
		return -ENOMEM;

	if (async)
		snprintf(eq->name, sizeof(eq->name), "kite-async@pci:%s",
			 pci_name(kdev->pdev));
	else
		snprintf(eq->name, sizeof(eq->name), "kite-comp%u@pci:%s",
			 vector - 1, pci_name(kdev->pdev));
	err = request_irq(eq->irq, async ? kite_async_irq : kite_comp_irq, 0,
			  eq->name, eq);
	if (err)
		goto err_free;
	eq->irq_requested = true;

	in.base = cpu_to_le64(eq->dma);
	in.log_size = log_size;
	in.flags = async ? KITE_CREATE_EQ_IN_FLAGS_ASYNC : 0;
	in.msix_vector = cpu_to_le16(vector);
	in.db_page = 0;
	err = kite_cmd_exec(kdev, KITE_CMD_OPCODE_CREATE_EQ, &in, sizeof(in),
			    &out, sizeof(out));
	if (err)
		goto err_irq;
	eq->eqn = le32_to_cpu(out.id);
	kite_eq_arm(eq);
	return 0;

err_irq:
	free_irq(eq->irq, eq);
	eq->irq_requested = false;
err_free:
	dma_free_coherent(dev, sz, eq->ring, eq->dma);
	eq->ring = NULL;
	return err;
}

static void kite_eq_destroy(struct kite_dev *kdev, struct kite_eq *eq)
{
	size_t sz = kite_ring_bytes(1U << eq->log_size, sizeof(struct kite_eqe));

	if (!eq->ring)
		return;
	if (eq->eqn)
		kite_destroy_obj(kdev, KITE_CMD_OPCODE_DESTROY_EQ, eq->eqn);
	eq->eqn = 0;
	if (eq->irq_requested)
		free_irq(eq->irq, eq);
	eq->irq_requested = false;
	dma_free_coherent(kite_dev_dev(kdev), sz, eq->ring, eq->dma);
	eq->ring = NULL;
}

int kite_eqs_init(struct kite_dev *kdev)
{
	struct device *dev = kite_dev_dev(kdev);
	u32 i;
	int err;

	err = kite_eq_create(kdev, &kdev->async_eq, KITE_ASYNC_EQ_LOG, 0, true);
	if (err) {
		dev_err(dev, "cannot create the async event queue: %d\n", err);
		return err;
	}
	kite_cmd_use_events(kdev, true);

	kdev->num_comp_eqs = min_t(u32, kdev->nvec - 1, KITE_MAX_CHANNELS);
	kdev->comp_eqs = kcalloc(kdev->num_comp_eqs, sizeof(*kdev->comp_eqs),
				 GFP_KERNEL);
	if (!kdev->comp_eqs) {
		err = -ENOMEM;
		goto err;
	}
	for (i = 0; i < kdev->num_comp_eqs; i++) {
		err = kite_eq_create(kdev, &kdev->comp_eqs[i], KITE_COMP_EQ_LOG,
				     i + 1, false);
		if (err) {
			dev_err(dev, "cannot create completion EQ %u: %d\n",
				i, err);
			goto err;
		}
	}
	return 0;

err:
	kite_eqs_cleanup(kdev);
	return err;
}

void kite_eqs_cleanup(struct kite_dev *kdev)
{
	u32 i;

	if (kdev->comp_eqs) {
		for (i = 0; i < kdev->num_comp_eqs; i++)
			kite_eq_destroy(kdev, &kdev->comp_eqs[i]);
		kfree(kdev->comp_eqs);
		kdev->comp_eqs = NULL;
	}
	kdev->num_comp_eqs = 0;
	/* Poll again: the EQ that would carry CMD_DONE is going away. */
	kite_cmd_use_events(kdev, false);
	kite_eq_destroy(kdev, &kdev->async_eq);
}

int kite_cq_alloc(struct kite_dev *kdev, struct kite_cq *cq, u32 log_size,
		  u32 eqn)
{
	struct device *dev = kite_dev_dev(kdev);
	size_t sz = kite_ring_bytes(1U << log_size, sizeof(struct kite_cqe));
	struct kite_create_cq_in in = {};
	struct kite_obj_out out = {};
	int err;

	cq->log_size = log_size;
	cq->ci = 0;
	cq->ring = dma_alloc_coherent(dev, sz, &cq->dma, GFP_KERNEL);
	if (!cq->ring)
		return -ENOMEM;

	in.base = cpu_to_le64(cq->dma);
	in.log_size = log_size;
	in.eqn = cpu_to_le16(eqn);
	in.db_page = 0;
	err = kite_cmd_exec(kdev, KITE_CMD_OPCODE_CREATE_CQ, &in, sizeof(in),
			    &out, sizeof(out));
	if (err) {
		dma_free_coherent(dev, sz, cq->ring, cq->dma);
		cq->ring = NULL;
		return err;
	}
	WRITE_ONCE(cq->cqn, le32_to_cpu(out.id));
	kite_own_set(kdev, KITE_OWN_CQ, cq->cqn, true);
	return 0;
}

void kite_cq_free(struct kite_dev *kdev, struct kite_cq *cq)
{
	size_t sz = kite_ring_bytes(1U << cq->log_size, sizeof(struct kite_cqe));

	if (!cq->ring)
		return;
	if (cq->cqn) {
		kite_destroy_obj(kdev, KITE_CMD_OPCODE_DESTROY_CQ, cq->cqn);
		kite_own_set(kdev, KITE_OWN_CQ, cq->cqn, false);
	}
	WRITE_ONCE(cq->cqn, 0);
	dma_free_coherent(kite_dev_dev(kdev), sz, cq->ring, cq->dma);
	cq->ring = NULL;
}

void kite_cq_arm(struct kite_dev *kdev, struct kite_cq *cq)
{
	writel(kite_db_val(cq->cqn, cq->ci), kdev->db + KITE_DB_CQ_ARM);
}

/* Interrupt moderation: an event waits up to @usecs or @frames CQEs. */
int kite_cq_moderate(struct kite_dev *kdev, struct kite_cq *cq, u16 usecs,
		     u16 frames)
{
	struct kite_modify_cq_in in = {
		.cqn = cpu_to_le32(cq->cqn),
		.mod_usec = cpu_to_le16(usecs),
		.mod_count = cpu_to_le16(frames),
	};

	if (!cq->cqn)
		return 0;
	return kite_cmd_exec(kdev, KITE_CMD_OPCODE_MODIFY_CQ, &in, sizeof(in),
			     NULL, 0);
}
