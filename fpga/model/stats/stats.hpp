// SPDX-License-Identifier: MIT
// Counter helpers (RMON size histogram).
#pragma once

#include <cstddef>

#include "kite/spec.hpp"

namespace kite::model {

// rx_hist bucket of a frame length including FCS.
inline size_t rmon_bucket(size_t len) {
    if (len <= 64) return 0;
    if (len <= 127) return 1;
    if (len <= 255) return 2;
    if (len <= 511) return 3;
    if (len <= 1023) return 4;
    if (len <= 1518) return 5;
    return 6;
}

}  // namespace kite::model
