// SPDX-License-Identifier: MIT
// Datapath context tables: the card-internal memory that the firmware (over
// its context port) writes to configure objects and the datapath updates at
// run time. Not host visible. The firmware writes the configuration fields;
// the datapath owns the run-time fields (pi, ci, armed, counters).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kite/spec.hpp"

namespace kite::ctx {

enum class table : uint8_t { FUNC, EQ, CQ, SQ, RQ, RSS, FILTER, PORT, MR };

inline constexpr uint32_t MAX_FN = 1 + spec::pci::MAX_VFS;
inline constexpr uint32_t NUM_EQ = 128;   // object numbers 1..NUM_EQ-1
inline constexpr uint32_t NUM_CQ = 512;
inline constexpr uint32_t NUM_SQ = 512;
inline constexpr uint32_t NUM_RQ = 512;
inline constexpr uint32_t NUM_MR = 1024;
inline constexpr uint32_t NUM_PD = 256;
inline constexpr uint32_t NUM_UC = 16;    // unicast filter entries per function and port
inline constexpr uint32_t NUM_MC = 64;    // multicast filter entries per function and port
inline constexpr uint32_t NUM_RSS = MAX_FN * spec::pci::MAX_PORTS * spec::limits::MAX_RSS_CTX;
inline constexpr uint32_t NUM_FILTER = MAX_FN * spec::pci::MAX_PORTS;

inline constexpr uint32_t rss_index(uint32_t fn, uint32_t port, uint32_t c) {
    return (fn * spec::pci::MAX_PORTS + port) * spec::limits::MAX_RSS_CTX + c;
}
inline constexpr uint32_t filter_index(uint32_t fn, uint32_t port) { return fn * spec::pci::MAX_PORTS + port; }

struct func_ctx {
    uint8_t enabled;
    uint8_t port;        // first port of the function
    uint8_t num_ports;
    uint8_t rsvd;
    uint16_t msix_vectors;
    uint16_t db_pages;
    uint32_t async_eqn;  // 0: none
};

struct eq_ctx {
    uint8_t valid, log_size, armed, async;
    uint16_t fn, vector;
    uint32_t db_page;
    uint64_t base;
    uint32_t pi, ci;     // free-running entry counts
};

struct cq_ctx {
    uint8_t valid, log_size, armed, armed_solicited;
    uint16_t fn, eqn;
    uint32_t db_page;
    uint64_t base;
    uint32_t pi, ci;
    uint16_t mod_usec, mod_count;
    uint32_t unreported;          // CQEs written since the last COMP event
    uint64_t first_unreported_ns;
    uint8_t error;                // overflowed: no more CQEs
    uint8_t rsvd[7];
};

struct wq_ctx {
    uint8_t valid, state, log_size, log_stride, port, flags, is_rq, rsvd;
    uint16_t fn, rsvd1;
    uint32_t cqn, db_page;
    uint64_t base;
    uint16_t pi, ci;              // free-running 16-bit producer / consumer
    uint32_t rsvd2;
    spec::queue_stats stats;
};

struct rss_ctx {
    uint8_t valid, hash_fields, port, rsvd;
    uint16_t fn, table_size;
    uint8_t key[spec::limits::RSS_KEY_SIZE];
    uint16_t table[spec::limits::RSS_TABLE_SIZE];
};

struct filter_ctx {
    uint8_t rx_mode;              // spec::rx_mode_in flags
    uint8_t num_uc, num_mc, rsvd;
    uint8_t perm_mac[6];          // the function's permanent MAC on this port
    uint8_t uc[NUM_UC][6];
    uint8_t mc[NUM_MC][6];
    uint8_t vlan[4096 / 8];       // bit per VID
};

struct port_ctx {
    uint8_t admin_up, pause, fec, rsvd;
    uint16_t mtu, rsvd1;
};

struct mr_ctx {
    uint8_t valid, page_shift, flags, rsvd;
    uint16_t fn, rsvd1;
    uint32_t key, pdn, access, mtt_count;
    uint64_t iova, length, mtt_addr;
};

}  // namespace kite::ctx
