/*
 * Kite NIC: QEMU adapter for a Kite card library.
 *
 * This device holds no card logic. It provides the PCI Express function
 * (config space, BARs, MSI-X, FLR), one QEMU NIC per Ethernet port, DMA,
 * timers and bottom halves, and forwards everything else to a card library
 * (the C++ model, or the Verilated RTL) that it dlopen()s from the path in
 * the "card" property. The interface between the two is the C ABI in
 * fpga/model/include/kite/card_abi.h; identity and BAR geometry come from
 * the header generated from fpga/spec (kite_hw.h). Both are copied next to
 * this file by tools/qemu/build.sh.
 *
 * Threading: every call into the card is made with the BQL held. The
 * adapter never re-enters the card: a frame that arrives while the card is
 * running (e.g. one port looped to the other) is queued by the net layer
 * and delivered from a bottom half, and an MMIO access that the card
 * issues to its own BARs by DMA fails as on a real bus.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "qom/object.h"
#include "sysemu/dma.h"

#include <dlfcn.h>

#include "card_abi.h"   /* fpga/model/include/kite/card_abi.h */
#include "kite_hw.h"    /* generated from fpga/spec/kite.toml */

#define TYPE_KITE "kite"
OBJECT_DECLARE_SIMPLE_TYPE(KiteState, KITE)

/* BAR geometry of the PF, from the spec. */
#define KITE_PF_DB_BAR_SIZE  ((uint64_t)KITE_PF_DB_PAGES * KITE_DB_PAGE_SIZE)
#define KITE_MSIX_BAR_SIZE   4096
#define KITE_MSIX_TABLE_OFF  0
#define KITE_MSIX_PBA_OFF    (KITE_MSIX_BAR_SIZE / 2)

/* Config-space layout of the adapter (not interface: the driver walks caps). */
#define KITE_CAP_MSIX_OFF    0x70
#define KITE_CAP_PCIE_OFF    0x80
#define KITE_EXT_DSN_OFF     0x100

#define KITE_PF              ((kite_fn_t)0)

QEMU_BUILD_BUG_ON(KITE_PF_MSIX_VECTORS * PCI_MSIX_ENTRY_SIZE >
                  KITE_MSIX_PBA_OFF);

typedef struct KitePort {
    KiteState *s;
    unsigned int index;
    NICState *nic;
    QEMUBH *flush_bh;           /* rx_ready(): flush the net layer's queue */
    QEMUBH *tx_bh;              /* sends the frames the card queued in tx */
    GQueue tx;                  /* GByteArray frames, oldest first */
} KitePort;

typedef struct KiteBar {
    KiteState *s;
    kite_fn_t fn;
    unsigned int bar;
    MemoryRegion mr;
} KiteBar;

struct KiteState {
    PCIDevice parent_obj;

    /* properties */
    NICConf conf[KITE_MAX_PORTS];
    uint32_t num_ports;
    uint64_t serial;
    char *flash;
    char *card_path;
    uint8_t log_level;

    KiteBar reg_bar;
    KiteBar db_bar;
    MemoryRegion msix_bar;
    KitePort port[KITE_MAX_PORTS];

    void *dl;
    const struct kite_card_abi *abi;
    struct kite_card *card;
    struct kite_host_ops ops;
    QEMUTimer *timer;
    QEMUBH *service_bh;
    unsigned int in_card;       /* nesting depth of calls into the card */
};

/* Calls into the card are bracketed so that re-entry can be detected. */
#define CARD_CALL(s, call)              \
    do {                                \
        (s)->in_card++;                 \
        (s)->abi->call;                 \
        (s)->in_card--;                 \
    } while (0)

static PCIDevice *kite_fn_dev(KiteState *s, kite_fn_t fn)
{
    /* VFs (fn >= 1) arrive with SR-IOV support. */
    return fn == KITE_PF ? PCI_DEVICE(s) : NULL;
}

/* ------------------------------------------------------------ host ops */

static int kite_host_dma_read(void *opaque, kite_fn_t fn, uint64_t addr,
                              void *buf, size_t len)
{
    PCIDevice *d = kite_fn_dev(opaque, fn);

    if (!d) {
        return -1;
    }
    return pci_dma_read(d, addr, buf, len) == MEMTX_OK ? 0 : -1;
}

static int kite_host_dma_write(void *opaque, kite_fn_t fn, uint64_t addr,
                               const void *buf, size_t len)
{
    PCIDevice *d = kite_fn_dev(opaque, fn);

    if (!d) {
        return -1;
    }
    return pci_dma_write(d, addr, buf, len) == MEMTX_OK ? 0 : -1;
}

static void kite_host_msix(void *opaque, kite_fn_t fn, uint16_t vector)
{
    PCIDevice *d = kite_fn_dev(opaque, fn);

    if (!d || !msix_enabled(d)) {
        return;
    }
    if (vector >= d->msix_entries_nr) {
        qemu_log_mask(LOG_GUEST_ERROR, "kite: fn %u raised MSI-X vector %u "
                      "of %u\n", fn, vector, d->msix_entries_nr);
        return;
    }
    msix_notify(d, vector);
}

static void kite_host_frame_out(void *opaque, unsigned int port,
                                const void *frame, size_t len)
{
    KiteState *s = opaque;

    if (port >= s->num_ports) {
        error_report("kite: card sent a frame on port %u of %u", port,
                     s->num_ports);
        return;
    }
    /*
     * Frames are sent from a bottom half, never from within a call into the
     * card. A frame sent synchronously could reach a peer card that is itself
     * inside frame_in(): the net layer then parks it and delivers the peer's
     * next frame first, reordering the wire. Deferring keeps every port FIFO.
     */
    g_queue_push_tail(&s->port[port].tx,
                      g_byte_array_append(g_byte_array_sized_new(len),
                                          frame, len));
    qemu_bh_schedule(s->port[port].tx_bh);
}

static void kite_tx_bh(void *opaque)
{
    KitePort *p = opaque;
    GByteArray *f;

    while ((f = g_queue_pop_head(&p->tx))) {
        qemu_send_packet(qemu_get_queue(p->nic), f->data, f->len);
        g_byte_array_unref(f);
    }
}

static void kite_host_rx_ready(void *opaque, unsigned int port)
{
    KiteState *s = opaque;

    /* Deferred: flushing delivers frames, which must not re-enter the card. */
    if (port < s->num_ports) {
        qemu_bh_schedule(s->port[port].flush_bh);
    }
}

static uint64_t kite_host_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void kite_host_timer_arm(void *opaque, uint64_t deadline_ns)
{
    KiteState *s = opaque;

    timer_mod(s->timer, MIN(deadline_ns, (uint64_t)INT64_MAX));
}

static void kite_host_schedule(void *opaque)
{
    KiteState *s = opaque;

    qemu_bh_schedule(s->service_bh);
}

static void kite_host_log(void *opaque, int level, const char *msg)
{
    KiteState *s = opaque;
    const char *id = DEVICE(s)->id;
    g_autofree char *who = id ? g_strdup_printf("kite %s", id)
                              : g_strdup("kite");

    if (level <= 0) {
        error_report("%s: %s", who, msg);
    } else if (level == 1 && s->log_level < 1) {
        /* warnings are mostly about guest mistakes: -d guest_errors */
        qemu_log_mask(LOG_GUEST_ERROR, "%s: %s\n", who, msg);
    } else if (level == 1) {
        warn_report("%s: %s", who, msg);
    } else if (level <= s->log_level) {
        info_report("%s: %s", who, msg);
    }
}

/* ------------------------------------------------------- card callbacks */

static void kite_timer_cb(void *opaque)
{
    KiteState *s = opaque;

    if (s->card) {
        CARD_CALL(s, timer(s->card));
    }
}

static void kite_service_bh(void *opaque)
{
    KiteState *s = opaque;

    if (s->card) {
        CARD_CALL(s, service(s->card));
    }
}

static void kite_flush_bh(void *opaque)
{
    KitePort *p = opaque;

    qemu_flush_queued_packets(qemu_get_queue(p->nic));
}

/* ------------------------------------------------------------------ MMIO */

static uint64_t kite_bar_read(void *opaque, hwaddr addr, unsigned size)
{
    KiteBar *b = opaque;
    KiteState *s = b->s;
    uint64_t val;

    if (s->in_card) {
        qemu_log_mask(LOG_GUEST_ERROR, "kite: BAR%u read at 0x%" HWADDR_PRIx
                      " from within the card\n", b->bar, addr);
        return ~0ULL;
    }
    if (!s->card) {
        return ~0ULL;
    }
    s->in_card++;
    val = s->abi->mmio_read(s->card, b->fn, b->bar, addr, size);
    s->in_card--;
    return val;
}

static void kite_bar_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    KiteBar *b = opaque;
    KiteState *s = b->s;

    if (s->in_card) {
        qemu_log_mask(LOG_GUEST_ERROR, "kite: BAR%u write at 0x%" HWADDR_PRIx
                      " from within the card\n", b->bar, addr);
        return;
    }
    if (!s->card) {
        return;
    }
    CARD_CALL(s, mmio_write(s->card, b->fn, b->bar, addr, val, size));
}

/* Registers: any naturally aligned access of 1 to 8 bytes reaches the card. */
static const MemoryRegionOps kite_reg_ops = {
    .read = kite_bar_read,
    .write = kite_bar_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* Doorbell pages: 32-bit doorbells and 64-bit (write-combined WQE push). */
static const MemoryRegionOps kite_db_ops = {
    .read = kite_bar_read,
    .write = kite_bar_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 4, .max_access_size = 8 },
    .impl = { .min_access_size = 4, .max_access_size = 8 },
};

/* ------------------------------------------------------------------- net */

static ssize_t kite_receive(NetClientState *nc, const uint8_t *buf,
                            size_t size)
{
    KitePort *p = qemu_get_nic_opaque(nc);
    KiteState *s = p->s;
    int taken;

    if (!s->card) {
        return size;            /* no card: the frame is lost on the wire */
    }
    if (s->in_card) {
        /* The card sent this itself (ports looped): queue and retry later. */
        qemu_bh_schedule(p->flush_bh);
        return 0;
    }
    s->in_card++;
    taken = s->abi->frame_in(s->card, p->index, buf, size);
    s->in_card--;
    /* 0: back-pressure; the net layer holds the frame until rx_ready(). */
    return taken ? size : 0;
}

static int kite_port_plugged(KitePort *p)
{
    NetClientState *nc = qemu_get_queue(p->nic);

    return nc->peer && !nc->link_down;
}

static void kite_link_status_changed(NetClientState *nc)
{
    KitePort *p = qemu_get_nic_opaque(nc);
    KiteState *s = p->s;

    if (s->card) {
        CARD_CALL(s, set_cable(s->card, p->index, kite_port_plugged(p)));
    }
}

static NetClientInfo kite_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = kite_receive,
    .link_status_changed = kite_link_status_changed,
};

/* ---------------------------------------------------------- card library */

static bool kite_load_card(KiteState *s, Error **errp)
{
    const struct kite_card_abi *(*get_abi)(void);
    const struct kite_card_abi *abi;
    const char *missing = NULL;

    if (!s->card_path || !*s->card_path) {
        error_setg(errp, "kite: property 'card' (path to the card library, "
                   "e.g. build/model/libkite_model.so) is required");
        return false;
    }
    s->dl = dlopen(s->card_path, RTLD_NOW | RTLD_LOCAL);
    if (!s->dl) {
        error_setg(errp, "kite: cannot load card library: %s", dlerror());
        return false;
    }
    get_abi = (const struct kite_card_abi *(*)(void))
        dlsym(s->dl, "kite_card_get_abi");
    if (!get_abi) {
        error_setg(errp, "kite: %s does not export kite_card_get_abi",
                   s->card_path);
        return false;
    }
    abi = get_abi();
    if (!abi) {
        error_setg(errp, "kite: %s: kite_card_get_abi() returned NULL",
                   s->card_path);
        return false;
    }
    if (abi->abi_version != KITE_CARD_ABI_VERSION) {
        error_setg(errp, "kite: %s implements card ABI %u, this QEMU "
                   "needs %u (rebuild one of them)", s->card_path,
                   abi->abi_version, KITE_CARD_ABI_VERSION);
        return false;
    }
#define KITE_NEED(m) do { if (!abi->m && !missing) { missing = #m; } } while (0)
    KITE_NEED(create);
    KITE_NEED(destroy);
    KITE_NEED(mmio_read);
    KITE_NEED(mmio_write);
    KITE_NEED(frame_in);
    KITE_NEED(timer);
    KITE_NEED(service);
    KITE_NEED(flr);
    KITE_NEED(set_num_vfs);
    KITE_NEED(set_cable);
#undef KITE_NEED
    if (missing) {
        error_setg(errp, "kite: %s: card ABI entry '%s' is NULL",
                   s->card_path, missing);
        return false;
    }
    s->abi = abi;
    return true;
}

/* ------------------------------------------------------------- lifecycle */

static void kite_write_config(PCIDevice *d, uint32_t addr, uint32_t val,
                              int len)
{
    pci_default_write_config(d, addr, val, len);
    pcie_cap_flr_write_config(d, addr, val, len);   /* FLR -> kite_reset() */
}

static void kite_init_bar(KiteState *s, KiteBar *b, unsigned int bar,
                          const MemoryRegionOps *ops, const char *name,
                          uint64_t size, uint8_t type)
{
    b->s = s;
    b->fn = KITE_PF;
    b->bar = bar;
    memory_region_init_io(&b->mr, OBJECT(s), ops, b, name, size);
    pci_register_bar(PCI_DEVICE(s), bar, type, &b->mr);
}

static bool kite_init_ports(KiteState *s, Error **errp)
{
    DeviceState *dev = DEVICE(s);
    MACAddr *base = &s->conf[0].macaddr;
    MACAddr next;
    unsigned int i;

    if (s->num_ports < 1 || s->num_ports > KITE_MAX_PORTS) {
        error_setg(errp, "kite: ports=%u, the card has 1 to %u ports",
                   s->num_ports, KITE_MAX_PORTS);
        return false;
    }
    if (s->num_ports < 2 && s->conf[1].peers.ncs[0]) {
        error_setg(errp, "kite: netdev1 needs ports=2");
        return false;
    }

    /* The card derives port n's MAC as base + n (ABI); port 1 follows. */
    qemu_macaddr_default_if_unset(base);
    next = *base;
    for (i = 5; i > 2; i--) {       /* carry within the NIC-specific bytes */
        if (++next.a[i]) {
            break;
        }
    }
    if (s->num_ports > 1) {
        static const MACAddr zero;

        if (!memcmp(&s->conf[1].macaddr, &zero, sizeof(zero))) {
            s->conf[1].macaddr = next;
        } else if (memcmp(&s->conf[1].macaddr, &next, sizeof(next))) {
            error_setg(errp, "kite: mac1 must be mac + 1 (the card numbers its "
                       "ports' MACs from one base); omit mac1");
            return false;
        }
    }

    for (i = 0; i < s->num_ports; i++) {
        KitePort *p = &s->port[i];
        g_autofree char *name = dev->id ?
            g_strdup_printf("%s.%u", dev->id, i) : NULL;

        p->s = s;
        p->index = i;
        p->nic = qemu_new_nic(&kite_net_info, &s->conf[i],
                              object_get_typename(OBJECT(s)), name,
                              &dev->mem_reentrancy_guard, p);
        qemu_format_nic_info_str(qemu_get_queue(p->nic),
                                 s->conf[i].macaddr.a);
        p->flush_bh = qemu_bh_new_guarded(kite_flush_bh, p,
                                          &dev->mem_reentrancy_guard);
        p->tx_bh = qemu_bh_new_guarded(kite_tx_bh, p,
                                       &dev->mem_reentrancy_guard);
        g_queue_init(&p->tx);
    }
    return true;
}

static void kite_fini(KiteState *s)
{
    PCIDevice *d = PCI_DEVICE(s);
    unsigned int i;

    if (s->card) {
        s->abi->destroy(s->card);   /* may still use the host ops */
        s->card = NULL;
    }
    if (s->timer) {
        timer_free(s->timer);
        s->timer = NULL;
    }
    if (s->service_bh) {
        qemu_bh_delete(s->service_bh);
        s->service_bh = NULL;
    }
    for (i = 0; i < KITE_MAX_PORTS; i++) {
        KitePort *p = &s->port[i];

        if (p->flush_bh) {
            qemu_bh_delete(p->flush_bh);
            p->flush_bh = NULL;
        }
        if (p->tx_bh) {
            qemu_bh_delete(p->tx_bh);
            p->tx_bh = NULL;
        }
        g_queue_clear_full(&p->tx, (GDestroyNotify)g_byte_array_unref);
        if (p->nic) {
            qemu_del_nic(p->nic);
            p->nic = NULL;
        }
    }
    if (msix_present(d)) {
        msix_unuse_all_vectors(d);
        msix_uninit(d, &s->msix_bar, &s->msix_bar);
    }
    pcie_cap_exit(d);
    s->abi = NULL;
    if (s->dl) {
        dlclose(s->dl);
        s->dl = NULL;
    }
}

static void kite_realize(PCIDevice *d, Error **errp)
{
    KiteState *s = KITE(d);
    DeviceState *dev = DEVICE(d);
    struct kite_card_config cfg = { 0 };
    const uint8_t *mac;
    unsigned int i;
    int ret;

    if (!kite_load_card(s, errp)) {
        goto fail;
    }

    if (!pci_is_express(d) || !pci_bus_is_express(pci_get_bus(d))) {
        error_setg(errp, "kite: needs a PCI Express bus (-M q35, behind a "
                   "pcie-root-port)");
        goto fail;
    }
    d->config_write = kite_write_config;

    kite_init_bar(s, &s->reg_bar, KITE_REG_BAR, &kite_reg_ops, "kite-regs",
                  KITE_REG_BAR_SIZE, PCI_BASE_ADDRESS_SPACE_MEMORY |
                  PCI_BASE_ADDRESS_MEM_TYPE_64);
    kite_init_bar(s, &s->db_bar, KITE_DB_BAR, &kite_db_ops, "kite-doorbells",
                  KITE_PF_DB_BAR_SIZE, PCI_BASE_ADDRESS_SPACE_MEMORY |
                  PCI_BASE_ADDRESS_MEM_TYPE_64 | PCI_BASE_ADDRESS_MEM_PREFETCH);

    memory_region_init(&s->msix_bar, OBJECT(s), "kite-msix",
                       KITE_MSIX_BAR_SIZE);
    pci_register_bar(d, KITE_MSIX_BAR, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->msix_bar);
    ret = msix_init(d, KITE_PF_MSIX_VECTORS,
                    &s->msix_bar, KITE_MSIX_BAR, KITE_MSIX_TABLE_OFF,
                    &s->msix_bar, KITE_MSIX_BAR, KITE_MSIX_PBA_OFF,
                    KITE_CAP_MSIX_OFF, errp);
    if (ret) {
        goto fail;
    }
    for (i = 0; i < KITE_PF_MSIX_VECTORS; i++) {
        msix_vector_use(d, i);
    }

    ret = pcie_endpoint_cap_init(d, KITE_CAP_PCIE_OFF);
    if (ret < 0) {
        error_setg(errp, "kite: cannot add the PCIe capability");
        goto fail;
    }
    pcie_cap_flr_init(d);

    if (!kite_init_ports(s, errp)) {
        goto fail;
    }
    mac = s->conf[0].macaddr.a;
    if (!s->serial) {
        /* EUI-64 from the base MAC, as boards derive it */
        s->serial = (uint64_t)mac[0] << 56 | (uint64_t)mac[1] << 48 |
                    (uint64_t)mac[2] << 40 | 0xfffeULL << 24 |
                    (uint64_t)mac[3] << 16 | (uint64_t)mac[4] << 8 | mac[5];
    }
    pcie_dev_ser_num_init(d, KITE_EXT_DSN_OFF, s->serial);

    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, kite_timer_cb, s);
    s->service_bh = qemu_bh_new_guarded(kite_service_bh, s,
                                        &dev->mem_reentrancy_guard);

    s->ops = (struct kite_host_ops) {
        .opaque = s,
        .dma_read = kite_host_dma_read,
        .dma_write = kite_host_dma_write,
        .msix = kite_host_msix,
        .frame_out = kite_host_frame_out,
        .rx_ready = kite_host_rx_ready,
        .now_ns = kite_host_now_ns,
        .timer_arm = kite_host_timer_arm,
        .schedule = kite_host_schedule,
        .log = kite_host_log,
    };
    cfg.abi_version = KITE_CARD_ABI_VERSION;
    cfg.num_ports = s->num_ports;
    cfg.max_vfs = 0;
    cfg.serial = s->serial;
    memcpy(cfg.mac, mac, sizeof(cfg.mac));
    cfg.flash_path = s->flash && *s->flash ? s->flash : NULL;

    s->in_card++;
    s->card = s->abi->create(&cfg, &s->ops);
    s->in_card--;
    if (!s->card) {
        error_setg(errp, "kite: %s failed to create the card (see messages "
                   "above)", s->card_path);
        goto fail;
    }
    for (i = 0; i < s->num_ports; i++) {
        CARD_CALL(s, set_cable(s->card, i, kite_port_plugged(&s->port[i])));
    }
    return;

fail:
    kite_fini(s);
}

static void kite_exit(PCIDevice *d)
{
    kite_fini(KITE(d));
}

/* Device reset, bus reset and FLR of the PF. */
static void kite_reset(DeviceState *dev)
{
    KiteState *s = KITE(dev);

    if (s->card) {
        CARD_CALL(s, flr(s->card, KITE_PF));
    }
}

static const VMStateDescription kite_vmstate = {
    .name = TYPE_KITE,
    .unmigratable = 1,
};

static Property kite_properties[] = {
    DEFINE_NIC_PROPERTIES(KiteState, conf[0]),
    DEFINE_PROP_MACADDR("mac1", KiteState, conf[1].macaddr),
    DEFINE_PROP_NETDEV("netdev1", KiteState, conf[1].peers),
    DEFINE_PROP_UINT32("ports", KiteState, num_ports, 1),
    DEFINE_PROP_UINT64("serial", KiteState, serial, 0),
    DEFINE_PROP_STRING("flash", KiteState, flash),
    DEFINE_PROP_STRING("card", KiteState, card_path),
    DEFINE_PROP_UINT8("log-level", KiteState, log_level, 0),
    DEFINE_PROP_END_OF_LIST(),
};

static void kite_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(oc);

    k->realize = kite_realize;
    k->exit = kite_exit;
    k->vendor_id = KITE_VENDOR_ID;
    k->device_id = KITE_PF_DEVICE_ID;
    k->subsystem_vendor_id = KITE_VENDOR_ID;
    k->subsystem_id = KITE_PF_DEVICE_ID;
    k->revision = 0;
    k->class_id = PCI_CLASS_NETWORK_ETHERNET;

    dc->desc = "Kite FPGA NIC (card behaviour from a card library)";
    dc->reset = kite_reset;
    dc->vmsd = &kite_vmstate;
    device_class_set_props(dc, kite_properties);
    object_class_property_set_description(oc, "card",
        "card library implementing kite_card_get_abi() (required)");
    object_class_property_set_description(oc, "ports",
        "Ethernet ports, 1 or 2");
    object_class_property_set_description(oc, "netdev1",
        "netdev of port 1 (ports=2)");
    object_class_property_set_description(oc, "mac1",
        "MAC of port 1: must be mac + 1, may be omitted");
    object_class_property_set_description(oc, "serial",
        "board serial and PCIe DSN (default: EUI-64 of mac)");
    object_class_property_set_description(oc, "flash",
        "persistent flash image file of the card (optional)");
    object_class_property_set_description(oc, "log-level",
        "card messages shown: 0 errors, 1 warnings, 2 info, 3 debug");
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo kite_info = {
    .name = TYPE_KITE,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(KiteState),
    .class_init = kite_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void kite_register_types(void)
{
    type_register_static(&kite_info);
}

type_init(kite_register_types)
