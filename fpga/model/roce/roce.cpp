// SPDX-License-Identifier: MIT
#include "roce/roce.hpp"

#include <algorithm>
#include <cstring>

#include "kite/csum.hpp"
#include "kite/roce.hpp"

namespace kite::model {

using namespace spec;
using namespace kite::roce;
namespace qs = qp_state;

namespace {
// Vendor syndromes in csum_syndrome of RDMA error CQEs (operation.rst).
enum : uint32_t {
    RE_NONE = 0, RE_OPCODE = 0x101, RE_LKEY, RE_LENGTH, RE_DMA, RE_AH, RE_NAK, RE_RETRY, RE_RNR, RE_FLUSH,
    RE_RECV_LEN, RE_RECV_PROT,
};
constexpr uint32_t MAX_MSG = 0x80000000u;  // 2 GiB, IB max message size
constexpr uint32_t ACK_EVERY = 16;          // AckReq at least every 16 packets
constexpr size_t REPLAY_DEPTH = 32;
// Packets a requester keeps unacknowledged per QP. Without a window a deep
// SQ (perftest: 128 x 64 KiB) puts megabytes on the path; one timeout then
// resends all of it behind the queue, the next ACK comes later still, and
// go-back-N collapses into RETRY_EXC_ERR. 256 x 4 KiB covers the
// bandwidth-delay product of 100 GbE up to ~80 us of round trip.
constexpr int32_t SEND_WINDOW = 256;
constexpr size_t LOOPBACK_DEPTH = 8192;      // frames between send_pkt() and service()

bool is_send(uint8_t op) { return op == wqe_opcode::SEND || op == wqe_opcode::SEND_IMM || op == wqe_opcode::SEND_INV; }
bool is_atomic(uint8_t op) { return op == wqe_opcode::ATOMIC_CS || op == wqe_opcode::ATOMIC_FA; }
bool is_rd(uint8_t op) { return op == wqe_opcode::READ || is_atomic(op); }
bool is_local(uint8_t op) {
    return op == wqe_opcode::NOP || op == wqe_opcode::LOCAL_INV || op == wqe_opcode::REG_MR;
}

void put_be64(uint8_t *p, uint64_t v) {
    put_be32(p, uint32_t(v >> 32));
    put_be32(p + 4, uint32_t(v));
}
uint64_t get_be64(const uint8_t *p) { return uint64_t(get_be32(p)) << 32 | get_be32(p + 4); }
void put_be24(uint8_t *p, uint32_t v) {
    p[0] = uint8_t(v >> 16);
    p[1] = uint8_t(v >> 8);
    p[2] = uint8_t(v);
}
uint32_t get_be24(const uint8_t *p) { return uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]; }

bool qp_receives(uint8_t s) { return s == qs::RTR || s == qs::RTS || s == qs::SQD || s == qs::SQE; }
}  // namespace

Roce::Roce(Hw &hw, QueueEngine &q, Mac &mac) : hw_(hw), q_(q), mac_(mac), rt_(ctx::NUM_QP) {}

// ------------------------------------------------------------------ memory

Roce::Fault Roce::mr_check(const ctx::qp_ctx &q, uint32_t key, uint64_t va, uint64_t len, uint32_t need,
                           bool remote, const ctx::mr_ctx **out) const {
    *out = nullptr;
    if (key == limits::LKEY_PHYS) {
        // Bus addresses: only for kernel QPs, never from the wire.
        if (remote || (q.flags & create_qp_in::FLAGS_USER))
            return Fault::KEY;
        return Fault::NONE;
    }
    uint32_t idx = key >> 8;
    if (idx == 0 || idx >= hw_.mr.size())
        return Fault::KEY;
    const ctx::mr_ctx &m = hw_.mr[idx];
    if (!m.valid || m.key != key || m.fn != q.fn)
        return Fault::KEY;
    if (m.pdn != q.pdn)
        return Fault::PD;
    if ((m.access & need) != need || (remote && (q.access & need) != need))
        return Fault::ACCESS;
    if (len) {
        uint64_t base = (m.access & create_mr_in::ACCESS_ZERO_BASED) ? 0 : m.iova;
        if (va < base || va - base > m.length || len > m.length - (va - base))
            return Fault::BOUNDS;
    }
    *out = &m;
    return Fault::NONE;
}

// REG_MR: only a free FAST_REG MR of the QP's function and PD, a range its
// page list covers and the IB access rule; anything else changes nothing.
bool Roce::fast_reg(const ctx::qp_ctx &q, const wqe_reg_mr &r) {
    using M = create_mr_in;
    uint32_t i = r.key >> 8;
    if (i == 0 || i >= hw_.mr.size())
        return false;
    ctx::mr_ctx &m = hw_.mr[i];
    if (!(m.flags & M::FLAGS_FAST_REG) || m.valid || m.fn != q.fn || m.pdn != q.pdn)
        return false;
    if (r.page_shift < 12 || r.page_shift > 30 || r.mtt_count == 0 || r.mtt_count > m.fr_max_pages ||
        (r.mtt_addr & 7) || (r.access & ~0x3fu) || r.rsvd1 || r.rsvd0[0] || r.rsvd0[1] || r.rsvd0[2])
        return false;
    if ((r.access & (M::ACCESS_REMOTE_WRITE | M::ACCESS_REMOTE_ATOMIC)) && !(r.access & M::ACCESS_LOCAL_WRITE))
        return false;
    const uint64_t ps = uint64_t(1) << r.page_shift;
    const uint64_t first = (r.access & M::ACCESS_ZERO_BASED) ? 0 : r.iova & (ps - 1);
    if (r.length == 0 || r.length > (uint64_t(r.mtt_count) << r.page_shift) ||
        first + r.length > (uint64_t(r.mtt_count) << r.page_shift))
        return false;
    m.key = r.key;
    m.access = r.access;
    m.iova = r.iova;
    m.length = r.length;
    m.mtt_addr = r.mtt_addr;
    m.mtt_count = r.mtt_count;
    m.page_shift = r.page_shift;
    m.valid = 1;
    mtt_cache_.clear();
    return true;
}

bool Roce::mem(uint16_t fn, const ctx::mr_ctx *m, uint64_t va, uint8_t *buf, size_t len, bool write) {
    if (!len)
        return true;
    if (!m || (m->flags & create_mr_in::FLAGS_PHYS))
        return write ? hw_.dma_write(fn, va, buf, len) : hw_.dma_read(fn, va, buf, len);
    // Walk the MTT page by page; entries are fetched by DMA and cached.
    const uint64_t ps = uint64_t(1) << m->page_shift;
    const bool zb = m->access & create_mr_in::ACCESS_ZERO_BASED;
    uint64_t pos = (zb ? va : va - m->iova) + (zb ? 0 : m->iova & (ps - 1));
    const uint32_t idx = m->key >> 8;
    while (len) {
        uint64_t page = pos >> m->page_shift;
        if (page >= m->mtt_count)
            return false;
        uint64_t ck = uint64_t(idx) << 32 | page;
        auto it = mtt_cache_.find(ck);
        uint64_t pa;
        if (it != mtt_cache_.end()) {
            pa = it->second;
        } else {
            if (!hw_.dma_read(m->fn, m->mtt_addr + page * 8, &pa, 8))
                return false;
            if (mtt_cache_.size() > 65536)
                mtt_cache_.clear();
            mtt_cache_[ck] = pa;
        }
        size_t in = pos & (ps - 1);
        size_t n = std::min<size_t>(len, ps - in);
        bool ok = write ? hw_.dma_write(fn, pa + in, buf, n) : hw_.dma_read(fn, pa + in, buf, n);
        if (!ok)
            return false;
        buf += n;
        len -= n;
        pos += n;
    }
    return true;
}

bool Roce::ring_read(const ctx::wq_ctx &wq, uint16_t idx, void *buf, size_t len) {
    uint64_t off = uint64_t(idx & ((1u << wq.log_size) - 1)) << wq.log_stride;
    if (wq.ring_lkey == limits::LKEY_PHYS)
        return hw_.dma_read(wq.fn, wq.base + off, buf, len);
    uint32_t i = wq.ring_lkey >> 8;
    if (i == 0 || i >= hw_.mr.size())
        return false;
    const ctx::mr_ctx &m = hw_.mr[i];
    if (!m.valid || m.key != wq.ring_lkey || m.fn != wq.fn)
        return false;
    return mem(wq.fn, &m, wq.base + off, static_cast<uint8_t *>(buf), len, false);
}

bool Roce::gather(const ctx::qp_ctx &q, const SendWqe &w, uint32_t off, uint8_t *out, uint32_t n) {
    if (w.is_inline) {
        std::memcpy(out, w.inl.data() + off, n);
        return true;
    }
    for (const wqe_sge &s : w.sge) {
        if (!n)
            break;
        if (off >= s.len) {
            off -= s.len;
            continue;
        }
        uint32_t c = std::min(n, s.len - off);
        const ctx::mr_ctx *m;
        if (mr_check(q, s.lkey, s.addr + off, c, 0, false, &m) != Fault::NONE ||
            !mem(q.fn, m, s.addr + off, out, c, false))
            return false;
        out += c;
        n -= c;
        off = 0;
    }
    return n == 0;
}

uint8_t Roce::scatter(const ctx::qp_ctx &q, const std::vector<wqe_sge> &sge, uint32_t off, const uint8_t *data,
                      uint32_t n) {
    for (const wqe_sge &s : sge) {
        if (!n)
            break;
        if (off >= s.len) {
            off -= s.len;
            continue;
        }
        uint32_t c = std::min(n, s.len - off);
        const ctx::mr_ctx *m;
        if (mr_check(q, s.lkey, s.addr + off, c, create_mr_in::ACCESS_LOCAL_WRITE, false, &m) != Fault::NONE ||
            !mem(q.fn, m, s.addr + off, const_cast<uint8_t *>(data), c, true))
            return cqe_status::LOC_PROT_ERR;
        data += c;
        n -= c;
        off = 0;
    }
    return n ? uint8_t(cqe_status::LOC_LEN_ERR) : uint8_t(cqe_status::SUCCESS);
}

// ------------------------------------------------------------------ wire

bool Roce::rc_path(uint32_t qpn, Path &pa) const {
    const ctx::qp_ctx &q = hw_.qp[qpn];
    if (q.sgid_index >= limits::GID_TABLE_SIZE)
        return false;
    pa.port = q.port;
    pa.sgid = hw_.gid[ctx::gid_index(q.fn, q.port, q.sgid_index)];
    if (!pa.sgid.valid)
        return false;
    std::memcpy(pa.dmac, q.dmac, 6);
    pa.vlan = q.av_flags & wqe_ud::FLAGS_VLAN;
    pa.tci = q.vlan_tci;
    std::memcpy(pa.dgid, q.dgid, 16);
    pa.flow_label = q.flow_label;
    pa.hop_limit = q.hop_limit ? q.hop_limit : 64;
    pa.tclass = q.tclass;
    // Flow entropy for ECMP: the same for every packet of a connection.
    pa.sport = uint16_t(0xc000 | (((qpn * 0x9e37u) ^ q.dest_qpn) & 0x3fff));
    return true;
}

bool Roce::ud_path(const ctx::qp_ctx &q, const wqe_ud &av, Path &pa) const {
    if (av.sgid_index >= limits::GID_TABLE_SIZE)
        return false;
    pa.port = q.port;
    pa.sgid = hw_.gid[ctx::gid_index(q.fn, q.port, av.sgid_index)];
    if (!pa.sgid.valid)
        return false;
    std::memcpy(pa.dmac, av.dmac, 6);
    pa.vlan = av.flags & wqe_ud::FLAGS_VLAN;
    pa.tci = av.vlan_tci;
    std::memcpy(pa.dgid, av.dgid, 16);
    pa.flow_label = av.flow_label & 0xfffff;
    pa.hop_limit = av.hop_limit ? av.hop_limit : 64;
    pa.tclass = av.tclass;
    pa.sport = uint16_t(0xc000 | (av.remote_qpn & 0x3fff));
    return true;
}

void Roce::send_pkt(uint32_t qpn, const Path &pa, uint8_t opcode, bool se, bool ackreq, uint32_t dqpn,
                    uint32_t psn, const uint8_t *ext, size_t ext_len, const uint8_t *pay, size_t pay_len) {
    uint8_t *f = frame_;
    std::memcpy(f, pa.dmac, 6);
    std::memcpy(f + 6, pa.sgid.mac, 6);
    size_t o = 12;
    if (pa.vlan) {
        put_be16(f + 12, wire::ETH_P_8021Q);
        put_be16(f + 14, pa.tci);
        o = 16;
    }
    const bool v4 = pa.sgid.type == gid_type::ROCE_V2_IPV4;
    put_be16(f + o, v4 ? 0x0800 : 0x86dd);
    o += 2;
    const size_t ip = o;
    const size_t pad = (4 - pay_len % 4) % 4;
    const size_t ulen = 8 + BTH + ext_len + pay_len + pad + ICRC;
    if (v4) {
        uint8_t *h = f + ip;
        std::memset(h, 0, 20);
        h[0] = 0x45;
        h[1] = pa.tclass;  // DSCP << 2 | ECN
        put_be16(h + 2, uint16_t(20 + ulen));
        put_be16(h + 4, ip_id_++);
        h[6] = 0x40;  // DF
        h[8] = pa.hop_limit;
        h[9] = 17;
        std::memcpy(h + 12, pa.sgid.gid + 12, 4);
        std::memcpy(h + 16, pa.dgid + 12, 4);
        put_be16(h + 10, ipv4_hdr_csum(h, 20));
        o += 20;
    } else {
        uint8_t *h = f + ip;
        put_be32(h, 6u << 28 | uint32_t(pa.tclass) << 20 | (pa.flow_label & 0xfffff));
        put_be16(h + 4, uint16_t(ulen));
        h[6] = 17;
        h[7] = pa.hop_limit;
        std::memcpy(h + 8, pa.sgid.gid, 16);
        std::memcpy(h + 24, pa.dgid, 16);
        o += 40;
    }
    uint8_t *u = f + o;
    put_be16(u, pa.sport);
    put_be16(u + 2, wire::ROCEV2_UDP_PORT);
    put_be16(u + 4, uint16_t(ulen));
    put_be16(u + 6, 0);
    uint8_t *b = u + 8;
    b[0] = opcode;
    b[1] = uint8_t((se ? 0x80 : 0) | pad << 4);  // MigReq 0, TVer 0
    put_be16(b + 2, DEFAULT_PKEY);
    b[4] = 0;
    put_be24(b + 5, dqpn & PSN_MASK);
    b[8] = ackreq ? 0x80 : 0;
    put_be24(b + 9, psn & PSN_MASK);
    o += 8 + BTH;
    if (ext_len)
        std::memcpy(f + o, ext, ext_len);
    o += ext_len;
    if (pay_len)
        std::memcpy(f + o, pay, pay_len);
    o += pay_len;
    std::memset(f + o, 0, pad);
    o += pad;
    uint32_t c = icrc(f + ip, o - ip);
    fcs_put(f + o, c);
    o += ICRC;
    if (!v4) {
        // UDP over IPv6 needs a checksum (RFC 8200); it covers the ICRC too.
        uint32_t s = pseudo_v6(f + ip + 8, f + ip + 24, 17, uint32_t(ulen));
        uint16_t cs = csum_finish(csum_partial(u, ulen, s));
        put_be16(u + 6, cs ? cs : 0xffff);
    }
    // To a GID of this port (two QPs of one device, or two functions on one
    // port): looped back before the MAC, as NICs do, so it never reaches the
    // wire and needs no link. Received from service(): the receive path
    // answers through send_pkt() and frame_.
    uint16_t lfn;
    if (local_gid(pa.port, pa.dgid, v4, lfn)) {
        if (loop_.size() >= LOOPBACK_DEPTH) {
            // A full loopback buffer drops like a wire would: retransmission recovers.
            hw_.ports[pa.port].stats.rx_no_buffer++;
            return;
        }
        loop_.push_back({pa.port, std::vector<uint8_t>(f, f + o)});
        hw_.request_service();
    } else if (!mac_.send(pa.port, f, o, false)) {
        return;
    }
    rdma_stats &ps = pstats(pa.port);
    ps.tx_packets++;
    ps.tx_bytes += o;
    rdma_stats &qs = hw_.qp[qpn].stats;
    qs.tx_packets++;
    qs.tx_bytes += o;
}

void Roce::send_aeth(uint32_t qpn, uint8_t opcode, uint32_t psn, uint8_t syndrome, const uint8_t *extra,
                     size_t extra_len, const uint8_t *pay, size_t pay_len) {
    Path pa;
    if (!rc_path(qpn, pa))
        return;
    uint8_t ext[AETH + ATOMIC_ACK_ETH];
    ext[0] = syndrome;
    put_be24(ext + 1, rt_[qpn].msn & PSN_MASK);
    if (extra_len)
        std::memcpy(ext + AETH, extra, extra_len);
    send_pkt(qpn, pa, opcode, false, false, hw_.qp[qpn].dest_qpn, psn, ext, AETH + extra_len, pay, pay_len);
}

// ------------------------------------------------------------------ requester

bool Roce::outstanding(const QpRt &r) const {
    for (const SendWqe &w : r.inflight)
        if (!w.done && !is_local(w.opcode))
            return true;
    return false;
}

void Roce::arm_timer(uint32_t qpn) {
    QpRt &r = rt_[qpn];
    uint64_t to = ack_timeout_ns(hw_.qp[qpn].timeout);
    if (outstanding(r) && to) {
        if (r.deadline == NEVER)
            r.deadline = hw_.now() + to;
    } else {
        r.deadline = NEVER;
    }
    if (r.deadline != NEVER || r.rnr_until != NEVER)
        timed_.insert(qpn);
    else
        timed_.erase(qpn);
}

// Reads and checks the WQE at the SQ's ci. false: nothing fetched; status
// set when the WQE is bad (it is then consumed and failed by the caller).
bool Roce::fetch(uint32_t qpn, SendWqe &w, uint8_t &status) {
    ctx::qp_ctx &q = hw_.qp[qpn];
    ctx::wq_ctx &sq = hw_.sq[qpn];
    status = cqe_status::SUCCESS;
    uint8_t buf[1u << limits::MAX_LOG_STRIDE];
    const uint32_t stride = 1u << sq.log_stride;
    if (!ring_read(sq, sq.ci, buf, stride)) {
        status = cqe_status::LOC_PROT_ERR;
        w.syndrome = RE_DMA;
        w.idx = sq.ci;
        return true;
    }
    wqe_ctrl c;
    std::memcpy(&c, buf, sizeof(c));
    w.idx = c.wqe_index;
    w.opcode = c.opcode;
    w.flags = c.flags;
    std::memcpy(&w.imm_raw, buf + 8, 4);
    const bool ud = q.type != qp_type::RC;
    auto bad = [&](uint8_t st, uint32_t syn) {
        status = st;
        w.syndrome = syn;
        return true;
    };
    if (c.num_ds == 0 || (c.num_ds + 1u) * limits::DS_SIZE > stride)
        return bad(cqe_status::LOC_LEN_ERR, RE_LENGTH);
    uint32_t hdr = 0;
    switch (c.opcode) {
    case wqe_opcode::SEND: case wqe_opcode::SEND_IMM: hdr = ud ? 3 : 0; break;
    case wqe_opcode::SEND_INV: case wqe_opcode::LOCAL_INV: case wqe_opcode::NOP: hdr = 0; break;
    case wqe_opcode::WRITE: case wqe_opcode::WRITE_IMM: case wqe_opcode::READ: hdr = 1; break;
    case wqe_opcode::ATOMIC_CS: case wqe_opcode::ATOMIC_FA: hdr = 2; break;
    case wqe_opcode::REG_MR: hdr = 3; break;
    default: return bad(cqe_status::LOC_QP_OP_ERR, RE_OPCODE);  // ETH_TX: not on a QP
    }
    if (ud && c.opcode != wqe_opcode::SEND && c.opcode != wqe_opcode::SEND_IMM && c.opcode != wqe_opcode::NOP)
        return bad(cqe_status::LOC_QP_OP_ERR, RE_OPCODE);
    if (c.num_ds < hdr)
        return bad(cqe_status::LOC_LEN_ERR, RE_LENGTH);
    const uint8_t *seg = buf + 16;
    if (!ud && hdr >= 1) {
        wqe_raddr ra;
        std::memcpy(&ra, seg, sizeof(ra));
        w.raddr = ra.raddr;
        w.rkey = ra.rkey;
    }
    if (hdr == 2) {
        wqe_atomic at;
        std::memcpy(&at, seg + 16, sizeof(at));
        w.swap_add = at.swap_add;
        w.compare = at.compare;
    }
    if (c.opcode == wqe_opcode::REG_MR) {
        if (c.flags & wqe_ctrl::FLAGS_INLINE)
            return bad(cqe_status::LOC_QP_OP_ERR, RE_OPCODE);
        std::memcpy(&w.reg, seg, sizeof(w.reg));
    }
    const uint8_t *data = seg + hdr * limits::DS_SIZE;
    const uint32_t nds = c.num_ds - hdr;
    uint64_t total = 0;
    if (c.flags & wqe_ctrl::FLAGS_INLINE) {
        if (is_rd(c.opcode) || c.inline_len > q.max_inline || c.inline_len > nds * limits::DS_SIZE)
            return bad(cqe_status::LOC_LEN_ERR, RE_LENGTH);
        w.is_inline = true;
        w.inl.assign(data, data + c.inline_len);
        total = c.inline_len;
    } else if (!is_local(c.opcode)) {
        const uint32_t need = is_rd(c.opcode) ? uint32_t(create_mr_in::ACCESS_LOCAL_WRITE) : 0u;
        for (uint32_t i = 0; i < nds; i++) {
            wqe_sge s;
            std::memcpy(&s, data + i * 16, sizeof(s));
            if (!s.len)
                continue;  // a zero-length message carries one empty SGE
            const ctx::mr_ctx *m;
            if (mr_check(q, s.lkey, s.addr, s.len, need, false, &m) != Fault::NONE)
                return bad(cqe_status::LOC_PROT_ERR, RE_LKEY);
            w.sge.push_back(s);
            total += s.len;
        }
    }
    if (total > MAX_MSG)
        return bad(cqe_status::LOC_LEN_ERR, RE_LENGTH);
    w.len = uint32_t(total);
    if (is_atomic(c.opcode) && w.len != 8)
        return bad(cqe_status::LOC_LEN_ERR, RE_LENGTH);
    const uint32_t mtu = mtu_bytes(q.path_mtu);
    if (is_local(c.opcode))
        w.npkts = 0;
    else if (is_atomic(c.opcode) || ud)
        w.npkts = 1;
    else
        w.npkts = std::max<uint32_t>(1, (w.len + mtu - 1) / mtu);
    return true;
}

void Roce::send_next(uint32_t qpn, SendWqe &w) {
    const ctx::qp_ctx &q = hw_.qp[qpn];
    QpRt &r = rt_[qpn];
    Path pa;
    if (!rc_path(qpn, pa))
        return fail_head(qpn, cqe_status::LOC_QP_OP_ERR, RE_AH);
    const uint32_t mtu = mtu_bytes(q.path_mtu);
    uint8_t ext[RETH + IMM + ATOMIC_ETH];
    size_t el = 0;
    uint32_t psn;
    static thread_local std::vector<uint8_t> pay(4096);
    uint32_t plen = 0;
    uint8_t op = 0;
    bool last = true;
    if (w.opcode == wqe_opcode::READ) {
        uint32_t off = w.read_off;
        psn = psn_add(w.first_psn, off / mtu);
        put_be64(ext, w.raddr + off);
        put_be32(ext + 8, w.rkey);
        put_be32(ext + 12, w.len - off);
        el = RETH;
        op = READ_REQ;
        w.sent = w.npkts;
    } else if (is_atomic(w.opcode)) {
        psn = w.first_psn;
        put_be64(ext, w.raddr);
        put_be32(ext + 8, w.rkey);
        put_be64(ext + 12, w.swap_add);
        put_be64(ext + 20, w.opcode == wqe_opcode::ATOMIC_CS ? w.compare : 0);
        el = ATOMIC_ETH;
        op = w.opcode == wqe_opcode::ATOMIC_CS ? CMP_SWAP : FETCH_ADD;
        w.sent = 1;
    } else {
        const uint32_t k = w.sent;
        const uint32_t off = k * mtu;
        plen = std::min(mtu, w.len - std::min(off, w.len));
        const bool first = k == 0;
        last = k + 1 == w.npkts;
        psn = psn_add(w.first_psn, k);
        if (plen && !gather(q, w, off, pay.data(), plen))
            return fail_head(qpn, cqe_status::LOC_PROT_ERR, RE_DMA);
        const bool imm = w.opcode == wqe_opcode::SEND_IMM || w.opcode == wqe_opcode::WRITE_IMM;
        if (is_send(w.opcode)) {
            if (first && last)
                op = imm ? SEND_ONLY_IMM : w.opcode == wqe_opcode::SEND_INV ? SEND_ONLY_INV : SEND_ONLY;
            else if (first)
                op = SEND_FIRST;
            else if (last)
                op = imm ? SEND_LAST_IMM : w.opcode == wqe_opcode::SEND_INV ? SEND_LAST_INV : SEND_LAST;
            else
                op = SEND_MIDDLE;
            if (last && (imm || w.opcode == wqe_opcode::SEND_INV)) {
                std::memcpy(ext, &w.imm_raw, 4);  // immediate / rkey as posted, in wire order
                el = 4;
            }
        } else {
            if (first) {
                put_be64(ext, w.raddr);
                put_be32(ext + 8, w.rkey);
                put_be32(ext + 12, w.len);
                el = RETH;
            }
            if (first && last)
                op = imm ? WRITE_ONLY_IMM : WRITE_ONLY;
            else if (first)
                op = WRITE_FIRST;
            else if (last)
                op = imm ? WRITE_LAST_IMM : WRITE_LAST;
            else
                op = WRITE_MIDDLE;
            if (last && imm) {
                std::memcpy(ext + el, &w.imm_raw, 4);
                el += 4;
            }
        }
        w.sent++;
    }
    // Ask for an ACK at the end of a message and every ACK_EVERY packets;
    // the responder coalesces the rest.
    bool ackreq = last || (psn % ACK_EVERY) == ACK_EVERY - 1;
    bool se = last && (w.flags & wqe_ctrl::FLAGS_SOLICITED) && (is_send(w.opcode) || w.opcode == wqe_opcode::WRITE_IMM);
    const uint32_t span = op == READ_REQ ? w.npkts - w.read_off / mtu : 1;
    if (psn_diff(psn, r.hi_psn) < 0) {
        hw_.qp[qpn].stats.retransmits++;
        pstats(q.port).retransmits++;
    }
    if (psn_diff(psn_add(psn, span), r.hi_psn) > 0)
        r.hi_psn = psn_add(psn, span);
    send_pkt(qpn, pa, op, se, ackreq, q.dest_qpn, psn, ext, el, pay.data(), plen);
}

bool Roce::ud_send(uint32_t qpn, SendWqe &w, const uint8_t *wqe) {
    const ctx::qp_ctx &q = hw_.qp[qpn];
    wqe_ud av;
    std::memcpy(&av, wqe + 16, sizeof(av));
    if (av.ah) {
        if (av.ah >= hw_.ah.size() || !hw_.ah[av.ah].valid || hw_.ah[av.ah].fn != q.fn ||
            hw_.ah[av.ah].pdn != q.pdn) {
            w.status = cqe_status::LOC_QP_OP_ERR;
            w.syndrome = RE_AH;
            return false;
        }
        wqe_ud keep = av;
        av = hw_.ah[av.ah].av;
        av.remote_qpn = keep.remote_qpn;
        av.qkey = keep.qkey;
    }
    Path pa;
    if (!ud_path(q, av, pa)) {
        w.status = cqe_status::LOC_QP_OP_ERR;
        w.syndrome = RE_AH;
        return false;
    }
    // Largest IB MTU that fits the port MTU with IP/UDP/BTH/DETH/ICRC.
    const uint32_t hdrs = (pa.sgid.type == gid_type::ROCE_V2_IPV4 ? 20 : 40) + 8 + BTH + DETH + IMM + ICRC;
    uint32_t mtu = 4096;
    while (mtu > 256 && mtu + hdrs > hw_.port[q.port].mtu)
        mtu >>= 1;
    if (w.len > mtu) {
        w.status = cqe_status::LOC_LEN_ERR;
        w.syndrome = RE_LENGTH;
        return false;
    }
    static thread_local std::vector<uint8_t> pay(4096);
    if (w.len && !gather(q, w, 0, pay.data(), w.len)) {
        w.status = cqe_status::LOC_PROT_ERR;
        w.syndrome = RE_DMA;
        return false;
    }
    uint8_t ext[DETH + IMM];
    // A Q_Key with the high bit set means "use the QP's" (IBA 10.2.5).
    put_be32(ext, (av.qkey & 0x80000000u) ? q.qkey : av.qkey);
    put_be32(ext + 4, q.type == qp_type::GSI ? ctx::GSI_WIRE_QPN : qpn);
    ext[4] = 0;
    size_t el = DETH;
    bool imm = w.opcode == wqe_opcode::SEND_IMM;
    if (imm) {
        std::memcpy(ext + DETH, &w.imm_raw, 4);
        el += IMM;
    }
    QpRt &r = rt_[qpn];
    uint32_t psn = r.next_psn;
    r.next_psn = psn_add(psn, 1);
    send_pkt(qpn, pa, imm ? UD_SEND_ONLY_IMM : UD_SEND_ONLY, w.flags & wqe_ctrl::FLAGS_SOLICITED, false,
             av.remote_qpn & PSN_MASK, psn, ext, el, pay.data(), w.len);
    return true;
}

bool Roce::sq_run(uint32_t qpn, uint32_t &budget) {
    ctx::qp_ctx &q = hw_.qp[qpn];
    ctx::wq_ctx &sq = hw_.sq[qpn];
    QpRt &r = rt_[qpn];
    if (!q.valid || !sq.valid || sq.state != wq_state::RDY)
        return false;
    if (q.state == qs::ERR || q.state == qs::SQE) {
        flush_sq_ring(qpn);  // posted after the error: flushed at once
        return false;
    }
    if (q.state != qs::RTS && q.state != qs::SQD)
        return false;  // INIT/RTR: WQEs wait for RTS
    if (r.rnr_until != NEVER) {
        if (hw_.now() < r.rnr_until)
            return false;
        r.rnr_until = NEVER;
    }
    const bool ud = q.type != qp_type::RC;
    while (budget) {
        SendWqe *next = nullptr;
        for (SendWqe &w : r.inflight)
            if (!w.done && !is_local(w.opcode) && w.sent < (is_rd(w.opcode) ? 1u : w.npkts)) {
                next = &w;
                break;
            }
        if (next) {
            // Window full: the ACK that moves una calls progress(), which
            // kicks the QP again.
            uint32_t psn = is_rd(next->opcode) ? next->first_psn : psn_add(next->first_psn, next->sent);
            if (psn_diff(psn, r.una) >= SEND_WINDOW)
                break;
            send_next(qpn, *next);
            budget--;
            if (q.state != qs::RTS && q.state != qs::SQD)
                return false;
            continue;
        }
        if (q.state != qs::RTS || sq.ci == sq.pi)
            break;
        SendWqe w;
        uint8_t st;
        fetch(qpn, w, st);
        if (st == cqe_status::SUCCESS && !ud) {
            // Fence and the initiator depth hold a WQE back until READs
            // and atomics ahead of it have their responses.
            bool fence = (w.flags & wqe_ctrl::FLAGS_FENCE) && r.rd_outstanding;
            uint32_t depth = std::max<uint32_t>(1, q.max_rd_atomic);
            if (fence || (is_rd(w.opcode) && r.rd_outstanding >= depth))
                break;
        }
        sq.ci++;
        sq.stats.packets++;
        if (st != cqe_status::SUCCESS) {
            w.done = true;
            w.status = st;
            r.inflight.push_back(std::move(w));
            complete_ready(qpn);
            if (ud) {
                q.state = qs::SQE;  // UD send errors stop the SQ only
                flush_sq_ring(qpn);
            } else {
                qp_error(qpn, 0xff);  // the error CQE says it; no async event
            }
            return false;
        }
        if (w.opcode == wqe_opcode::LOCAL_INV) {
            uint32_t key = get_be32(reinterpret_cast<const uint8_t *>(&w.imm_raw));
            uint32_t i = key >> 8;
            if (i == 0 || i >= hw_.mr.size() || !hw_.mr[i].valid || hw_.mr[i].key != key ||
                hw_.mr[i].fn != q.fn || hw_.mr[i].pdn != q.pdn) {
                w.status = cqe_status::LOC_PROT_ERR;
                w.syndrome = RE_LKEY;
            } else {
                hw_.mr[i].valid = 0;
                mtt_cache_.clear();
            }
        } else if (w.opcode == wqe_opcode::REG_MR && !fast_reg(q, w.reg)) {
            w.status = cqe_status::LOC_PROT_ERR;
            w.syndrome = RE_LKEY;
        }
        if (is_local(w.opcode) || ud) {
            if (ud && w.opcode != wqe_opcode::NOP) {
                uint8_t wq[1u << limits::MAX_LOG_STRIDE];
                ring_read(sq, uint16_t(sq.ci - 1), wq, 64);
                ud_send(qpn, w, wq);
                budget--;
            }
            w.done = true;
            r.inflight.push_back(std::move(w));
            SendWqe &b = r.inflight.back();
            bool failed = b.status != cqe_status::SUCCESS;
            complete_ready(qpn);
            if (failed) {
                if (ud) {
                    q.state = qs::SQE;
                    flush_sq_ring(qpn);
                } else {
                    qp_error(qpn, 0xff);
                }
                return false;
            }
            continue;
        }
        w.first_psn = r.next_psn;
        r.next_psn = psn_add(r.next_psn, w.npkts);
        if (is_rd(w.opcode))
            r.rd_outstanding++;
        r.inflight.push_back(std::move(w));
    }
    complete_ready(qpn);
    arm_timer(qpn);
    if (q.state == qs::SQD && q.sq_draining && !outstanding(r)) {
        q.sq_draining = 0;
        if (q.sqd_notify)
            post_qp_event(qpn, qp_event::SQ_DRAINED);
    }
    if (!budget) {
        for (const SendWqe &w : r.inflight)
            if (!w.done && !is_local(w.opcode) && w.sent < (is_rd(w.opcode) ? 1u : w.npkts))
                return true;
        return q.state == qs::RTS && sq.ci != sq.pi;
    }
    return false;
}

void Roce::post_send_cqe(uint32_t qpn, const SendWqe &w) {
    const ctx::qp_ctx &q = hw_.qp[qpn];
    bool err = w.status != cqe_status::SUCCESS;
    if (!err && !(w.flags & wqe_ctrl::FLAGS_SIGNALED) && !(q.flags & create_qp_in::FLAGS_SIG_ALL))
        return;
    cqe c{};
    c.qpn = qpn;
    c.wqe_index = w.idx;
    c.opcode = err ? cqe_opcode::ERROR : cqe_opcode::REQ;
    c.status = w.status;
    c.hash_type = w.opcode;
    c.byte_cnt = w.len;
    c.csum_syndrome = w.syndrome;
    if (err)
        hw_.sq[qpn].stats.errors++;
    q_.post_cqe(q.send_cqn, c);
}

void Roce::complete_ready(uint32_t qpn) {
    QpRt &r = rt_[qpn];
    while (!r.inflight.empty() && r.inflight.front().done) {
        post_send_cqe(qpn, r.inflight.front());
        r.inflight.pop_front();
    }
}

void Roce::fail_head(uint32_t qpn, uint8_t status, uint32_t syndrome) {
    QpRt &r = rt_[qpn];
    for (SendWqe &w : r.inflight)
        if (!w.done) {
            w.done = true;
            w.status = status;
            w.syndrome = syndrome;
            break;
        }
    complete_ready(qpn);
    qp_error(qpn, 0xff);
}

// Everything before and at psn is acknowledged (SEND/WRITE packets).
void Roce::acked_to(uint32_t qpn, uint32_t psn) {
    QpRt &r = rt_[qpn];
    bool moved = false;
    for (SendWqe &w : r.inflight) {
        if (w.done || is_local(w.opcode))
            continue;
        if (is_rd(w.opcode)) {
            // An ACK beyond an unanswered READ/atomic: its responses were lost.
            if (psn_diff(psn, w.first_psn) >= 0)
                rewind(qpn, psn_add(w.first_psn, w.read_off / mtu_bytes(hw_.qp[qpn].path_mtu)));
            break;
        }
        uint32_t last = psn_add(w.first_psn, w.npkts - 1);
        if (psn_diff(last, psn) > 0) {
            if (psn_diff(psn, w.first_psn) >= 0)
                moved = true;
            break;
        }
        w.done = true;
        moved = true;
    }
    if (psn_diff(psn_add(psn, 1), r.una) > 0) {
        r.una = psn_add(psn, 1);
        moved = true;
    }
    if (moved)
        progress(qpn);
}

void Roce::progress(uint32_t qpn) {
    QpRt &r = rt_[qpn];
    const ctx::qp_ctx &q = hw_.qp[qpn];
    r.retry_left = q.retry_cnt;
    r.rnr_left = q.rnr_retry;
    r.deadline = NEVER;  // restarted below while something is outstanding
    complete_ready(qpn);
    arm_timer(qpn);
    kick(qpn);
}

void Roce::rewind(uint32_t qpn, uint32_t psn) {
    QpRt &r = rt_[qpn];
    for (SendWqe &w : r.inflight) {
        if (w.done || is_local(w.opcode))
            continue;
        if (is_rd(w.opcode)) {
            w.sent = 0;
            continue;
        }
        int32_t d = psn_diff(psn, w.first_psn);
        if (d >= int32_t(w.npkts))
            continue;
        w.sent = d > 0 ? uint32_t(d) : 0;
    }
    kick(qpn);
}

void Roce::rx_response(uint32_t qpn, const Pkt &k) {
    ctx::qp_ctx &q = hw_.qp[qpn];
    QpRt &r = rt_[qpn];
    if (q.state != qs::RTS && q.state != qs::SQD)
        return;
    const uint8_t op = k.opcode;
    const bool has_aeth = op != READ_RESP_MIDDLE;
    const uint8_t syn = has_aeth ? k.ext[0] : 0;
    if (op == ACK && (syn & 0x60) != AETH_ACK) {
        const uint8_t kind = syn & 0x60;
        acked_to(qpn, psn_add(k.psn, PSN_MASK));  // everything before the NAKed PSN
        if (kind == AETH_RNR) {
            q.stats.rnr_retries++;
            pstats(q.port).rnr_retries++;
            if (q.rnr_retry != 7) {
                if (!r.rnr_left)
                    return fail_head(qpn, cqe_status::RNR_RETRY_EXC_ERR, RE_RNR);
                r.rnr_left--;
            }
            r.rnr_until = hw_.now() + rnr_timer_ns(syn & 0x1f);
            r.deadline = NEVER;
            rewind(qpn, k.psn);
            arm_timer(qpn);
            return;
        }
        switch (syn & 0x1f) {
        case NAK_PSN_SEQ:
            if (!r.retry_left)
                return fail_head(qpn, cqe_status::RETRY_EXC_ERR, RE_RETRY);
            r.retry_left--;
            rewind(qpn, k.psn);
            return;
        case NAK_INV_REQ: return fail_head(qpn, cqe_status::REM_INV_REQ_ERR, RE_NAK);
        case NAK_REM_ACCESS:
            q.stats.remote_access_errors++;
            pstats(q.port).remote_access_errors++;
            return fail_head(qpn, cqe_status::REM_ACCESS_ERR, RE_NAK);
        case NAK_REM_OP: return fail_head(qpn, cqe_status::REM_OP_ERR, RE_NAK);
        default: return fail_head(qpn, cqe_status::REM_INV_RD_REQ_ERR, RE_NAK);
        }
    }
    if (op == ACK) {
        acked_to(qpn, k.psn);
        return;
    }
    // READ responses and atomic ACKs complete the oldest unanswered request.
    SendWqe *w = nullptr;
    for (SendWqe &x : r.inflight)
        if (!x.done && !is_local(x.opcode)) {
            w = &x;
            break;
        }
    if (!w)
        return;  // duplicate response
    if (!is_rd(w->opcode)) {
        // Responses imply ACKs of everything before them.
        acked_to(qpn, psn_add(k.psn, PSN_MASK));
        w = nullptr;
        for (SendWqe &x : r.inflight)
            if (!x.done && !is_local(x.opcode)) {
                w = &x;
                break;
            }
        if (!w || !is_rd(w->opcode) || w->done)
            return;
    }
    const uint32_t mtu = mtu_bytes(q.path_mtu);
    if (op == ATOMIC_ACK) {
        if (!is_atomic(w->opcode) || k.psn != w->first_psn)
            return;
        uint64_t orig = get_be64(k.ext + AETH);
        uint8_t st = scatter(q, w->sge, 0, reinterpret_cast<const uint8_t *>(&orig), 8);
        w->done = true;
        w->status = st;
        if (st)
            w->syndrome = RE_RECV_PROT;
    } else {
        if (w->opcode != wqe_opcode::READ)
            return;
        uint32_t expect = psn_add(w->first_psn, w->read_off / mtu);
        int32_t d = psn_diff(k.psn, expect);
        if (d < 0)
            return;  // duplicate
        if (d > 0) {
            // A response went missing: ask again from the gap, once. The
            // rest of the burst is out of sequence too; re-requesting for
            // each of its packets would multiply the responses (a lost
            // re-request is left to the ACK timeout).
            q.stats.out_of_sequence++;
            pstats(q.port).out_of_sequence++;
            if (w->sent && !w->rd_rerequested) {
                w->rd_rerequested = true;
                rewind(qpn, expect);
            }
            return;
        }
        w->rd_rerequested = false;
        const bool last = op == READ_RESP_LAST || op == READ_RESP_ONLY;
        uint32_t left = w->len - w->read_off;
        if (k.paylen > left || (!last && k.paylen != mtu) || (last && k.paylen != left))
            return fail_head(qpn, cqe_status::BAD_RESP_ERR, RE_LENGTH);
        uint8_t st = scatter(q, w->sge, w->read_off, k.pay, uint32_t(k.paylen));
        if (st)
            return fail_head(qpn, cqe_status::LOC_PROT_ERR, RE_RECV_PROT);
        w->read_off += uint32_t(k.paylen);
        if (!last) {
            progress(qpn);
            return;
        }
        w->done = true;
    }
    if (r.rd_outstanding)
        r.rd_outstanding--;
    if (psn_diff(psn_add(k.psn, 1), r.una) > 0)
        r.una = psn_add(k.psn, 1);
    progress(qpn);
}

// ------------------------------------------------------------------ responder

bool Roce::take_rwqe(uint32_t qpn, RecvWqe &rw) {
    const ctx::qp_ctx &q = hw_.qp[qpn];
    const bool srq = q.srqn != limits::NO_OBJECT;
    const uint32_t rqn = srq ? q.srqn : qpn;
    if (rqn >= hw_.rq.size())
        return false;
    ctx::wq_ctx &rq = hw_.rq[rqn];
    if (!rq.valid || rq.pi == rq.ci)
        return false;
    const uint32_t stride = 1u << rq.log_stride;
    wqe_sge s[(1u << limits::MAX_LOG_STRIDE) / sizeof(wqe_sge)];
    if (!ring_read(rq, rq.ci, s, stride))
        return false;
    rw = RecvWqe{};
    rw.valid = true;
    rw.idx = rq.ci;
    rw.srqn = srq ? q.srqn : 0;
    for (uint32_t i = 0; i < stride / sizeof(wqe_sge) && s[i].len; i++)
        rw.sge.push_back(s[i]);
    rq.ci++;
    rq.stats.packets++;
    if (srq) {
        ctx::srq_ctx &sc = hw_.srq[rqn];
        if (sc.limit && uint16_t(rq.pi - rq.ci) < sc.limit) {
            sc.limit = 0;  // one event per arming (MODIFY_SRQ re-arms)
            eqe e{};
            e.ev_type = eqe_type::SRQ_LIMIT;
            e.obj = rqn;
            q_.post_async(sc.fn, e);
        }
    }
    return true;
}

void Roce::post_recv_cqe(uint32_t qpn, const RecvWqe &rw, uint8_t opcode, uint8_t status, uint32_t bytes,
                         uint8_t flags, uint32_t imm, uint32_t src_qp, bool solicited) {
    const ctx::qp_ctx &q = hw_.qp[qpn];
    cqe c{};
    c.qpn = qpn;
    c.wqe_index = rw.idx;
    c.opcode = status ? uint8_t(cqe_opcode::ERROR) : opcode;
    c.status = status;
    c.byte_cnt = bytes;
    c.flags = flags;
    c.imm_hash = imm;
    c.src_qp = src_qp;
    c.side = cqe::SIDE_RQ;
    if (status)
        hw_.rq[rw.srqn ? rw.srqn : qpn].stats.errors++;
    q_.post_cqe(q.recv_cqn, c, solicited);
}

void Roce::resp_error(uint32_t qpn, uint8_t nak, uint8_t event) {
    send_aeth(qpn, ACK, rt_[qpn].epsn, uint8_t(AETH_NAK | nak));
    qp_error(qpn, event);
}

void Roce::read_response(uint32_t qpn, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len) {
    const ctx::qp_ctx &q = hw_.qp[qpn];
    const ctx::mr_ctx *m = nullptr;
    if (len && mr_check(q, rkey, va, len, create_mr_in::ACCESS_REMOTE_READ, true, &m) != Fault::NONE) {
        hw_.qp[qpn].stats.remote_access_errors++;
        pstats(q.port).remote_access_errors++;
        return resp_error(qpn, NAK_REM_ACCESS, qp_event::ACCESS_ERR);
    }
    const uint32_t mtu = mtu_bytes(q.path_mtu);
    const uint32_t n = std::max<uint32_t>(1, (len + mtu - 1) / mtu);
    static thread_local std::vector<uint8_t> buf(4096);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t off = i * mtu, c = std::min(mtu, len - std::min(off, len));
        if (c && !mem(q.fn, m, va + off, buf.data(), c, false))
            return resp_error(qpn, NAK_REM_OP, qp_event::FATAL);
        uint8_t op = n == 1 ? READ_RESP_ONLY : i == 0 ? READ_RESP_FIRST : i + 1 == n ? READ_RESP_LAST : READ_RESP_MIDDLE;
        if (op == READ_RESP_MIDDLE) {
            Path pa;
            if (rc_path(qpn, pa))
                send_pkt(qpn, pa, op, false, false, q.dest_qpn, psn_add(psn, i), nullptr, 0, buf.data(), c);
        } else {
            send_aeth(qpn, op, psn_add(psn, i), AETH_ACK | AETH_CREDITS_INVALID, nullptr, 0, buf.data(), c);
        }
    }
}

void Roce::rx_request(uint32_t qpn, const Pkt &k) {
    ctx::qp_ctx &q = hw_.qp[qpn];
    QpRt &r = rt_[qpn];
    if (!qp_receives(q.state))
        return;
    if (q.state == qs::RTR && !r.comm_est) {
        r.comm_est = true;
        post_qp_event(qpn, qp_event::COMM_EST);
    }
    const uint8_t op = k.opcode;
    const int32_t d = psn_diff(k.psn, r.epsn);
    if (d > 0) {
        // A gap: NAK once with the PSN we expect; later packets of the gap are dropped.
        q.stats.out_of_sequence++;
        pstats(q.port).out_of_sequence++;
        if (!r.nak_sent) {
            r.nak_sent = true;
            q.stats.seq_errors++;
            pstats(q.port).seq_errors++;
            send_aeth(qpn, ACK, r.epsn, uint8_t(AETH_NAK) | uint8_t(NAK_PSN_SEQ));
        }
        return;
    }
    if (d < 0) {
        // Duplicate: repeat READ responses and atomic results, re-ACK the rest.
        if (op == READ_REQ) {
            read_response(qpn, k.psn, get_be64(k.ext), get_be32(k.ext + 8), get_be32(k.ext + 12));
        } else if (op == CMP_SWAP || op == FETCH_ADD) {
            for (const Replay &p : r.replay)
                if (p.psn == k.psn) {
                    uint8_t orig[8];
                    put_be64(orig, p.orig);
                    send_aeth(qpn, ATOMIC_ACK, k.psn, AETH_ACK | AETH_CREDITS_INVALID, orig, 8);
                }
        } else {
            send_aeth(qpn, ACK, psn_add(r.epsn, PSN_MASK), AETH_ACK | AETH_CREDITS_INVALID);
        }
        return;
    }
    r.nak_sent = false;
    const bool first = op == SEND_FIRST || op == SEND_ONLY || op == SEND_ONLY_IMM || op == SEND_ONLY_INV ||
                       op == WRITE_FIRST || op == WRITE_ONLY || op == WRITE_ONLY_IMM || op == READ_REQ ||
                       op == CMP_SWAP || op == FETCH_ADD;
    const bool is_sendop = op <= SEND_ONLY_IMM || op == SEND_LAST_INV || op == SEND_ONLY_INV;
    const bool is_writeop = op >= WRITE_FIRST && op <= WRITE_ONLY_IMM;
    const bool last = op == SEND_LAST || op == SEND_LAST_IMM || op == SEND_ONLY || op == SEND_ONLY_IMM ||
                      op == SEND_LAST_INV || op == SEND_ONLY_INV || op == WRITE_LAST || op == WRITE_LAST_IMM ||
                      op == WRITE_ONLY || op == WRITE_ONLY_IMM;
    // Opcode sequence (IBA 9.7.5.1.2): a message must start before it continues.
    if ((r.resp_op == 0 && !first) || (r.resp_op == 1 && (first || !is_sendop)) ||
        (r.resp_op == 2 && (first || !is_writeop)))
        return resp_error(qpn, NAK_INV_REQ, qp_event::REQ_ERR);
    const uint32_t mtu = mtu_bytes(q.path_mtu);
    if ((!last && (is_sendop || is_writeop) && k.paylen != mtu) || k.paylen > mtu)
        return resp_error(qpn, NAK_INV_REQ, qp_event::REQ_ERR);

    if (op == READ_REQ) {
        uint32_t len = get_be32(k.ext + 12);
        if (len > MAX_MSG)
            return resp_error(qpn, NAK_INV_REQ, qp_event::REQ_ERR);
        read_response(qpn, k.psn, get_be64(k.ext), get_be32(k.ext + 8), len);
        if (q.state == qs::ERR)
            return;
        r.epsn = psn_add(r.epsn, std::max<uint32_t>(1, (len + mtu - 1) / mtu));
        r.msn++;
        return;
    }
    if (op == CMP_SWAP || op == FETCH_ADD) {
        uint64_t va = get_be64(k.ext);
        uint32_t rkey = get_be32(k.ext + 8);
        if (va & 7)
            return resp_error(qpn, NAK_INV_REQ, qp_event::REQ_ERR);
        const ctx::mr_ctx *m;
        if (mr_check(q, rkey, va, 8, create_mr_in::ACCESS_REMOTE_ATOMIC, true, &m) != Fault::NONE) {
            q.stats.remote_access_errors++;
            pstats(q.port).remote_access_errors++;
            return resp_error(qpn, NAK_REM_ACCESS, qp_event::ACCESS_ERR);
        }
        uint64_t cur;
        if (!mem(q.fn, m, va, reinterpret_cast<uint8_t *>(&cur), 8, false))
            return resp_error(qpn, NAK_REM_OP, qp_event::FATAL);
        uint64_t swap = get_be64(k.ext + 12), cmp = get_be64(k.ext + 20);
        uint64_t nv = op == FETCH_ADD ? cur + swap : (cur == cmp ? swap : cur);
        // Host memory holds the value in the host's (little-endian) order.
        if (nv != cur && !mem(q.fn, m, va, reinterpret_cast<uint8_t *>(&nv), 8, true))
            return resp_error(qpn, NAK_REM_OP, qp_event::FATAL);
        r.replay.push_back({k.psn, cur});
        if (r.replay.size() > REPLAY_DEPTH)
            r.replay.pop_front();
        r.msn++;
        uint8_t orig[8];
        put_be64(orig, cur);
        send_aeth(qpn, ATOMIC_ACK, k.psn, AETH_ACK | AETH_CREDITS_INVALID, orig, 8);
        r.epsn = psn_add(r.epsn, 1);
        return;
    }

    const uint8_t *ext = k.ext;
    const bool imm = op == SEND_LAST_IMM || op == SEND_ONLY_IMM || op == WRITE_LAST_IMM || op == WRITE_ONLY_IMM;
    if (is_writeop) {
        if (first) {
            r.w_va = get_be64(ext);
            r.w_rkey = get_be32(ext + 8);
            r.w_left = get_be32(ext + 12);
            ext += RETH;
            const ctx::mr_ctx *m;
            if (r.w_left &&
                mr_check(q, r.w_rkey, r.w_va, r.w_left, create_mr_in::ACCESS_REMOTE_WRITE, true, &m) != Fault::NONE) {
                q.stats.remote_access_errors++;
                pstats(q.port).remote_access_errors++;
                return resp_error(qpn, NAK_REM_ACCESS, qp_event::ACCESS_ERR);
            }
            r.rw_off = 0;
        }
        if (k.paylen > r.w_left || (last && k.paylen != r.w_left))
            return resp_error(qpn, NAK_INV_REQ, qp_event::REQ_ERR);
        // WRITE with immediate consumes a receive WQE: refuse before writing.
        if (imm && !r.rw.valid && !take_rwqe(qpn, r.rw)) {
            q.stats.rnr_naks++;
            pstats(q.port).rnr_naks++;
            send_aeth(qpn, ACK, r.epsn, uint8_t(AETH_RNR | (q.min_rnr_timer & 0x1f)));
            return;
        }
        if (k.paylen) {
            const ctx::mr_ctx *m;
            if (mr_check(q, r.w_rkey, r.w_va, k.paylen, create_mr_in::ACCESS_REMOTE_WRITE, true, &m) != Fault::NONE) {
                q.stats.remote_access_errors++;
                pstats(q.port).remote_access_errors++;
                return resp_error(qpn, NAK_REM_ACCESS, qp_event::ACCESS_ERR);
            }
            if (!mem(q.fn, m, r.w_va, const_cast<uint8_t *>(k.pay), k.paylen, true))
                return resp_error(qpn, NAK_REM_OP, qp_event::FATAL);
        }
        r.w_va += k.paylen;
        r.w_left -= uint32_t(k.paylen);
        r.rw_off += uint32_t(k.paylen);
        r.resp_op = last ? 0 : 2;
        if (last && imm) {
            uint32_t iv;
            std::memcpy(&iv, ext, 4);
            post_recv_cqe(qpn, r.rw, cqe_opcode::RESP_WRITE_IMM, 0, r.rw_off, cqe::FLAGS_IMM, iv, 0, k.se);
            r.rw = RecvWqe{};
        }
    } else {
        if (first && !take_rwqe(qpn, r.rw)) {
            q.stats.rnr_naks++;
            pstats(q.port).rnr_naks++;
            send_aeth(qpn, ACK, r.epsn, uint8_t(AETH_RNR | (q.min_rnr_timer & 0x1f)));
            return;
        }
        if (first)
            r.rw_off = 0;
        uint8_t st = scatter(q, r.rw.sge, r.rw_off, k.pay, uint32_t(k.paylen));
        if (st) {
            post_recv_cqe(qpn, r.rw, 0, st, r.rw_off, 0, 0, 0, false);
            r.rw = RecvWqe{};
            return resp_error(qpn, st == cqe_status::LOC_LEN_ERR ? NAK_INV_REQ : NAK_REM_OP,
                              st == cqe_status::LOC_LEN_ERR ? qp_event::REQ_ERR : qp_event::FATAL);
        }
        r.rw_off += uint32_t(k.paylen);
        r.resp_op = last ? 0 : 1;
        if (last) {
            uint8_t flags = 0, cop = cqe_opcode::RESP_SEND;
            uint32_t iv = 0;
            if (imm) {
                std::memcpy(&iv, ext, 4);
                flags = cqe::FLAGS_IMM;
                cop = cqe_opcode::RESP_SEND_IMM;
            } else if (op == SEND_LAST_INV || op == SEND_ONLY_INV) {
                uint32_t key = get_be32(ext);
                uint32_t i = key >> 8;
                if (i == 0 || i >= hw_.mr.size() || !hw_.mr[i].valid || hw_.mr[i].key != key ||
                    hw_.mr[i].fn != q.fn || hw_.mr[i].pdn != q.pdn) {
                    post_recv_cqe(qpn, r.rw, 0, cqe_status::LOC_PROT_ERR, r.rw_off, 0, 0, 0, false);
                    r.rw = RecvWqe{};
                    return resp_error(qpn, NAK_REM_OP, qp_event::FATAL);
                }
                hw_.mr[i].valid = 0;
                mtt_cache_.clear();
                iv = key;
                flags = cqe::FLAGS_INV;
                cop = cqe_opcode::RESP_SEND_INV;
            }
            post_recv_cqe(qpn, r.rw, cop, 0, r.rw_off, flags, iv, 0, k.se);
            r.rw = RecvWqe{};
        }
    }
    r.epsn = psn_add(r.epsn, 1);
    if (last)
        r.msn++;
    if (k.ackreq)
        send_aeth(qpn, ACK, k.psn, AETH_ACK | AETH_CREDITS_INVALID);
}

void Roce::rx_ud(uint32_t qpn, const Pkt &k) {
    ctx::qp_ctx &q = hw_.qp[qpn];
    if (!qp_receives(q.state) || k.qkey != q.qkey)
        return;  // IBA 10.2.5: a Q_Key mismatch is dropped silently
    RecvWqe rw;
    if (!take_rwqe(qpn, rw)) {
        hw_.ports[q.port].stats.rx_no_buffer++;
        return;
    }
    // The GRH goes first, as IB requires; for IPv4 the 20-byte IP header
    // fills its last 20 bytes (the Linux RoCE convention).
    uint8_t grh[GRH] = {};
    if (k.v4)
        std::memcpy(grh + 20, k.ip, 20);
    else
        std::memcpy(grh, k.ip, 40);
    uint8_t st = scatter(q, rw.sge, 0, grh, GRH);
    if (!st)
        st = scatter(q, rw.sge, GRH, k.pay, uint32_t(k.paylen));
    uint8_t flags = cqe::FLAGS_GRH | (k.v4 ? cqe::FLAGS_IPV4 : 0);
    uint32_t iv = 0;
    if (k.opcode == UD_SEND_ONLY_IMM) {
        std::memcpy(&iv, k.ext + DETH, 4);
        flags |= cqe::FLAGS_IMM;
    }
    post_recv_cqe(qpn, rw, k.opcode == UD_SEND_ONLY_IMM ? cqe_opcode::RESP_SEND_IMM : cqe_opcode::RESP_SEND, st,
                  uint32_t(GRH + k.paylen), flags, iv, k.src_qp, k.se);
}

// ------------------------------------------------------------------ receive

bool Roce::match(unsigned port, const uint8_t *f, const parsed_frame &p, uint16_t &fn) const {
    if (!p.roce || p.malformed || p.ip_frag || p.l4 != l4_type::UDP)
        return false;
    uint8_t dst[16] = {};
    const bool v4 = p.l3 == l3_type::IPV4;
    if (v4) {
        dst[10] = dst[11] = 0xff;
        std::memcpy(dst + 12, f + p.l3_off + 16, 4);
    } else {
        std::memcpy(dst, f + p.l3_off + 24, 16);
    }
    return local_gid(port, dst, v4, fn);
}

bool Roce::local_gid(unsigned port, const uint8_t *dst, bool v4, uint16_t &fn) const {
    for (uint16_t i = 0; i < hw_.num_fn; i++)
        for (uint32_t g = 0; g < limits::GID_TABLE_SIZE; g++) {
            const ctx::gid_ctx &e = hw_.gid[ctx::gid_index(i, port, g)];
            if (e.valid && (e.type == gid_type::ROCE_V2_IPV4) == v4 && std::memcmp(e.gid, dst, 16) == 0) {
                fn = i;
                return true;
            }
        }
    return false;
}

void Roce::receive(unsigned port, uint16_t fn, const uint8_t *f, size_t len, const parsed_frame &p) {
    rdma_stats &ps = pstats(port);
    const uint8_t *ip = f + p.l3_off;
    const uint8_t *u = f + p.l4_off;
    const size_t ulen = get_be16(u + 4);
    if (p.l4_off + ulen > len || ulen < 8 + BTH + ICRC) {
        hw_.ports[port].stats.rx_malformed++;
        return;
    }
    const size_t icrc_at = p.l4_off + ulen - ICRC;
    uint32_t want = icrc(ip, icrc_at - p.l3_off);
    uint32_t got = uint32_t(f[icrc_at]) | uint32_t(f[icrc_at + 1]) << 8 | uint32_t(f[icrc_at + 2]) << 16 |
                   uint32_t(f[icrc_at + 3]) << 24;
    if (want != got) {
        ps.icrc_errors++;
        return;
    }
    const uint8_t *b = u + 8;
    Pkt k{};
    k.opcode = b[0];
    k.se = b[1] & 0x80;
    k.pad = (b[1] >> 4) & 3;
    k.dqpn = get_be24(b + 5);
    k.ackreq = b[8] & 0x80;
    k.psn = get_be24(b + 9);
    k.v4 = p.l3 == l3_type::IPV4;
    k.ip = ip;
    const size_t el = ext_len(k.opcode);
    if (!known_opcode(k.opcode) || (b[1] & 0xf) != 0 || (get_be16(b + 2) & 0x7fff) != 0x7fff ||
        8 + BTH + el + k.pad + ICRC > ulen) {
        hw_.ports[port].stats.rx_malformed++;
        return;
    }
    k.ext = b + BTH;
    k.pay = k.ext + el;
    k.paylen = ulen - 8 - BTH - el - k.pad - ICRC;
    const uint8_t ecn = k.v4 ? (ip[1] & 3) : ((get_be32(ip) >> 20) & 3);
    if (ecn == 3)
        ps.ecn_marked++;
    ps.rx_packets++;
    ps.rx_bytes += len;
    if (k.opcode == CNP) {
        ps.cnp_received++;  // congestion control consumes these (later)
        return;
    }
    uint32_t qpn = k.dqpn;
    if (qpn == ctx::GSI_WIRE_QPN) {
        qpn = 0;
        for (uint32_t i = ctx::FIRST_QPN; i < hw_.qp.size() && !qpn; i++)
            if (hw_.qp[i].valid && hw_.qp[i].type == qp_type::GSI && hw_.qp[i].fn == fn && hw_.qp[i].port == port)
                qpn = i;
    }
    if (qpn < ctx::FIRST_QPN || qpn >= hw_.qp.size() || !hw_.qp[qpn].valid || hw_.qp[qpn].fn != fn ||
        hw_.qp[qpn].port != port)
        return;
    ctx::qp_ctx &q = hw_.qp[qpn];
    q.stats.rx_packets++;
    q.stats.rx_bytes += len;
    const bool ud_pkt = (k.opcode & 0xe0) == 0x60;
    if (ud_pkt != (q.type != qp_type::RC))
        return;
    if (ud_pkt) {
        k.qkey = get_be32(k.ext);
        k.src_qp = get_be24(k.ext + 5);
        return rx_ud(qpn, k);
    }
    if (k.opcode == ACK || k.opcode == ATOMIC_ACK || (k.opcode >= READ_RESP_FIRST && k.opcode <= READ_RESP_ONLY))
        return rx_response(qpn, k);
    rx_request(qpn, k);
}

// ------------------------------------------------------------------ QP state

void Roce::post_qp_event(uint32_t qpn, uint8_t subtype) {
    eqe e{};
    e.ev_type = eqe_type::QP_EVENT;
    e.subtype = subtype;
    e.obj = qpn;
    q_.post_async(hw_.qp[qpn].fn, e);
}

void Roce::qp_error(uint32_t qpn, uint8_t event) {
    ctx::qp_ctx &q = hw_.qp[qpn];
    if (q.state == qs::ERR)
        return;
    q.state = qs::ERR;
    enter_err(qpn);
    if (event != 0xff)
        post_qp_event(qpn, event);
}

void Roce::flush_sq_ring(uint32_t qpn) {
    ctx::wq_ctx &sq = hw_.sq[qpn];
    const ctx::qp_ctx &q = hw_.qp[qpn];
    while (sq.valid && sq.ci != sq.pi) {
        wqe_ctrl c{};
        if (!ring_read(sq, sq.ci, &c, sizeof(c)))
            c.wqe_index = sq.ci;
        cqe e{};
        e.qpn = qpn;
        e.wqe_index = c.wqe_index;
        e.opcode = cqe_opcode::ERROR;
        e.status = cqe_status::WR_FLUSH_ERR;
        e.hash_type = c.opcode;
        e.csum_syndrome = RE_FLUSH;
        sq.ci++;
        if (!q_.post_cqe(q.send_cqn, e))
            break;
    }
    sq.ci = sq.pi;
}

void Roce::flush_rq_ring(uint32_t qpn) {
    ctx::wq_ctx &rq = hw_.rq[qpn];
    const ctx::qp_ctx &q = hw_.qp[qpn];
    if (q.srqn != limits::NO_OBJECT)
        return;  // an SRQ's WQEs belong to every QP on it
    while (rq.valid && rq.ci != rq.pi) {
        cqe e{};
        e.qpn = qpn;
        e.wqe_index = rq.ci;
        e.opcode = cqe_opcode::ERROR;
        e.status = cqe_status::WR_FLUSH_ERR;
        e.side = cqe::SIDE_RQ;
        e.csum_syndrome = RE_FLUSH;
        rq.ci++;
        if (!q_.post_cqe(q.recv_cqn, e))
            break;
    }
    rq.ci = rq.pi;
}

// The QP is in ERR: complete what is in flight, flush both rings.
void Roce::enter_err(uint32_t qpn) {
    QpRt &r = rt_[qpn];
    const ctx::qp_ctx &q = hw_.qp[qpn];
    for (SendWqe &w : r.inflight)
        if (!w.done) {
            w.done = true;
            w.status = cqe_status::WR_FLUSH_ERR;
            w.syndrome = RE_FLUSH;
        }
    complete_ready(qpn);
    flush_sq_ring(qpn);
    if (r.rw.valid) {
        post_recv_cqe(qpn, r.rw, 0, cqe_status::WR_FLUSH_ERR, 0, 0, 0, 0, false);
        r.rw = RecvWqe{};
    }
    flush_rq_ring(qpn);
    if (q.srqn != limits::NO_OBJECT)
        post_qp_event(qpn, qp_event::LAST_WQE);
    r.deadline = r.rnr_until = NEVER;
    r.resp_op = 0;
    r.rd_outstanding = 0;
    timed_.erase(qpn);
}

void Roce::qp_ctx_written(uint32_t qpn, const ctx::qp_ctx &old) {
    ctx::qp_ctx &q = hw_.qp[qpn];
    QpRt &r = rt_[qpn];
    if (!q.valid || q.state == qs::RESET) {
        r = QpRt{};
        timed_.erase(qpn);
        return;
    }
    if (q.state == old.state && old.valid)
        return;
    if (q.state == qs::ERR) {
        enter_err(qpn);
        return;
    }
    if (q.state == qs::RTR && old.state != qs::RTR) {
        r.epsn = q.rq_psn;
        r.msn = 0;
    }
    if (q.state == qs::RTS && old.state == qs::RTR) {
        r.next_psn = r.hi_psn = r.una = q.sq_psn;
        r.retry_left = q.retry_cnt;
        r.rnr_left = q.rnr_retry;
    }
    if (q.state == qs::RTS || q.state == qs::SQD)
        kick(qpn);
}

void Roce::rq_doorbell(uint32_t rqn) {
    if (rqn < hw_.qp.size() && hw_.rq[rqn].kind == ctx::WQ_QP && hw_.qp[rqn].valid && hw_.qp[rqn].state == qs::ERR)
        flush_rq_ring(rqn);
}

void Roce::timer(uint64_t now) {
    for (auto it = timed_.begin(); it != timed_.end();) {
        uint32_t qpn = *it++;
        QpRt &r = rt_[qpn];
        ctx::qp_ctx &q = hw_.qp[qpn];
        if (!q.valid || (q.state != qs::RTS && q.state != qs::SQD)) {
            timed_.erase(qpn);
            continue;
        }
        if (r.rnr_until != NEVER && now >= r.rnr_until) {
            r.rnr_until = NEVER;
            kick(qpn);
        }
        if (r.deadline != NEVER && now >= r.deadline) {
            r.deadline = NEVER;
            q.stats.timeouts++;
            pstats(q.port).timeouts++;
            if (!r.retry_left) {
                fail_head(qpn, cqe_status::RETRY_EXC_ERR, RE_RETRY);
                continue;
            }
            r.retry_left--;
            // Go back N: resend from the oldest unacknowledged packet.
            for (SendWqe &w : r.inflight)
                if (!w.done && !is_local(w.opcode)) {
                    uint32_t from = is_rd(w.opcode) ? psn_add(w.first_psn, w.read_off / mtu_bytes(q.path_mtu))
                                                    : (psn_diff(r.una, w.first_psn) > 0 ? r.una : w.first_psn);
                    rewind(qpn, from);
                    break;
                }
        }
        arm_timer(qpn);
    }
}

bool Roce::loopback_run(uint32_t budget) {
    while (!loop_.empty() && budget--) {
        Looped l = std::move(loop_.front());
        loop_.pop_front();
        const uint8_t *f = l.frame.data();
        const size_t len = l.frame.size();
        parsed_frame p = parse_frame(f, len);
        uint16_t fn;
        // The GID may have gone since the frame was queued.
        if (match(l.port, f, p, fn))
            receive(l.port, fn, f, len, p);
    }
    return !loop_.empty();
}

uint64_t Roce::next_deadline() const {
    uint64_t d = NEVER;
    for (uint32_t qpn : timed_) {
        d = std::min(d, rt_[qpn].deadline);
        d = std::min(d, rt_[qpn].rnr_until);
    }
    return d;
}

}  // namespace kite::model
