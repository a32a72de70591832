// SPDX-License-Identifier: MIT
// The Hal of a card whose datapath is kite_card (fpga/rtl/card): the
// firmware's context writes are kept whole in a store and translated into
// kite_card's firmware ports (card_ports.hpp), which keep only what the
// datapath needs; context reads, events and counters go the same way. The
// platform provides the ports, the store and the rest of the Hal: the
// co-simulation (fpga/cosim/rtl_card.cpp) by driving the Verilated card's
// ports, the soft CPU on the board through its MMIO window.
// Freestanding: no library types.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kite/ctx.hpp"
#include "kite/spec.hpp"
#include "kite_fw/card_ports.hpp"
#include "kite_fw/hal.hpp"

namespace kite::fw {

// Where the whole contexts live (sized as ctx.hpp's NUM_* / MAX_FN /
// MAX_PORTS): about 0.8 MiB in all, more than the soft CPU's RAM, so the
// platform says where.
struct ctx_store {
    ctx::func_ctx *func;
    ctx::eq_ctx *eq;
    ctx::cq_ctx *cq;
    ctx::wq_ctx *sq, *rq;
    ctx::rss_ctx *rss;
    ctx::filter_ctx *filter;
    ctx::flow_ctx *flow;
    ctx::port_ctx *port;
    ctx::mr_ctx *mr;
    ctx::qp_ctx *qp;
    ctx::srq_ctx *srq;
    ctx::ah_ctx *ah;
    ctx::gid_ctx *gid;
};

class PortHal : public Hal {
public:
    void ctx_read(ctx::table t, uint32_t idx, void *buf, uint32_t len) override;
    void ctx_write(ctx::table t, uint32_t idx, const void *buf, uint32_t len) override;
    void post_async(uint16_t fn, const spec::eqe &e) override;
    void port_stats(uint8_t port, spec::port_stats &out, bool clear) override;
    void queue_stats(bool rq, uint32_t qn, spec::queue_stats &out, bool clear) override;

    // The function table entry of fn (doorbell pages, port, async EQ) to the
    // datapath, also after the platform changed it in the store (VF enable).
    void func_to_card(uint16_t fn);
    // The datapath moved a WQ to ERR (a DMA error): the store follows, so a
    // later QUERY reports it.
    void wq_error(bool rq, uint32_t qn);
    // The longest interrupt moderation time of a valid CQ, for the
    // platform's timer.
    uint32_t max_mod_usec() const { return max_mod_usec_; }

protected:
    PortHal() = default;
    ~PortHal() = default;
    // Called once the platform's storage exists (before the firmware boots).
    void set_store(const ctx_store &s) { s_ = s; }
    const ctx_store &store() const { return s_; }

    // kite_card's firmware ports; each returns when the port took the request.
    virtual void port_wq(bool rq, uint32_t qn, const card::wq_port &p) = 0;
    virtual void port_cmd(uint8_t op, uint16_t qn, const uint8_t *data, size_t n) = 0;
    virtual void port_rss(unsigned rss_ctx, unsigned addr, uint32_t v) = 0;
    virtual void port_flt(unsigned port, unsigned addr, uint64_t v) = 0;
    virtual void port_fn(uint16_t fn, uint16_t db_pages, uint8_t port) = 0;
    virtual void port_pause(unsigned port, bool pause_rx) = 0;
    virtual void port_counters(uint32_t idx, uint64_t *out, uint32_t words, bool clear) = 0;

    // What the platform does beside the datapath (defaults: nothing).
    virtual void port_changed(unsigned) {}                   // the PHY: admin state, MTU
    virtual void cq_repointed(uint32_t, uint32_t) {}         // a CQ re-pointed with CQEs pending
    virtual void bad_ctx(bool, ctx::table, uint32_t) {}      // an index or size out of range

private:
    void filter_to_card(unsigned port, const ctx::filter_ctx *old);

    ctx_store s_{};
    bool filter_init_[spec::pci::MAX_PORTS]{};  // kite_rx_steer's table of the port written once
    uint32_t max_mod_usec_ = 0;
};

}  // namespace kite::fw
