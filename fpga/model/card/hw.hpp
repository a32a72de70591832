// SPDX-License-Identifier: MIT
// State shared by the datapath blocks of one card: host callbacks, context
// tables, per-port and per-function registers. Blocks hold a reference to it,
// as RTL blocks share the context memories.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "kite/card_abi.h"
#include "kite/ctx.hpp"
#include "kite/spec.hpp"

namespace kite::model {

inline constexpr uint64_t NEVER = ~uint64_t(0);

struct PortState {
    bool cable = false;
    bool partner_up = false;
    bool link_up = false;
    bool local_up = false;      // cable && admin: what our ordered sets say
    bool os_pending = false;    // an ordered set waits for service()
    bool os_please = false;
    // PAUSE: a frame that found its RQ empty waits in the port's receive
    // buffer, and the port back-pressures the wire (frame_in returns 0)
    // until it is taken. It is tried again whenever something that could
    // let it through changes: an RQ doorbell or RQ context of the port, the
    // port's context.
    std::vector<uint8_t> held;
    bool rx_retry = false;      // held frame to be tried again (service)
    bool rx_blocked = false;    // frame_in returned 0; rx_ready owed
    uint64_t os_retry_ns = NEVER;
    spec::port_stats stats{};
};

struct FuncRegs {
    uint32_t scratch = 0;
    uint64_t cmdq_base = 0;
    uint8_t cmdq_log = 0;
    uint16_t cmdq_pi = 0, cmdq_ci = 0;
};

struct Hw {
    kite_card_config cfg{};
    std::string flash_path;
    kite_host_ops ops{};
    uint64_t start_ns = 0;
    uint16_t num_fn = 1;   // enabled functions (PF + VFs)
    uint16_t num_vfs = 0;
    uint32_t fw_version = 0;
    uint32_t health = 0;
    bool fatal = false;
    bool service_scheduled = false;

    std::vector<ctx::func_ctx> func = std::vector<ctx::func_ctx>(ctx::MAX_FN);
    std::vector<FuncRegs> regs = std::vector<FuncRegs>(ctx::MAX_FN);
    std::vector<ctx::eq_ctx> eq = std::vector<ctx::eq_ctx>(ctx::NUM_EQ);
    std::vector<ctx::cq_ctx> cq = std::vector<ctx::cq_ctx>(ctx::NUM_CQ);
    std::vector<ctx::wq_ctx> sq = std::vector<ctx::wq_ctx>(ctx::NUM_SQ);
    std::vector<ctx::wq_ctx> rq = std::vector<ctx::wq_ctx>(ctx::NUM_RQ);
    std::vector<ctx::rss_ctx> rss = std::vector<ctx::rss_ctx>(ctx::NUM_RSS);
    std::vector<ctx::filter_ctx> filter = std::vector<ctx::filter_ctx>(ctx::NUM_FILTER);
    std::vector<ctx::flow_ctx> flow = std::vector<ctx::flow_ctx>(ctx::NUM_FLOW);
    std::vector<ctx::port_ctx> port = std::vector<ctx::port_ctx>(spec::pci::MAX_PORTS);
    std::vector<ctx::mr_ctx> mr = std::vector<ctx::mr_ctx>(ctx::NUM_MR);
    std::vector<ctx::qp_ctx> qp = std::vector<ctx::qp_ctx>(ctx::NUM_QP);
    std::vector<ctx::srq_ctx> srq = std::vector<ctx::srq_ctx>(ctx::NUM_SRQ);
    std::vector<ctx::ah_ctx> ah = std::vector<ctx::ah_ctx>(ctx::NUM_AH);
    std::vector<ctx::gid_ctx> gid = std::vector<ctx::gid_ctx>(ctx::NUM_GID);
    PortState ports[spec::pci::MAX_PORTS];

    uint64_t now() { return ops.now_ns(ops.opaque); }
    bool dma_read(uint16_t fn, uint64_t a, void *b, size_t n) { return ops.dma_read(ops.opaque, fn, a, b, n) == 0; }
    bool dma_write(uint16_t fn, uint64_t a, const void *b, size_t n) {
        return ops.dma_write(ops.opaque, fn, a, b, n) == 0;
    }
    void rx_recheck(unsigned port) {
        if (port < spec::pci::MAX_PORTS && !ports[port].held.empty()) {
            ports[port].rx_retry = true;
            request_service();
        }
    }
    void request_service() {
        if (service_scheduled)
            return;
        service_scheduled = true;
        if (ops.schedule)
            ops.schedule(ops.opaque);
    }
    void log(int level, const char *fmt, ...) __attribute__((format(printf, 3, 4))) {
        if (!ops.log)
            return;
        char buf[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        ops.log(ops.opaque, level, buf);
    }
    // The PF's port for port-scoped counters of a function.
    spec::port_stats &fn_stats(uint16_t fn) { return ports[func[fn].port].stats; }
};

}  // namespace kite::model
