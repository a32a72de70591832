// SPDX-License-Identifier: MIT
// The card C ABI's entry points for a library that defines struct kite_card
// (the model's card.cpp, the Verilated card's fpga/cosim/rtl_card.cpp): each
// forwards to the member of the same name. Include once, after kite_card.
#pragma once

#include "kite/card_abi.h"
#include "kite/spec.hpp"

namespace {

kite_card *abi_create(const kite_card_config *cfg, const kite_host_ops *ops) {
    if (!cfg || !ops || cfg->abi_version != KITE_CARD_ABI_VERSION || cfg->num_ports < 1 ||
        cfg->num_ports > kite::spec::pci::MAX_PORTS || !ops->dma_read || !ops->dma_write || !ops->msix ||
        !ops->frame_out || !ops->now_ns || !ops->timer_arm)
        return nullptr;
    return new kite_card(*cfg, *ops);
}
void abi_destroy(kite_card *c) { delete c; }
uint64_t abi_mmio_read(kite_card *c, kite_fn_t fn, unsigned bar, uint64_t off, unsigned size) {
    return c->mmio_read(fn, bar, off, size);
}
void abi_mmio_write(kite_card *c, kite_fn_t fn, unsigned bar, uint64_t off, uint64_t val, unsigned size) {
    c->mmio_write(fn, bar, off, val, size);
}
int abi_frame_in(kite_card *c, unsigned port, const void *f, size_t len) { return c->frame_in(port, f, len); }
void abi_timer(kite_card *c) { c->timer(); }
void abi_service(kite_card *c) { c->service(); }
void abi_flr(kite_card *c, kite_fn_t fn) { c->flr(fn); }
void abi_set_num_vfs(kite_card *c, uint16_t n) { c->set_num_vfs(n); }
void abi_set_cable(kite_card *c, unsigned port, int plugged) { c->set_cable(port, plugged != 0); }

const kite_card_abi abi = {
    KITE_CARD_ABI_VERSION, abi_create, abi_destroy, abi_mmio_read, abi_mmio_write, abi_frame_in,
    abi_timer, abi_service, abi_flr, abi_set_num_vfs, abi_set_cable,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const kite_card_abi *kite_card_get_abi(void) { return &abi; }
