// SPDX-License-Identifier: MIT
// RSS input selection and hashing (SET_RSS hash_fields, rss_hash_type).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kite/parser.hpp"

namespace kite {

struct rss_result {
    uint32_t hash = 0;
    uint8_t hash_type = 0;  // spec::rss_hash_type
};

// Hash of a parsed frame per @hash_fields (spec::rss_field bits) with the
// 40-byte @key. Input order is the Microsoft one: src addr, dst addr, src
// port, dst port. hash_type NONE when no field applies.
rss_result rss_hash(const uint8_t *frame, const parsed_frame &p, uint8_t hash_fields, const uint8_t *key);

}  // namespace kite
