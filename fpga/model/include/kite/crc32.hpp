// SPDX-License-Identifier: MIT
// Ethernet CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320). Used for the
// FCS, firmware images and (later) the RoCE ICRC. Header-only and freestanding
// so the firmware and RTL testbenches share the exact same function.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace kite {

namespace detail {
struct crc32_table_t {
    uint32_t v[256];
    constexpr crc32_table_t() : v{} {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
            v[i] = c;
        }
    }
};
inline constexpr crc32_table_t crc32_table{};
}  // namespace detail

// Running form: start with crc = 0, feed chunks, the result is the final CRC.
constexpr uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n) {
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = detail::crc32_table.v[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

inline uint32_t crc32(const void *p, size_t n) {
    return crc32_update(0, static_cast<const uint8_t *>(p), n);
}

// The FCS is the CRC-32 of the frame, appended little-endian (LSB first).
inline void fcs_put(uint8_t *dst, uint32_t crc) {
    for (int i = 0; i < 4; i++)
        dst[i] = uint8_t(crc >> (8 * i));
}

inline bool fcs_ok(const uint8_t *frame, size_t len_with_fcs) {
    if (len_with_fcs < 4)
        return false;
    uint32_t c = crc32(frame, len_with_fcs - 4);
    const uint8_t *f = frame + len_with_fcs - 4;
    return c == (uint32_t(f[0]) | uint32_t(f[1]) << 8 | uint32_t(f[2]) << 16 | uint32_t(f[3]) << 24);
}

}  // namespace kite
