// SPDX-License-Identifier: MIT
// MAC/PCS: pad and FCS on transmit, link state machine driven by ordered
// sets, cable and administrative state.
#pragma once

#include <cstdint>

#include "card/hw.hpp"
#include "queue/queue.hpp"

namespace kite::model {

class Mac {
public:
    Mac(Hw &hw, QueueEngine &q) : hw_(hw), q_(q) {}
    // Sends one frame (no FCS unless no_fcs: then sent as is). False if the
    // link is down (the frame is discarded, as a PHY without link does).
    bool send(unsigned port, const uint8_t *frame, size_t len, bool no_fcs);
    // An ordered set arrived.
    void os_in(unsigned port, const uint8_t *f, size_t len);
    void set_cable(unsigned port, bool plugged);
    void port_ctx_written(unsigned port);
    void service();
    void timer(uint64_t now);
    uint64_t next_deadline() const;
    void update(unsigned port);
    static constexpr uint64_t OS_RETRY_NS = 100'000'000;

private:
    Hw &hw_;
    QueueEngine &q_;
};

}  // namespace kite::model
