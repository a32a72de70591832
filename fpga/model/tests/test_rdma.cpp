// SPDX-License-Identifier: MIT
// RoCEv2 transport: two cards wired back to back, driven through command
// rings, WQEs, doorbells and CQEs exactly as kite_ib.ko and the provider do.
#include <gtest/gtest.h>

#include <functional>

#include "fake_host.hpp"
#include "kite/crc32.hpp"
#include "kite/csum.hpp"
#include "kite/ordered_set.hpp"
#include "kite/parser.hpp"

using namespace kt;

namespace {

#define EXPECT_CMD(r, st, syn)                                  \
    do {                                                        \
        Res r_ = (r);                                           \
        EXPECT_EQ(r_.status, cmd_status::st) << #r;             \
        EXPECT_EQ(r_.syndrome, syndrome::syn) << #r;            \
    } while (0)

// IB_QP_* attribute mask bits.
enum : uint32_t {
    M_STATE = 1 << 0, M_CUR_STATE = 1 << 1, M_ACCESS = 1 << 3, M_PKEY = 1 << 4, M_PORT = 1 << 5, M_QKEY = 1 << 6,
    M_AV = 1 << 7, M_MTU = 1 << 8, M_TIMEOUT = 1 << 9, M_RETRY = 1 << 10, M_RNR_RETRY = 1 << 11, M_RQ_PSN = 1 << 12,
    M_MAX_RD = 1 << 13, M_MIN_RNR = 1 << 15, M_SQ_PSN = 1 << 16, M_MAX_DEST_RD = 1 << 17, M_DEST_QPN = 1 << 20,
};
enum : uint8_t { A_LW = 1, A_RW = 2, A_RR = 4, A_RA = 8 };

struct Mr {
    uint64_t va = 0, bus = 0, len = 0;
    uint32_t key = 0;
};

struct Qp {
    uint32_t qpn = 0, type = 0;
    Queue sq, rq;
};

struct Node {
    FakeHost h;
    Driver d{h};
    Queue cq;
    uint32_t pd = 0;
    uint8_t mac[6];
    uint8_t gid[16] = {};
    uint64_t next_va = 0x7f0000000000;

    Node(uint8_t mac_last, uint8_t ip_last) : h(1, nullptr, mac_last) {
        std::memcpy(mac, PF_MAC, 6);
        mac[5] = mac_last;
        gid[10] = gid[11] = 0xff;
        gid[12] = 10;
        gid[15] = ip_last;
    }

    void up() {
        d.reset_and_init();
        ASSERT_EQ(d.create_eq(d.eq, 8, 0, true).status, cmd_status::OK);
        ASSERT_EQ(d.create_cq(cq, 10, d.eq.id).status, cmd_status::OK);
        Res r = d.cmd(cmd_opcode::ALLOC_PD);
        ASSERT_EQ(r.status, cmd_status::OK);
        pd = r.id();
        ASSERT_EQ(add_gid(0, gid, gid_type::ROCE_V2_IPV4).status, cmd_status::OK);
        ASSERT_EQ(d.set_port(true, 9000).status, cmd_status::OK);
    }
    Res add_gid(uint8_t idx, const uint8_t g[16], uint8_t type) {
        gid_in in{};
        std::memcpy(in.gid, g, 16);
        in.index = idx;
        in.gid_type = type;
        in.vlan_tci = 0xffff;
        std::memcpy(in.mac, mac, 6);
        return d.cmd(cmd_opcode::ADD_GID, in);
    }
    // A registered buffer: iova differs from the bus address; MTT of 4 KiB pages.
    Mr reg(uint64_t len, uint32_t access, uint8_t variant = 0x5a) {
        Mr m;
        m.len = len;
        uint64_t base = h.alloc(len + 0x100, 4096);
        m.bus = base + 0x100;
        m.va = next_va + 0x100;  // not page aligned: exercises the first-page offset
        next_va += (len + 0x2000) & ~uint64_t(0xfff);
        uint64_t pages = (0x100 + len + 4095) / 4096;
        uint64_t mtt = h.alloc(pages * 8, 64);
        for (uint64_t i = 0; i < pages; i++)
            h.wr<uint64_t>(mtt + i * 8, base + i * 4096);
        create_mr_in in{};
        in.iova = m.va;
        in.length = len;
        in.mtt_addr = mtt;
        in.mtt_count = uint32_t(pages);
        in.pdn = pd;
        in.access = access;
        in.page_shift = 12;
        in.key_variant = variant;
        Res r = d.cmd(cmd_opcode::CREATE_MR, in);
        EXPECT_EQ(r.status, cmd_status::OK);
        m.key = r.id();
        return m;
    }
    uint8_t *ptr(const Mr &m, uint64_t off = 0) { return h.ptr(m.bus + off); }

    Res create_qp(Qp &q, uint32_t type, uint32_t srqn = limits::NO_OBJECT, uint32_t log = 7) {
        q = Qp{};
        q.type = type;
        q.sq.log_size = log;
        q.sq.stride = 256;
        q.sq.base = h.alloc(256u << log);
        create_qp_in in{};
        in.sq_base = q.sq.base;
        in.pdn = pd;
        in.send_cqn = cq.id;
        in.recv_cqn = cq.id;
        in.srqn = srqn;
        in.qp_type = uint8_t(type);
        in.sq_log_size = uint8_t(log);
        in.sq_log_stride = 8;
        if (srqn == limits::NO_OBJECT) {
            q.rq.log_size = log;
            q.rq.stride = 128;
            q.rq.base = h.alloc(128u << log);
            in.rq_base = q.rq.base;
            in.rq_log_size = uint8_t(log);
            in.rq_log_stride = 7;
        }
        in.max_inline = 128;
        Res r = d.cmd(cmd_opcode::CREATE_QP, in);
        q.qpn = r.status == cmd_status::OK ? r.id() : 0;
        q.sq.id = q.rq.id = q.qpn;
        return r;
    }
    Res modify(const qp_attr &a) { return d.cmd(cmd_opcode::MODIFY_QP, a); }
    Res to_init(Qp &q, uint8_t access = A_LW | A_RW | A_RR | A_RA) {
        qp_attr a{};
        a.qpn = q.qpn;
        a.state = qp_state::INIT;
        a.mask = M_STATE | M_PKEY | (q.type == qp_type::GSI ? 0u : uint32_t(M_PORT));
        if (q.type == qp_type::RC) {
            a.mask |= M_ACCESS;
            a.access = access;
        } else {
            a.mask |= M_QKEY;
            a.qkey = q.type == qp_type::GSI ? 0x80010000u : 0x1234u;
        }
        return modify(a);
    }
    Res to_rtr(Qp &q, const Node &peer, uint32_t dest_qpn, uint32_t rq_psn = 100, uint8_t mtu = 3,
               uint8_t min_rnr = 1) {
        qp_attr a{};
        a.qpn = q.qpn;
        a.state = qp_state::RTR;
        a.mask = M_STATE;
        if (q.type == qp_type::RC) {
            a.mask |= M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN | M_MAX_DEST_RD | M_MIN_RNR;
            std::memcpy(a.dmac, peer.mac, 6);
            std::memcpy(a.dgid, peer.gid, 16);
            a.hop_limit = 64;
            a.tclass = 0x68;  // DSCP 26, ECT(0)
            a.sgid_index = 0;
            a.av_flags = wqe_ud::FLAGS_IPV4;
            a.path_mtu = mtu;
            a.dest_qpn = dest_qpn;
            a.rq_psn = rq_psn;
            a.max_dest_rd_atomic = 4;
            a.min_rnr_timer = min_rnr;
        }
        return modify(a);
    }
    Res to_rts(Qp &q, uint32_t sq_psn = 200, uint8_t timeout = 14, uint8_t retry = 7, uint8_t rnr_retry = 7) {
        qp_attr a{};
        a.qpn = q.qpn;
        a.state = qp_state::RTS;
        a.mask = M_STATE | M_SQ_PSN;
        a.sq_psn = sq_psn;
        if (q.type == qp_type::RC) {
            a.mask |= M_TIMEOUT | M_RETRY | M_RNR_RETRY | M_MAX_RD;
            a.timeout = timeout;
            a.retry_cnt = retry;
            a.rnr_retry = rnr_retry;
            a.max_rd_atomic = 4;
        }
        return modify(a);
    }
    Res set_state(Qp &q, uint8_t s) {
        qp_attr a{};
        a.qpn = q.qpn;
        a.state = s;
        a.mask = M_STATE;
        return modify(a);
    }
    qp_attr query(const Qp &q) {
        obj_in in{q.qpn, 0};
        Res r = d.cmd(cmd_opcode::QUERY_QP, in);
        EXPECT_EQ(r.status, cmd_status::OK);
        return r.as<qp_attr>();
    }

    // Send WQE, provider layout: ctrl, header segments, then SGEs or inline data.
    uint16_t post_send(Qp &q, uint8_t op, const std::vector<wqe_sge> &sges, uint64_t raddr = 0, uint32_t rkey = 0,
                       uint8_t flags = wqe_ctrl::FLAGS_SIGNALED, uint32_t imm_be = 0, uint64_t swap = 0,
                       uint64_t cmp = 0, const wqe_ud *av = nullptr, bool ring = true) {
        uint64_t w = q.sq.base + uint64_t(q.sq.pi & ((1u << q.sq.log_size) - 1)) * q.sq.stride;
        std::memset(h.ptr(w), 0, q.sq.stride);
        wqe_ctrl c{};
        c.opcode = op;
        c.flags = flags;
        c.wqe_index = uint16_t(q.sq.pi);
        c.imm = imm_be;
        unsigned ds = 0;
        if (av) {
            h.wr(w + 16, *av);
            ds = 3;
        } else if (op == wqe_opcode::WRITE || op == wqe_opcode::WRITE_IMM || op == wqe_opcode::READ ||
                   op == wqe_opcode::ATOMIC_CS || op == wqe_opcode::ATOMIC_FA) {
            wqe_raddr ra{};
            ra.raddr = raddr;
            ra.rkey = rkey;
            h.wr(w + 16, ra);
            ds = 1;
            if (op == wqe_opcode::ATOMIC_CS || op == wqe_opcode::ATOMIC_FA) {
                wqe_atomic at{};
                at.swap_add = swap;
                at.compare = cmp;
                h.wr(w + 32, at);
                ds = 2;
            }
        }
        for (const wqe_sge &s : sges)
            h.wr(w + 16 + 16 * ds++, s);
        if (!sges.size()) {
            wqe_sge z{};
            h.wr(w + 16 + 16 * ds++, z);  // a zero-length message carries one empty SGE
        }
        c.num_ds = uint8_t(ds);
        h.wr(w, c);
        uint16_t idx = uint16_t(q.sq.pi++);
        if (ring)
            h.db(0, db::SQ, q.qpn << 16 | (q.sq.pi & 0xffff));
        return idx;
    }
    uint16_t post_recv(Qp &q, const std::vector<wqe_sge> &sges) { return post_rq(q.rq, q.qpn, sges); }
    uint16_t post_rq(Queue &rq, uint32_t id, const std::vector<wqe_sge> &sges) {
        uint64_t w = rq.base + uint64_t(rq.pi & ((1u << rq.log_size) - 1)) * rq.stride;
        std::memset(h.ptr(w), 0, rq.stride);
        for (size_t i = 0; i < sges.size(); i++)
            h.wr(w + 16 * i, sges[i]);
        uint16_t idx = uint16_t(rq.pi++);
        h.db(0, db::RQ, id << 16 | (rq.pi & 0xffff));
        return idx;
    }
    std::optional<cqe> poll() {
        auto c = d.poll_cq(cq);
        if (c)
            h.db(0, db::CQ_CI, cq.id << 16 | (cq.ci & 0xffff));
        return c;
    }
    rdma_stats stats(uint8_t scope, uint32_t id) {
        uint64_t a = h.alloc(sizeof(rdma_stats), 64);
        query_stats_in in{};
        in.addr = a;
        in.len = sizeof(rdma_stats);
        in.scope = scope;
        in.id = id;
        EXPECT_EQ(d.cmd(cmd_opcode::QUERY_STATS, in).status, cmd_status::OK);
        return h.rd<rdma_stats>(a);
    }
};

wqe_sge sge(const Mr &m, uint64_t off, uint32_t len) {
    wqe_sge s{};
    s.addr = m.va + off;
    s.len = len;
    s.lkey = m.key;
    return s;
}

void fill(uint8_t *p, size_t n, uint32_t seed) {
    for (size_t i = 0; i < n; i++)
        p[i] = uint8_t((i * 131 + seed * 7 + (i >> 8)) ^ seed);
}

// Two cards back to back, link up, each with an RC QP connected to the other.
struct Rdma : ::testing::Test {
    Node a{0x10, 1}, b{0x20, 2};
    Qp qa, qb;
    uint32_t drop_every = 0;  // drop every Nth frame on the wire (deterministic loss)
    uint64_t frames = 0, dropped = 0;
    std::function<void(std::vector<uint8_t> &)> tap;

    void SetUp() override {
        a.h.peer = &b.h;
        b.h.peer = &a.h;
        a.up();
        b.up();
        wire();
        ASSERT_TRUE(a.h.r32(reg::FUNC_INFO) || true);
        drain_events(a);
        drain_events(b);
    }
    void drain_events(Node &n) {
        while (n.d.poll_eq(n.d.eq)) {
        }
    }
    void connect(uint8_t mtu = 3, uint8_t timeout = 14, uint8_t retry = 7, uint8_t rnr_retry = 7,
                 uint8_t access = A_LW | A_RW | A_RR | A_RA) {
        ASSERT_EQ(a.create_qp(qa, qp_type::RC).status, cmd_status::OK);
        ASSERT_EQ(b.create_qp(qb, qp_type::RC).status, cmd_status::OK);
        ASSERT_EQ(a.to_init(qa, access).status, cmd_status::OK);
        ASSERT_EQ(b.to_init(qb, access).status, cmd_status::OK);
        ASSERT_EQ(a.to_rtr(qa, b, qb.qpn, 500, mtu).status, cmd_status::OK);
        ASSERT_EQ(b.to_rtr(qb, a, qa.qpn, 700, mtu).status, cmd_status::OK);
        ASSERT_EQ(a.to_rts(qa, 700, timeout, retry, rnr_retry).status, cmd_status::OK);
        ASSERT_EQ(b.to_rts(qb, 500, timeout, retry, rnr_retry).status, cmd_status::OK);
    }
    // Moves frames between the cards until the wire is quiet.
    void wire() {
        for (int i = 0; i < 100000; i++) {
            a.h.pump();
            b.h.pump();
            bool any = false;
            for (Node *s : {&a, &b}) {
                Node *t = s == &a ? &b : &a;
                while (!s->h.wire[0].empty()) {
                    auto f = std::move(s->h.wire[0].front());
                    s->h.wire[0].pop_front();
                    any = true;
                    bool os = f.size() == 16 && std::memcmp(f.data(), "KITEOS", 6) == 0;
                    if (!os) {
                        frames++;
                        if (tap)
                            tap(f);
                        if (drop_every && frames % drop_every == 0) {
                            dropped++;
                            continue;
                        }
                    }
                    t->h.abi->frame_in(t->h.card, 0, f.data(), f.size());
                    t->h.pump();
                }
            }
            if (!any)
                return;
        }
    }
    void advance(uint64_t ns) {
        a.h.advance(ns);
        b.h.advance(ns);
    }
    // Runs the wire (and time, for retransmissions) until n CQEs arrive at node.
    std::vector<cqe> wait(Node &n, size_t count, uint64_t max_ns = 10'000'000'000ull) {
        std::vector<cqe> out;
        uint64_t t = 0;
        while (out.size() < count) {
            wire();
            while (auto c = n.poll())
                out.push_back(*c);
            if (out.size() >= count || t > max_ns)
                break;
            advance(1'000'000);
            t += 1'000'000;
        }
        return out;
    }
};

TEST_F(Rdma, RcSendRecvDataCompare) {
    connect();
    Mr sa = a.reg(8192, A_LW), rb = b.reg(8192, A_LW);
    fill(a.ptr(sa), 5000, 3);
    uint16_t ri = b.post_recv(qb, {sge(rb, 0, 3000), sge(rb, 4096, 4096)});
    uint16_t si = a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 1000), sge(sa, 1000, 4000)});
    auto cs = wait(a, 1);
    ASSERT_EQ(cs.size(), 1u);
    EXPECT_EQ(cs[0].status, cqe_status::SUCCESS);
    EXPECT_EQ(cs[0].opcode, cqe_opcode::REQ);
    EXPECT_EQ(cs[0].hash_type, wqe_opcode::SEND);
    EXPECT_EQ(cs[0].wqe_index, si);
    EXPECT_EQ(cs[0].qpn, qa.qpn);
    auto cr = wait(b, 1);
    ASSERT_EQ(cr.size(), 1u);
    EXPECT_EQ(cr[0].status, cqe_status::SUCCESS);
    EXPECT_EQ(cr[0].opcode, cqe_opcode::RESP_SEND);
    EXPECT_EQ(cr[0].byte_cnt, 5000u);
    EXPECT_EQ(cr[0].wqe_index, ri);
    EXPECT_EQ(cr[0].qpn, qb.qpn);
    EXPECT_EQ(cr[0].side & cqe::SIDE_RQ, cqe::SIDE_RQ);
    EXPECT_EQ(std::memcmp(b.ptr(rb), a.ptr(sa), 3000), 0);
    EXPECT_EQ(std::memcmp(b.ptr(rb, 4096), a.ptr(sa, 3000), 2000), 0);
    rdma_stats s = a.stats(stats_scope::QP, qa.qpn);
    EXPECT_EQ(s.tx_packets, 5u);  // 5000 bytes at MTU 1024
    EXPECT_EQ(s.retransmits, 0u);
    rdma_stats p = b.stats(stats_scope::RDMA_PORT, 0);
    EXPECT_GE(p.rx_packets, 5u);
    EXPECT_EQ(p.icrc_errors, 0u);
}

}  // namespace
