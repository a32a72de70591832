/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Interface between kite.ko (PCI function owner) and the drivers that bind
 * to its auxiliary devices (kite_ib.ko binds to "kite.rdma").
 *
 * kite.ko owns the PCI function, the command channel and the event queues.
 * An auxiliary driver gets: command submission, the doorbell BAR, the EQ
 * numbers it may bind its CQs to, and a callback for the events that concern
 * its objects.
 */
#ifndef _LINUX_KITE_KITE_AUX_H
#define _LINUX_KITE_KITE_AUX_H

#include <linux/auxiliary_bus.h>
#include <linux/types.h>

struct kite_dev;
struct net_device;
struct pci_dev;

#define KITE_AUX_RDMA_NAME "rdma"	/* device name: kite.rdma.<n> */

/**
 * struct kite_aux_event_ops - events forwarded to an auxiliary driver
 * @comp: a CQ that kite.ko does not own signalled a completion (the EQE's
 *        obj is @cqn). Called from hard interrupt context.
 * @event: an async event (QP_EVENT, CQ_ERROR, SRQ_LIMIT, PORT_CHANGE,
 *         HEALTH) as raw fields of struct kite_eqe. Called from hard
 *         interrupt context; defer anything that sleeps.
 */
struct kite_aux_event_ops {
	void (*comp)(void *ctx, u32 cqn);
	void (*event)(void *ctx, u8 ev_type, u8 subtype, u32 obj, u32 data);
};

/**
 * struct kite_aux_dev - what kite.ko hands to an auxiliary driver
 * @adev: the auxiliary device
 * @kdev: the owning function (opaque)
 * @pdev: the PCI function, for DMA mappings
 * @netdev: the Ethernet netdev of the port (RoCE GIDs, MTU, MAC)
 * @port: the function's Ethernet port
 * @db_bar_start: bus address of the doorbell BAR (for user mmap)
 * @db_pages: doorbell pages of the function (page 0 belongs to kite.ko)
 * @num_comp_eqs: completion EQs usable by auxiliary CQs
 * @caps: CAPS register (KITE_REG_CAPS_*; RDMA says whether RoCE works)
 * @caps_features: QUERY_CAPS features
 * @max_qp: QUERY_CAPS max_qp
 * @max_cq: QUERY_CAPS max_cq
 * @max_mr: QUERY_CAPS max_mr
 * @max_pd: QUERY_CAPS max_pd
 * @max_srq: QUERY_CAPS max_srq
 * @max_ah: QUERY_CAPS max_ah
 * @log_max_cqe: QUERY_CAPS log_max_cqe
 * @log_max_wqe: QUERY_CAPS log_max_wqe
 * @max_sge: QUERY_CAPS max_sge
 * @max_inline: QUERY_CAPS max_inline
 * @max_rd_atomic: QUERY_CAPS max_rd_atomic
 * @gid_table_size: QUERY_CAPS gid_table_size
 * @max_mr_size: QUERY_CAPS max_mr_size
 * @page_size_cap: QUERY_CAPS page_size_cap
 * @fw_version: FW_VERSION register
 * @hw_revision: HW_REVISION register
 * @serial: SERIAL_HI:SERIAL_LO
 */
struct kite_aux_dev {
	struct auxiliary_device adev;
	struct kite_dev *kdev;
	struct pci_dev *pdev;
	struct net_device *netdev;
	u8 port;
	resource_size_t db_bar_start;
	u32 db_pages;
	u32 num_comp_eqs;
	u32 caps;
	u64 caps_features;
	u16 max_qp;
	u16 max_cq;
	u32 max_mr;
	u16 max_pd;
	u16 max_srq;
	u16 max_ah;
	u8 log_max_cqe;
	u8 log_max_wqe;
	u8 max_sge;
	u16 max_inline;
	u8 max_rd_atomic;
	u8 gid_table_size;
	u64 max_mr_size;
	u64 page_size_cap;
	u32 fw_version;
	u32 hw_revision;
	u64 serial;
};

static inline struct kite_aux_dev *to_kite_aux_dev(struct auxiliary_device *adev)
{
	return container_of(adev, struct kite_aux_dev, adev);
}

/**
 * kite_aux_cmd_exec() - run one command on the function's command channel
 * @kadev: auxiliary device
 * @opcode: enum kite_cmd_opcode
 * @in: input, copied into the command entry (may be NULL if @in_len is 0)
 * @in_len: at most KITE_CMD_IN_SIZE
 * @out: output buffer (may be NULL)
 * @out_len: at most KITE_CMD_OUT_SIZE
 * @syndrome: where to store the card's syndrome (may be NULL)
 *
 * Sleeps. Buffers the command refers to by address (MTTs, tables) must be
 * DMA-mapped by the caller for kadev->pdev.
 *
 * Return: 0, a negative errno mapped from the command status, or
 * -ETIMEDOUT when the firmware does not answer.
 */
int kite_aux_cmd_exec(struct kite_aux_dev *kadev, u16 opcode,
		      const void *in, size_t in_len, void *out, size_t out_len,
		      u32 *syndrome);

/**
 * kite_aux_kernel_db() - the doorbell page of kernel queues (page 0)
 * @kadev: auxiliary device
 *
 * Return: the mapped page; write doorbells with writel().
 */
void __iomem *kite_aux_kernel_db(struct kite_aux_dev *kadev);

/**
 * kite_aux_comp_eqn() - EQ number of completion vector @index
 * @kadev: auxiliary device
 * @index: 0 .. kadev->num_comp_eqs - 1
 *
 * Return: the EQ number for CREATE_CQ, or 0 when @index is out of range.
 */
u32 kite_aux_comp_eqn(struct kite_aux_dev *kadev, u32 index);

/**
 * kite_aux_register_events() - receive completion and async events
 * @kadev: auxiliary device
 * @ops: callbacks (must stay valid until unregistered)
 * @ctx: passed to the callbacks
 *
 * Return: 0, or -EBUSY if another driver is registered.
 */
int kite_aux_register_events(struct kite_aux_dev *kadev,
			     const struct kite_aux_event_ops *ops, void *ctx);

/**
 * kite_aux_unregister_events() - stop event delivery
 * @kadev: auxiliary device
 *
 * On return no callback is running or will run.
 */
void kite_aux_unregister_events(struct kite_aux_dev *kadev);

#endif /* _LINUX_KITE_KITE_AUX_H */
