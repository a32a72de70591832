// SPDX-License-Identifier: MIT
// Internet ones-complement checksum helpers (RFC 1071), as the TX/RX
// pipelines compute them. Sums are kept unfolded in 32 bits; words are
// big-endian as on the wire.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace kite {

// Adds n bytes to sum; p is assumed to start on an even offset of the summed
// region (an odd trailing byte is padded with zero, as RFC 1071 says).
constexpr uint32_t csum_partial(const uint8_t *p, size_t n, uint32_t sum = 0) {
    uint64_t s = sum;
    size_t i = 0;
    for (; i + 1 < n; i += 2)
        s += uint32_t(p[i]) << 8 | p[i + 1];
    if (i < n)
        s += uint32_t(p[i]) << 8;
    while (s >> 32)
        s = (s & 0xffffffffu) + (s >> 32);
    return uint32_t(s);
}

// Folds to 16 bits (not complemented): the CHECKSUM_COMPLETE value.
constexpr uint16_t csum_fold(uint32_t sum) {
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return uint16_t(sum);
}

constexpr uint32_t csum_add16(uint32_t sum, uint16_t v) {
    uint64_t s = uint64_t(sum) + v;
    return uint32_t((s & 0xffffffffu) + (s >> 32));
}

// The value to store in a checksum field: ~fold(sum).
constexpr uint16_t csum_finish(uint32_t sum) { return uint16_t(~csum_fold(sum)); }

// IPv4 header checksum over ihl*4 bytes with the checksum field taken as zero.
constexpr uint16_t ipv4_hdr_csum(const uint8_t *ip, size_t hdr_len) {
    uint32_t s = csum_partial(ip, 10);
    s = csum_partial(ip + 12, hdr_len - 12, s);
    return csum_finish(s);
}

// Pseudo-header sums (unfolded) for TCP/UDP.
constexpr uint32_t pseudo_v4(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t l4_len) {
    uint32_t s = csum_partial(src, 4);
    s = csum_partial(dst, 4, s);
    s = csum_add16(s, proto);
    return csum_add16(s, uint16_t(l4_len));
}

constexpr uint32_t pseudo_v6(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t l4_len) {
    uint32_t s = csum_partial(src, 16);
    s = csum_partial(dst, 16, s);
    s = csum_add16(s, uint16_t(l4_len >> 16));
    s = csum_add16(s, uint16_t(l4_len));
    return csum_add16(s, proto);
}

inline uint16_t get_be16(const uint8_t *p) { return uint16_t(p[0] << 8 | p[1]); }
inline uint32_t get_be32(const uint8_t *p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
inline void put_be16(uint8_t *p, uint16_t v) { p[0] = uint8_t(v >> 8); p[1] = uint8_t(v); }
inline void put_be32(uint8_t *p, uint32_t v) {
    p[0] = uint8_t(v >> 24); p[1] = uint8_t(v >> 16); p[2] = uint8_t(v >> 8); p[3] = uint8_t(v);
}

}  // namespace kite
