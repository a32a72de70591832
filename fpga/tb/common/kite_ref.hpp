// The one place where the testbenches reach the reference behaviour.
//
// The expected output of every RTL testbench comes from these calls. Toeplitz,
// CRC-32 and the ones-complement sum forward to the C++ model's pure functions
// (fpga/model/include/kite/). The frame parse still uses the stand-in in
// ref_local.hpp: the model's kite::parse_frame (two VLAN tags, IPv6
// extension headers) is a superset of what kite_rxp parses today and lives in
// the model library, not a header. Define KITE_TB_LOCAL_REF to use the
// stand-ins for everything.
#pragma once

#include <cstddef>
#include <cstdint>

#if !defined(KITE_TB_LOCAL_REF)
#define KITE_TB_USE_MODEL 1
#include <kite/crc32.hpp>
#include <kite/csum.hpp>
#include <kite/toeplitz.hpp>
#endif
#include "ref_local.hpp"

namespace kite_ref {

inline uint32_t toeplitz(const uint8_t *key40, const uint8_t *data, size_t len) {
#if defined(KITE_TB_USE_MODEL)
    return kite::toeplitz_hash(key40, 40, data, len);
#else
    return kite_ref_local::toeplitz(key40, 40, data, len);
#endif
}

inline uint32_t crc32(const uint8_t *p, size_t n) {
#if defined(KITE_TB_USE_MODEL)
    return kite::crc32(p, n);
#else
    return kite_ref_local::crc32(p, n);
#endif
}

// Ones-complement sum continuing from @init (16-bit, not inverted).
inline uint16_t csum(const uint8_t *p, size_t n, uint16_t init = 0) {
#if defined(KITE_TB_USE_MODEL)
    return kite::csum_fold(kite::csum_partial(p, n, init));
#else
    return kite_ref_local::csum_add(init, p, n);
#endif
}

using Parsed = kite_ref_local::Parsed;

// Receive parse + checksum verdicts of one frame without FCS.
inline Parsed parse(const uint8_t *f, size_t n) {
    // The model's parser is expected to fill the same facts (kite::parse_rx);
    // until then the stand-in is used in both configurations.
    return kite_ref_local::parse(f, n);
}

}  // namespace kite_ref
