/* SPDX-License-Identifier: MIT */
/*
 * The narrow C ABI between a Kite card implementation (the C++ model, or the
 * Verilated RTL) and the platform that hosts it (the QEMU adapter, or the
 * unit-test host with fake memory).
 *
 * The card is driven only through this interface: MMIO, frames from the wire,
 * timers and reset. Everything the card needs from the outside world goes
 * through struct kite_host_ops: DMA, MSI-X, frames to the wire, time.
 *
 * Threading: the platform serialises every call into one card (QEMU calls it
 * under the big lock). Callbacks may be invoked from within any entry point.
 *
 * A shared library implementing a card exports kite_card_get_abi(), so the
 * platform can dlopen() either implementation and pick it at run time.
 */
#ifndef KITE_CARD_ABI_H
#define KITE_CARD_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KITE_CARD_ABI_VERSION 1

/* PCI function index: 0 is the PF, 1..num_vfs are VFs (VF n is function n). */
typedef uint16_t kite_fn_t;

struct kite_host_ops {
	void *opaque;
	/* DMA as issued by function @fn; returns 0 or -1 on an IOMMU/bus error. */
	int (*dma_read)(void *opaque, kite_fn_t fn, uint64_t addr, void *buf, size_t len);
	int (*dma_write)(void *opaque, kite_fn_t fn, uint64_t addr, const void *buf, size_t len);
	/* Raise MSI-X vector @vector of function @fn (masking is the platform's). */
	void (*msix)(void *opaque, kite_fn_t fn, uint16_t vector);
	/* Put one frame on port @port's wire (bytes as on the wire, FCS included). */
	void (*frame_out)(void *opaque, unsigned int port, const void *frame, size_t len);
	/* Port @port can accept frames again (after kite_card_frame_in returned 0). */
	void (*rx_ready)(void *opaque, unsigned int port);
	/* Monotonic time in nanoseconds. */
	uint64_t (*now_ns)(void *opaque);
	/* Call kite_card_timer() at or after @deadline_ns; re-arming replaces. */
	void (*timer_arm)(void *opaque, uint64_t deadline_ns);
	/* Call kite_card_service() soon, outside the current call (a bottom half). */
	void (*schedule)(void *opaque);
	/* Diagnostics (not guest visible). level: 0 error, 1 warn, 2 info, 3 debug. */
	void (*log)(void *opaque, int level, const char *msg);
};

struct kite_card_config {
	uint32_t abi_version;      /* KITE_CARD_ABI_VERSION */
	uint32_t num_ports;        /* 1 or 2 */
	uint32_t max_vfs;          /* SR-IOV VFs the card offers (0..) */
	uint64_t serial;           /* board serial number */
	uint8_t mac[6];            /* base MAC; port n uses mac + n, VFs after */
	uint8_t pad[2];
	const char *flash_path;    /* persistent flash image file, or NULL */
};

struct kite_card;

struct kite_card_abi {
	uint32_t abi_version;
	struct kite_card *(*create)(const struct kite_card_config *cfg,
				    const struct kite_host_ops *ops);
	void (*destroy)(struct kite_card *card);
	/* BAR access by function @fn; size is 1, 2, 4 or 8 bytes. */
	uint64_t (*mmio_read)(struct kite_card *card, kite_fn_t fn, unsigned int bar,
			      uint64_t off, unsigned int size);
	void (*mmio_write)(struct kite_card *card, kite_fn_t fn, unsigned int bar,
			   uint64_t off, uint64_t val, unsigned int size);
	/*
	 * A frame arrived on @port (FCS included). Returns 1 if taken (received,
	 * dropped and counted, or kept by the port to wait for a receive buffer:
	 * PAUSE), 0 if the port applies back-pressure (it keeps a frame); the
	 * platform then holds this one and retries after ops->rx_ready().
	 */
	int (*frame_in)(struct kite_card *card, unsigned int port, const void *frame, size_t len);
	void (*timer)(struct kite_card *card);
	void (*service)(struct kite_card *card);
	/* Function level reset (PCIe FLR or bus reset of the PF when fn == 0). */
	void (*flr)(struct kite_card *card, kite_fn_t fn);
	/* SR-IOV: the PF enabled @num_vfs VFs (0 disables). */
	void (*set_num_vfs)(struct kite_card *card, uint16_t num_vfs);
	/* The platform's view of the port's cable: 0 unplugged, 1 plugged. */
	void (*set_cable)(struct kite_card *card, unsigned int port, int plugged);
};

/* Exported by each card library. */
const struct kite_card_abi *kite_card_get_abi(void);

#ifdef __cplusplus
}
#endif

#endif /* KITE_CARD_ABI_H */
