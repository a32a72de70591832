// SPDX-License-Identifier: MIT
// The card: wires the blocks together, runs the firmware over its HAL and
// implements the C ABI entry points.
#pragma once

#include <cstdint>
#include <vector>

#include "card/flash.hpp"
#include "card/hw.hpp"
#include "doorbell/doorbell.hpp"
#include "kite_fw/fw.hpp"
#include "kite_fw/hal.hpp"
#include "mac/mac.hpp"
#include "pcie/pcie.hpp"
#include "queue/queue.hpp"
#include "regs/regs.hpp"
#include "roce/roce.hpp"
#include "rxp/rxp.hpp"
#include "txp/txp.hpp"

namespace kite::model {

class Card : public fw::Hal {
public:
    Card(const kite_card_config &cfg, const kite_host_ops &ops);
    ~Card();
    Card(const Card &) = delete;
    Card &operator=(const Card &) = delete;

    uint64_t mmio_read(uint16_t fn, unsigned bar, uint64_t off, unsigned size);
    void mmio_write(uint16_t fn, unsigned bar, uint64_t off, uint64_t val, unsigned size);
    int frame_in(unsigned port, const void *frame, size_t len);
    void timer();
    void service();
    void flr(uint16_t fn);
    void set_num_vfs(uint16_t n);
    void set_cable(unsigned port, bool plugged);

    // fw::Hal
    bool dma_read(uint16_t fn, uint64_t addr, void *buf, uint32_t len) override;
    bool dma_write(uint16_t fn, uint64_t addr, const void *buf, uint32_t len) override;
    void ctx_read(ctx::table t, uint32_t idx, void *buf, uint32_t len) override;
    void ctx_write(ctx::table t, uint32_t idx, const void *buf, uint32_t len) override;
    void post_async(uint16_t fn, const spec::eqe &e) override;
    uint16_t num_functions() override { return hw_.num_fn; }
    void cmdq_get(uint16_t fn, fw::cmdq_regs &r) override;
    void cmdq_set_ci(uint16_t fn, uint16_t ci) override;
    void port_stats(uint8_t port, spec::port_stats &out, bool clear) override;
    void queue_stats(bool rq, uint32_t qn, spec::queue_stats &out, bool clear) override;
    uint8_t port_link_up(uint8_t port) override { return hw_.ports[port].link_up; }
    uint8_t num_ports() override { return uint8_t(hw_.cfg.num_ports); }
    void port_mac(uint16_t fn, uint8_t port, uint8_t mac[6]) override;
    void set_health(uint32_t syndrome, bool fatal) override;
    void set_fw_version(uint32_t v) override { hw_.fw_version = v; }
    uint64_t serial() override { return hw_.cfg.serial; }
    uint32_t flash_size() override { return fw::FLASH_SIZE; }
    bool flash_read(uint32_t off, void *buf, uint32_t len) override;
    bool flash_write(uint32_t off, const void *buf, uint32_t len) override;
    uint64_t now_ns() override { return hw_.now(); }
    void log(int level, const char *msg) override { hw_.log(level, "%s", msg); }

private:
    void reset_function(uint16_t fn);
    void after_entry();
    void rearm();

    Hw hw_;
    QueueEngine q_;
    Mac mac_;
    Roce roce_;
    TxPipeline tx_;
    RxPipeline rx_;
    Regs regs_;
    Doorbells db_;
    Pcie pcie_;
    fw::Firmware fw_;
    BoardFlash flash_;
    uint64_t armed_deadline_ = NEVER;
    bool in_service_ = false;
};

}  // namespace kite::model
