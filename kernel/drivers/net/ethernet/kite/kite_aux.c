// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kite auxiliary devices: "kite.rdma.<n>" for kite_ib.ko, and the small
 * interface it uses (include/linux/kite/kite_aux.h). Every PF gets one;
 * kite_ib decides from the capabilities whether it can serve it.
 */

#include <linux/idr.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "kite.h"

static DEFINE_IDA(kite_aux_ida);

static void kite_aux_release(struct device *dev)
{
	struct kite_aux_dev *kadev = to_kite_aux_dev(to_auxiliary_dev(dev));

	ida_free(&kite_aux_ida, kadev->adev.id);
	kfree(kadev);
}

int kite_aux_init(struct kite_dev *kdev)
{
	struct kite_caps_out *caps = &kdev->caps;
	struct kite_aux_dev *kadev;
	int id, err;

	kadev = kzalloc(sizeof(*kadev), GFP_KERNEL);
	if (!kadev)
		return -ENOMEM;
	id = ida_alloc(&kite_aux_ida, GFP_KERNEL);
	if (id < 0) {
		kfree(kadev);
		return id;
	}
	kadev->kdev = kdev;
	kadev->pdev = kdev->pdev;
	kadev->netdev = kdev->netdev;
	kadev->port = kdev->port;
	kadev->db_bar_start = pci_resource_start(kdev->pdev, KITE_DB_BAR);
	kadev->db_pages = kdev->db_pages;
	kadev->num_comp_eqs = kdev->num_comp_eqs;
	kadev->caps = kdev->caps_reg;
	kadev->caps_features = le64_to_cpu(caps->features);
	kadev->max_qp = le16_to_cpu(caps->max_qp);
	kadev->max_cq = le16_to_cpu(caps->max_cq);
	kadev->max_mr = le32_to_cpu(caps->max_mr);
	kadev->max_pd = le16_to_cpu(caps->max_pd);
	kadev->max_srq = le16_to_cpu(caps->max_srq);
	kadev->max_ah = le16_to_cpu(caps->max_ah);
	kadev->log_max_cqe = caps->log_max_cqe;
	kadev->log_max_wqe = caps->log_max_wqe;
	kadev->max_sge = caps->max_sge;
	kadev->max_inline = le16_to_cpu(caps->max_inline);
	kadev->max_rd_atomic = caps->max_rd_atomic;
	kadev->gid_table_size = caps->gid_table_size;
	kadev->max_mr_size = le64_to_cpu(caps->max_mr_size);
	kadev->page_size_cap = le64_to_cpu(caps->page_size_cap);
	kadev->fw_version = kdev->fw_version;
	kadev->hw_revision = kdev->hw_revision;
	kadev->serial = kdev->serial;

	kadev->adev.name = KITE_AUX_RDMA_NAME;
	kadev->adev.id = id;
	kadev->adev.dev.parent = &kdev->pdev->dev;
	kadev->adev.dev.release = kite_aux_release;
	err = auxiliary_device_init(&kadev->adev);
	if (err) {
		ida_free(&kite_aux_ida, id);
		kfree(kadev);
		return err;
	}
	err = auxiliary_device_add(&kadev->adev);
	if (err) {
		/* The release callback frees kadev and the id. */
		auxiliary_device_uninit(&kadev->adev);
		return err;
	}
	kdev->rdma_adev = kadev;
	return 0;
}

void kite_aux_cleanup(struct kite_dev *kdev)
{
	struct kite_aux_dev *kadev = kdev->rdma_adev;

	if (!kadev)
		return;
	/* Unbinds kite_ib first, which unregisters its events. */
	auxiliary_device_delete(&kadev->adev);
	auxiliary_device_uninit(&kadev->adev);
	kdev->rdma_adev = NULL;
}

int kite_aux_cmd_exec(struct kite_aux_dev *kadev, u16 opcode,
		      const void *in, size_t in_len, void *out, size_t out_len,
		      u32 *syndrome)
{
	return kite_cmd_exec_flags(kadev->kdev, opcode, in, in_len, out,
				   out_len, syndrome, 0);
}
EXPORT_SYMBOL_GPL(kite_aux_cmd_exec);

void __iomem *kite_aux_kernel_db(struct kite_aux_dev *kadev)
{
	return kadev->kdev->db;
}
EXPORT_SYMBOL_GPL(kite_aux_kernel_db);

u32 kite_aux_comp_eqn(struct kite_aux_dev *kadev, u32 index)
{
	struct kite_dev *kdev = kadev->kdev;

	if (index >= kdev->num_comp_eqs)
		return 0;
	return kdev->comp_eqs[index].eqn;
}
EXPORT_SYMBOL_GPL(kite_aux_comp_eqn);

int kite_aux_register_events(struct kite_aux_dev *kadev,
			     const struct kite_aux_event_ops *ops, void *ctx)
{
	struct kite_dev *kdev = kadev->kdev;
	struct kite_aux_events *ev;
	int err = 0;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	ev->ops = ops;
	ev->ctx = ctx;
	mutex_lock(&kdev->aux_lock);
	if (rcu_access_pointer(kdev->aux_events)) {
		err = -EBUSY;
		kfree(ev);
	} else {
		rcu_assign_pointer(kdev->aux_events, ev);
	}
	mutex_unlock(&kdev->aux_lock);
	return err;
}
EXPORT_SYMBOL_GPL(kite_aux_register_events);

void kite_aux_unregister_events(struct kite_aux_dev *kadev)
{
	struct kite_dev *kdev = kadev->kdev;
	struct kite_aux_events *ev;

	mutex_lock(&kdev->aux_lock);
	ev = rcu_dereference_protected(kdev->aux_events,
				       lockdep_is_held(&kdev->aux_lock));
	RCU_INIT_POINTER(kdev->aux_events, NULL);
	mutex_unlock(&kdev->aux_lock);
	/* Interrupt handlers are RCU readers. */
	synchronize_rcu();
	kfree(ev);
}
EXPORT_SYMBOL_GPL(kite_aux_unregister_events);

void kite_aux_dispatch_comp(struct kite_dev *kdev, u32 cqn)
{
	struct kite_aux_events *ev;

	rcu_read_lock();
	ev = rcu_dereference(kdev->aux_events);
	if (ev && ev->ops->comp)
		ev->ops->comp(ev->ctx, cqn);
	rcu_read_unlock();
}

void kite_aux_dispatch_event(struct kite_dev *kdev, const struct kite_eqe *eqe)
{
	struct kite_aux_events *ev;

	rcu_read_lock();
	ev = rcu_dereference(kdev->aux_events);
	if (ev && ev->ops->event)
		ev->ops->event(ev->ctx, eqe->ev_type, eqe->subtype,
			   le32_to_cpu(eqe->obj), le32_to_cpu(eqe->data));
	rcu_read_unlock();
}
