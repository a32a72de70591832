// The one place where the testbenches reach the reference behaviour.
//
// The expected output of every RTL testbench comes from these calls, which
// forward to the C++ model's pure functions (fpga/model/include/kite/ and the
// model sources included below): kite::toeplitz_hash, kite::crc32,
// kite::csum_partial, kite::parse_frame + kite::l4_csum_check (RX parse) and
// kite::tx_l3_csum / tx_l4_csum / tx_vlan_insert / tx_lso (TX offloads).
// Nothing here re-implements the behaviour. Define KITE_TB_LOCAL_REF to use
// the stand-ins of ref_local.hpp for the hash, CRC and checksum (a cross-check
// of the model against code written from the standards).
#pragma once

#include <csetjmp>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <array>
#include <vector>

#include <kite/crc32.hpp>
#include <kite/csum.hpp>
#include <kite/parser.hpp>
#include <kite/toeplitz.hpp>
#include <kite/txoffload.hpp>
// The model's parser and TX offloads are library sources, not headers: each
// testbench is one translation unit, so they are compiled into it here.
#include "../../model/rxp/parser.cpp"
#include "../../model/txp/txoffload.cpp"
#include "ref_local.hpp"

namespace kite_ref {

inline uint32_t toeplitz(const uint8_t *key40, const uint8_t *data, size_t len) {
#if !defined(KITE_TB_LOCAL_REF)
    return kite::toeplitz_hash(key40, 40, data, len);
#else
    return kite_ref_local::toeplitz(key40, 40, data, len);
#endif
}

inline uint32_t crc32(const uint8_t *p, size_t n) {
#if !defined(KITE_TB_LOCAL_REF)
    return kite::crc32(p, n);
#else
    return kite_ref_local::crc32(p, n);
#endif
}

// Ones-complement sum continuing from @init (16-bit, not inverted).
inline uint16_t csum(const uint8_t *p, size_t n, uint16_t init = 0) {
#if !defined(KITE_TB_LOCAL_REF)
    return kite::csum_fold(kite::csum_partial(p, n, init));
#else
    return kite_ref_local::csum_add(init, p, n);
#endif
}

// ---------------------------------------------------------------- RX parse

namespace detail {
inline sigjmp_buf probe_env;
inline void probe_segv(int) { siglongjmp(probe_env, 1); }
}  // namespace detail

// True if kite::parse_frame reads any byte at or beyond @depth of the frame:
// the frame's first @depth bytes are copied to the end of a readable page
// followed by an inaccessible one, and a fault means the parse went deeper.
inline bool parse_reads_beyond(const uint8_t *f, size_t n, size_t depth) {
    if (n <= depth) return false;
    static uint8_t *pages = nullptr;
    static size_t pg = 0;
    if (!pages) {
        pg = size_t(sysconf(_SC_PAGESIZE));
        void *m = mmap(nullptr, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) std::abort();
        pages = static_cast<uint8_t *>(m);
        mprotect(pages + pg, pg, PROT_NONE);
    }
    uint8_t *g = pages + pg - depth;
    std::memcpy(g, f, depth);
    struct sigaction sa {}, old {};
    sa.sa_handler = detail::probe_segv;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old);
    volatile bool beyond = false;
    if (sigsetjmp(detail::probe_env, 1) == 0) {
        volatile kite::parsed_frame p = kite::parse_frame(g, n);
        (void)p;
    } else {
        beyond = true;
    }
    sigaction(SIGSEGV, &old, nullptr);
    return beyond;
}

// Everything the RX parser reports about one frame (no FCS).
struct Rx {
    kite::parsed_frame p;
    int l4_check = -1;                    // kite::l4_csum_check
    uint16_t csum_complete = 0;           // operation.rst csum_syndrome
    std::array<uint8_t, 16> src{}, dst{}; // IPv4 in bytes 0..3
    bool deep = false;                    // parse reads beyond @depth bytes
};

inline Rx parse(const uint8_t *f, size_t n, size_t depth) {
    Rx r;
    r.p = kite::parse_frame(f, n);
    r.l4_check = kite::l4_csum_check(f, r.p);
    r.csum_complete = n > 14 ? kite::csum_fold(kite::csum_partial(f + 14, n - 14)) : 0;
    if (r.p.l3 == kite::l3_type::IPV4) {
        std::memcpy(r.src.data(), f + r.p.l3_off + 12, 4);
        std::memcpy(r.dst.data(), f + r.p.l3_off + 16, 4);
    } else if (r.p.l3 == kite::l3_type::IPV6) {
        std::memcpy(r.src.data(), f + r.p.l3_off + 8, 16);
        std::memcpy(r.dst.data(), f + r.p.l3_off + 24, 16);
    }
    r.deep = parse_reads_beyond(f, n, depth);
    return r;
}

}  // namespace kite_ref
