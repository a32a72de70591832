// SPDX-License-Identifier: MIT
// Toeplitz hash as specified by Microsoft RSS: for every set bit of the input
// (MSB first) XOR in the 32-bit window of the key starting at that bit.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace kite {

constexpr uint32_t toeplitz_hash(const uint8_t *key, size_t key_len, const uint8_t *in, size_t n) {
    uint32_t result = 0;
    // The window holds key bits [i, i+32) for input bit i; the next key byte
    // is shifted in as each input byte is consumed.
    uint32_t window = 0;
    for (size_t k = 0; k < 4; k++)
        window = window << 8 | (k < key_len ? key[k] : 0);
    for (size_t i = 0; i < n; i++) {
        uint8_t next = (i + 4 < key_len) ? key[i + 4] : 0;
        for (int b = 7; b >= 0; b--) {
            if (in[i] & (1u << b))
                result ^= window;
            window = window << 1 | ((next >> b) & 1);
        }
    }
    return result;
}

// The 40-byte key from Microsoft's RSS verification suite (also the default
// of many drivers); the test vectors in the RSS documentation use it.
inline constexpr uint8_t rss_default_key[40] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
    0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
    0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

}  // namespace kite
