// SPDX-License-Identifier: MIT
#include "queue/queue.hpp"

namespace kite::model {

using namespace spec;

void QueueEngine::post_eqe(uint32_t eqn, eqe e) {
    if (eqn == 0 || eqn >= hw_.eq.size() || !hw_.eq[eqn].valid)
        return;
    ctx::eq_ctx &q = hw_.eq[eqn];
    uint32_t size = 1u << q.log_size;
    if (q.pi - q.ci >= size) {
        // Never overwrite an entry the driver has not consumed.
        hw_.health = health_syndrome::EQ_OVERFLOW;
        hw_.log(1, "kite: EQ %u overflow, event %u dropped", eqn, e.ev_type);
        return;
    }
    uint64_t addr = q.base + uint64_t(q.pi & (size - 1)) * sizeof(eqe);
    e.owner = uint8_t(((q.pi >> q.log_size) & 1) ^ 1);
    uint8_t owner = e.owner;
    hw_.dma_write(q.fn, addr, &e, offsetof(eqe, owner));
    hw_.dma_write(q.fn, addr + offsetof(eqe, owner), &owner, 1);
    q.pi++;
    if (q.armed) {
        q.armed = 0;
        hw_.ops.msix(hw_.ops.opaque, q.fn, q.vector);
    }
}

void QueueEngine::post_async(uint16_t fn, const eqe &e) {
    if (fn < hw_.func.size() && hw_.func[fn].async_eqn)
        post_eqe(hw_.func[fn].async_eqn, e);
}

void QueueEngine::comp_event(uint32_t cqn) {
    ctx::cq_ctx &c = hw_.cq[cqn];
    c.armed = c.armed_solicited = 0;
    c.unreported = 0;
    mod_pending_.erase(cqn);
    eqe e{};
    e.ev_type = eqe_type::COMP;
    e.obj = cqn;
    post_eqe(c.eqn, e);
}

bool QueueEngine::post_cqe(uint32_t cqn, cqe c, bool solicited) {
    if (cqn == 0 || cqn >= hw_.cq.size() || !hw_.cq[cqn].valid || hw_.cq[cqn].error)
        return false;
    ctx::cq_ctx &q = hw_.cq[cqn];
    uint32_t size = 1u << q.log_size;
    if (q.pi - q.ci >= size) {
        q.error = 1;
        mod_pending_.erase(cqn);
        hw_.log(1, "kite: CQ %u overflow", cqn);
        eqe e{};
        e.ev_type = eqe_type::CQ_ERROR;
        e.obj = cqn;
        post_async(q.fn, e);
        for (uint32_t i = 1; i < hw_.sq.size(); i++)
            if (hw_.sq[i].valid && hw_.sq[i].kind == ctx::WQ_ETH && hw_.sq[i].cqn == cqn && hw_.sq[i].state == wq_state::RDY)
                wq_error(false, i, syndrome::NONE, true);
        for (uint32_t i = 1; i < hw_.rq.size(); i++)
            if (hw_.rq[i].valid && hw_.rq[i].kind == ctx::WQ_ETH && hw_.rq[i].cqn == cqn && hw_.rq[i].state == wq_state::RDY)
                wq_error(true, i, syndrome::NONE, true);
        return false;
    }
    uint64_t addr = q.base + uint64_t(q.pi & (size - 1)) * sizeof(cqe);
    c.owner = uint8_t(((q.pi >> q.log_size) & 1) ^ 1);
    uint8_t owner = c.owner;
    hw_.dma_write(q.fn, addr, &c, offsetof(cqe, owner));
    hw_.dma_write(q.fn, addr + offsetof(cqe, owner), &owner, 1);
    q.pi++;
    if (q.unreported++ == 0)
        q.first_unreported_ns = hw_.now();
    // Errors always wake a solicited-only arm, as in IB.
    bool want = q.armed || (q.armed_solicited && (solicited || c.opcode == cqe_opcode::ERROR));
    if (!want)
        return true;
    bool moderated = q.mod_usec || q.mod_count > 1;
    if (!moderated || (q.mod_count > 1 && q.unreported >= q.mod_count))
        comp_event(cqn);
    else if (q.mod_usec)
        mod_pending_.insert(cqn);
    return true;
}

void QueueEngine::cq_doorbell(uint32_t cqn, uint16_t ci, bool arm, bool solicited) {
    ctx::cq_ctx &q = hw_.cq[cqn];
    // The doorbell carries 16 bits; extend against the producer.
    q.ci = q.pi - uint16_t(uint16_t(q.pi) - ci);
    if (!arm)
        return;
    q.armed = !solicited;
    q.armed_solicited = solicited;
    q.unreported = q.pi - q.ci;
    // CQEs the driver has not seen yet: no lost wake-up.
    if (q.pi != q.ci && !solicited)
        comp_event(cqn);
}

void QueueEngine::eq_doorbell(uint32_t eqn, uint16_t ci, bool arm) {
    ctx::eq_ctx &q = hw_.eq[eqn];
    q.ci = q.pi - uint16_t(uint16_t(q.pi) - ci);
    if (!arm)
        return;
    if (q.pi != q.ci) {
        q.armed = 0;
        hw_.ops.msix(hw_.ops.opaque, q.fn, q.vector);
    } else {
        q.armed = 1;
    }
}

void QueueEngine::sq_doorbell(uint32_t sqn, uint16_t pi) {
    hw_.sq[sqn].pi = pi;
    hw_.sq[sqn].stats.doorbells++;
    if (in_work_.insert(sqn).second)
        tx_work_.push_back(sqn);
    hw_.request_service();
}

void QueueEngine::kick_sq(uint32_t sqn) {
    if (in_work_.insert(sqn).second)
        tx_work_.push_back(sqn);
    hw_.request_service();
}

void QueueEngine::rq_doorbell(uint32_t rqn, uint16_t pi) {
    ctx::wq_ctx &q = hw_.rq[rqn];
    q.pi = pi;
    q.stats.doorbells++;
    if (q.kind == ctx::WQ_QP && on_qp_rq_doorbell)
        on_qp_rq_doorbell(rqn);
    hw_.rx_recheck(q.port);
}

bool QueueEngine::next_sq(uint32_t &sqn) {
    while (!tx_work_.empty()) {
        sqn = tx_work_.front();
        tx_work_.pop_front();
        in_work_.erase(sqn);
        const ctx::wq_ctx &q = hw_.sq[sqn];
        // An RDMA SQ may have retransmissions with nothing new posted.
        if (q.valid && q.state == wq_state::RDY && (q.pi != q.ci || q.kind == ctx::WQ_QP)) {
            in_work_.insert(sqn);  // the TX pipeline requeues or releases it
            return true;
        }
    }
    return false;
}

void QueueEngine::flush(bool rq, uint32_t qn) {
    ctx::wq_ctx &q = rq ? hw_.rq[qn] : hw_.sq[qn];
    while (q.ci != q.pi) {
        cqe c{};
        c.qpn = qn;
        c.wqe_index = q.ci;
        c.opcode = cqe_opcode::ERROR;
        c.status = cqe_status::WR_FLUSH_ERR;
        q.ci++;
        if (!post_cqe(q.cqn, c))
            break;
    }
    q.ci = q.pi;
}

void QueueEngine::wq_error(bool rq, uint32_t qn, uint32_t syn, bool event) {
    ctx::wq_ctx &q = rq ? hw_.rq[qn] : hw_.sq[qn];
    if (!q.valid || q.state == wq_state::ERR)
        return;
    q.state = wq_state::ERR;
    flush(rq, qn);
    if (event) {
        eqe e{};
        e.ev_type = eqe_type::WQ_ERROR;
        e.subtype = rq ? 1 : 0;
        e.obj = qn;
        e.data = syn;
        post_async(q.fn, e);
    }
}

void QueueEngine::wq_ctx_written(bool rq, uint32_t qn, const ctx::wq_ctx &old) {
    ctx::wq_ctx &q = rq ? hw_.rq[qn] : hw_.sq[qn];
    if (rq)
        hw_.rx_recheck(q.port);
    if (!q.valid) {
        in_work_.erase(qn);
        return;
    }
    if (q.state == wq_state::RST) {
        q.pi = q.ci = 0;
    } else if (q.state == wq_state::ERR && old.state != wq_state::ERR && q.kind == ctx::WQ_ETH) {
        q.state = old.state;
        wq_error(rq, qn, syndrome::NONE, false);
    } else if (q.state == wq_state::RDY && old.state == wq_state::RST) {
        q.pi = q.ci = 0;
    }
}

void QueueEngine::cq_ctx_written(uint32_t cqn) {
    if (!hw_.cq[cqn].valid)
        mod_pending_.erase(cqn);
}

void QueueEngine::timer(uint64_t now) {
    for (auto it = mod_pending_.begin(); it != mod_pending_.end();) {
        uint32_t cqn = *it++;
        ctx::cq_ctx &q = hw_.cq[cqn];
        if (!q.valid || (!q.armed && !q.armed_solicited)) {
            mod_pending_.erase(cqn);
            continue;
        }
        if (now >= q.first_unreported_ns + uint64_t(q.mod_usec) * 1000)
            comp_event(cqn);
    }
}

uint64_t QueueEngine::next_deadline() const {
    uint64_t d = NEVER;
    for (uint32_t cqn : mod_pending_) {
        const ctx::cq_ctx &q = hw_.cq[cqn];
        uint64_t t = q.first_unreported_ns + uint64_t(q.mod_usec) * 1000;
        if (t < d)
            d = t;
    }
    return d;
}

void QueueEngine::forget_function(uint16_t) {
    // Contexts are cleared by the firmware; drop work for queues now invalid.
    for (auto it = mod_pending_.begin(); it != mod_pending_.end();) {
        if (!hw_.cq[*it].valid)
            it = mod_pending_.erase(it);
        else
            ++it;
    }
}

}  // namespace kite::model
