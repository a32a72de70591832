// SPDX-License-Identifier: MIT
// Link ordered sets, modelled as 16-byte pseudo-frames (operation.rst, "Ports
// and link"): "KITEOS", version, state, 4 reserved zero bytes, FCS.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kite/crc32.hpp"

namespace kite {

inline constexpr size_t OS_LEN = 16;
inline constexpr uint8_t OS_VERSION = 1;
inline constexpr uint8_t OS_STATE_UP = 0x1;
inline constexpr uint8_t OS_STATE_ANSWER = 0x2;

inline void os_build(uint8_t out[OS_LEN], uint8_t state) {
    const char magic[6] = {'K', 'I', 'T', 'E', 'O', 'S'};
    for (int i = 0; i < 6; i++)
        out[i] = uint8_t(magic[i]);
    out[6] = OS_VERSION;
    out[7] = state;
    for (int i = 8; i < 12; i++)
        out[i] = 0;
    fcs_put(out + 12, crc32(out, 12));
}

inline bool os_is(const uint8_t *f, size_t len) {
    return len == OS_LEN && f[0] == 'K' && f[1] == 'I' && f[2] == 'T' && f[3] == 'E' && f[4] == 'O' && f[5] == 'S';
}

}  // namespace kite
