// Stand-in reference functions, used only until fpga/model publishes its pure
// functions (kite/net.hpp). They are written from the standards, not from the
// RTL, and are themselves checked against published vectors in the
// testbenches (Microsoft RSS verification suite, the CRC-32 check value).
#pragma once

#include <algorithm>
#include <array>
#include <vector>
#include <cstddef>
#include <cstdint>

namespace kite_ref_local {

// Toeplitz hash (Microsoft RSS): for each input bit b (MSB first), XOR in the
// 32-bit key window starting at bit b.
inline uint32_t toeplitz(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len) {
    uint32_t h = 0;
    for (size_t i = 0; i < len * 8; i++) {
        if (!(data[i / 8] & (0x80 >> (i % 8)))) continue;
        uint32_t w = 0;
        for (size_t k = 0; k < 32; k++) {
            size_t kb = i + k;
            bool bit = kb / 8 < key_len && (key[kb / 8] & (0x80 >> (kb % 8)));
            w = (w << 1) | (bit ? 1u : 0u);
        }
        h ^= w;
    }
    return h;
}

// IEEE 802.3 CRC-32 (reflected 0xEDB88320, init and final xor 0xFFFFFFFF).
inline uint32_t crc32(const uint8_t *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
    }
    return ~c;
}

// RFC 1071 ones-complement sum of big-endian 16-bit words (odd tail padded
// with zero), folded to 16 bits, not inverted.
inline uint16_t csum_add(uint32_t s, const uint8_t *p, size_t n) {
    for (size_t i = 0; i + 1 < n; i += 2) s += (uint32_t(p[i]) << 8) | p[i + 1];
    if (n & 1) s += uint32_t(p[n - 1]) << 8;
    while (s >> 16) s = (s & 0xffff) + (s >> 16);
    return static_cast<uint16_t>(s);
}


// Receive parse of one frame (no FCS), as specified in fpga/rtl/rxp/kite_rxp.sv
// and Documentation/hw/rtl.rst. Bytes beyond the frame end read as zero.
struct Parsed {
    uint32_t len = 0;
    bool vlan = false;
    uint16_t tci = 0, ethertype = 0;
    uint8_t l3 = 0, l4 = 0;  // 0 none, 1 IPv4/TCP, 2 IPv6/UDP
    std::array<uint8_t, 16> src{}, dst{};  // IPv4 in bytes 0..3
    uint16_t sport = 0, dport = 0;
    bool frag = false, malformed = false, l3_ok = false, l4_ok = false, l4_bad = false;
    uint16_t csum_complete = 0;
    bool roce = false;
    uint8_t bth_opcode = 0;
    uint32_t bth_dqpn = 0, bth_psn = 0;
};

inline Parsed parse(const uint8_t *f, size_t n) {
    auto at = [&](size_t i) -> uint32_t { return i < n ? f[i] : 0; };
    auto be16 = [&](size_t i) -> uint32_t { return at(i) << 8 | at(i + 1); };
    Parsed p;
    p.len = uint32_t(n);
    p.vlan = be16(12) == 0x8100;
    size_t l3 = p.vlan ? 18 : 14;
    p.tci = p.vlan ? uint16_t(be16(14)) : 0;
    p.ethertype = uint16_t(be16(l3 - 2));
    bool v4 = p.ethertype == 0x0800, v6 = p.ethertype == 0x86dd;
    unsigned ver = at(l3) >> 4, ihl = at(l3) & 15;
    size_t tot = be16(l3 + 2), plen = be16(l3 + 4);
    bool v4_ok = v4 && n >= l3 + 20 && ver == 4 && ihl >= 5 && tot >= 4 * ihl && l3 + tot <= n;
    bool v6_ok = v6 && n >= l3 + 40 && ver == 6 && l3 + 40 + plen <= n;
    p.malformed = (v4 && !v4_ok) || (v6 && !v6_ok);
    size_t l4off = v6 ? l3 + 40 : l3 + 4 * ihl;
    size_t l3end = v6 ? l3 + 40 + plen : l3 + tot;
    // csum_complete: the frame after its first 14 bytes (operation.rst csum_syndrome).
    p.csum_complete = n > 14 ? csum_add(0, f + 14, n - 14) : 0;
    if (!v4_ok && !v6_ok) return p;
    p.l3 = v4_ok ? 1 : 2;
    uint8_t proto;
    if (v4_ok) {
        p.frag = (be16(l3 + 6) & 0x3fff) != 0;
        proto = uint8_t(at(l3 + 9));
        for (int i = 0; i < 4; i++) { p.src[i] = uint8_t(at(l3 + 12 + i)); p.dst[i] = uint8_t(at(l3 + 16 + i)); }
        p.l3_ok = csum_add(0, f + l3, 4 * ihl) == 0xffff;
    } else {
        proto = uint8_t(at(l3 + 6));
        for (int i = 0; i < 16; i++) { p.src[i] = uint8_t(at(l3 + 8 + i)); p.dst[i] = uint8_t(at(l3 + 24 + i)); }
        p.l3_ok = true;
    }
    size_t l4len = l3end - l4off;
    if (!p.frag && proto == 6 && l4len >= 20) p.l4 = 1;
    if (!p.frag && proto == 17 && l4len >= 8) p.l4 = 2;
    if (!p.l4) return p;
    p.sport = uint16_t(be16(l4off));
    p.dport = uint16_t(be16(l4off + 2));
    bool udp0 = p.l4 == 2 && v4_ok && be16(l4off + 6) == 0;
    if (!udp0) {
        // Pseudo header: src, dst, protocol, L4 length; then the L4 bytes.
        uint32_t s = proto + uint32_t(l4len);
        size_t alen = v4_ok ? 4 : 16;
        for (size_t i = 0; i < alen; i += 2) s += (uint32_t(p.src[i]) << 8 | p.src[i + 1]) + (uint32_t(p.dst[i]) << 8 | p.dst[i + 1]);
        bool good = csum_add(s, f + l4off, l4len) == 0xffff;
        p.l4_ok = good;
        p.l4_bad = !good;
    }
    if (p.l4 == 2 && p.dport == 4791 && l4len >= 20) {
        p.roce = true;
        p.bth_opcode = uint8_t(at(l4off + 8));
        p.bth_dqpn = at(l4off + 13) << 16 | at(l4off + 14) << 8 | at(l4off + 15);
        p.bth_psn = at(l4off + 17) << 16 | at(l4off + 18) << 8 | at(l4off + 19);
    }
    return p;
}

}  // namespace kite_ref_local
