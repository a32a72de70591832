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

enum class table : uint8_t { FUNC, EQ, CQ, SQ, RQ, RSS, FILTER, PORT, MR, QP, SRQ, AH, GID, FLOW };

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
inline constexpr uint32_t NUM_FLOW = MAX_FN * spec::pci::MAX_PORTS * spec::limits::MAX_FLOW_RULES;
// An RDMA QP n owns SQ n and RQ n (the doorbell names both by n), so QP
// numbers share the SQ/RQ number space; an SRQ owns an RQ number.
inline constexpr uint32_t NUM_QP = NUM_SQ;
inline constexpr uint32_t NUM_SRQ = NUM_RQ;
inline constexpr uint32_t NUM_AH = 512;
inline constexpr uint32_t NUM_GID = MAX_FN * spec::pci::MAX_PORTS * spec::limits::GID_TABLE_SIZE;
inline constexpr uint32_t GSI_WIRE_QPN = 1;  // QP1 on the wire, whatever its card number
inline constexpr uint32_t FIRST_QPN = 2;     // QP numbers 0 and 1 are never handed out

inline constexpr uint32_t rss_index(uint32_t fn, uint32_t port, uint32_t c) {
    return (fn * spec::pci::MAX_PORTS + port) * spec::limits::MAX_RSS_CTX + c;
}
inline constexpr uint32_t filter_index(uint32_t fn, uint32_t port) { return fn * spec::pci::MAX_PORTS + port; }
inline constexpr uint32_t flow_index(uint32_t fn, uint32_t port, uint32_t rule) {
    return (fn * spec::pci::MAX_PORTS + port) * spec::limits::MAX_FLOW_RULES + rule;
}
inline constexpr uint32_t gid_index(uint32_t fn, uint32_t port, uint32_t i) {
    return (fn * spec::pci::MAX_PORTS + port) * spec::limits::GID_TABLE_SIZE + i;
}

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

enum : uint8_t { WQ_ETH = 0, WQ_QP = 1, WQ_SRQ = 2 };  // wq_ctx.kind

struct wq_ctx {
    uint8_t valid, state, log_size, log_stride, port, flags, is_rq, kind;
    uint16_t fn, rsvd1;
    uint32_t cqn, db_page;        // SRQ: cqn 0 (completions go to each QP's recv CQ)
    uint64_t base;
    uint16_t pi, ci;              // free-running 16-bit producer / consumer
    uint32_t ring_lkey;           // QP/SRQ rings: base is a VA in this MR (LKEY_PHYS: bus address)
    spec::queue_stats stats;
};

struct rss_ctx {
    uint8_t valid, hash_fields, port, rsvd;
    uint16_t fn, table_size;
    uint8_t key[spec::limits::RSS_KEY_SIZE];
    uint16_t table[spec::limits::RSS_TABLE_SIZE];
};

// SET_FLOW_RULE: exact-match ntuple rule of a function and port. The lowest
// matching slot wins; addresses are IPv4-mapped for IPv4, ports host order.
struct flow_ctx {
    uint8_t valid, l4_proto, match, action;  // match: flow_rule_in::MATCH_*
    uint16_t ctx, sport, dport, rsvd;
    uint32_t rq;
    uint8_t src_ip[16], dst_ip[16];
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
    spec::rdma_stats rdma;        // RoCE counters of the port (datapath owned)
};

// A FAST_REG MR is created free (valid 0) with room for fr_max_pages; each
// REG_MR WQE rewrites key, range, access and page list and makes it valid.
struct mr_ctx {
    uint8_t valid, page_shift, flags, rsvd;
    uint16_t fn, rsvd1;
    uint32_t key, pdn, access, mtt_count;
    uint64_t iova, length, mtt_addr;
    uint32_t fr_max_pages, rsvd2;
};

// RDMA QP. The firmware writes the configuration (CREATE/MODIFY_QP); the
// datapath may move state to ERR/SQE and owns sq_draining and stats.
struct qp_ctx {
    uint8_t valid, type, state, port;
    uint16_t fn, flags;           // create_qp_in.flags
    uint32_t pdn, send_cqn, recv_cqn, srqn;  // srqn NO_OBJECT: the QP's own RQ
    uint16_t max_inline;
    uint8_t path_mtu, timeout;    // IB encodings
    uint8_t retry_cnt, rnr_retry, min_rnr_timer, max_rd_atomic;
    uint8_t max_dest_rd_atomic, access, sgid_index, av_flags;
    uint8_t hop_limit, tclass, sq_draining, sqd_notify;
    uint32_t qkey, rq_psn, sq_psn, dest_qpn, flow_label;
    uint8_t dmac[6];
    uint16_t vlan_tci;
    uint8_t dgid[16];
    spec::rdma_stats stats;
};

struct srq_ctx {
    uint8_t valid, rsvd;
    uint16_t fn;
    uint32_t pdn, limit;          // limit: SRQ_LIMIT armed while non-zero
    uint32_t rsvd1;
};

struct ah_ctx {
    uint8_t valid, rsvd;
    uint16_t fn;
    uint32_t pdn;
    spec::wqe_ud av;
};

struct gid_ctx {
    uint8_t valid, type, rsvd[2];
    uint16_t vlan_tci;            // 0xffff: untagged
    uint8_t mac[6];
    uint8_t gid[16];
};

}  // namespace kite::ctx
