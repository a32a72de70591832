// SPDX-License-Identifier: MIT
// RX pipeline: MAC checks, parse, receive filter, steering (RSS), scatter
// into the next RQ WQE, checksum verification, completion.
#pragma once

#include <cstdint>

#include "card/hw.hpp"
#include "kite/parser.hpp"
#include "mac/mac.hpp"
#include "queue/queue.hpp"
#include "roce/roce.hpp"

namespace kite::model {

class RxPipeline {
public:
    RxPipeline(Hw &hw, QueueEngine &q, Mac &mac, Roce &roce) : hw_(hw), q_(q), mac_(mac), roce_(roce) {}
    // 1: taken (delivered, dropped and counted, or held for PAUSE);
    // 0: back-pressure, the port holds a frame.
    int receive(unsigned port, const uint8_t *frame, size_t len);
    // The held frame of @port once more (PortState::rx_retry).
    void retry(unsigned port);

private:
    Hw &hw_;
    QueueEngine &q_;
    Mac &mac_;
    Roce &roce_;
};

}  // namespace kite::model
