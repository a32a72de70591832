// SPDX-License-Identifier: MIT
// Random RX frames shared by the rxp and rx_dma testbenches: mostly
// well-formed Ethernet (0..3 tags, IPv4 with options, IPv6 with extension
// chains, TCP/UDP/RoCEv2, fragments) with valid checksums, then maybe broken
// (truncation, lying lengths, corrupted fields, junk).
#pragma once

#include <vector>

#include "kite_ref.hpp"
#include "tb.hpp"

namespace tb {

using Frame = std::vector<uint8_t>;

inline void put16(Frame &f, size_t o, uint32_t v) { f[o] = uint8_t(v >> 8); f[o + 1] = uint8_t(v); }

// Fills a correct L4 checksum for the frame as the model parses it.
inline void fix_l4_csum(Frame &f) {
    auto p = kite::parse_frame(f.data(), f.size());
    if (p.malformed || p.ip_frag || (p.l4 != kite::l4_type::TCP && p.l4 != kite::l4_type::UDP)) return;
    size_t l4len = p.l3_end - p.l4_off;
    size_t cs = p.l4_off + (p.l4 == kite::l4_type::TCP ? 16 : 6);
    if (p.l4 == kite::l4_type::UDP) l4len = kite::get_be16(&f[p.l4_off + 4]);
    if (cs + 2 > p.l4_off + l4len) return;
    put16(f, cs, 0);
    uint32_t s = p.l3 == kite::l3_type::IPV4
                     ? kite::pseudo_v4(&f[p.l3_off + 12], &f[p.l3_off + 16], p.l4_proto, uint32_t(l4len))
                     : kite::pseudo_v6(&f[p.l3_off + 8], &f[p.l3_off + 24], p.l4_proto, uint32_t(l4len));
    uint16_t c = kite::csum_finish(kite::csum_partial(&f[p.l4_off], l4len, s));
    if (p.l4 == kite::l4_type::UDP && c == 0) c = 0xffff;
    put16(f, cs, c);
}

// Builds a mostly well-formed frame with valid checksums, then maybe breaks it.
inline Frame make_frame(tb::Rng &r) {
    using tb::chance;
    using tb::rnd;
    int kind = int(rnd(r, 0, 11));
    if (kind == 0) {  // junk of any length (incl. shorter than a header)
        Frame f = tb::rbytes(r, rnd(r, 1, 200));
        if (f.size() > 14 && chance(r, 0.6)) {
            static const uint16_t ets[] = {0x0800, 0x86dd, 0x8100, 0x88a8};
            put16(f, 12, ets[rnd(r, 0, 3)]);
            if (f.size() > 18 && chance(r, 0.5)) put16(f, 16, ets[rnd(r, 0, 3)]);
        }
        return f;
    }
    int ntags = chance(r, 0.6) ? 0 : int(rnd(r, 1, 3));
    bool v6 = chance(r, 0.45);
    int l4 = int(rnd(r, 0, 3));  // 0 other proto, 1 TCP, 2 UDP, 3 RoCEv2
    size_t ihl = v6 ? 0 : (chance(r, 0.3) ? rnd(r, 5, 15) : 5);
    Frame f = tb::rbytes(r, 12);
    for (int t = 0; t < ntags; t++) {
        f.push_back(0); f.push_back(0);
        put16(f, f.size() - 2, chance(r, 0.5) ? 0x8100 : 0x88a8);
        f.push_back(uint8_t(r())); f.push_back(uint8_t(r()));
    }
    f.push_back(0); f.push_back(0);
    put16(f, f.size() - 2, v6 ? 0x86dd : 0x0800);
    size_t l3 = f.size();
    uint8_t proto = l4 == 1 ? 6 : (l4 >= 2 ? 17 : uint8_t(chance(r, 0.5) ? 50 : rnd(r, 0, 255)));
    // L3 header (and IPv6 extension headers).
    Frame ip = tb::rbytes(r, v6 ? 40 : 4 * ihl);
    if (v6) {
        ip[0] = uint8_t(0x60 | (ip[0] & 0x0f));
        int next_at = 6;  // where the current "next header" byte lives
        int next = chance(r, 0.5) ? 0 : int(rnd(r, 1, chance(r, 0.2) ? 10 : 4));
        for (int e = 0; e < next; e++) {
            static const uint8_t ext[] = {0, 43, 60, 44, 51};
            uint8_t t = ext[rnd(r, 0, 4)];
            ip[size_t(next_at)] = t;
            size_t len = t == 44 ? 8 : (t == 51 ? 4 * (rnd(r, 0, 4) + 2) : 8 * (rnd(r, 0, chance(r, 0.1) ? 40 : 3) + 1));
            Frame h = tb::rbytes(r, len);
            if (t == 51) h[1] = uint8_t(len / 4 - 2);
            else if (t != 44) h[1] = uint8_t(len / 8 - 1);
            else if (chance(r, 0.7)) { h[2] = 0; h[3] &= 0x06; }  // atomic fragment sometimes
            next_at = int(ip.size());
            ip.insert(ip.end(), h.begin(), h.end());
        }
        ip[size_t(next_at)] = proto;
    } else {
        ip[0] = uint8_t(0x40 | ihl);
        put16(ip, 6, chance(r, 0.1) ? rnd(r, 1, 0xffff) : (ip[6] & 0x40) << 8);  // fragments sometimes
        ip[9] = proto;
    }
    // L4 header and payload.
    size_t l4hdr = 0;
    Frame l4h;
    if (l4 == 1) {
        size_t doff = chance(r, 0.3) ? rnd(r, 5, 15) : 5;
        l4h = tb::rbytes(r, 4 * doff);
        l4h[12] = uint8_t(doff << 4 | (l4h[12] & 0x0f));
        if (chance(r, 0.05)) l4h[12] = uint8_t(rnd(r, 0, 4) << 4);  // bad data offset
    } else if (l4 >= 2) {
        l4h = tb::rbytes(r, 8);
        if (l4 == 3) { put16(l4h, 2, 4791); Frame bth = tb::rbytes(r, 12); l4h.insert(l4h.end(), bth.begin(), bth.end()); }
    }
    l4hdr = l4h.size();
    size_t payload = chance(r, 0.5) ? rnd(r, 0, 40) : rnd(r, 0, chance(r, 0.9) ? 1500 : 8900);
    Frame pay = tb::rbytes(r, payload);
    size_t iplen = ip.size() + l4hdr + payload;
    if (l4 >= 2) {
        size_t ulen = l4hdr + payload;
        if (chance(r, 0.1)) ulen = rnd(r, 0, uint32_t(ulen + 8));  // lying or short UDP length
        put16(l4h, 4, uint32_t(ulen));
    }
    if (v6) put16(ip, 4, uint32_t(iplen - 40));
    else put16(ip, 2, uint32_t(iplen));
    f.insert(f.end(), ip.begin(), ip.end());
    f.insert(f.end(), l4h.begin(), l4h.end());
    f.insert(f.end(), pay.begin(), pay.end());
    if (!v6) {
        put16(f, l3 + 10, 0);
        put16(f, l3 + 10, kite::ipv4_hdr_csum(&f[l3], 4 * ihl));
    }
    fix_l4_csum(f);
    if (!v6 && l4 == 2 && chance(r, 0.1)) put16(f, l3 + 4 * ihl + 6, 0);  // UDP without checksum
    if (f.size() < 60 && chance(r, 0.7)) f.resize(60, 0);               // Ethernet padding
    if (chance(r, 0.05)) { Frame t = tb::rbytes(r, rnd(r, 1, 30)); f.insert(f.end(), t.begin(), t.end()); }
    // Breakage.
    int bad = int(rnd(r, 0, 14));
    if (bad == 0) f[rnd(r, uint32_t(l3), uint32_t(f.size() - 1))] ^= uint8_t(1u << rnd(r, 0, 7));
    if (bad == 1) f[l3] ^= 0x10;                                     // version
    if (bad == 2 && !v6) f[l3] = uint8_t(0x40 | rnd(r, 0, 4));       // IHL < 5
    if (bad == 3) f.resize(rnd(r, 1, uint32_t(f.size())));           // truncated
    if (bad == 4) put16(f, l3 + (v6 ? 4 : 2), rnd(r, 0, 0xffff));   // IP length lies
    if (bad == 5 && !v6) {
        // Checksum field 0xffff over a header whose other words sum to
        // 0xffff: the full sum is 0xffff, yet the field is not the checksum
        // (which would be 0). The model rejects it; so must the RTL.
        put16(f, l3 + 4, 0);
        put16(f, l3 + 10, 0);
        put16(f, l3 + 4, uint16_t(~kite::csum_fold(kite::csum_partial(&f[l3], 4 * ihl))));
        put16(f, l3 + 10, 0xffff);
    }
    return f;
}

}  // namespace tb
