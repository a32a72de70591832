// SPDX-License-Identifier: MIT
#include "card/card.hpp"

#include <algorithm>
#include <cstring>

namespace kite::model {

using namespace spec;

Card::Card(const kite_card_config &cfg, const kite_host_ops &ops)
    : q_(hw_), mac_(hw_, q_), roce_(hw_, q_, mac_), tx_(hw_, q_, mac_, roce_), rx_(hw_, q_, mac_, roce_),
      regs_(hw_, [this](uint16_t fn) { reset_function(fn); }), db_(hw_, q_), pcie_(hw_, regs_, db_), fw_(*this) {
    hw_.cfg = cfg;
    hw_.ops = ops;
    if (cfg.flash_path)
        hw_.flash_path = cfg.flash_path;
    hw_.cfg.flash_path = nullptr;
    hw_.start_ns = hw_.now();
    q_.on_qp_rq_doorbell = [this](uint32_t rqn) { roce_.rq_doorbell(rqn); };
    if (!flash_.open(hw_.flash_path))
        hw_.log(0, "kite: cannot open flash %s, using memory", hw_.flash_path.c_str());
    for (unsigned p = 0; p < cfg.num_ports; p++)
        hw_.ports[p].cable = true;  // a card in a slot has its cable until told otherwise
    pcie_.init_functions();
    fw_.boot();
    after_entry();
}

Card::~Card() = default;

void Card::after_entry() {
    // Without a bottom half the deferred work runs before returning.
    if (!hw_.ops.schedule && !in_service_) {
        for (int i = 0; i < 64 && hw_.service_scheduled; i++)
            service();
    }
    rearm();
}

void Card::rearm() {
    uint64_t d = std::min({q_.next_deadline(), mac_.next_deadline(), roce_.next_deadline()});
    if (d != NEVER && d != armed_deadline_) {
        armed_deadline_ = d;
        hw_.ops.timer_arm(hw_.ops.opaque, d);
    }
}

uint64_t Card::mmio_read(uint16_t fn, unsigned bar, uint64_t off, unsigned size) {
    return pcie_.mmio_read(fn, bar, off, size);
}

void Card::mmio_write(uint16_t fn, unsigned bar, uint64_t off, uint64_t val, unsigned size) {
    pcie_.mmio_write(fn, bar, off, val, size);
    after_entry();
}

int Card::frame_in(unsigned port, const void *frame, size_t len) {
    if (port >= hw_.cfg.num_ports)
        return 1;
    int r = rx_.receive(port, static_cast<const uint8_t *>(frame), len);
    after_entry();
    return r;
}

void Card::timer() {
    uint64_t now = hw_.now();
    armed_deadline_ = NEVER;
    q_.timer(now);
    mac_.timer(now);
    roce_.timer(now);
    after_entry();
}

void Card::service() {
    hw_.service_scheduled = false;
    in_service_ = true;
    for (unsigned p = 0; p < hw_.cfg.num_ports; p++)
        if (hw_.ports[p].rx_retry)
            rx_.retry(p);
    // Doorbells rung before a command are served before it, as a card whose
    // queues run while its firmware waits for the command would.
    bool more = tx_.run(256);
    more |= roce_.loopback_run(1024);
    more |= fw_.poll();
    mac_.service();
    in_service_ = false;
    if (more)
        hw_.request_service();
    rearm();
}

void Card::reset_function(uint16_t fn) {
    FuncRegs &r = hw_.regs[fn];
    r.cmdq_log = 0;
    r.cmdq_pi = r.cmdq_ci = 0;
    r.cmdq_base = 0;
    fw_.reset_function(fn);
    q_.forget_function(fn);
    if (fn == 0) {
        hw_.fatal = false;
        hw_.health = health_syndrome::OK;
    }
}

void Card::flr(uint16_t fn) {
    // As DEV_CTRL.RESET, and every BAR0 register (SCRATCH too) back to its
    // reset value.
    if (pcie_.present(fn)) {
        reset_function(fn);
        hw_.regs[fn] = FuncRegs{};
    }
    after_entry();
}

void Card::set_num_vfs(uint16_t n) {
    // VFs get their control plane (command ring, objects, doorbells, MSI-X
    // vectors) and TX; RX steering to VFs and VF configuration come with
    // SR-IOV proper.
    if (n > hw_.cfg.max_vfs)
        n = uint16_t(hw_.cfg.max_vfs);
    if (n > pci::MAX_VFS)
        n = pci::MAX_VFS;
    for (uint16_t fn = 1; fn < hw_.num_fn; fn++) {
        reset_function(fn);
        hw_.func[fn] = ctx::func_ctx{};
    }
    hw_.num_vfs = n;
    hw_.num_fn = uint16_t(1 + n);
    for (uint16_t fn = 1; fn <= n; fn++) {
        ctx::func_ctx &f = hw_.func[fn];
        f.enabled = 1;
        f.port = uint8_t((fn - 1) % hw_.cfg.num_ports);
        f.num_ports = 1;
        f.msix_vectors = pci::VF_MSIX_VECTORS;
        f.db_pages = pci::VF_DB_PAGES;
        reset_function(fn);
    }
    after_entry();
}

void Card::set_cable(unsigned port, bool plugged) {
    if (port < hw_.cfg.num_ports)
        mac_.set_cable(port, plugged);
    after_entry();
}

// ------------------------------------------------------------------ fw::Hal

bool Card::dma_read(uint16_t fn, uint64_t addr, void *buf, uint32_t len) { return hw_.dma_read(fn, addr, buf, len); }
bool Card::dma_write(uint16_t fn, uint64_t addr, const void *buf, uint32_t len) {
    return hw_.dma_write(fn, addr, buf, len);
}

template <typename T> static bool ctx_copy(std::vector<T> &tbl, uint32_t idx, void *buf, uint32_t len, bool write) {
    if (idx >= tbl.size() || len != sizeof(T))
        return false;
    if (write)
        std::memcpy(&tbl[idx], buf, len);
    else
        std::memcpy(buf, &tbl[idx], len);
    return true;
}

void Card::ctx_read(ctx::table t, uint32_t idx, void *buf, uint32_t len) {
    bool ok = false;
    switch (t) {
    case ctx::table::FUNC: ok = ctx_copy(hw_.func, idx, buf, len, false); break;
    case ctx::table::EQ: ok = ctx_copy(hw_.eq, idx, buf, len, false); break;
    case ctx::table::CQ: ok = ctx_copy(hw_.cq, idx, buf, len, false); break;
    case ctx::table::SQ: ok = ctx_copy(hw_.sq, idx, buf, len, false); break;
    case ctx::table::RQ: ok = ctx_copy(hw_.rq, idx, buf, len, false); break;
    case ctx::table::RSS: ok = ctx_copy(hw_.rss, idx, buf, len, false); break;
    case ctx::table::FILTER: ok = ctx_copy(hw_.filter, idx, buf, len, false); break;
    case ctx::table::FLOW: ok = ctx_copy(hw_.flow, idx, buf, len, false); break;
    case ctx::table::PORT: ok = ctx_copy(hw_.port, idx, buf, len, false); break;
    case ctx::table::MR: ok = ctx_copy(hw_.mr, idx, buf, len, false); break;
    case ctx::table::QP: ok = ctx_copy(hw_.qp, idx, buf, len, false); break;
    case ctx::table::SRQ: ok = ctx_copy(hw_.srq, idx, buf, len, false); break;
    case ctx::table::AH: ok = ctx_copy(hw_.ah, idx, buf, len, false); break;
    case ctx::table::GID: ok = ctx_copy(hw_.gid, idx, buf, len, false); break;
    }
    if (!ok) {
        std::memset(buf, 0, len);
        hw_.log(0, "kite: bad context read %u/%u", unsigned(t), idx);
    }
}

void Card::ctx_write(ctx::table t, uint32_t idx, const void *cbuf, uint32_t len) {
    void *buf = const_cast<void *>(cbuf);
    bool ok = false;
    switch (t) {
    case ctx::table::FUNC: ok = ctx_copy(hw_.func, idx, buf, len, true); break;
    case ctx::table::EQ: ok = ctx_copy(hw_.eq, idx, buf, len, true); break;
    case ctx::table::CQ:
        ok = ctx_copy(hw_.cq, idx, buf, len, true);
        if (ok)
            q_.cq_ctx_written(idx);
        break;
    case ctx::table::SQ:
    case ctx::table::RQ: {
        auto &tbl = t == ctx::table::RQ ? hw_.rq : hw_.sq;
        if (idx >= tbl.size())
            break;
        ctx::wq_ctx old = tbl[idx];
        ok = ctx_copy(tbl, idx, buf, len, true);
        if (ok)
            q_.wq_ctx_written(t == ctx::table::RQ, idx, old);
        break;
    }
    case ctx::table::RSS: ok = ctx_copy(hw_.rss, idx, buf, len, true); break;
    case ctx::table::FILTER: ok = ctx_copy(hw_.filter, idx, buf, len, true); break;
    case ctx::table::FLOW: ok = ctx_copy(hw_.flow, idx, buf, len, true); break;
    case ctx::table::PORT:
        ok = ctx_copy(hw_.port, idx, buf, len, true);
        if (ok && idx < hw_.cfg.num_ports) {
            mac_.port_ctx_written(idx);
            hw_.rx_recheck(idx);
        }
        break;
    case ctx::table::MR:
        ok = ctx_copy(hw_.mr, idx, buf, len, true);
        if (ok)
            roce_.mr_ctx_written();  // translations cached from it are stale
        break;
    case ctx::table::QP: {
        if (idx >= hw_.qp.size())
            break;
        ctx::qp_ctx old = hw_.qp[idx];
        ok = ctx_copy(hw_.qp, idx, buf, len, true);
        if (ok)
            roce_.qp_ctx_written(idx, old);
        break;
    }
    case ctx::table::SRQ: ok = ctx_copy(hw_.srq, idx, buf, len, true); break;
    case ctx::table::AH: ok = ctx_copy(hw_.ah, idx, buf, len, true); break;
    case ctx::table::GID: ok = ctx_copy(hw_.gid, idx, buf, len, true); break;
    }
    if (!ok)
        hw_.log(0, "kite: bad context write %u/%u", unsigned(t), idx);
}

void Card::post_async(uint16_t fn, const eqe &e) { q_.post_async(fn, e); }

void Card::cmdq_get(uint16_t fn, fw::cmdq_regs &r) {
    const FuncRegs &fr = hw_.regs[fn];
    r.base = fr.cmdq_base;
    r.log_size = fr.cmdq_log;
    r.pi = fr.cmdq_pi;
    r.ci = fr.cmdq_ci;
}

void Card::cmdq_set_ci(uint16_t fn, uint16_t ci) { hw_.regs[fn].cmdq_ci = ci; }

void Card::port_stats(uint8_t port, spec::port_stats &out, bool clear) {
    if (port >= hw_.cfg.num_ports) {
        out = spec::port_stats{};
        return;
    }
    out = hw_.ports[port].stats;
    if (clear)
        hw_.ports[port].stats = spec::port_stats{};
}

void Card::queue_stats(bool rq, uint32_t qn, spec::queue_stats &out, bool clear) {
    if (qn >= (rq ? hw_.rq.size() : hw_.sq.size())) {
        out = spec::queue_stats{};
        return;
    }
    spec::queue_stats &s = rq ? hw_.rq[qn].stats : hw_.sq[qn].stats;
    out = s;
    if (clear)
        s = spec::queue_stats{};
}

void Card::port_mac(uint16_t fn, uint8_t port, uint8_t mac[6]) {
    // Base MAC + port for the PF; VFs follow the ports (operation.rst).
    uint64_t m = 0;
    for (int i = 0; i < 6; i++)
        m = m << 8 | hw_.cfg.mac[i];
    m += port + uint64_t(fn) * hw_.cfg.num_ports;
    for (int i = 5; i >= 0; i--, m >>= 8)
        mac[i] = uint8_t(m);
}

void Card::set_health(uint32_t syndrome, bool fatal) {
    hw_.health = syndrome;
    hw_.fatal = hw_.fatal || fatal;
}

bool Card::flash_read(uint32_t off, void *buf, uint32_t len) { return flash_.read(off, buf, len); }

bool Card::flash_write(uint32_t off, const void *buf, uint32_t len) { return flash_.write(off, buf, len); }

}  // namespace kite::model

// ------------------------------------------------------------------ C ABI

struct kite_card final : kite::model::Card {
    using Card::Card;
};

#include "card/abi_export.hpp"
