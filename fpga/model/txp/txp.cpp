// SPDX-License-Identifier: MIT
#include "txp/txp.hpp"

#include <cstring>

#include "kite/txoffload.hpp"

namespace kite::model {

using namespace spec;

namespace {
// Vendor syndromes in csum_syndrome of TX error CQEs.
enum : uint32_t {
    TXE_NUM_DS = 1, TXE_OPCODE, TXE_GATHER, TXE_LENGTH, TXE_LSO, TXE_LKEY, TXE_DMA,
};
constexpr size_t MAX_FRAME = tx_max_frame;  // largest frame without FCS
}  // namespace

bool TxPipeline::run(uint32_t budget) {
    uint32_t sqn;
    while (budget && q_.next_sq(sqn)) {
        if (hw_.sq[sqn].kind == ctx::WQ_QP) {
            // RDMA WQEs: the transport interprets them on the same ring.
            if (roce_.sq_run(sqn, budget))
                q_.requeue_sq(sqn);
            else
                q_.release_sq(sqn);
            continue;
        }
        // Round-robin: a few WQEs per queue per turn keeps queues fair.
        for (int i = 0; i < 16 && budget; i++, budget--) {
            ctx::wq_ctx &sq = hw_.sq[sqn];
            if (!sq.valid || sq.state != wq_state::RDY || sq.ci == sq.pi)
                break;
            process_wqe(sqn);
        }
        const ctx::wq_ctx &sq = hw_.sq[sqn];
        if (sq.valid && sq.state == wq_state::RDY && sq.ci != sq.pi)
            q_.requeue_sq(sqn);
        else
            q_.release_sq(sqn);
    }
    return q_.has_tx_work();
}

void TxPipeline::complete(uint32_t sqn, uint16_t idx, uint8_t opcode, uint8_t status, uint32_t bytes, uint32_t syn) {
    cqe c{};
    c.byte_cnt = bytes;
    c.qpn = sqn;
    c.wqe_index = idx;
    c.opcode = opcode;
    c.status = status;
    c.csum_syndrome = syn;
    c.hash_type = wqe_opcode::ETH_TX;
    q_.post_cqe(hw_.sq[sqn].cqn, c);
}

void TxPipeline::emit_cb(void *p, uint8_t *seg, size_t len) {
    auto *e = static_cast<emit_ctx *>(p);
    e->self->emit(e->port, seg, len, *e->eth);
}

void TxPipeline::emit(unsigned port, uint8_t *frame, size_t len, const wqe_eth &eth) {
    if (eth.flags & wqe_eth::FLAGS_VLAN_INSERT)
        len = tx_vlan_insert(frame, len, eth.vlan_tci);
    mac_.send(port, frame, len, eth.flags & wqe_eth::FLAGS_NO_FCS);
}

void TxPipeline::process_wqe(uint32_t sqn) {
    ctx::wq_ctx &sq = hw_.sq[sqn];
    const uint16_t fn = sq.fn;
    const uint32_t stride = 1u << sq.log_stride;
    const uint64_t addr = sq.base + (uint64_t(sq.ci & ((1u << sq.log_size) - 1)) << sq.log_stride);
    const uint16_t ci = sq.ci;
    uint8_t wqe[1u << limits::MAX_LOG_STRIDE];

    auto dma_fail = [&](uint16_t idx) {
        hw_.ports[sq.port].stats.tx_dma_error++;
        sq.stats.errors++;
        sq.ci++;
        complete(sqn, idx, cqe_opcode::ERROR, cqe_status::LOC_PROT_ERR, 0, TXE_DMA);
        q_.wq_error(false, sqn, syndrome::DMA_READ, true);
    };
    auto bad = [&](uint16_t idx, uint8_t status, uint32_t syn) {
        hw_.ports[sq.port].stats.tx_bad_desc++;
        sq.stats.drops++;
        sq.stats.errors++;
        sq.ci++;
        complete(sqn, idx, cqe_opcode::ERROR, status, 0, syn);
    };

    if (!hw_.dma_read(fn, addr, wqe, sizeof(wqe_ctrl)))
        return dma_fail(ci);
    wqe_ctrl ctrl;
    std::memcpy(&ctrl, wqe, sizeof(ctrl));
    if (ctrl.num_ds == 0 || (ctrl.num_ds + 1u) * limits::DS_SIZE > stride)
        return bad(ctrl.wqe_index, cqe_status::LOC_LEN_ERR, TXE_NUM_DS);
    if (!hw_.dma_read(fn, addr + 16, wqe + 16, ctrl.num_ds * limits::DS_SIZE))
        return dma_fail(ctrl.wqe_index);
    bool signaled = ctrl.flags & wqe_ctrl::FLAGS_SIGNALED;

    if (ctrl.opcode == wqe_opcode::NOP) {
        sq.ci++;
        if (signaled)
            complete(sqn, ctrl.wqe_index, cqe_opcode::ETH_TX, cqe_status::SUCCESS, 0, 0);
        return;
    }
    if (ctrl.opcode != wqe_opcode::ETH_TX)
        return bad(ctrl.wqe_index, cqe_status::LOC_QP_OP_ERR, TXE_OPCODE);

    wqe_eth eth;
    std::memcpy(&eth, wqe + 16, sizeof(eth));
    uint32_t nsge = ctrl.num_ds - 1u;
    if (nsge == 0 || nsge > limits::MAX_GATHER)
        return bad(ctrl.wqe_index, cqe_status::LOC_LEN_ERR, TXE_GATHER);
    wqe_sge sge[limits::MAX_GATHER];
    std::memcpy(sge, wqe + 32, nsge * sizeof(wqe_sge));
    bool lso = eth.flags & wqe_eth::FLAGS_LSO;
    size_t total = 0;
    for (uint32_t i = 0; i < nsge; i++) {
        if (sge[i].lkey != limits::LKEY_PHYS)
            return bad(ctrl.wqe_index, cqe_status::LOC_PROT_ERR, TXE_LKEY);
        total += sge[i].len;
    }
    size_t max = lso ? limits::MAX_TSO_SIZE : MAX_FRAME;
    if (total == 0 || total > max || ((eth.flags & wqe_eth::FLAGS_NO_FCS) && total < 4 + 14) || total < 14)
        return bad(ctrl.wqe_index, cqe_status::LOC_LEN_ERR, TXE_LENGTH);
    if (lso && !tx_lso_desc_ok(total, eth.hdr_len, eth.mss, sge[0].len))
        return bad(ctrl.wqe_index, cqe_status::LOC_LEN_ERR, TXE_LSO);

    uint8_t *f = buf_.data();
    size_t off = 0;
    for (uint32_t i = 0; i < nsge; i++) {
        if (sge[i].len && !hw_.dma_read(fn, sge[i].addr, f + off, sge[i].len))
            return dma_fail(ctrl.wqe_index);
        off += sge[i].len;
    }

    unsigned port = sq.port;
    sq.ci++;
    sq.stats.bytes += total;
    if (lso) {
        emit_ctx ec{this, port, &eth};
        size_t before = hw_.ports[port].stats.tx_packets;
        lso_error e = tx_lso(f, total, eth.hdr_len, eth.mss, eth.flags & wqe_eth::FLAGS_USO, seg_, emit_cb, &ec);
        if (e != lso_error::OK) {
            sq.stats.bytes -= total;
            sq.ci--;
            return bad(ctrl.wqe_index, cqe_status::LOC_LEN_ERR, TXE_LSO);
        }
        hw_.ports[port].stats.tx_lso++;
        sq.stats.lso++;
        sq.stats.packets += hw_.ports[port].stats.tx_packets - before;
    } else {
        if (eth.flags & wqe_eth::FLAGS_L3_CSUM)
            tx_l3_csum(f, total);
        if (eth.flags & wqe_eth::FLAGS_L4_CSUM)
            tx_l4_csum(f, total, eth.csum_start, eth.csum_offset);
        emit(port, f, total, eth);
        sq.stats.packets++;
    }
    // Counted once sent: a super-frame tx_lso rejects counts as a bad WQE.
    if (eth.flags & (wqe_eth::FLAGS_L3_CSUM | wqe_eth::FLAGS_L4_CSUM))
        sq.stats.csum++;
    if (signaled)
        complete(sqn, ctrl.wqe_index, cqe_opcode::ETH_TX, cqe_status::SUCCESS, uint32_t(total), 0);
}

}  // namespace kite::model
