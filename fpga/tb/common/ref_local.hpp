// Stand-in reference functions written from the standards (not from the RTL
// or the model), used with KITE_TB_LOCAL_REF to cross-check the model's hash,
// CRC and checksum; also checked against published vectors in the testbenches
// (Microsoft RSS verification suite, the CRC-32 check value).
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


}  // namespace kite_ref_local
