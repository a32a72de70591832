// SPDX-License-Identifier: MIT
// Hardware abstraction of the control-plane CPU: what the firmware can reach.
// On the FPGA this is the soft CPU's MMIO window (DMA engine, context port,
// event port, command ring registers, timer, flash controller); in the model
// it is implemented by the card. Freestanding: no library types.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kite/ctx.hpp"
#include "kite/spec.hpp"

namespace kite::fw {

struct cmdq_regs {
    uint64_t base;
    uint8_t log_size;  // 0: ring disabled
    uint16_t pi, ci;
};

class Hal {
public:
    // Host memory as function fn; false on a bus/IOMMU error.
    virtual bool dma_read(uint16_t fn, uint64_t addr, void *buf, uint32_t len) = 0;
    virtual bool dma_write(uint16_t fn, uint64_t addr, const void *buf, uint32_t len) = 0;
    // Context port: whole-entry reads and writes; the datapath acts on writes.
    virtual void ctx_read(ctx::table t, uint32_t idx, void *buf, uint32_t len) = 0;
    virtual void ctx_write(ctx::table t, uint32_t idx, const void *buf, uint32_t len) = 0;
    // Event port: write an EQE to the function's async EQ (if any).
    virtual void post_async(uint16_t fn, const spec::eqe &e) = 0;
    // Command ring registers of a function.
    virtual uint16_t num_functions() = 0;
    virtual void cmdq_get(uint16_t fn, cmdq_regs &r) = 0;
    virtual void cmdq_set_ci(uint16_t fn, uint16_t ci) = 0;
    // Port counters (stats block of the MAC/datapath).
    virtual void port_stats(uint8_t port, spec::port_stats &out, bool clear) = 0;
    // An SQ's or RQ's counters (the same stats block; not in the context).
    virtual void queue_stats(bool rq, uint32_t qn, spec::queue_stats &out, bool clear) = 0;
    virtual uint8_t port_link_up(uint8_t port) = 0;
    virtual uint8_t num_ports() = 0;
    virtual void port_mac(uint16_t fn, uint8_t port, uint8_t mac[6]) = 0;
    // Status registers.
    virtual void set_health(uint32_t syndrome, bool fatal) = 0;
    virtual void set_fw_version(uint32_t version) = 0;
    virtual uint64_t serial() = 0;
    // Flash controller (byte addressed, the size is fixed by the board).
    virtual uint32_t flash_size() = 0;
    virtual bool flash_read(uint32_t off, void *buf, uint32_t len) = 0;
    virtual bool flash_write(uint32_t off, const void *buf, uint32_t len) = 0;
    virtual uint64_t now_ns() = 0;
    virtual void log(int level, const char *msg) = 0;

protected:
    ~Hal() = default;
};

}  // namespace kite::fw
