// SPDX-License-Identifier: MIT
// Queue engine: EQ/CQ rings with owner bits, arming and moderation; SQ/RQ
// state (doorbells, flush on error). Ethernet and RDMA WQEs are formats that
// the TX/RX pipelines interpret on top of the same rings.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <set>

#include "card/hw.hpp"

namespace kite::model {

class QueueEngine {
public:
    explicit QueueEngine(Hw &hw) : hw_(hw) {}

    void post_eqe(uint32_t eqn, spec::eqe e);
    void post_async(uint16_t fn, const spec::eqe &e);
    // Writes a CQE (owner bit set here); false if the CQ is gone or overflowed.
    bool post_cqe(uint32_t cqn, spec::cqe c, bool solicited = false);
    void cq_doorbell(uint32_t cqn, uint16_t ci, bool arm, bool solicited);
    void eq_doorbell(uint32_t eqn, uint16_t ci, bool arm);

    // SQ/RQ: doorbell accepted; the SQ joins the TX work list.
    void sq_doorbell(uint32_t sqn, uint16_t pi);
    void rq_doorbell(uint32_t rqn, uint16_t pi);
    // Moves a queue to ERR: flush posted WQEs with WR_FLUSH_ERR.
    void wq_error(bool rq, uint32_t qn, uint32_t syndrome, bool event);
    // Reacts to a firmware context write (state transitions).
    void wq_ctx_written(bool rq, uint32_t qn, const ctx::wq_ctx &old);
    void cq_ctx_written(uint32_t cqn);

    // Puts an RDMA SQ on the TX work list without a doorbell (ACKs,
    // timers and read credits make work for it).
    void kick_sq(uint32_t sqn);
    // Called for every accepted RQ doorbell of an RDMA QP.
    std::function<void(uint32_t)> on_qp_rq_doorbell;
    bool next_sq(uint32_t &sqn);
    void requeue_sq(uint32_t sqn) { tx_work_.push_back(sqn); }
    void release_sq(uint32_t sqn) { in_work_.erase(sqn); }
    bool has_tx_work() const { return !tx_work_.empty(); }
    void timer(uint64_t now);
    uint64_t next_deadline() const;
    void forget_function(uint16_t fn);

private:
    void comp_event(uint32_t cqn);
    void flush(bool rq, uint32_t qn);
    Hw &hw_;
    std::deque<uint32_t> tx_work_;
    std::set<uint32_t> in_work_;
    std::set<uint32_t> mod_pending_;  // CQs with a moderation deadline
};

}  // namespace kite::model
