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
    uint8_t gid6[16] = {0xfd, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t next_va = 0x7f0000000000;

    Node(uint8_t mac_last, uint8_t ip_last) : h(1, nullptr, mac_last) {
        std::memcpy(mac, PF_MAC, 6);
        mac[5] = mac_last;
        gid[10] = gid[11] = 0xff;
        gid[12] = 10;
        gid[15] = ip_last;
        gid6[15] = ip_last;
    }

    void up() {
        d.reset_and_init();
        ASSERT_EQ(d.create_eq(d.eq, 8, 0, true).status, cmd_status::OK);
        ASSERT_EQ(d.create_cq(cq, 10, d.eq.id).status, cmd_status::OK);
        Res r = d.cmd(cmd_opcode::ALLOC_PD);
        ASSERT_EQ(r.status, cmd_status::OK);
        pd = r.id();
        ASSERT_EQ(add_gid(0, gid, gid_type::ROCE_V2_IPV4).status, cmd_status::OK);
        ASSERT_EQ(add_gid(1, gid6, gid_type::ROCE_V2_IPV6).status, cmd_status::OK);
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
               uint8_t min_rnr = 1, uint8_t sgid = 0) {
        qp_attr a{};
        a.qpn = q.qpn;
        a.state = qp_state::RTR;
        a.mask = M_STATE;
        if (q.type == qp_type::RC) {
            a.mask |= M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN | M_MAX_DEST_RD | M_MIN_RNR;
            std::memcpy(a.dmac, peer.mac, 6);
            std::memcpy(a.dgid, sgid ? peer.gid6 : peer.gid, 16);
            a.hop_limit = 64;
            a.tclass = 0x68;  // DSCP 26, ECT(0)
            a.sgid_index = sgid;
            a.flow_label = 0x12345;
            a.av_flags = sgid ? 0 : wqe_ud::FLAGS_IPV4;
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
                 uint8_t access = A_LW | A_RW | A_RR | A_RA, uint8_t sgid = 0) {
        ASSERT_EQ(a.create_qp(qa, qp_type::RC).status, cmd_status::OK);
        ASSERT_EQ(b.create_qp(qb, qp_type::RC).status, cmd_status::OK);
        ASSERT_EQ(a.to_init(qa, access).status, cmd_status::OK);
        ASSERT_EQ(b.to_init(qb, access).status, cmd_status::OK);
        ASSERT_EQ(a.to_rtr(qa, b, qb.qpn, 500, mtu, 1, sgid).status, cmd_status::OK);
        ASSERT_EQ(b.to_rtr(qb, a, qa.qpn, 700, mtu, 1, sgid).status, cmd_status::OK);
        ASSERT_EQ(a.to_rts(qa, 700, timeout, retry, rnr_retry).status, cmd_status::OK);
        ASSERT_EQ(b.to_rts(qb, 500, timeout, retry, rnr_retry).status, cmd_status::OK);
    }
    // Another RC QP on b, ready to send towards qa: for checks that end in ERR.
    void spare_qp(Qp &q) {
        ASSERT_EQ(b.create_qp(q, qp_type::RC).status, cmd_status::OK);
        ASSERT_EQ(b.to_init(q).status, cmd_status::OK);
        ASSERT_EQ(b.to_rtr(q, a, qa.qpn).status, cmd_status::OK);
        ASSERT_EQ(b.to_rts(q).status, cmd_status::OK);
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


TEST_F(Rdma, RcSendOverIpv6WithImmAndSolicited) {
    connect(3, 14, 7, 7, A_LW | A_RW | A_RR | A_RA, 1);
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW);
    fill(a.ptr(sa), 2000, 9);
    std::vector<uint8_t> seen;
    tap = [&](std::vector<uint8_t> &f) {
        if (seen.empty())
            seen = f;
    };
    b.post_recv(qb, {sge(rb, 0, 4096)});
    a.post_send(qa, wqe_opcode::SEND_IMM, {sge(sa, 0, 2000)}, 0, 0, wqe_ctrl::FLAGS_SIGNALED | wqe_ctrl::FLAGS_SOLICITED,
                0xddccbbaa);
    ASSERT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    auto c = wait(b, 1).at(0);
    EXPECT_EQ(c.opcode, cqe_opcode::RESP_SEND_IMM);
    EXPECT_EQ(c.flags & cqe::FLAGS_IMM, cqe::FLAGS_IMM);
    EXPECT_EQ(c.imm_hash, 0xddccbbaau);
    EXPECT_EQ(c.byte_cnt, 2000u);
    EXPECT_EQ(std::memcmp(b.ptr(rb), a.ptr(sa), 2000), 0);
    ASSERT_GT(seen.size(), 14u + 40);
    EXPECT_EQ(kite::get_be16(&seen[12]), 0x86dd);
    EXPECT_EQ(seen[14] >> 4, 6);
    EXPECT_EQ(((kite::get_be32(&seen[14]) >> 20) & 0xff), 0x68u);  // traffic class from the AV
    EXPECT_EQ(kite::get_be32(&seen[14]) & 0xfffff, 0x12345u);
    auto p = kite::parse_frame(seen.data(), seen.size() - 4);
    EXPECT_TRUE(p.roce);
    EXPECT_EQ(kite::l4_csum_check(seen.data(), p), 1);  // UDP checksum over IPv6 is valid
}

TEST_F(Rdma, RcWriteAndWriteImm) {
    connect();
    Mr sa = a.reg(16384, A_LW), rb = b.reg(16384, A_LW | A_RW), rr = b.reg(64, A_LW);
    fill(a.ptr(sa), 16384, 5);
    a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 10000)}, rb.va + 100, rb.key);
    auto c = wait(a, 1);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status, cqe_status::SUCCESS);
    EXPECT_EQ(c[0].hash_type, wqe_opcode::WRITE);
    EXPECT_EQ(std::memcmp(b.ptr(rb, 100), a.ptr(sa), 10000), 0);
    EXPECT_EQ(b.ptr(rb)[99], 0);
    EXPECT_FALSE(b.poll());  // a plain WRITE consumes no receive WQE
    uint16_t ri = b.post_recv(qb, {sge(rr, 0, 64)});
    a.post_send(qa, wqe_opcode::WRITE_IMM, {sge(sa, 10000, 3000)}, rb.va + 12000, rb.key, wqe_ctrl::FLAGS_SIGNALED,
                0x04030201);
    ASSERT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    auto r = wait(b, 1).at(0);
    EXPECT_EQ(r.opcode, cqe_opcode::RESP_WRITE_IMM);
    EXPECT_EQ(r.imm_hash, 0x04030201u);
    EXPECT_EQ(r.byte_cnt, 3000u);
    EXPECT_EQ(r.wqe_index, ri);
    EXPECT_EQ(std::memcmp(b.ptr(rb, 12000), a.ptr(sa, 10000), 3000), 0);
}

TEST_F(Rdma, RcRead1MiBMultiPacket) {
    connect(5);  // path MTU 4096: 256 response packets
    const uint32_t n = 1 << 20;
    Mr la = a.reg(n, A_LW), rb = b.reg(n, A_LW | A_RR);
    fill(b.ptr(rb), n, 11);
    a.post_send(qa, wqe_opcode::READ, {sge(la, 0, n / 2), sge(la, n / 2, n / 2)}, rb.va, rb.key);
    auto c = wait(a, 1);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status, cqe_status::SUCCESS);
    EXPECT_EQ(c[0].hash_type, wqe_opcode::READ);
    EXPECT_EQ(c[0].byte_cnt, n);
    EXPECT_EQ(std::memcmp(a.ptr(la), b.ptr(rb), n), 0);
    EXPECT_EQ(b.stats(stats_scope::QP, qb.qpn).tx_packets, 256u);
}

// A requester keeps at most 256 packets unacknowledged (operation.rst), so a
// deep SQ cannot flood the path, and the window reopens with each ACK.
TEST_F(Rdma, SendWindowBoundsPacketsInFlight) {
    connect(3);  // path MTU 1024: a 1 MiB WRITE is 1024 packets
    const uint32_t n = 1 << 20;
    Mr sa = a.reg(n, A_LW), rb = b.reg(n, A_LW | A_RW);
    fill(a.ptr(sa), n, 3);
    a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, n)}, rb.va, rb.key);
    for (int i = 0; i < 64; i++)
        a.h.pump();
    size_t out = 0;
    for (auto &f : a.h.wire[0])
        out += !(f.size() == 16 && std::memcmp(f.data(), "KITEOS", 6) == 0);
    EXPECT_EQ(out, 256u);
    auto c = wait(a, 1);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status, cqe_status::SUCCESS);
    EXPECT_EQ(std::memcmp(b.ptr(rb), a.ptr(sa), n), 0);
    EXPECT_EQ(a.stats(stats_scope::QP, qa.qpn).tx_packets, 1024u);  // nothing resent
    EXPECT_EQ(a.stats(stats_scope::QP, qa.qpn).timeouts, 0u);
}

TEST_F(Rdma, RcAtomics) {
    connect();
    Mr la = a.reg(64, A_LW), rb = b.reg(64, A_LW | A_RA);
    b.h.wr<uint64_t>(rb.bus + 8, 100);
    a.post_send(qa, wqe_opcode::ATOMIC_FA, {sge(la, 0, 8)}, rb.va + 8, rb.key, wqe_ctrl::FLAGS_SIGNALED, 0, 5);
    auto c = wait(a, 1).at(0);
    EXPECT_EQ(c.status, cqe_status::SUCCESS);
    EXPECT_EQ(c.hash_type, wqe_opcode::ATOMIC_FA);
    EXPECT_EQ(c.byte_cnt, 8u);
    EXPECT_EQ(a.h.rd<uint64_t>(la.bus), 100u);
    EXPECT_EQ(b.h.rd<uint64_t>(rb.bus + 8), 105u);
    a.post_send(qa, wqe_opcode::ATOMIC_CS, {sge(la, 8, 8)}, rb.va + 8, rb.key, wqe_ctrl::FLAGS_SIGNALED, 0, 7, 105);
    a.post_send(qa, wqe_opcode::ATOMIC_CS, {sge(la, 16, 8)}, rb.va + 8, rb.key, wqe_ctrl::FLAGS_SIGNALED, 0, 9, 105);
    auto cs = wait(a, 2);
    ASSERT_EQ(cs.size(), 2u);
    EXPECT_EQ(cs[0].status, cqe_status::SUCCESS);
    EXPECT_EQ(cs[1].status, cqe_status::SUCCESS);
    EXPECT_EQ(a.h.rd<uint64_t>(la.bus + 8), 105u);
    EXPECT_EQ(a.h.rd<uint64_t>(la.bus + 16), 7u);  // compare failed: original returned, memory kept
    EXPECT_EQ(b.h.rd<uint64_t>(rb.bus + 8), 7u);
    // Misaligned: invalid request on the requester, QP to ERR.
    a.post_send(qa, wqe_opcode::ATOMIC_FA, {sge(la, 0, 8)}, rb.va + 4, rb.key, wqe_ctrl::FLAGS_SIGNALED, 0, 1);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::REM_INV_REQ_ERR);
}

TEST_F(Rdma, WrongRkeyIsRemoteAccessErrorAndTouchesNothing) {
    connect();
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW | A_RW | A_RR);
    fill(a.ptr(sa), 4096, 1);
    a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 4096)}, rb.va, rb.key ^ 0x01);  // wrong variant
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 16)});
    auto c = wait(a, 2);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].opcode, cqe_opcode::ERROR);
    EXPECT_EQ(c[0].status, cqe_status::REM_ACCESS_ERR);
    EXPECT_EQ(c[0].side & cqe::SIDE_RQ, 0);
    EXPECT_EQ(c[1].status, cqe_status::WR_FLUSH_ERR);
    for (int i = 0; i < 4096; i++)
        ASSERT_EQ(b.ptr(rb)[i], 0) << i;
    EXPECT_EQ(a.query(qa).state, qp_state::ERR);
    EXPECT_EQ(b.query(qb).state, qp_state::ERR);
    bool ev = false;
    while (auto e = b.d.poll_eq(b.d.eq))
        ev |= e->ev_type == eqe_type::QP_EVENT && e->subtype == qp_event::ACCESS_ERR && e->obj == qb.qpn;
    EXPECT_TRUE(ev);
    EXPECT_EQ(a.stats(stats_scope::QP, qa.qpn).remote_access_errors, 1u);
    EXPECT_EQ(b.stats(stats_scope::RDMA_PORT, 0).remote_access_errors, 1u);
}

TEST_F(Rdma, OutOfBoundsWriteIsRemoteAccessError) {
    connect();
    Mr sa = a.reg(8192, A_LW), rb = b.reg(4096, A_LW | A_RW);
    fill(a.ptr(sa), 8192, 2);
    a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 2048)}, rb.va + 3000, rb.key);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::REM_ACCESS_ERR);
    for (int i = 0; i < 4096; i++)
        ASSERT_EQ(b.ptr(rb)[i], 0) << i;
}

TEST_F(Rdma, ReadWithoutRemoteReadIsRemoteAccessError) {
    connect();
    Mr la = a.reg(4096, A_LW), rb = b.reg(4096, A_LW | A_RW);  // no REMOTE_READ
    a.post_send(qa, wqe_opcode::READ, {sge(la, 0, 128)}, rb.va, rb.key);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::REM_ACCESS_ERR);
}

TEST_F(Rdma, QpAccessFlagsAreChecked) {
    connect(3, 14, 7, 7, A_LW);  // QPs grant no remote access
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW | A_RW);
    a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 64)}, rb.va, rb.key);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::REM_ACCESS_ERR);
    for (int i = 0; i < 64; i++)
        ASSERT_EQ(b.ptr(rb)[i], 0);
}

TEST_F(Rdma, LocalKeyErrorsAreLocalProtection) {
    connect();
    Mr sa = a.reg(4096, A_LW);
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 4000, 200)});  // beyond the MR
    auto c = wait(a, 1).at(0);
    EXPECT_EQ(c.status, cqe_status::LOC_PROT_ERR);
    EXPECT_EQ(a.query(qa).state, qp_state::ERR);
}

TEST_F(Rdma, RnrRetryExhausted) {
    connect(3, 14, 7, 2);
    Mr sa = a.reg(4096, A_LW);
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 100)});
    auto c = wait(a, 1);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status, cqe_status::RNR_RETRY_EXC_ERR);
    EXPECT_EQ(b.stats(stats_scope::QP, qb.qpn).rnr_naks, 3u);  // first try + 2 retries
    EXPECT_EQ(a.stats(stats_scope::QP, qa.qpn).rnr_retries, 3u);
}

TEST_F(Rdma, RnrThenReceivePostedCompletes) {
    connect();
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW);
    fill(a.ptr(sa), 100, 4);
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 100)});
    wire();
    EXPECT_FALSE(a.poll());
    b.post_recv(qb, {sge(rb, 0, 4096)});
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    EXPECT_EQ(std::memcmp(b.ptr(rb), a.ptr(sa), 100), 0);
}

TEST_F(Rdma, ErrorStateFlushesWithFlushErr) {
    connect();
    Mr m = a.reg(4096, A_LW);
    uint16_t r0 = a.post_recv(qa, {sge(m, 0, 64)});
    uint16_t r1 = a.post_recv(qa, {sge(m, 64, 64)});
    ASSERT_EQ(a.set_state(qa, qp_state::ERR).status, cmd_status::OK);
    auto c = wait(a, 2);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].status, cqe_status::WR_FLUSH_ERR);
    EXPECT_EQ(c[0].wqe_index, r0);
    EXPECT_EQ(c[1].wqe_index, r1);
    EXPECT_EQ(c[0].side & cqe::SIDE_RQ, cqe::SIDE_RQ);
    uint16_t s0 = a.post_send(qa, wqe_opcode::SEND, {sge(m, 0, 8)});
    auto s = wait(a, 1);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].status, cqe_status::WR_FLUSH_ERR);
    EXPECT_EQ(s[0].wqe_index, s0);
    EXPECT_EQ(s[0].side & cqe::SIDE_RQ, 0);
    // RESET restarts the rings at 0; the QP can be brought up again.
    ASSERT_EQ(a.set_state(qa, qp_state::RESET).status, cmd_status::OK);
    EXPECT_EQ(a.query(qa).state, qp_state::RESET);
}

TEST_F(Rdma, UdSendWithGrhAndAh) {
    Qp ua, ub;
    ASSERT_EQ(a.create_qp(ua, qp_type::UD).status, cmd_status::OK);
    ASSERT_EQ(b.create_qp(ub, qp_type::UD).status, cmd_status::OK);
    for (auto [n, q] : {std::pair{&a, &ua}, std::pair{&b, &ub}}) {
        ASSERT_EQ(n->to_init(*q).status, cmd_status::OK);
        ASSERT_EQ(n->to_rtr(*q, *n, 0).status, cmd_status::OK);
        ASSERT_EQ(n->to_rts(*q).status, cmd_status::OK);
    }
    Mr sa = a.reg(4096, A_LW), rb = b.reg(8192, A_LW);
    fill(a.ptr(sa), 300, 8);
    b.post_recv(ub, {sge(rb, 0, 4096)});
    b.post_recv(ub, {sge(rb, 4096, 4096)});
    wqe_ud av{};
    av.remote_qpn = ub.qpn;
    av.qkey = 0x1234;
    std::memcpy(av.dmac, b.mac, 6);
    std::memcpy(av.dgid, b.gid, 16);
    av.hop_limit = 5;
    av.sgid_index = 0;
    av.flags = wqe_ud::FLAGS_IPV4;
    a.post_send(ua, wqe_opcode::SEND, {sge(sa, 0, 300)}, 0, 0, wqe_ctrl::FLAGS_SIGNALED, 0, 0, 0, &av);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    auto c = wait(b, 1).at(0);
    EXPECT_EQ(c.status, cqe_status::SUCCESS);
    EXPECT_EQ(c.opcode, cqe_opcode::RESP_SEND);
    EXPECT_EQ(c.byte_cnt, 340u);
    EXPECT_EQ(c.src_qp, ua.qpn);
    EXPECT_EQ(c.flags & (cqe::FLAGS_GRH | cqe::FLAGS_IPV4), cqe::FLAGS_GRH | cqe::FLAGS_IPV4);
    const uint8_t *g = b.ptr(rb);
    for (int i = 0; i < 20; i++)
        EXPECT_EQ(g[i], 0);
    EXPECT_EQ(g[20], 0x45);
    EXPECT_EQ(g[28], 5);                                // TTL = hop limit
    EXPECT_EQ(std::memcmp(g + 32, a.gid + 12, 4), 0);   // source IP
    EXPECT_EQ(std::memcmp(g + 36, b.gid + 12, 4), 0);   // destination IP
    EXPECT_EQ(std::memcmp(g + 40, a.ptr(sa), 300), 0);
    // Through a card AH over IPv6, with immediate data.
    create_ah_in ah{};
    wqe_ud v6{};
    std::memcpy(v6.dmac, b.mac, 6);
    std::memcpy(v6.dgid, b.gid6, 16);
    v6.sgid_index = 1;
    v6.hop_limit = 9;
    v6.ah = a.pd;
    std::memcpy(ah.av, &v6, sizeof(v6));
    Res r = a.d.cmd(cmd_opcode::CREATE_AH, ah);
    ASSERT_EQ(r.status, cmd_status::OK);
    wqe_ud by_ah{};
    by_ah.remote_qpn = ub.qpn;
    by_ah.qkey = 0x80000000;  // use the QP's Q_Key
    by_ah.ah = r.id();
    a.post_send(ua, wqe_opcode::SEND_IMM, {sge(sa, 0, 10)}, 0, 0, wqe_ctrl::FLAGS_SIGNALED, 0x11223344, 0, 0, &by_ah);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    c = wait(b, 1).at(0);
    EXPECT_EQ(c.opcode, cqe_opcode::RESP_SEND_IMM);
    EXPECT_EQ(c.imm_hash, 0x11223344u);
    EXPECT_EQ(c.flags & cqe::FLAGS_IPV4, 0);
    EXPECT_EQ(b.ptr(rb, 4096)[0] >> 4, 6);
    EXPECT_EQ(b.ptr(rb, 4096)[7], 9);
    EXPECT_EQ(std::memcmp(b.ptr(rb, 4096) + 8, a.gid6, 16), 0);
    // Wrong Q_Key: dropped silently.
    by_ah.qkey = 0x999;
    b.post_recv(ub, {sge(rb, 0, 4096)});
    a.post_send(ua, wqe_opcode::SEND, {sge(sa, 0, 10)}, 0, 0, wqe_ctrl::FLAGS_SIGNALED, 0, 0, 0, &by_ah);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    EXPECT_TRUE(wait(b, 1, 2'000'000).empty());
}

TEST_F(Rdma, GsiIsQp1OnTheWire) {
    Qp ga, gb;
    ASSERT_EQ(a.create_qp(ga, qp_type::GSI).status, cmd_status::OK);
    ASSERT_EQ(b.create_qp(gb, qp_type::GSI).status, cmd_status::OK);
    Qp dup;
    EXPECT_CMD(a.create_qp(dup, qp_type::GSI), BUSY, QP_GSI_EXISTS);
    for (auto [n, q] : {std::pair{&a, &ga}, std::pair{&b, &gb}}) {
        ASSERT_EQ(n->to_init(*q).status, cmd_status::OK);
        ASSERT_EQ(n->to_rtr(*q, *n, 0).status, cmd_status::OK);
        ASSERT_EQ(n->to_rts(*q).status, cmd_status::OK);
    }
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW);
    b.post_recv(gb, {sge(rb, 0, 4096)});
    wqe_ud av{};
    av.remote_qpn = 1;
    av.qkey = 0x80010000;
    std::memcpy(av.dmac, b.mac, 6);
    std::memcpy(av.dgid, b.gid, 16);
    av.flags = wqe_ud::FLAGS_IPV4;
    a.post_send(ga, wqe_opcode::SEND, {sge(sa, 0, 256)}, 0, 0, wqe_ctrl::FLAGS_SIGNALED, 0, 0, 0, &av);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    auto c = wait(b, 1).at(0);
    EXPECT_EQ(c.status, cqe_status::SUCCESS);
    EXPECT_EQ(c.qpn, gb.qpn);
    EXPECT_EQ(c.src_qp, 1u);
    EXPECT_EQ(c.byte_cnt, 296u);
}

TEST_F(Rdma, SharedReceiveQueue) {
    Queue srq;
    srq.log_size = 4;
    srq.stride = 64;
    srq.base = b.h.alloc(64 << 4);
    create_srq_in in{};
    in.base = srq.base;
    in.pdn = b.pd;
    in.log_size = 4;
    in.log_stride = 6;
    in.limit = 2;
    Res r = b.d.cmd(cmd_opcode::CREATE_SRQ, in);
    ASSERT_EQ(r.status, cmd_status::OK);
    srq.id = r.id();
    ASSERT_EQ(a.create_qp(qa, qp_type::RC).status, cmd_status::OK);
    ASSERT_EQ(b.create_qp(qb, qp_type::RC, srq.id).status, cmd_status::OK);
    ASSERT_EQ(a.to_init(qa).status, cmd_status::OK);
    ASSERT_EQ(b.to_init(qb).status, cmd_status::OK);
    ASSERT_EQ(a.to_rtr(qa, b, qb.qpn, 500).status, cmd_status::OK);
    ASSERT_EQ(b.to_rtr(qb, a, qa.qpn, 700).status, cmd_status::OK);
    ASSERT_EQ(a.to_rts(qa, 700).status, cmd_status::OK);
    ASSERT_EQ(b.to_rts(qb, 500).status, cmd_status::OK);
    drain_events(b);
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW);
    fill(a.ptr(sa), 4096, 6);
    for (int i = 0; i < 4; i++)
        b.post_rq(srq, srq.id, {sge(rb, 1024 * i, 1024)});
    for (int i = 0; i < 3; i++)
        a.post_send(qa, wqe_opcode::SEND, {sge(sa, 100 * i, 100)});
    ASSERT_EQ(wait(a, 3).size(), 3u);
    auto c = wait(b, 3);
    ASSERT_EQ(c.size(), 3u);
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(c[i].qpn, qb.qpn);
        EXPECT_EQ(c[i].wqe_index, i);
        EXPECT_EQ(std::memcmp(b.ptr(rb, 1024 * i), a.ptr(sa, 100 * i), 100), 0);
    }
    bool limit = false;
    while (auto e = b.d.poll_eq(b.d.eq))
        limit |= e->ev_type == eqe_type::SRQ_LIMIT && e->obj == srq.id;
    EXPECT_TRUE(limit);
    obj_in del{srq.id, 0};
    EXPECT_CMD(b.d.cmd(cmd_opcode::DESTROY_SRQ, del), BUSY, SRQ_IN_USE);
}

TEST_F(Rdma, LossyWireStillDelivers) {
    connect(3, 10);  // 4 ms ACK timeout
    const uint32_t n = 256 << 10;
    Mr sa = a.reg(n, A_LW | A_RW | A_RR), rb = b.reg(n, A_LW | A_RW | A_RR), la = a.reg(n, A_LW), rs = b.reg(n, A_LW);
    fill(a.ptr(sa), n, 21);
    fill(b.ptr(rb), n, 22);
    drop_every = 100;  // 1 % of the frames, deterministically
    for (int i = 0; i < 4; i++)
        b.post_recv(qb, {sge(rs, i * (n / 4), n / 4)});
    a.post_send(qa, wqe_opcode::READ, {sge(la, 0, n)}, rb.va, rb.key);
    for (int i = 0; i < 4; i++)
        a.post_send(qa, wqe_opcode::SEND, {sge(sa, i * (n / 4), n / 4)});
    auto c = wait(a, 5, 60'000'000'000ull);
    ASSERT_EQ(c.size(), 5u);
    for (auto &x : c)
        EXPECT_EQ(x.status, cqe_status::SUCCESS);
    EXPECT_EQ(std::memcmp(a.ptr(la), b.ptr(rb), n), 0);
    EXPECT_EQ(wait(b, 4).size(), 4u);
    EXPECT_EQ(std::memcmp(b.ptr(rs), a.ptr(sa), n), 0);
    EXPECT_GT(dropped, 5u);
    rdma_stats s = a.stats(stats_scope::QP, qa.qpn);
    EXPECT_GT(s.retransmits, 0u);
    rdma_stats sb = b.stats(stats_scope::QP, qb.qpn);
    EXPECT_GT(s.timeouts + sb.seq_errors + s.out_of_sequence, 0u);
}

// The ICRC of a frame the card sent, computed here from the RoCEv2 rules
// with a bitwise CRC (not the model's table).
uint32_t ref_crc(const std::vector<uint8_t> &d) {
    uint32_t c = 0xffffffff;
    for (uint8_t b : d) {
        c ^= b;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
    }
    return ~c;
}

TEST_F(Rdma, IcrcMatchesTheRoceV2Rules) {
    connect();
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW);
    fill(a.ptr(sa), 333, 1);
    std::vector<std::vector<uint8_t>> got;
    tap = [&](std::vector<uint8_t> &f) { got.push_back(f); };
    b.post_recv(qb, {sge(rb, 0, 4096)});
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 333)});
    ASSERT_EQ(wait(a, 1).size(), 1u);
    ASSERT_GE(got.size(), 2u);  // the SEND and its ACK
    for (auto &f : got) {
        size_t end = f.size() - 4;  // FCS
        ASSERT_EQ(kite::get_be16(&f[12]), 0x0800);
        size_t ip = 14, ihl = (f[ip] & 0xf) * 4;
        size_t udp = ip + ihl;
        size_t ulen = kite::get_be16(&f[udp + 4]);
        size_t icrc_at = udp + ulen - 4;
        ASSERT_LE(icrc_at + 4, end);
        EXPECT_EQ(kite::get_be16(&f[udp + 2]), 4791);
        EXPECT_EQ(f[ip + 1], 0x68);  // TOS = tclass
        EXPECT_EQ(kite::csum_fold(kite::csum_partial(&f[ip], ihl)), 0xffff);
        std::vector<uint8_t> m(8, 0xff);
        m.insert(m.end(), f.begin() + long(ip), f.begin() + long(icrc_at));
        uint8_t *h = &m[8];
        h[1] = 0xff;                 // TOS
        h[8] = 0xff;                 // TTL
        h[10] = h[11] = 0xff;        // header checksum
        h[ihl + 6] = h[ihl + 7] = 0xff;  // UDP checksum
        h[ihl + 8 + 4] = 0xff;       // BTH resv8a (FECN/BECN)
        uint32_t want = ref_crc(m);
        uint32_t have = f[icrc_at] | f[icrc_at + 1] << 8 | f[icrc_at + 2] << 16 | uint32_t(f[icrc_at + 3]) << 24;
        EXPECT_EQ(have, want);
    }
}

TEST_F(Rdma, BadIcrcIsDroppedAndCounted) {
    connect(3, 8);
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW);
    fill(a.ptr(sa), 500, 2);
    bool corrupted = false;
    tap = [&](std::vector<uint8_t> &f) {
        if (corrupted || f.size() < 100 || f[14 + 20 + 8] != 0x04)
            return;  // the first SEND_ONLY only
        corrupted = true;
        f[80] ^= 0x10;  // payload bit flip; FCS recomputed so only the ICRC catches it
        f.resize(f.size() - 4);
        uint32_t c = kite::crc32(f.data(), f.size());
        for (int i = 0; i < 4; i++)
            f.push_back(uint8_t(c >> (8 * i)));
    };
    b.post_recv(qb, {sge(rb, 0, 4096)});
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 500)});
    auto c = wait(a, 1);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status, cqe_status::SUCCESS);  // resent after the timeout
    EXPECT_TRUE(corrupted);
    EXPECT_EQ(b.stats(stats_scope::RDMA_PORT, 0).icrc_errors, 1u);
    EXPECT_EQ(std::memcmp(b.ptr(rb), a.ptr(sa), 500), 0);
    EXPECT_GE(a.stats(stats_scope::QP, qa.qpn).timeouts, 1u);
}

TEST_F(Rdma, RetryExceededWhenThePeerIsGone) {
    connect(3, 8, 2);
    Mr sa = a.reg(4096, A_LW);
    ASSERT_EQ(b.set_state(qb, qp_state::RESET).status, cmd_status::OK);  // drops everything
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 10)});
    auto c = wait(a, 1);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status, cqe_status::RETRY_EXC_ERR);
    EXPECT_EQ(a.stats(stats_scope::QP, qa.qpn).timeouts, 3u);
}

TEST_F(Rdma, UserQpRingsThroughTheRingMr) {
    // One user buffer: SQ at 0, RQ at a 4 KiB-aligned offset, registered as an MR.
    Mr ring = b.reg(64 * 1024, A_LW);
    (void)ring;
    Mr buf = a.reg(2 * 65536, 0);
    uint64_t va = (buf.va + 0xfff) & ~uint64_t(0xfff);
    create_qp_in in{};
    in.sq_base = va;
    in.rq_base = va + 32768;
    in.pdn = a.pd;
    in.send_cqn = in.recv_cqn = a.cq.id;
    in.srqn = limits::NO_OBJECT;
    in.sq_log_size = 7;
    in.sq_log_stride = 8;
    in.rq_log_size = 6;
    in.rq_log_stride = 6;
    in.flags = create_qp_in::FLAGS_USER | create_qp_in::FLAGS_RING_MR;
    in.ring_lkey = buf.key ^ 1;
    EXPECT_CMD(a.d.cmd(cmd_opcode::CREATE_QP, in), BAD_PARAM, QP_RING_MR);
    in.ring_lkey = buf.key;
    in.rq_base = va + 65536 * 2;  // outside the MR
    EXPECT_CMD(a.d.cmd(cmd_opcode::CREATE_QP, in), BAD_PARAM, QP_RING_MR);
    in.rq_base = va + 32768;
    in.flags = create_qp_in::FLAGS_USER;
    EXPECT_CMD(a.d.cmd(cmd_opcode::CREATE_QP, in), BAD_PARAM, QP_RING_MR);
    in.flags = create_qp_in::FLAGS_USER | create_qp_in::FLAGS_RING_MR;
    Res r = a.d.cmd(cmd_opcode::CREATE_QP, in);
    ASSERT_EQ(r.status, cmd_status::OK);
    qa = Qp{};
    qa.qpn = r.id();
    qa.type = qp_type::RC;
    uint64_t off = va - buf.va;
    qa.sq = Queue{qa.qpn, buf.bus + off, 7, 256, 0, 0};
    qa.rq = Queue{qa.qpn, buf.bus + off + 32768, 6, 64, 0, 0};
    ASSERT_EQ(b.create_qp(qb, qp_type::RC).status, cmd_status::OK);
    ASSERT_EQ(a.to_init(qa).status, cmd_status::OK);
    ASSERT_EQ(b.to_init(qb).status, cmd_status::OK);
    ASSERT_EQ(a.to_rtr(qa, b, qb.qpn, 500).status, cmd_status::OK);
    ASSERT_EQ(b.to_rtr(qb, a, qa.qpn, 700).status, cmd_status::OK);
    ASSERT_EQ(a.to_rts(qa, 700).status, cmd_status::OK);
    ASSERT_EQ(b.to_rts(qb, 500).status, cmd_status::OK);
    Mr sa = a.reg(4096, A_LW), ra = a.reg(4096, A_LW), sb = b.reg(4096, A_LW), rb = b.reg(4096, A_LW);
    fill(a.ptr(sa), 64, 3);
    fill(b.ptr(sb), 64, 4);
    b.post_recv(qb, {sge(rb, 0, 64)});
    a.post_recv(qa, {sge(ra, 0, 64)});
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 64)});
    b.post_send(qb, wqe_opcode::SEND, {sge(sb, 0, 64)});
    auto ca = wait(a, 2);
    ASSERT_EQ(ca.size(), 2u);
    EXPECT_EQ(ca[0].status, cqe_status::SUCCESS);
    EXPECT_EQ(ca[1].status, cqe_status::SUCCESS);
    EXPECT_EQ(std::memcmp(a.ptr(ra), b.ptr(sb), 64), 0);
    EXPECT_EQ(std::memcmp(b.ptr(rb), a.ptr(sa), 64), 0);
    // A user QP may not use bus addresses.
    wqe_sge phys{};
    phys.addr = sa.bus;
    phys.len = 8;
    phys.lkey = limits::LKEY_PHYS;
    a.post_send(qa, wqe_opcode::SEND, {phys});
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::LOC_PROT_ERR);
}

TEST_F(Rdma, CommandValidation) {
    Qp q;
    ASSERT_EQ(a.create_qp(q, qp_type::RC).status, cmd_status::OK);
    EXPECT_GE(q.qpn, 2u);
    EXPECT_CMD(a.create_qp(q, 7), BAD_PARAM, QP_TYPE);
    ASSERT_EQ(a.create_qp(q, qp_type::RC).status, cmd_status::OK);
    // RESET -> RTR skips INIT.
    EXPECT_CMD(a.to_rtr(q, b, 5), BAD_STATE, QP_TRANSITION);
    // RESET -> INIT needs PKEY|PORT|ACCESS for RC.
    qp_attr at{};
    at.qpn = q.qpn;
    at.state = qp_state::INIT;
    at.mask = M_STATE | M_PKEY | M_PORT;
    EXPECT_CMD(a.modify(at), BAD_PARAM, QP_ATTR);
    at.mask |= M_ACCESS | M_QKEY;  // Q_Key is not an RC attribute
    EXPECT_CMD(a.modify(at), BAD_PARAM, QP_ATTR);
    ASSERT_EQ(a.to_init(q).status, cmd_status::OK);
    qp_attr rtr{};
    rtr.qpn = q.qpn;
    rtr.state = qp_state::RTR;
    rtr.mask = M_STATE | M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN | M_MAX_DEST_RD | M_MIN_RNR;
    rtr.path_mtu = 6;
    EXPECT_CMD(a.modify(rtr), BAD_PARAM, QP_MTU);
    rtr.path_mtu = 3;
    rtr.sgid_index = 5;  // empty GID entry
    EXPECT_CMD(a.modify(rtr), BAD_PARAM, QP_GID_INDEX);
    rtr.sgid_index = 0;
    rtr.dest_qpn = 0x1000000;
    EXPECT_CMD(a.modify(rtr), BAD_PARAM, QP_ATTR);
    rtr.dest_qpn = 9;
    ASSERT_EQ(a.modify(rtr).status, cmd_status::OK);
    qp_attr cs{};
    cs.qpn = q.qpn;
    cs.mask = M_CUR_STATE;  // RTR -> RTR is not a transition
    cs.cur_state = qp_state::RTR;
    EXPECT_CMD(a.modify(cs), BAD_STATE, QP_TRANSITION);
    qp_attr qa_ = a.query(q);
    EXPECT_EQ(qa_.state, qp_state::RTR);
    EXPECT_EQ(qa_.dest_qpn, 9u);
    EXPECT_EQ(qa_.path_mtu, 3);
    // References: PD and CQ in use, SRQ unknown.
    obj_in pd{a.pd, 0};
    EXPECT_CMD(a.d.cmd(cmd_opcode::DEALLOC_PD, pd), BUSY, PD_IN_USE);
    obj_in cq{a.cq.id, 0};
    EXPECT_CMD(a.d.cmd(cmd_opcode::DESTROY_CQ, cq), BUSY, CQ_IN_USE);
    Qp x;
    EXPECT_CMD(a.create_qp(x, qp_type::RC, 400), BAD_OBJECT, SRQ_UNKNOWN);
    // The QP number is not an Ethernet SQ.
    modify_wq_in mw{};
    mw.id = q.qpn;
    mw.mask = modify_wq_in::MASK_STATE;
    mw.state = wq_state::RDY;
    EXPECT_CMD(a.d.cmd(cmd_opcode::MODIFY_SQ, mw), BAD_OBJECT, WQ_UNKNOWN);
    // GIDs.
    uint8_t g[16] = {0xfe, 0x80};
    EXPECT_CMD(a.add_gid(2, g, gid_type::ROCE_V2_IPV4), BAD_PARAM, GID_ADDR);
    EXPECT_CMD(a.add_gid(16, g, gid_type::ROCE_V2_IPV6), BAD_PARAM, GID_INDEX);
    EXPECT_CMD(a.add_gid(2, g, 3), BAD_PARAM, GID_TYPE);
    gid_in del{};
    del.index = 7;
    EXPECT_CMD(a.d.cmd(cmd_opcode::DEL_GID, del), BAD_OBJECT, GID_INDEX);
    // Another function cannot touch the PF's QP.
    a.h.abi->set_num_vfs(a.h.card, 1);
    Driver vf(a.h, 1);
    vf.reset_and_init();
    obj_in oq{q.qpn, 0};
    EXPECT_CMD(vf.cmd(cmd_opcode::QUERY_QP, oq), WRONG_OWNER, QP_OWNER);
    EXPECT_CMD(vf.cmd(cmd_opcode::DESTROY_QP, oq), WRONG_OWNER, QP_OWNER);
    // Destroy in any state releases the references.
    ASSERT_EQ(a.d.cmd(cmd_opcode::DESTROY_QP, oq).status, cmd_status::OK);
    obj_in o1{q.qpn - 1, 0};
    ASSERT_EQ(a.d.cmd(cmd_opcode::DESTROY_QP, o1).status, cmd_status::OK);
    EXPECT_CMD(a.d.cmd(cmd_opcode::QUERY_QP, oq), BAD_OBJECT, QP_UNKNOWN);
    caps_out caps = a.d.cmd(cmd_opcode::QUERY_CAPS).as<caps_out>();
    EXPECT_GT(caps.max_qp, 0);
    EXPECT_EQ(caps.features & reg::CAPS_RDMA, reg::CAPS_RDMA);
}


TEST_F(Rdma, SendWithInvalidateAndLocalInvalidate) {
    connect();
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW), x = b.reg(4096, A_LW | A_RW);
    b.post_recv(qb, {sge(rb, 0, 4096)});
    a.post_send(qa, wqe_opcode::SEND_INV, {sge(sa, 0, 32)}, 0, 0, wqe_ctrl::FLAGS_SIGNALED, __builtin_bswap32(x.key));
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    auto c = wait(b, 1).at(0);
    EXPECT_EQ(c.opcode, cqe_opcode::RESP_SEND_INV);
    EXPECT_EQ(c.flags & cqe::FLAGS_INV, cqe::FLAGS_INV);
    EXPECT_EQ(c.imm_hash, x.key);
    // The invalidated rkey no longer grants access.
    a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 32)}, x.va, x.key);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::REM_ACCESS_ERR);
}

TEST_F(Rdma, LocalInvalidate) {
    connect();
    Mr sa = a.reg(4096, A_LW);
    a.post_send(qa, wqe_opcode::LOCAL_INV, {}, 0, 0, wqe_ctrl::FLAGS_SIGNALED, __builtin_bswap32(sa.key));
    auto c = wait(a, 1).at(0);
    EXPECT_EQ(c.status, cqe_status::SUCCESS);
    EXPECT_EQ(c.hash_type, wqe_opcode::LOCAL_INV);
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 8)});
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::LOC_PROT_ERR);
}

// A REG_MR WQE: ctrl then the wqe_reg_mr segments.
uint16_t post_reg_mr(Node &n, Qp &q, const wqe_reg_mr &r) {
    uint64_t w = q.sq.base + uint64_t(q.sq.pi & ((1u << q.sq.log_size) - 1)) * q.sq.stride;
    std::memset(n.h.ptr(w), 0, q.sq.stride);
    wqe_ctrl c{};
    c.opcode = wqe_opcode::REG_MR;
    c.flags = wqe_ctrl::FLAGS_SIGNALED;
    c.wqe_index = uint16_t(q.sq.pi);
    c.num_ds = sizeof(wqe_reg_mr) / 16;
    n.h.wr(w + 16, r);
    n.h.wr(w, c);
    uint16_t idx = uint16_t(q.sq.pi++);
    n.h.db(0, db::SQ, q.qpn << 16 | (q.sq.pi & 0xffff));
    return idx;
}

TEST_F(Rdma, FastRegistrationMapsScatteredPagesThenInvalidates) {
    connect();
    // A free MR with room for 4 pages, and 3 pages far apart in b's memory.
    create_mr_in in{};
    in.pdn = b.pd;
    in.access = A_LW;
    in.page_shift = 12;
    in.mtt_count = 4;
    in.flags = create_mr_in::FLAGS_FAST_REG;
    in.key_variant = 0x11;
    Res cr = b.d.cmd(cmd_opcode::CREATE_MR, in);
    ASSERT_EQ(cr.status, cmd_status::OK);
    const uint32_t key0 = cr.id(), key = (key0 & ~0xffu) | 0x22;
    uint64_t pages[3], list = b.h.alloc(3 * 8, 64);
    for (int i = 0; i < 3; i++) {
        pages[i] = b.h.alloc(4096, 4096);
        b.h.alloc(8192, 4096);  // a gap: the pages are not contiguous
        b.h.wr<uint64_t>(list + i * 8, pages[i]);
    }
    Mr sa = a.reg(8192, A_LW);
    fill(a.ptr(sa), 8192, 9);
    wqe_reg_mr r{};
    r.key = key;
    r.access = A_LW | A_RW;
    r.iova = 0x7000100;
    r.length = 8000;
    r.mtt_addr = list;
    r.mtt_count = 3;
    r.page_shift = 12;
    uint16_t idx = post_reg_mr(b, qb, r);
    auto c = wait(b, 1).at(0);
    EXPECT_EQ(c.status, cqe_status::SUCCESS);
    EXPECT_EQ(c.hash_type, wqe_opcode::REG_MR);
    EXPECT_EQ(c.wqe_index, idx);
    // The peer writes through the new key; bytes land page by page.
    a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 8000)}, r.iova, key);
    ASSERT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    EXPECT_EQ(std::memcmp(b.h.ptr(pages[0] + 0x100), a.ptr(sa), 4096 - 0x100), 0);
    EXPECT_EQ(std::memcmp(b.h.ptr(pages[1]), a.ptr(sa, 4096 - 0x100), 4096), 0);
    EXPECT_EQ(std::memcmp(b.h.ptr(pages[2]), a.ptr(sa, 8192 - 0x100), 8000 - (8192 - 0x100)), 0);
    // Invalidate, then register the free MR again under another variant.
    b.post_send(qb, wqe_opcode::LOCAL_INV, {}, 0, 0, wqe_ctrl::FLAGS_SIGNALED, __builtin_bswap32(key));
    EXPECT_EQ(wait(b, 1).at(0).status, cqe_status::SUCCESS);
    r.key = (key0 & ~0xffu) | 0x33;
    post_reg_mr(b, qb, r);
    EXPECT_EQ(wait(b, 1).at(0).status, cqe_status::SUCCESS);
    // Registering a valid MR again is a local protection error (its QP goes to ERR).
    Qp q2;
    spare_qp(q2);
    post_reg_mr(b, q2, r);
    EXPECT_EQ(wait(b, 1).at(0).status, cqe_status::LOC_PROT_ERR);
    // The earlier variant no longer grants access; the current one does.
    a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 8)}, r.iova, r.key);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 8)}, r.iova, key);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::REM_ACCESS_ERR);
}

TEST_F(Rdma, FastRegistrationChecks) {
    connect();
    create_mr_in in{};
    in.pdn = b.pd;
    in.access = A_LW;
    in.page_shift = 12;
    in.mtt_count = 2;
    in.flags = create_mr_in::FLAGS_FAST_REG;
    Res cr = b.d.cmd(cmd_opcode::CREATE_MR, in);
    ASSERT_EQ(cr.status, cmd_status::OK);
    Mr plain = b.reg(4096, A_LW);
    uint64_t list = b.h.alloc(4 * 8, 64);
    wqe_reg_mr ok{};
    ok.key = cr.id();
    ok.access = A_LW;
    ok.iova = 0x1000;
    ok.length = 4096;
    ok.mtt_addr = list;
    ok.mtt_count = 1;
    ok.page_shift = 12;
    std::vector<wqe_reg_mr> bad(5, ok);
    bad[0].mtt_count = 3;                 // beyond the MR's 2 pages
    bad[1].length = 3 * 4096;             // beyond the list
    bad[2].key = plain.key;               // not a FAST_REG MR
    bad[3].access = A_RW;                 // remote write without local write
    bad[4].page_shift = 11;
    for (const wqe_reg_mr &r : bad) {
        Qp q;
        spare_qp(q);
        post_reg_mr(b, q, r);
        auto c = wait(b, 1).at(0);
        EXPECT_EQ(c.status, cqe_status::LOC_PROT_ERR);
        EXPECT_EQ(b.query(q).state, qp_state::ERR);
    }
    // None of them registered anything: the good one still can.
    post_reg_mr(b, qb, ok);
    EXPECT_EQ(wait(b, 1).at(0).status, cqe_status::SUCCESS);
}

TEST_F(Rdma, SqdDrainsAndNotifies) {
    connect();
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW);
    b.post_recv(qb, {sge(rb, 0, 4096)});
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 8)});
    a.h.pump();  // on the wire, not yet acknowledged: SQD lets it finish
    EXPECT_EQ(a.h.wire[0].size(), 1u);
    qp_attr at{};
    at.qpn = qa.qpn;
    at.state = qp_state::SQD;
    at.mask = M_STATE | (1u << 2);  // IB_QP_EN_SQD_ASYNC_NOTIFY
    ASSERT_EQ(a.modify(at).status, cmd_status::OK);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
    EXPECT_EQ(a.query(qa).sq_draining, 0);
    bool drained = false;
    while (auto e = a.d.poll_eq(a.d.eq))
        drained |= e->ev_type == eqe_type::QP_EVENT && e->subtype == qp_event::SQ_DRAINED && e->obj == qa.qpn;
    EXPECT_TRUE(drained);
    // New WQEs wait in SQD and go out after SQD -> RTS.
    b.post_recv(qb, {sge(rb, 0, 4096)});
    a.post_send(qa, wqe_opcode::SEND, {sge(sa, 0, 8)});
    EXPECT_TRUE(wait(a, 1, 2'000'000).empty());
    ASSERT_EQ(a.set_state(qa, qp_state::RTS).status, cmd_status::OK);
    EXPECT_EQ(wait(a, 1).at(0).status, cqe_status::SUCCESS);
}

// Two QPs of one card (rdma-core's pyverbs suite connects its pairs so):
// frames to the card's own GID loop back inside it and never reach the wire.
TEST_F(Rdma, OwnGidLoopsBackInsideTheCard) {
    Qp q1, q2;
    ASSERT_EQ(a.create_qp(q1, qp_type::RC).status, cmd_status::OK);
    ASSERT_EQ(a.create_qp(q2, qp_type::RC).status, cmd_status::OK);
    ASSERT_EQ(a.to_init(q1).status, cmd_status::OK);
    ASSERT_EQ(a.to_init(q2).status, cmd_status::OK);
    ASSERT_EQ(a.to_rtr(q1, a, q2.qpn, 500).status, cmd_status::OK);
    ASSERT_EQ(a.to_rtr(q2, a, q1.qpn, 700).status, cmd_status::OK);
    ASSERT_EQ(a.to_rts(q1, 700).status, cmd_status::OK);
    ASSERT_EQ(a.to_rts(q2, 500).status, cmd_status::OK);
    uint64_t on_wire = 0;
    tap = [&](std::vector<uint8_t> &) { on_wire++; };
    const uint32_t n = 20000;
    Mr s = a.reg(n, A_LW | A_RR), d = a.reg(n, A_LW | A_RW), r = a.reg(n, A_LW);
    fill(a.ptr(s), n, 7);
    a.post_send(q1, wqe_opcode::WRITE, {sge(s, 0, n)}, d.va, d.key);
    a.post_recv(q2, {sge(r, 0, n)});
    a.post_send(q1, wqe_opcode::SEND, {sge(s, 0, 3000)});
    a.post_send(q2, wqe_opcode::READ, {sge(r, 4096, 5000)}, s.va + 100, s.key);
    auto c = wait(a, 4);
    ASSERT_EQ(c.size(), 4u);
    for (auto &x : c)
        EXPECT_EQ(x.status, cqe_status::SUCCESS);
    EXPECT_EQ(std::memcmp(a.ptr(d), a.ptr(s), n), 0);
    EXPECT_EQ(std::memcmp(a.ptr(r), a.ptr(s), 3000), 0);
    EXPECT_EQ(std::memcmp(a.ptr(r, 4096), a.ptr(s, 100), 5000), 0);
    EXPECT_EQ(on_wire, 0u);
    rdma_stats st = a.stats(stats_scope::QP, q1.qpn);
    EXPECT_GE(st.tx_packets, 23u);  // 20 WRITE + 3 SEND packets at MTU 1024
    EXPECT_EQ(st.retransmits, 0u);
    EXPECT_GE(a.stats(stats_scope::RDMA_PORT, 0).rx_packets, 23u);
    EXPECT_EQ(b.stats(stats_scope::RDMA_PORT, 0).rx_packets, 0u);
}

// RESIZE_CQ re-points the ring: the driver copies what it had not polled to
// the front of the new ring and the card continues right after it.
TEST_F(Rdma, ResizeCqKeepsUnpolledCompletionsInOrder) {
    connect();
    Mr sa = a.reg(4096, A_LW), rb = b.reg(4096, A_LW | A_RW);
    auto resize = [&](uint32_t cqn, uint8_t log, uint64_t base) {
        create_cq_in in{};
        in.cqn = cqn;
        in.log_size = log;
        in.base = base;
        return a.d.cmd(cmd_opcode::RESIZE_CQ, in);
    };
    for (int i = 0; i < 12; i++)
        a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 8)}, rb.va, rb.key);
    for (int i = 0; i < 5; i++) {
        wire();
        advance(1'000'000);
    }
    for (int i = 0; i < 3; i++)
        ASSERT_TRUE(a.poll());  // and reports ci 3 to the card: 9 pending
    uint64_t small = a.h.alloc(32u << 3, 4096), big = a.h.alloc(32u << 4, 4096);
    EXPECT_CMD(resize(a.cq.id, 3, small), BAD_SIZE, CQ_RESIZE_TOO_SMALL);
    EXPECT_CMD(resize(a.cq.id + 1, 4, big), BAD_OBJECT, CQ_UNKNOWN);
    EXPECT_CMD(resize(a.cq.id, 4, big + 64), BAD_PARAM, CQ_ALIGN);
    EXPECT_CMD(resize(a.cq.id, 1, big), BAD_SIZE, CQ_LOG_SIZE);
    ASSERT_EQ(resize(a.cq.id, 4, big).status, cmd_status::OK);
    // the driver's part: the 9 unpolled CQEs to entries 0..8, owner of pass 0
    for (uint32_t i = 0; i < 9; i++) {
        cqe c = a.h.rd<cqe>(a.cq.base + ((a.cq.ci + i) & ((1u << a.cq.log_size) - 1)) * 32);
        c.owner = 1;
        a.h.wr(big + i * 32, c);
    }
    a.cq.base = big;
    a.cq.log_size = 4;
    a.cq.ci = 0;
    for (int i = 0; i < 5; i++)
        a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 8)}, rb.va, rb.key);
    auto c = wait(a, 14);
    ASSERT_EQ(c.size(), 14u);
    for (uint32_t i = 0; i < 14; i++) {
        EXPECT_EQ(c[i].status, cqe_status::SUCCESS);
        EXPECT_EQ(c[i].wqe_index, 3 + i);  // nothing lost, duplicated or reordered
    }
    // 16 entries now: the card wraps the new ring (owner of pass 1) correctly
    for (int i = 0; i < 6; i++)
        a.post_send(qa, wqe_opcode::WRITE, {sge(sa, 0, 8)}, rb.va, rb.key);
    c = wait(a, 6);
    ASSERT_EQ(c.size(), 6u);
    EXPECT_EQ(c[5].wqe_index, 22u);
}

}  // namespace

// Multi-packet READs at path MTU 1024, several outstanding (perftest's
// ib_read_bw): responses arrive in order and no READ is requested twice.
TEST_F(Rdma, RcReadPipelinedMtu1024) {
    connect();  // path MTU 1024
    const uint32_t n = 4096, k = 8;
    Mr la = a.reg(n * k, A_LW), rb = b.reg(n * k, A_LW | A_RR);
    fill(b.ptr(rb), n * k, 13);
    for (uint32_t i = 0; i < k; i++)
        a.post_send(qa, wqe_opcode::READ, {sge(la, i * n, n)}, rb.va + i * n, rb.key);
    auto c = wait(a, k);
    ASSERT_EQ(c.size(), k);
    for (auto &x : c)
        EXPECT_EQ(x.status, cqe_status::SUCCESS);
    EXPECT_EQ(std::memcmp(a.ptr(la), b.ptr(rb), n * k), 0);
    rdma_stats s = a.stats(stats_scope::QP, qa.qpn);
    EXPECT_EQ(s.out_of_sequence, 0u);
    EXPECT_EQ(s.retransmits, 0u);
    EXPECT_EQ(b.stats(stats_scope::QP, qb.qpn).tx_packets, k * (n / 1024));
}

// A lost READ response is asked for again once: the rest of the burst, out
// of sequence as well, must not each trigger another full re-request.
TEST_F(Rdma, RcReadLossRequestsAgainOnce) {
    connect();  // path MTU 1024: 64 responses per READ
    const uint32_t n = 64 << 10;
    Mr la = a.reg(n, A_LW), rb = b.reg(n, A_LW | A_RR);
    fill(b.ptr(rb), n, 17);
    drop_every = 10;  // the READ request is frame 1: responses 9, 19, ... are lost
    a.post_send(qa, wqe_opcode::READ, {sge(la, 0, n)}, rb.va, rb.key);
    auto c = wait(a, 1, 60'000'000'000ull);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].status, cqe_status::SUCCESS);
    EXPECT_EQ(std::memcmp(a.ptr(la), b.ptr(rb), n), 0);
    // Each loss costs at most one more pass over the remaining responses.
    EXPECT_LT(b.stats(stats_scope::QP, qb.qpn).tx_packets, 64u * 12);
}
