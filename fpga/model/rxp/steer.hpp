// SPDX-License-Identifier: MIT
// RX steering decisions of RxPipeline::receive on one function and port's
// tables: the receive filter and the ntuple flow rules. Header-only so the
// RTL testbench (fpga/tb/rxp/tb_rx_steer.cpp) takes its verdicts from here.
#pragma once

#include <cstdint>
#include <cstring>

#include "kite/ctx.hpp"
#include "kite/parser.hpp"
#include "kite/spec.hpp"

namespace kite::model {

// f: the frame (destination MAC first); vid, tagged: its outer 802.1Q tag.
inline bool filter_accepts(const ctx::filter_ctx &fc, const uint8_t *f, uint16_t vid, bool tagged) {
    using spec::rx_mode_in;
    if (fc.rx_mode & rx_mode_in::FLAGS_PROMISC)
        return true;
    if (tagged && vid && (fc.rx_mode & rx_mode_in::FLAGS_VLAN_FILTER) && !(fc.vlan[vid / 8] >> (vid % 8) & 1))
        return false;
    static const uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    if (std::memcmp(f, bc, 6) == 0)
        return fc.rx_mode & rx_mode_in::FLAGS_BROADCAST;
    if (f[0] & 1) {
        if (fc.rx_mode & rx_mode_in::FLAGS_ALLMULTI)
            return true;
        for (unsigned i = 0; i < fc.num_mc; i++)
            if (std::memcmp(f, fc.mc[i], 6) == 0)
                return true;
        return false;
    }
    if (std::memcmp(f, fc.perm_mac, 6) == 0)
        return true;
    for (unsigned i = 0; i < fc.num_uc; i++)
        if (std::memcmp(f, fc.uc[i], 6) == 0)
            return true;
    return false;
}

// rules: the MAX_FLOW_RULES slots of the function and port; the lowest
// matching one, or nullptr.
inline const ctx::flow_ctx *flow_match(const ctx::flow_ctx *rules, const uint8_t *f, const parsed_frame &p) {
    if (p.malformed || p.ip_frag || (p.l4 != l4_type::TCP && p.l4 != l4_type::UDP))
        return nullptr;
    const bool v6 = p.l3 == l3_type::IPV6;
    uint8_t src[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, dst[16];
    std::memcpy(dst, src, 12);
    if (v6) {
        std::memcpy(src, f + p.l3_off + 8, 16);
        std::memcpy(dst, f + p.l3_off + 24, 16);
    } else {
        std::memcpy(src + 12, f + p.l3_off + 12, 4);
        std::memcpy(dst + 12, f + p.l3_off + 16, 4);
    }
    using fr = spec::flow_rule_in;
    const ctx::flow_ctx *r = rules;
    for (unsigned i = 0; i < spec::limits::MAX_FLOW_RULES; i++, r++) {
        if (!r->valid || r->l4_proto != p.l4_proto || bool(r->match & fr::MATCH_IPV6) != v6)
            continue;
        if ((r->match & fr::MATCH_SRC_IP) && std::memcmp(r->src_ip, src, 16))
            continue;
        if ((r->match & fr::MATCH_DST_IP) && std::memcmp(r->dst_ip, dst, 16))
            continue;
        if ((r->match & fr::MATCH_SRC_PORT) && r->sport != p.sport)
            continue;
        if ((r->match & fr::MATCH_DST_PORT) && r->dport != p.dport)
            continue;
        return r;
    }
    return nullptr;
}

}  // namespace kite::model
