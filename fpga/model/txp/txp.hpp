// SPDX-License-Identifier: MIT
// TX pipeline: WQE fetch, gather, checksum insertion, LSO, VLAN insertion,
// completion.
#pragma once

#include <cstdint>
#include <vector>

#include "card/hw.hpp"
#include "mac/mac.hpp"
#include "queue/queue.hpp"
#include "roce/roce.hpp"

namespace kite::model {

class TxPipeline {
public:
    TxPipeline(Hw &hw, QueueEngine &q, Mac &mac, Roce &roce)
        : hw_(hw), q_(q), mac_(mac), roce_(roce), buf_(limits_buf) {}
    // Processes up to budget WQEs over the pending SQs; true if work remains.
    bool run(uint32_t budget);
    // One Ethernet WQE of sqn (the RTL testbench steps SQs in the RTL's order).
    void process_wqe(uint32_t sqn);

private:
    static constexpr size_t limits_buf = spec::limits::MAX_TSO_SIZE + 64;
    enum class verdict { OK, BAD, DMA };
    void complete(uint32_t sqn, uint16_t wqe_index, uint8_t opcode, uint8_t status, uint32_t bytes, uint32_t syn);
    void emit(unsigned port, uint8_t *frame, size_t len, const spec::wqe_eth &eth);
    static void emit_cb(void *ctx, uint8_t *seg, size_t len);
    Hw &hw_;
    QueueEngine &q_;
    Mac &mac_;
    Roce &roce_;
    std::vector<uint8_t> buf_;
    uint8_t seg_[spec::limits::MAX_TSO_HDR + spec::limits::MAX_MTU + 64];
    struct emit_ctx {
        TxPipeline *self;
        unsigned port;
        const spec::wqe_eth *eth;
    };
};

}  // namespace kite::model
