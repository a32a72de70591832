// SPDX-License-Identifier: MIT
#include "doorbell/doorbell.hpp"

namespace kite::model {

using namespace spec;

void Doorbells::write(uint16_t fn, uint64_t off, uint64_t val, unsigned size) {
    const uint32_t page = uint32_t(off / pci::DB_PAGE_SIZE);
    const uint32_t reg = uint32_t(off % pci::DB_PAGE_SIZE);
    if (size != 4 || page >= hw_.func[fn].db_pages) {
        drop(fn);
        return;
    }
    const uint32_t qn = uint32_t(val) >> db::QN_SHIFT;
    const uint16_t idx = uint16_t(val & db::INDEX_MASK);
    auto owned = [&](const auto &c) { return c.valid && c.fn == fn && c.db_page == page; };
    switch (reg) {
    case db::SQ:
    case db::RQ: {
        bool rq = reg == db::RQ;
        auto &tbl = rq ? hw_.rq : hw_.sq;
        if (qn == 0 || qn >= tbl.size() || !owned(tbl[qn]) || tbl[qn].state != wq_state::RDY ||
            uint16_t(idx - tbl[qn].ci) > (1u << tbl[qn].log_size)) {
            drop(fn);
            return;
        }
        if (rq)
            q_.rq_doorbell(qn, idx);
        else
            q_.sq_doorbell(qn, idx);
        return;
    }
    case db::CQ_CI:
    case db::CQ_ARM:
    case db::CQ_ARM_SOLICITED:
        if (qn == 0 || qn >= hw_.cq.size() || !owned(hw_.cq[qn])) {
            drop(fn);
            return;
        }
        q_.cq_doorbell(qn, idx, reg != db::CQ_CI, reg == db::CQ_ARM_SOLICITED);
        return;
    case db::EQ_CI:
    case db::EQ_ARM:
        if (qn == 0 || qn >= hw_.eq.size() || !owned(hw_.eq[qn])) {
            drop(fn);
            return;
        }
        q_.eq_doorbell(qn, idx, reg == db::EQ_ARM);
        return;
    default:
        // PUSH is not offered (CAPS.PUSH_WQE is 0).
        drop(fn);
        return;
    }
}

}  // namespace kite::model
