// SPDX-License-Identifier: MIT
// The firmware's contexts in the form kite_card's firmware ports take them
// (fpga/rtl/card/kite_card.sv, "Firmware:"): the SQ/RQ context port, kite_cq's
// command port (CQ, EQ, function and event commands), kite_rss's table words,
// kite_rx_steer's filter and flow-rule words, the port's PAUSE bit.
//
// The firmware keeps whole contexts (ctx.hpp); the RTL keeps what its
// datapath needs. A HAL for the RTL card translates each context write
// with these functions: today the co-simulation's (fpga/cosim/rtl_card.cpp),
// on the board the soft CPU's over its MMIO window. Freestanding: no
// library types.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kite/ctx.hpp"
#include "kite/spec.hpp"

namespace kite::fw::card {

// What kite_card's datapath offers (its BAR0 CAPS, kite_regs' CAPS
// parameter): the firmware's features on the RTL card.
inline constexpr uint32_t FEATURES = spec::reg::CAPS_ETH | spec::reg::CAPS_CSUM | spec::reg::CAPS_TSO |
                                     spec::reg::CAPS_RSS | spec::reg::CAPS_VLAN;

// kite_cq's command port ops (fw_cq_op_i) that the firmware uses.
enum cmd_op : uint8_t {
    OP_EVENT = 3,   // data: the EQE, to the function's async EQ
    OP_CQ_CTX = 4,  // data: cq_cmd(); the ring restarts at 0
    OP_CQ_MOD = 5,  // data: cq_cmd(); moderation only, the ring kept
    OP_EQ_CTX = 6,  // data: eq_cmd()
    OP_FN_CTX = 7,  // data: the function's async EQ, 2 bytes
};

// The SQ/RQ context port's fields (fw_wq_*). Only Ethernet WQs are the
// datapath's: an RDMA WQ is disabled there.
struct wq_port {
    bool en;
    uint8_t state, fn, page, log_size, log_stride, port, flags;
    uint16_t cqn;
    uint64_t base;
};
inline wq_port wq_fields(const ctx::wq_ctx &w) {
    wq_port p{};
    p.en = w.valid && w.kind == ctx::WQ_ETH;
    p.state = uint8_t(w.state & 3);
    p.fn = uint8_t(w.fn);
    p.page = uint8_t(w.db_page);
    p.log_size = uint8_t(w.log_size & 0xf);
    p.log_stride = uint8_t(w.log_stride & 0xf);
    p.cqn = uint16_t(w.cqn);
    p.port = uint8_t(w.port & 1);
    p.base = w.base;
    p.flags = w.flags;
    return p;
}

// The function table entry (fw_fn_*): a disabled function has no doorbell
// pages. Its async EQ goes by OP_FN_CTX with fn_cmd().
inline uint16_t fn_db_pages(const ctx::func_ctx &f) { return f.enabled ? f.db_pages : 0; }
inline void fn_cmd(const ctx::func_ctx &f, uint8_t d[2]) {
    d[0] = uint8_t(f.async_eqn);
    d[1] = uint8_t(f.async_eqn >> 8);
}

inline void eq_cmd(const ctx::eq_ctx &e, uint8_t d[16]) {
    __builtin_memset(d, 0, 16);
    __builtin_memcpy(d, &e.base, 8);
    d[8] = uint8_t(e.fn);
    d[9] = uint8_t(e.fn >> 8);
    d[10] = uint8_t(e.vector);
    d[11] = uint8_t(e.vector >> 8);
    d[12] = uint8_t((e.log_size & 0xf) | (e.valid ? 0x10 : 0) | (e.armed ? 0x20 : 0));
}

inline void cq_cmd(const ctx::cq_ctx &c, uint8_t d[18]) {
    __builtin_memset(d, 0, 18);
    __builtin_memcpy(d, &c.base, 8);
    d[8] = uint8_t(c.fn);
    d[9] = uint8_t(c.fn >> 8);
    d[10] = uint8_t(c.eqn);
    d[11] = uint8_t(c.eqn >> 8);
    d[12] = uint8_t((c.log_size & 0xf) | (c.valid ? 0x10 : 0));
    d[14] = uint8_t(c.mod_usec);
    d[15] = uint8_t(c.mod_usec >> 8);
    d[16] = uint8_t(c.mod_count);
    d[17] = uint8_t(c.mod_count >> 8);
}

// MODIFY_CQ keeps the ring (OP_CQ_MOD); anything else re-points it (OP_CQ_CTX).
inline bool cq_keeps_ring(const ctx::cq_ctx &old, const ctx::cq_ctx &c) {
    return old.valid && c.valid && old.base == c.base && old.log_size == c.log_size && old.eqn == c.eqn &&
           old.fn == c.fn;
}

// kite_rss's words of a context (fw_rss_*): the key, the hash fields, the
// table size and the table. An unusable context hashes nothing and steers
// to RQ 0, which is never valid: rx_no_buffer, as the model's !rc.valid.
template <class Put> void rss_words(const ctx::rss_ctx &r, Put put) {
    const bool use = r.valid && r.table_size && r.table_size <= 256 && !(r.table_size & (r.table_size - 1));
    for (unsigned a = 0; a < 10; a++) {
        uint32_t v;
        __builtin_memcpy(&v, r.key + 4 * a, 4);
        put(a, v);
    }
    put(16u, use ? uint32_t(r.hash_fields) : 0u);
    put(17u, use ? uint32_t(r.table_size) : 1u);
    for (unsigned i = 0; i < (use ? r.table_size : 1u); i++)
        put(256 + i, use ? uint32_t(r.table[i]) : 0u);
}

// kite_rx_steer's table words (its header has the map): MACs in wire order
// from bit 0, IP addresses with byte 0 on top.
// In 32-bit halves: the soft CPU has no 64-bit shifts (a library call
// each), and a port's filter is 1,000 of these.
inline uint64_t mac_word(const uint8_t *m) {
    const uint32_t lo = uint32_t(m[0]) | uint32_t(m[1]) << 8 | uint32_t(m[2]) << 16 | uint32_t(m[3]) << 24;
    return uint64_t(uint32_t(m[4]) | uint32_t(m[5]) << 8) << 32 | lo;
}
inline uint64_t ip_word(const uint8_t *ip) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | ip[i];
    return v;
}

// The filter of a port: word i of FILTER_WORDS goes to filter_addr(i).
inline constexpr unsigned FILTER_WORDS = 2 + ctx::NUM_UC + ctx::NUM_MC + 64;
inline unsigned filter_addr(unsigned i) {
    if (i < 2)
        return i;
    i -= 2;
    if (i < ctx::NUM_UC)
        return 0x040 + i;
    i -= ctx::NUM_UC;
    if (i < ctx::NUM_MC)
        return 0x080 + i;
    return 0x0c0 + (i - ctx::NUM_MC);
}
inline uint64_t filter_word(const ctx::filter_ctx &f, unsigned i) {
    if (i == 0)
        return f.rx_mode & 0xfu;
    if (i == 1)
        return mac_word(f.perm_mac);
    i -= 2;
    if (i < ctx::NUM_UC)
        return mac_word(f.uc[i]) | uint64_t(i < f.num_uc) << 48;
    i -= ctx::NUM_UC;
    if (i < ctx::NUM_MC)
        return mac_word(f.mc[i]) | uint64_t(i < f.num_mc) << 48;
    i -= ctx::NUM_MC;
    uint64_t v;
    __builtin_memcpy(&v, f.vlan + 8 * i, 8);
    return v;
}

// A flow rule's words at 0x200 + 8 * rule, in the order that keeps a rule
// from matching half written: word 0 without its valid bit first, valid last.
template <class Put> void flow_words(const ctx::flow_ctx &f, unsigned rule, Put put) {
    using fr = spec::flow_rule_in;
    const uint64_t w0 = uint64_t(f.valid != 0) | uint64_t((f.match & fr::MATCH_IPV6) != 0) << 1 |
                        uint64_t((f.match & fr::MATCH_SRC_IP) != 0) << 2 |
                        uint64_t((f.match & fr::MATCH_DST_IP) != 0) << 3 |
                        uint64_t((f.match & fr::MATCH_SRC_PORT) != 0) << 4 |
                        uint64_t((f.match & fr::MATCH_DST_PORT) != 0) << 5 |
                        uint64_t(f.action < 3 ? f.action : 3) << 6 | uint64_t(f.l4_proto) << 8 |
                        uint64_t(f.sport) << 16 | uint64_t(f.dport) << 32 | uint64_t(f.ctx & 0xf) << 48;
    const unsigned a = 0x200 + 8 * rule;
    put(a, w0 & ~uint64_t(1));
    put(a + 1, uint64_t(f.rq < 0xffff ? f.rq : 0xffff));  // beyond: no such RQ either way
    put(a + 2, ip_word(f.src_ip));
    put(a + 3, ip_word(f.src_ip + 8));
    put(a + 4, ip_word(f.dst_ip));
    put(a + 5, ip_word(f.dst_ip + 8));
    if (w0 & 1)
        put(a, w0);
}

// The port's PAUSE_RX (fw_port_pause_i): an empty ring holds the frame.
inline bool port_pause_rx(const ctx::port_ctx &p) { return (p.pause & spec::port_info::PAUSE_RX) != 0; }

}  // namespace kite::fw::card
