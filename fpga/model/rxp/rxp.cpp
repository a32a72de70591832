// SPDX-License-Identifier: MIT
#include "rxp/rxp.hpp"

#include <cstring>

#include "kite/crc32.hpp"
#include "kite/csum.hpp"
#include "kite/ordered_set.hpp"
#include "kite/parser.hpp"
#include "kite/rss.hpp"
#include "rxp/steer.hpp"
#include "stats/stats.hpp"

namespace kite::model {

using namespace spec;

void RxPipeline::retry(unsigned port) {
    PortState &ps = hw_.ports[port];
    ps.rx_retry = false;
    std::vector<uint8_t> f;
    f.swap(ps.held);
    if (!f.empty())
        receive(port, f.data(), f.size());
    if (ps.held.empty() && ps.rx_blocked) {
        ps.rx_blocked = false;
        if (hw_.ops.rx_ready)
            hw_.ops.rx_ready(hw_.ops.opaque, port);
    }
}

int RxPipeline::receive(unsigned port, const uint8_t *f, size_t len) {
    PortState &ps = hw_.ports[port];
    port_stats &st = ps.stats;
    if (os_is(f, len)) {
        mac_.os_in(port, f, len);
        return 1;
    }
    if (!ps.link_up)
        return 1;  // the PHY has no link: nothing is received
    if (!ps.held.empty()) {
        ps.rx_blocked = true;
        return 0;
    }
    if (len < limits::MIN_FRAME) {
        st.rx_runt++;
        return 1;
    }
    if (len > size_t(hw_.port[port].mtu) + 14 + 4 + limits::FCS_LEN) {
        st.rx_oversize++;
        return 1;
    }
    const bool fcs_good = fcs_ok(f, len);
    const size_t flen = len - limits::FCS_LEN;
    parsed_frame p = parse_frame(f, flen);
    // RoCEv2 to one of the port's GIDs goes to the transport, not to an RQ.
    uint16_t rfn;
    if (p.roce && roce_.match(port, f, p, rfn)) {
        if (!fcs_good) {
            st.rx_bad_fcs++;
            return 1;
        }
        roce_.receive(port, rfn, f, flen, p);
        return 1;
    }
    const bool bcast = std::memcmp(f, "\xff\xff\xff\xff\xff\xff", 6) == 0;
    const bool mcast = (f[0] & 1) && !bcast;

    // Only the PF receives until VF steering arrives with SR-IOV.
    const uint16_t fn = 0;
    if (!filter_accepts(hw_.filter[ctx::filter_index(fn, port)], f, p.outer_tci & 0xfff, p.num_vlans > 0)) {
        st.rx_filtered++;
        return 1;
    }
    // Steering: the lowest matching ntuple rule, else RSS context 0.
    const ctx::flow_ctx *rule = flow_match(&hw_.flow[ctx::flow_index(fn, port, 0)], f, p);
    if (rule && rule->action == 2) {
        if (!fcs_good)
            st.rx_bad_fcs++;
        else
            st.rx_flow_drop++;
        return 1;
    }
    const ctx::rss_ctx &rc = hw_.rss[ctx::rss_index(fn, port, rule && rule->action == 1 ? rule->ctx : 0)];
    if (!rc.valid && !(rule && rule->action == 0)) {
        st.rx_no_buffer++;
        return 1;
    }
    rss_result h;
    if (rc.valid && rc.hash_fields && !p.malformed)
        h = rss_hash(f, p, rc.hash_fields, rc.key);
    uint32_t rqn = rule && rule->action == 0 ? rule->rq : rc.table[rc.hash_fields ? h.hash % rc.table_size : 0];
    if (rqn >= hw_.rq.size() || !hw_.rq[rqn].valid || hw_.rq[rqn].state != wq_state::RDY) {
        st.rx_no_buffer++;
        return 1;
    }
    ctx::wq_ctx &rq = hw_.rq[rqn];
    if (!fcs_good && !(rq.flags & create_wq_in::FLAGS_RX_ALL)) {
        st.rx_bad_fcs++;
        return 1;
    }
    if (p.malformed && fcs_good) {
        st.rx_malformed++;
        return 1;
    }
    if (rq.pi == rq.ci) {
        if (hw_.port[port].pause & port_info::PAUSE_RX) {
            st.rx_pause++;
            ps.held.assign(f, f + len);
            return 1;
        }
        st.rx_no_buffer++;
        rq.stats.drops++;
        return 1;
    }

    // What the host gets: FCS kept only with RX_FCS, outer 802.1Q tag
    // removed with VLAN_STRIP.
    uint8_t out[limits::MAX_MTU + 64];
    size_t dlen = (rq.flags & create_wq_in::FLAGS_RX_FCS) ? len : flen;
    bool strip = (rq.flags & create_wq_in::FLAGS_VLAN_STRIP) && p.num_vlans > 0 &&
                 get_be16(f + 12) == wire::ETH_P_8021Q;
    if (strip) {
        std::memcpy(out, f, 12);
        std::memcpy(out + 12, f + 16, dlen - 16);
        dlen -= 4;
    } else {
        std::memcpy(out, f, dlen);
    }

    const uint32_t stride = 1u << rq.log_stride;
    const uint64_t waddr = rq.base + (uint64_t(rq.ci & ((1u << rq.log_size) - 1)) << rq.log_stride);
    wqe_sge sge[(1u << limits::MAX_LOG_STRIDE) / sizeof(wqe_sge)];
    if (!hw_.dma_read(rq.fn, waddr, sge, stride)) {
        rq.stats.errors++;
        q_.wq_error(true, rqn, syndrome::DMA_READ, true);
        st.rx_no_buffer++;
        return 1;
    }
    uint32_t nsge = 0;
    size_t cap = 0;
    bool bad_key = false;
    for (; nsge < stride / sizeof(wqe_sge) && sge[nsge].len; nsge++) {
        cap += sge[nsge].len;
        bad_key |= sge[nsge].lkey != limits::LKEY_PHYS;
    }
    if (dlen > cap) {
        st.rx_oversize++;
        rq.stats.drops++;
        return 1;
    }
    const uint16_t idx = rq.ci;
    cqe c{};
    c.qpn = rqn;
    c.wqe_index = idx;
    if (bad_key) {
        rq.ci++;
        rq.stats.errors++;
        c.opcode = cqe_opcode::ERROR;
        c.status = cqe_status::LOC_PROT_ERR;
        q_.post_cqe(rq.cqn, c);
        return 1;
    }
    size_t off = 0;
    for (uint32_t i = 0; i < nsge && off < dlen; i++) {
        size_t n = std::min<size_t>(sge[i].len, dlen - off);
        if (!hw_.dma_write(rq.fn, sge[i].addr, out + off, n)) {
            rq.ci++;
            rq.stats.errors++;
            c.opcode = cqe_opcode::ERROR;
            c.status = cqe_status::LOC_PROT_ERR;
            q_.post_cqe(rq.cqn, c);
            q_.wq_error(true, rqn, syndrome::DMA_WRITE, true);
            return 1;
        }
        off += n;
    }
    rq.ci++;

    c.byte_cnt = uint32_t(dlen);
    c.opcode = cqe_opcode::ETH_RX;
    c.status = cqe_status::SUCCESS;
    c.imm_hash = h.hash;
    c.hash_type = h.hash_type;
    if (strip) {
        c.flags |= cqe::FLAGS_VLAN;
        c.vlan_tci = p.outer_tci;
    }
    bool bad_csum = false;
    if (p.l3 == l3_type::IPV4) {
        if (p.ipv4_hdr_ok)
            c.flags |= cqe::FLAGS_L3_OK;
        else
            bad_csum = true;
    }
    int l4 = l4_csum_check(f, p);
    if (l4 == 1)
        c.flags |= cqe::FLAGS_L4_OK;
    else if (l4 == 0) {
        c.flags |= cqe::FLAGS_L4_BAD;
        bad_csum = true;
    }
    // CHECKSUM_COMPLETE: everything after the 14-byte Ethernet header of the
    // delivered frame, FCS excluded.
    size_t csum_end = (rq.flags & create_wq_in::FLAGS_RX_FCS) ? dlen - limits::FCS_LEN : dlen;
    c.csum_syndrome = csum_fold(csum_partial(out + 14, csum_end - 14));
    st.rx_csum_complete++;
    if (bad_csum)
        st.rx_bad_csum++;
    st.rx_packets++;
    st.rx_bytes += flen;
    st.rx_hist[rmon_bucket(len)]++;
    if (bcast)
        st.rx_broadcast++;
    else if (mcast)
        st.rx_multicast++;
    rq.stats.packets++;
    rq.stats.bytes += flen;
    if (c.flags & (cqe::FLAGS_L4_OK | cqe::FLAGS_L3_OK))
        rq.stats.csum++;
    q_.post_cqe(rq.cqn, c);
    return 1;
}

}  // namespace kite::model
