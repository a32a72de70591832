// SPDX-License-Identifier: MIT
// PortHal: the firmware's contexts onto kite_card's firmware ports.
#include "kite_fw/port_hal.hpp"

namespace kite::fw {

namespace {

// A table of the store: its entries and their count and size.
struct tbl {
    void *base;
    uint32_t count, size;
};

tbl table_of(const ctx_store &s, ctx::table t) {
    switch (t) {
    case ctx::table::FUNC: return {s.func, ctx::MAX_FN, sizeof(ctx::func_ctx)};
    case ctx::table::EQ: return {s.eq, ctx::NUM_EQ, sizeof(ctx::eq_ctx)};
    case ctx::table::CQ: return {s.cq, ctx::NUM_CQ, sizeof(ctx::cq_ctx)};
    case ctx::table::SQ: return {s.sq, ctx::NUM_SQ, sizeof(ctx::wq_ctx)};
    case ctx::table::RQ: return {s.rq, ctx::NUM_RQ, sizeof(ctx::wq_ctx)};
    case ctx::table::RSS: return {s.rss, ctx::NUM_RSS, sizeof(ctx::rss_ctx)};
    case ctx::table::FILTER: return {s.filter, ctx::NUM_FILTER, sizeof(ctx::filter_ctx)};
    case ctx::table::FLOW: return {s.flow, ctx::NUM_FLOW, sizeof(ctx::flow_ctx)};
    case ctx::table::PORT: return {s.port, spec::pci::MAX_PORTS, sizeof(ctx::port_ctx)};
    case ctx::table::MR: return {s.mr, ctx::NUM_MR, sizeof(ctx::mr_ctx)};
    case ctx::table::QP: return {s.qp, ctx::NUM_QP, sizeof(ctx::qp_ctx)};
    case ctx::table::SRQ: return {s.srq, ctx::NUM_SRQ, sizeof(ctx::srq_ctx)};
    case ctx::table::AH: return {s.ah, ctx::NUM_AH, sizeof(ctx::ah_ctx)};
    case ctx::table::GID: return {s.gid, ctx::NUM_GID, sizeof(ctx::gid_ctx)};
    }
    return {nullptr, 0, 0};
}

}  // namespace

void PortHal::ctx_read(ctx::table t, uint32_t idx, void *buf, uint32_t len) {
    const tbl b = table_of(s_, t);
    if (!b.base || idx >= b.count || len != b.size) {
        __builtin_memset(buf, 0, len);
        bad_ctx(false, t, idx);
        return;
    }
    __builtin_memcpy(buf, static_cast<uint8_t *>(b.base) + size_t(idx) * b.size, len);
}

// Tables the datapath has no use for (RDMA) stay in the store.
void PortHal::ctx_write(ctx::table t, uint32_t idx, const void *buf, uint32_t len) {
    const tbl b = table_of(s_, t);
    if (!b.base || idx >= b.count || len != b.size) {
        bad_ctx(true, t, idx);
        return;
    }
    uint8_t *e = static_cast<uint8_t *>(b.base) + size_t(idx) * b.size;
    // The entry before the write, where the translation depends on it.
    ctx::cq_ctx old_cq{};
    ctx::filter_ctx old_filter{};
    if (t == ctx::table::CQ)
        __builtin_memcpy(&old_cq, e, sizeof(old_cq));
    if (t == ctx::table::FILTER)
        __builtin_memcpy(&old_filter, e, sizeof(old_filter));
    __builtin_memcpy(e, buf, len);
    const unsigned ports = num_ports();

    switch (t) {
    case ctx::table::FUNC:
        func_to_card(uint16_t(idx));
        break;
    case ctx::table::EQ: {
        uint8_t d[16];
        card::eq_cmd(s_.eq[idx], d);
        port_cmd(card::OP_EQ_CTX, uint16_t(idx), d, sizeof(d));
        break;
    }
    case ctx::table::CQ: {
        const ctx::cq_ctx &c = s_.cq[idx];
        uint8_t d[18];
        card::cq_cmd(c, d);
        if (card::cq_keeps_ring(old_cq, c)) {
            port_cmd(card::OP_CQ_MOD, uint16_t(idx), d, sizeof(d));
        } else {
            if (c.valid && c.pi != c.ci)
                cq_repointed(idx, uint32_t(c.pi - c.ci));
            port_cmd(card::OP_CQ_CTX, uint16_t(idx), d, sizeof(d));
        }
        // The longest moderation time changes with this CQ's: a rescan of the
        // table only when the CQ that held it lowered it.
        const uint32_t was = old_cq.valid ? old_cq.mod_usec : 0, now = c.valid ? c.mod_usec : 0;
        if (now >= max_mod_usec_) {
            max_mod_usec_ = now;
        } else if (was == max_mod_usec_) {
            max_mod_usec_ = 0;
            for (uint32_t i = 0; i < ctx::NUM_CQ; i++)
                if (s_.cq[i].valid && s_.cq[i].mod_usec > max_mod_usec_)
                    max_mod_usec_ = s_.cq[i].mod_usec;
        }
        break;
    }
    case ctx::table::SQ:
    case ctx::table::RQ: {
        const bool rq = t == ctx::table::RQ;
        port_wq(rq, idx, card::wq_fields(rq ? s_.rq[idx] : s_.sq[idx]));
        break;
    }
    case ctx::table::RSS:
        // kite_rss holds the PF's contexts of each port, context
        // {port, ctx} = rss_index(0, port, ctx).
        if (idx < ports * spec::limits::MAX_RSS_CTX)
            card::rss_words(s_.rss[idx], [&](unsigned a, uint32_t v) { port_rss(idx, a, v); });
        break;
    case ctx::table::FILTER:
        // kite_rx_steer holds the PF's filter of each port ...
        for (unsigned p = 0; p < ports; p++) {
            if (idx == ctx::filter_index(0, p)) {
                filter_to_card(p, filter_init_[p] ? &old_filter : nullptr);
                filter_init_[p] = true;
            }
        }
        break;
    case ctx::table::FLOW:
        // ... and the PF's flow rules of each port.
        if (idx < ports * spec::limits::MAX_FLOW_RULES) {
            const unsigned port = idx / spec::limits::MAX_FLOW_RULES, rule = idx % spec::limits::MAX_FLOW_RULES;
            card::flow_words(s_.flow[ctx::flow_index(0, port, rule)], rule,
                             [&](unsigned a, uint64_t v) { port_flt(port, a, v); });
        }
        break;
    case ctx::table::PORT:
        if (idx < ports) {
            port_changed(idx);
            port_pause(idx, card::port_pause_rx(s_.port[idx]));
        }
        break;
    default:
        break;
    }
}

void PortHal::wq_error(bool rq, uint32_t qn) {
    if (qn < (rq ? ctx::NUM_RQ : ctx::NUM_SQ))
        (rq ? s_.rq : s_.sq)[qn].state = spec::wq_state::ERR;
}

void PortHal::func_to_card(uint16_t fn) {
    if (fn >= ctx::MAX_FN)
        return;
    const ctx::func_ctx &f = s_.func[fn];
    port_fn(fn, card::fn_db_pages(f), uint8_t(f.port & 1));
    uint8_t d[2];
    card::fn_cmd(f, d);
    port_cmd(card::OP_FN_CTX, fn, d, sizeof(d));
}

// The words that changed (all on the first write: the VLAN bitmap RAM has
// no reset).
void PortHal::filter_to_card(unsigned port, const ctx::filter_ctx *old) {
    const ctx::filter_ctx &f = s_.filter[ctx::filter_index(0, port)];
    for (unsigned i = 0; i < card::FILTER_WORDS; i++) {
        const uint64_t w = card::filter_word(f, i);
        if (!old || w != card::filter_word(*old, i))
            port_flt(port, card::filter_addr(i), w);
    }
}

void PortHal::post_async(uint16_t fn, const spec::eqe &e) {
    uint8_t d[16];
    __builtin_memcpy(d, &e, sizeof(d));
    port_cmd(card::OP_EVENT, fn, d, sizeof(d));
}

// kite_stats: port p's struct port_stats at 32p, queue counters from 64.
void PortHal::port_stats(uint8_t port, spec::port_stats &out, bool clear) {
    out = spec::port_stats{};
    if (port >= num_ports())
        return;
    uint64_t w[sizeof(out) / 8];
    port_counters(32u * port, w, sizeof(out) / 8, clear);
    __builtin_memcpy(&out, w, sizeof(out));
}

void PortHal::queue_stats(bool rq, uint32_t qn, spec::queue_stats &out, bool clear) {
    out = spec::queue_stats{};
    if (qn >= ctx::NUM_SQ)
        return;
    uint64_t w[sizeof(out) / 8];
    port_counters(64 + 8 * ((rq ? 512u : 0u) + qn), w, sizeof(out) / 8, clear);
    __builtin_memcpy(&out, w, sizeof(out));
}

}  // namespace kite::fw
