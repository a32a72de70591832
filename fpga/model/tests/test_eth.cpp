// SPDX-License-Identifier: MIT
// Ethernet datapath: what a driver sees through rings and on the wire.
#include <gtest/gtest.h>

#include "fake_host.hpp"
#include "kite/crc32.hpp"
#include "kite/csum.hpp"
#include "kite/ordered_set.hpp"
#include "kite/parser.hpp"
#include "kite/toeplitz.hpp"

using namespace kt;

namespace {

void partner_up(FakeHost &h) {
    uint8_t os[kite::OS_LEN];
    kite::os_build(os, kite::OS_STATE_UP);
    h.frame_in(std::vector<uint8_t>(os, os + sizeof(os)));
}

struct Eth : ::testing::Test {
    FakeHost h;
    Driver d{h};
    void SetUp() override {
        d.bring_up();
        ASSERT_EQ(d.set_port(true).status, cmd_status::OK);
        partner_up(h);
        h.wire[0].clear();
        // Drain the PORT_CHANGE event.
        auto e = d.poll_eq(d.eq);
        ASSERT_TRUE(e);
        ASSERT_EQ(e->ev_type, eqe_type::PORT_CHANGE);
        ASSERT_EQ(e->subtype, port_event::UP);
    }
};

bool ip4_ok(const uint8_t *ip) { return kite::csum_fold(kite::csum_partial(ip, 20)) == 0xffff; }
bool l4_ok(const std::vector<uint8_t> &f) {
    auto p = kite::parse_frame(f.data(), f.size() - 4);
    return kite::l4_csum_check(f.data(), p) == 1;
}

}  // namespace

TEST_F(Eth, TxPadsAndAppendsFcs) {
    auto f = udp4_frame(PEER_MAC, 4);  // 46 bytes: needs padding
    uint16_t idx = d.post_tx(f, wqe_eth{});
    d.ring_sq();
    h.pump();
    auto out = h.pop_frame();
    EXPECT_EQ(out, with_fcs(f));
    EXPECT_EQ(out.size(), 64u);
    auto c = d.poll_cq(d.cq);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->opcode, cqe_opcode::ETH_TX);
    EXPECT_EQ(c->status, cqe_status::SUCCESS);
    EXPECT_EQ(c->wqe_index, idx);
    EXPECT_EQ(c->qpn, d.sq.id);
    EXPECT_EQ(h.stats().tx_packets, 1u);
    EXPECT_EQ(h.stats().tx_bytes, 60u);
}

TEST_F(Eth, TxGatherAndChecksumOffload) {
    auto ref = udp4_frame(PEER_MAC, 300);
    auto f = ref;
    f[24] = f[25] = 0;  // IPv4 checksum left to the card
    uint32_t ps = kite::pseudo_v4(&f[26], &f[30], 17, 308);
    kite::put_be16(&f[40], kite::csum_fold(ps));  // CHECKSUM_PARTIAL seed
    wqe_eth e{};
    e.flags = wqe_eth::FLAGS_L3_CSUM | wqe_eth::FLAGS_L4_CSUM;
    e.csum_start = 34;
    e.csum_offset = 6;
    d.post_tx(f, e, 60);  // 6 gather entries: a full 128-byte WQE
    d.ring_sq();
    h.pump();
    EXPECT_EQ(h.pop_frame(), with_fcs(ref));
}

TEST_F(Eth, TxVlanInsertAndNoFcs) {
    auto f = udp4_frame(PEER_MAC, 100);
    wqe_eth e{};
    e.flags = wqe_eth::FLAGS_VLAN_INSERT;
    e.vlan_tci = 0x6007;
    d.post_tx(f, e);
    auto raw = with_fcs(udp4_frame(PEER_MAC, 100));
    wqe_eth n{};
    n.flags = wqe_eth::FLAGS_NO_FCS;
    d.post_tx(raw, n);
    d.ring_sq();
    h.pump();
    auto out = h.pop_frame();
    auto exp = f;
    uint8_t tag[4] = {0x81, 0x00, 0x60, 0x07};
    exp.insert(exp.begin() + 12, tag, tag + 4);
    EXPECT_EQ(out, with_fcs(exp));
    EXPECT_EQ(h.pop_frame(), raw);
}

TEST_F(Eth, Tso4SegmentsWithCorrectHeaders) {
    const size_t mss = 1000, payload = 3500;
    auto f = tcp4_frame(PEER_MAC, payload, 0x10000000, 0x80 | 0x08 | 0x01 | 0x10);  // CWR PSH FIN ACK
    wqe_eth e{};
    e.flags = wqe_eth::FLAGS_LSO;
    e.mss = mss;
    e.hdr_len = 54;
    d.post_tx(f, e, 2000, wqe_ctrl::FLAGS_SIGNALED, 54);  // headers in their own gather entry, as Linux does
    d.ring_sq();
    h.pump();
    for (size_t i = 0; i < 4; i++) {
        auto s = h.pop_frame();
        size_t chunk = std::min(mss, payload - i * mss);
        ASSERT_EQ(s.size(), std::max<size_t>(54 + chunk, 60) + 4) << i;
        EXPECT_TRUE(kite::fcs_ok(s.data(), s.size()));
        const uint8_t *ip = &s[14], *tcp = &s[34];
        EXPECT_EQ(kite::get_be16(ip + 2), 40 + chunk);
        EXPECT_EQ(kite::get_be16(ip + 4), 0x1000 + i);
        EXPECT_TRUE(ip4_ok(ip));
        EXPECT_EQ(kite::get_be32(tcp + 4), 0x10000000 + i * mss);
        uint8_t fl = tcp[13];
        EXPECT_EQ(bool(fl & 0x80), i == 0) << "CWR only first";
        EXPECT_EQ(bool(fl & 0x09), i == 3) << "PSH/FIN only last";
        EXPECT_TRUE(fl & 0x10);
        EXPECT_TRUE(l4_ok(s));
        EXPECT_EQ(0, std::memcmp(&s[54], &f[54 + i * mss], chunk));
    }
    EXPECT_TRUE(h.pop_frame().empty());
    EXPECT_EQ(h.stats().tx_lso, 1u);
    auto c = d.poll_cq(d.cq);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->status, cqe_status::SUCCESS);
}

TEST_F(Eth, Tso6AndUso) {
    auto f = tcp6_frame(PEER_MAC, 2500, 7, 0x18);
    wqe_eth e{};
    e.flags = wqe_eth::FLAGS_LSO;
    e.mss = 1200;
    e.hdr_len = 74;
    d.post_tx(f, e);
    auto u = udp4_frame(PEER_MAC, 3000);
    wqe_eth ue{};
    ue.flags = wqe_eth::FLAGS_LSO | wqe_eth::FLAGS_USO;
    ue.mss = 1400;
    ue.hdr_len = 42;
    d.post_tx(u, ue);
    d.ring_sq();
    h.pump();
    for (int i = 0; i < 3; i++) {
        auto s = h.pop_frame();
        size_t chunk = std::min<size_t>(1200, 2500 - i * 1200);
        EXPECT_EQ(kite::get_be16(&s[18]), 20 + chunk);
        EXPECT_EQ(kite::get_be32(&s[54 + 4]), 7 + i * 1200u);
        EXPECT_TRUE(l4_ok(s));
    }
    for (int i = 0; i < 3; i++) {
        auto s = h.pop_frame();
        size_t chunk = std::min<size_t>(1400, 3000 - i * 1400);
        EXPECT_EQ(kite::get_be16(&s[38]), 8 + chunk);
        EXPECT_TRUE(ip4_ok(&s[14]));
        EXPECT_TRUE(l4_ok(s));
    }
}

TEST_F(Eth, MalformedWqeErrorsAndQueueKeepsRunning) {
    auto f = udp4_frame(PEER_MAC, 100);
    wqe_eth lso{};
    lso.flags = wqe_eth::FLAGS_LSO;  // mss 0
    uint16_t bad = d.post_tx(f, lso, 0, 0);  // unsignaled: the error CQE comes anyway
    uint16_t good = d.post_tx(f, wqe_eth{});
    d.ring_sq();
    h.pump();
    auto c1 = d.poll_cq(d.cq);
    ASSERT_TRUE(c1);
    EXPECT_EQ(c1->opcode, cqe_opcode::ERROR);
    EXPECT_EQ(c1->status, cqe_status::LOC_LEN_ERR);
    EXPECT_EQ(c1->wqe_index, bad);
    auto c2 = d.poll_cq(d.cq);
    ASSERT_TRUE(c2);
    EXPECT_EQ(c2->status, cqe_status::SUCCESS);
    EXPECT_EQ(c2->wqe_index, good);
    EXPECT_EQ(h.pop_frame(), with_fcs(f));
    EXPECT_EQ(h.stats().tx_bad_desc, 1u);
}

TEST_F(Eth, TsoHeadersRefusedAfterGatherError) {
    // The descriptor passes (mss, hdr_len within the first entry) but
    // tx_lso refuses the headers (UDP without USO: nothing to segment), which
    // hardware finds only after the gather. Each completes LOC_LEN_ERR with
    // syndrome TXE_LSO (5), signaled or not, sends nothing and counts as a
    // bad WQE; its checksum offload is not counted. The next WQE goes out.
    auto u = udp4_frame(PEER_MAC, 300);
    wqe_eth e{};
    e.flags = wqe_eth::FLAGS_LSO | wqe_eth::FLAGS_L3_CSUM | wqe_eth::FLAGS_L4_CSUM;
    e.mss = 128;
    e.hdr_len = 42;
    uint16_t b1 = d.post_tx(u, e);
    uint16_t b2 = d.post_tx(u, e, 0, 0);
    auto f = udp4_frame(PEER_MAC, 100);
    uint16_t good = d.post_tx(f, wqe_eth{});
    d.ring_sq();
    h.pump();
    for (uint16_t idx : {b1, b2}) {
        auto c = d.poll_cq(d.cq);
        ASSERT_TRUE(c);
        EXPECT_EQ(c->opcode, cqe_opcode::ERROR);
        EXPECT_EQ(c->status, cqe_status::LOC_LEN_ERR);
        EXPECT_EQ(c->csum_syndrome, 5u);
        EXPECT_EQ(c->wqe_index, idx);
    }
    auto c3 = d.poll_cq(d.cq);
    ASSERT_TRUE(c3);
    EXPECT_EQ(c3->status, cqe_status::SUCCESS);
    EXPECT_EQ(c3->wqe_index, good);
    EXPECT_EQ(h.pop_frame(), with_fcs(f));
    EXPECT_TRUE(h.wire[0].empty());
    EXPECT_EQ(h.stats().tx_bad_desc, 2u);
    EXPECT_EQ(h.stats().tx_lso, 0u);
    query_stats_in q{};
    q.scope = stats_scope::SQ;
    q.id = d.sq.id;
    q.addr = h.alloc(4096);
    q.len = sizeof(queue_stats);
    ASSERT_EQ(d.cmd(cmd_opcode::QUERY_STATS, q).status, cmd_status::OK);
    auto s = h.rd<queue_stats>(q.addr);
    EXPECT_EQ(s.packets, 1u);
    EXPECT_EQ(s.bytes, f.size());
    EXPECT_EQ(s.errors, 2u);
    EXPECT_EQ(s.drops, 2u);
    EXPECT_EQ(s.csum, 0u);
    EXPECT_EQ(s.lso, 0u);
}

TEST_F(Eth, TxDmaErrorMovesQueueToErr) {
    auto f = udp4_frame(PEER_MAC, 100);
    d.post_tx(f, wqe_eth{});
    h.fail_lo = h.brk - 4096;  // the frame buffer
    h.fail_hi = h.brk;
    d.ring_sq();
    h.pump();
    auto c = d.poll_cq(d.cq);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->opcode, cqe_opcode::ERROR);
    EXPECT_EQ(h.stats().tx_dma_error, 1u);
    obj_in q{d.sq.id, 0};
    auto r = d.cmd(cmd_opcode::QUERY_SQ, q);
    EXPECT_EQ(r.as<query_wq_out>().state, wq_state::ERR);
    auto e = d.poll_eq(d.eq);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->ev_type, eqe_type::WQ_ERROR);
    EXPECT_EQ(e->obj, d.sq.id);
    // Doorbells to a queue in ERR are dropped and counted.
    d.ring_sq();
    EXPECT_EQ(h.stats().db_dropped, 1u);
    // ERR -> RST -> RDY recovers it.
    h.fail_lo = h.fail_hi = 0;
    EXPECT_EQ(d.modify_wq(false, d.sq.id, wq_state::RDY).status, cmd_status::BAD_STATE);
    EXPECT_EQ(d.modify_wq(false, d.sq.id, wq_state::RST).status, cmd_status::OK);
    EXPECT_EQ(d.modify_wq(false, d.sq.id, wq_state::RDY).status, cmd_status::OK);
    d.sq.pi = 0;
    d.post_tx(f, wqe_eth{});
    d.ring_sq();
    h.pump();
    EXPECT_EQ(h.pop_frame(), with_fcs(f));
}

TEST_F(Eth, RxDeliversBytesAndCqe) {
    auto bufs = d.post_rx(2);
    auto f = tcp4_frame(PF_MAC, 200, 5, 0x18);
    h.frame_in(with_fcs(f));
    auto c = d.poll_cq(d.cq);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->opcode, cqe_opcode::ETH_RX);
    EXPECT_EQ(c->byte_cnt, f.size());
    EXPECT_EQ(c->qpn, d.rq.id);
    EXPECT_EQ(c->wqe_index, 0);
    EXPECT_EQ(0, std::memcmp(h.ptr(bufs[0]), f.data(), f.size()));
    EXPECT_TRUE(c->flags & cqe::FLAGS_L3_OK);
    EXPECT_TRUE(c->flags & cqe::FLAGS_L4_OK);
    EXPECT_EQ(c->csum_syndrome, kite::csum_fold(kite::csum_partial(&f[14], f.size() - 14)));
    auto s = h.stats();
    EXPECT_EQ(s.rx_packets, 1u);
    EXPECT_EQ(s.rx_bytes, f.size());
    // Bad L4 checksum: delivered, flagged, counted.
    f[60] ^= 0xff;
    h.frame_in(with_fcs(f));
    c = d.poll_cq(d.cq);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->flags & cqe::FLAGS_L4_BAD);
    EXPECT_EQ(h.stats().rx_bad_csum, 1u);
}

TEST_F(Eth, RxDropsAreCounted) {
    d.post_rx(4);
    auto good = with_fcs(udp4_frame(PF_MAC, 100));
    auto runt = good;
    runt.resize(40);
    h.frame_in(runt);
    auto badfcs = good;
    badfcs.back() ^= 1;
    h.frame_in(badfcs);
    h.frame_in(with_fcs(udp4_frame(PEER_MAC, 100)));  // not our MAC
    h.frame_in(with_fcs(udp4_frame(PF_MAC, 1600)));   // above MTU 1500
    auto s = h.stats();
    EXPECT_EQ(s.rx_runt, 1u);
    EXPECT_EQ(s.rx_bad_fcs, 1u);
    EXPECT_EQ(s.rx_filtered, 1u);
    EXPECT_EQ(s.rx_oversize, 1u);
    EXPECT_EQ(s.rx_packets, 0u);
    EXPECT_FALSE(d.poll_cq(d.cq));
    // Broadcast passes by default; multicast only when added.
    uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, mc[6] = {0x01, 0x00, 0x5e, 0, 0, 1};
    h.frame_in(with_fcs(udp4_frame(bc, 10)));
    h.frame_in(with_fcs(udp4_frame(mc, 10)));
    EXPECT_EQ(h.stats().rx_broadcast, 1u);
    EXPECT_EQ(h.stats().rx_filtered, 2u);
    mac_filter_in m{};
    std::memcpy(m.mac, mc, 6);
    m.op = 1;
    EXPECT_EQ(d.cmd(cmd_opcode::SET_MAC_FILTER, m).status, cmd_status::OK);
    h.frame_in(with_fcs(udp4_frame(mc, 10)));
    EXPECT_EQ(h.stats().rx_multicast, 1u);
    // Out of buffers.
    h.frame_in(good);
    h.frame_in(good);
    h.frame_in(good);
    EXPECT_EQ(h.stats().rx_no_buffer, 1u);
}

// Per-queue counters as a driver reads them: QUERY_STATS of the SQ and the
// RQ, then a clearing read, then a queue created again counts from zero.
TEST_F(Eth, QueueCountersThroughQueryStats) {
    auto query = [&](uint8_t scope, uint32_t id, bool clear = false) {
        query_stats_in q{};
        q.scope = scope;
        q.id = id;
        q.addr = h.alloc(4096);
        q.len = sizeof(queue_stats);
        q.flags = clear ? query_stats_in::FLAGS_CLEAR : 0;
        EXPECT_EQ(d.cmd(cmd_opcode::QUERY_STATS, q).status, cmd_status::OK);
        return h.rd<queue_stats>(q.addr);
    };
    // TX: a checksum-offloaded frame, a plain one, a malformed WQE (LSO with
    // mss 0) and a TSO WQE of three segments, one doorbell.
    auto f = udp4_frame(PEER_MAC, 100);
    wqe_eth cs{};
    cs.flags = wqe_eth::FLAGS_L3_CSUM;
    d.post_tx(f, cs);
    d.post_tx(f, wqe_eth{});
    wqe_eth bad{};
    bad.flags = wqe_eth::FLAGS_LSO;
    d.post_tx(f, bad);
    auto t = tcp4_frame(PEER_MAC, 300, 1000, 0x18);
    wqe_eth tso{};
    tso.flags = wqe_eth::FLAGS_LSO | wqe_eth::FLAGS_L3_CSUM | wqe_eth::FLAGS_L4_CSUM;
    tso.mss = 128;
    tso.hdr_len = 54;
    d.post_tx(t, tso);
    d.ring_sq();
    h.pump();
    for (int i = 0; i < 6; i++)
        h.pop_frame();
    queue_stats s = query(stats_scope::SQ, d.sq.id);
    EXPECT_EQ(s.packets, 5u);
    EXPECT_EQ(s.bytes, 2 * f.size() + t.size());
    EXPECT_EQ(s.drops, 1u);
    EXPECT_EQ(s.errors, 1u);
    EXPECT_EQ(s.csum, 2u);
    EXPECT_EQ(s.lso, 1u);
    EXPECT_EQ(s.doorbells, 1u);
    // RX: two frames delivered (checksums verified), one without a buffer.
    d.post_rx(2);
    auto r1 = tcp4_frame(PF_MAC, 200, 5, 0x18), r2 = udp4_frame(PF_MAC, 50);
    h.frame_in(with_fcs(r1));
    h.frame_in(with_fcs(r2));
    h.frame_in(with_fcs(r2));
    queue_stats r = query(stats_scope::RQ, d.rq.id);
    EXPECT_EQ(r.packets, 2u);
    EXPECT_EQ(r.bytes, r1.size() + r2.size());
    EXPECT_EQ(r.drops, 1u);
    EXPECT_EQ(r.csum, 2u);
    EXPECT_EQ(r.doorbells, 1u);
    // A clearing read returns the counts, then they start from zero.
    EXPECT_EQ(query(stats_scope::SQ, d.sq.id, true).packets, 5u);
    EXPECT_EQ(query(stats_scope::SQ, d.sq.id).packets, 0u);
    EXPECT_EQ(query(stats_scope::RQ, d.rq.id, true).bytes, r1.size() + r2.size());
    EXPECT_EQ(query(stats_scope::RQ, d.rq.id).bytes, 0u);
    // A new SQ in the same slot counts from zero.
    d.post_tx(f, wqe_eth{});
    d.ring_sq();
    h.pump();
    h.pop_frame();
    EXPECT_EQ(query(stats_scope::SQ, d.sq.id).packets, 1u);
    obj_in q{d.sq.id, 0};
    ASSERT_EQ(d.cmd(cmd_opcode::DESTROY_SQ, q).status, cmd_status::OK);
    uint32_t old = d.sq.id;
    ASSERT_EQ(d.create_wq(false, d.sq, 4, 7, d.cq.id).status, cmd_status::OK);
    ASSERT_EQ(d.sq.id, old);
    EXPECT_EQ(query(stats_scope::SQ, d.sq.id).packets, 0u);
}

TEST_F(Eth, RxNoRssContextDrops) {
    obj_in r{0, 0};
    ASSERT_EQ(d.cmd(cmd_opcode::DESTROY_RSS, r).status, cmd_status::OK);
    d.post_rx(1);
    h.frame_in(with_fcs(udp4_frame(PF_MAC, 10)));
    EXPECT_EQ(h.stats().rx_no_buffer, 1u);
    EXPECT_FALSE(d.poll_cq(d.cq));
}

TEST(EthRx, VlanStripAndFcsKeep) {
    FakeHost h;
    Driver d{h};
    d.bring_up(create_wq_in::FLAGS_VLAN_STRIP | create_wq_in::FLAGS_RX_FCS);
    d.set_port(true);
    partner_up(h);
    auto bufs = d.post_rx(1);
    auto f = udp4_frame(PF_MAC, 64);
    auto tagged = f;
    uint8_t tag[4] = {0x81, 0x00, 0x30, 0x64};
    tagged.insert(tagged.begin() + 12, tag, tag + 4);
    auto wire = with_fcs(tagged);
    h.frame_in(wire);
    auto c = d.poll_cq(d.cq);
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->flags & cqe::FLAGS_VLAN);
    EXPECT_EQ(c->vlan_tci, 0x3064);
    EXPECT_EQ(c->byte_cnt, f.size() + 4);  // untagged frame + FCS
    EXPECT_EQ(0, std::memcmp(h.ptr(bufs[0]), f.data(), f.size()));
    EXPECT_EQ(0, std::memcmp(h.ptr(bufs[0]) + f.size(), &wire[wire.size() - 4], 4));
}

TEST(EthRx, RssSpreadsByToeplitz) {
    FakeHost h;
    Driver d{h};
    d.bring_up();
    Queue rqs[4];
    std::vector<uint16_t> table;
    for (auto &q : rqs) {
        ASSERT_EQ(d.create_wq(true, q, 4, 6, d.cq.id).status, cmd_status::OK);
        ASSERT_EQ(d.modify_wq(true, q.id, wq_state::RDY).status, cmd_status::OK);
        table.push_back(uint16_t(q.id));
    }
    ASSERT_EQ(d.set_rss(0, table, rss_field::IPV4 | rss_field::IPV4_UDP, kite::rss_default_key).status,
              cmd_status::OK);
    d.set_port(true);
    partner_up(h);
    for (auto &q : rqs) {
        d.rq = q;
        d.post_rx(4);
    }
    for (uint16_t port = 1000; port < 1008; port++) {
        auto f = udp4_frame(PF_MAC, 20, 0x0a000001, 0x0a000002, port, 53);
        h.frame_in(with_fcs(f));
        uint8_t in[12];
        std::memcpy(in, &f[26], 8);
        std::memcpy(in + 8, &f[34], 4);
        uint32_t hash = kite::toeplitz_hash(kite::rss_default_key, 40, in, 12);
        auto c = d.poll_cq(d.cq);
        ASSERT_TRUE(c);
        EXPECT_EQ(c->imm_hash, hash);
        EXPECT_EQ(c->hash_type, rss_hash_type::IPV4_UDP);
        EXPECT_EQ(c->qpn, table[hash % 4]);
    }
}

TEST(EthRx, PauseBackPressure) {
    FakeHost h;
    Driver d{h};
    d.bring_up();
    d.set_port(true, 0, port_info::PAUSE_RX);
    partner_up(h);
    // The frame finds the ring empty: the port keeps it and back-pressures
    // the wire until a buffer is posted.
    auto f = with_fcs(udp4_frame(PF_MAC, 30));
    auto g = with_fcs(udp4_frame(PF_MAC, 31));
    EXPECT_EQ(h.frame_in(f), 1);
    EXPECT_EQ(h.stats().rx_pause, 1u);
    EXPECT_EQ(h.frame_in(g), 0);
    EXPECT_FALSE(d.poll_cq(d.cq));
    EXPECT_EQ(h.rx_ready, 0);
    auto b = d.post_rx(1);
    h.pump();
    EXPECT_EQ(h.rx_ready, 1);
    auto c = d.poll_cq(d.cq);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->status, cqe_status::SUCCESS);
    ASSERT_EQ(c->byte_cnt, f.size() - 4);
    EXPECT_EQ(std::memcmp(h.ptr(b[0]), f.data(), f.size() - 4), 0);
    // The next one waits likewise; turning PAUSE off lets it through, as
    // the drop it would have been.
    EXPECT_EQ(h.frame_in(g), 1);
    EXPECT_EQ(h.stats().rx_pause, 2u);
    EXPECT_EQ(h.frame_in(g), 0);
    d.set_port(true, 0, 0);
    h.pump();
    EXPECT_EQ(h.rx_ready, 2);
    EXPECT_EQ(h.stats().rx_no_buffer, 1u);
    EXPECT_EQ(h.stats().rx_packets, 1u);
    EXPECT_FALSE(d.poll_cq(d.cq));
    EXPECT_EQ(h.frame_in(g), 1);
    EXPECT_EQ(h.stats().rx_no_buffer, 2u);
    EXPECT_EQ(h.stats().rx_pause, 2u);
}

TEST_F(Eth, DoorbellsForForeignOrIdleQueuesAreDropped) {
    Queue sq2;
    ASSERT_EQ(d.create_wq(false, sq2, 4, 6, d.cq.id).status, cmd_status::OK);
    h.db(0, db::SQ, sq2.id << 16 | 1);  // still RST
    h.db(0, db::SQ, 999 << 16 | 1);     // no such queue
    ASSERT_EQ(d.cmd(cmd_opcode::ALLOC_DB_PAGE).status, cmd_status::OK);
    h.db(1, db::SQ, d.sq.id << 16 | 1);  // queue bound to page 0
    h.abi->set_num_vfs(h.card, 1);
    h.db(0, db::SQ, d.sq.id << 16 | 1, 1);  // VF ringing the PF's queue
    h.pump();
    EXPECT_TRUE(h.pop_frame().empty());
    EXPECT_EQ(h.stats().db_dropped, 4u);
}

TEST_F(Eth, ModerationDelaysEvents) {
    modify_cq_in m{};
    m.cqn = d.cq.id;
    m.mod_usec = 50;
    m.mod_count = 3;
    ASSERT_EQ(d.cmd(cmd_opcode::MODIFY_CQ, m).status, cmd_status::OK);
    d.post_rx(8);
    d.arm_eq();
    d.arm_cq();
    h.msix.clear();
    auto f = with_fcs(udp4_frame(PF_MAC, 30));
    h.frame_in(f);
    EXPECT_FALSE(d.poll_eq(d.eq)) << "moderated: no event yet";
    h.advance(49'000);
    EXPECT_FALSE(d.poll_eq(d.eq));
    h.advance(2'000);
    auto e = d.poll_eq(d.eq);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->ev_type, eqe_type::COMP);
    EXPECT_EQ(e->obj, d.cq.id);
    EXPECT_EQ(h.msix.size(), 1u);
    // Count: the third CQE after re-arming fires at once.
    while (d.poll_cq(d.cq)) {
    }
    d.arm_cq();
    d.arm_eq();
    h.frame_in(f);
    h.frame_in(f);
    EXPECT_FALSE(d.poll_eq(d.eq));
    h.frame_in(f);
    EXPECT_TRUE(d.poll_eq(d.eq));
}

TEST(Rings, OwnerBitWrapsOnCqAndEq) {
    FakeHost h;
    Driver d{h};
    d.reset_and_init();
    ASSERT_EQ(d.create_eq(d.eq, 2, 0, true).status, cmd_status::OK);
    ASSERT_EQ(d.create_cq(d.cq, 2, d.eq.id).status, cmd_status::OK);
    ASSERT_EQ(d.create_wq(false, d.sq, 4, 7, d.cq.id).status, cmd_status::OK);
    ASSERT_EQ(d.create_wq(true, d.rq, 4, 6, d.cq.id).status, cmd_status::OK);
    d.modify_wq(true, d.rq.id, wq_state::RDY);
    d.set_rss(0, {uint16_t(d.rq.id)}, 0);
    d.set_port(true);
    partner_up(h);
    ASSERT_TRUE(d.poll_eq(d.eq));  // PORT_CHANGE
    auto f = with_fcs(udp4_frame(PF_MAC, 30));
    for (int i = 0; i < 11; i++) {
        d.post_rx(1);
        h.frame_in(f);
        uint64_t slot = d.cq.base + (d.cq.ci & 3) * 32;
        EXPECT_EQ(h.rd<cqe>(slot).owner & 1, ((d.cq.ci >> 2) & 1) ^ 1) << i;
        auto c = d.poll_cq(d.cq);
        ASSERT_TRUE(c) << i;
        EXPECT_EQ(c->wqe_index, i);
        EXPECT_FALSE(d.poll_cq(d.cq));
        h.db(0, db::CQ_CI, d.cq.id << 16 | (d.cq.ci & 0xffff));
        // Command completions as events wrap the EQ too.
        d.cmd(cmd_opcode::QUERY_HEALTH, nullptr, 0, 1, cmd_entry::FLAGS_EVENT);
        auto e = d.poll_eq(d.eq);
        ASSERT_TRUE(e) << i;
        EXPECT_EQ(e->ev_type, eqe_type::CMD_DONE);
        EXPECT_EQ(e->obj, d.token);
        h.db(0, db::EQ_CI, d.eq.id << 16 | (d.eq.ci & 0xffff));
    }
    EXPECT_EQ(h.stats().rx_packets, 11u);
}

TEST(EthRx, FlowRulesSteerBeforeRss) {
    FakeHost h;
    Driver d{h};
    d.bring_up();
    Queue qa, qb, qc;
    for (Queue *q : {&qa, &qb, &qc}) {
        ASSERT_EQ(d.create_wq(true, *q, 4, 6, d.cq.id).status, cmd_status::OK);
        ASSERT_EQ(d.modify_wq(true, q->id, wq_state::RDY).status, cmd_status::OK);
    }
    Res ctx = d.set_rss(0xffff, {uint16_t(qb.id), uint16_t(qc.id)}, rss_field::IPV4 | rss_field::IPV4_UDP,
                        kite::rss_default_key);
    ASSERT_EQ(ctx.status, cmd_status::OK);
    auto be = [](uint16_t v) { return uint16_t(v >> 8 | (v & 0xff) << 8); };
    auto rule = [&](uint16_t slot, uint8_t match, uint32_t sip, uint16_t dport, uint8_t action, uint32_t rq,
                    uint16_t c) {
        flow_rule_in in{};
        in.rule = slot;
        in.op = 1;
        in.l4_proto = 17;
        in.match = match;
        in.src_ip[10] = in.src_ip[11] = 0xff;
        for (int i = 0; i < 4; i++)
            in.src_ip[12 + i] = uint8_t(sip >> (24 - 8 * i));
        in.dst_port = be(dport);
        in.action = action;
        in.rq = rq;
        in.ctx = c;
        return d.cmd(cmd_opcode::SET_FLOW_RULE, in).status;
    };
    using fr = flow_rule_in;
    ASSERT_EQ(rule(5, fr::MATCH_SRC_IP | fr::MATCH_DST_PORT, 0x0a000009, 2000, 0, qa.id, 0), cmd_status::OK);
    ASSERT_EQ(rule(1, fr::MATCH_DST_PORT, 0, 3000, 2, 0, 0), cmd_status::OK);
    ASSERT_EQ(rule(2, fr::MATCH_DST_PORT, 0, 4000, 1, 0, uint16_t(ctx.id())), cmd_status::OK);
    ASSERT_EQ(rule(3, fr::MATCH_DST_PORT | fr::MATCH_IPV6, 0, 2000, 2, 0, 0), cmd_status::OK);  // v6 only
    d.set_port(true);
    partner_up(h);
    Queue keep = d.rq;
    for (Queue *q : {&qa, &qb, &qc}) {
        d.rq = *q;
        d.post_rx(8);
        *q = d.rq;
    }
    d.rq = keep;
    d.post_rx(8);
    auto rx = [&](uint32_t sip, uint16_t sport, uint16_t dport) -> uint32_t {
        h.frame_in(with_fcs(udp4_frame(PF_MAC, 20, sip, 0x0a000002, sport, dport)));
        auto c = d.poll_cq(d.cq);
        return c ? c->qpn : 0;
    };
    EXPECT_EQ(rx(0x0a000009, 1000, 2000), qa.id);     // the queue rule
    EXPECT_EQ(rx(0x0a000001, 1000, 2000), d.rq.id);   // other source: RSS context 0
    EXPECT_EQ(rx(0x0a000009, 1000, 3000), 0u);        // dropped
    EXPECT_EQ(h.stats().rx_flow_drop, 1u);
    for (uint16_t sport = 1000; sport < 1008; sport++) {
        auto f = udp4_frame(PF_MAC, 20, 0x0a000001, 0x0a000002, sport, 4000);
        uint8_t in[12];
        std::memcpy(in, &f[26], 8);
        std::memcpy(in + 8, &f[34], 4);
        uint32_t hash = kite::toeplitz_hash(kite::rss_default_key, 40, in, 12);
        EXPECT_EQ(rx(0x0a000001, sport, 4000), hash % 2 ? qc.id : qb.id);
    }
    // The lowest matching slot wins; removing it restores the next.
    ASSERT_EQ(rule(0, fr::MATCH_DST_PORT, 0, 2000, 2, 0, 0), cmd_status::OK);
    EXPECT_EQ(rx(0x0a000009, 1000, 2000), 0u);
    EXPECT_EQ(h.stats().rx_flow_drop, 2u);
    flow_rule_in del{};
    del.rule = 0;
    ASSERT_EQ(d.cmd(cmd_opcode::SET_FLOW_RULE, del).status, cmd_status::OK);
    EXPECT_EQ(rx(0x0a000009, 1000, 2000), qa.id);
    // A function reset forgets its rules.
    d.bring_up();
    d.set_port(true);
    partner_up(h);
    d.post_rx(2);
    EXPECT_EQ(rx(0x0a000001, 1000, 3000), d.rq.id);
    EXPECT_EQ(h.stats().rx_flow_drop, 2u);
}
