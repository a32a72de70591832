// SPDX-License-Identifier: MIT
// Command processor: every validation path returns its status and syndrome.
#include <gtest/gtest.h>

#include <unistd.h>

#include "fake_host.hpp"
#include "kite/crc32.hpp"

using namespace kt;
namespace sy = kite::spec::syndrome;
namespace st = kite::spec::cmd_status;

#define EXPECT_CMD(res, s, y)                                                                     \
    do {                                                                                          \
        Res r_ = (res);                                                                           \
        EXPECT_EQ(r_.status, st::s) << "got " << cmd_status::name(r_.status) << "/" << std::hex    \
                                     << r_.syndrome;                                               \
        EXPECT_EQ(r_.syndrome, sy::y) << std::hex << r_.syndrome;                                 \
    } while (0)

struct Cmd : ::testing::Test {
    FakeHost h;
    Driver d{h};
    void SetUp() override { d.reset_and_init(); }
};

TEST_F(Cmd, RegistersAndCaps) {
    EXPECT_EQ(h.r32(reg::MAGIC), MAGIC);
    EXPECT_EQ(h.r32(reg::SPEC_VERSION) >> 16, SPEC_MAJOR);
    EXPECT_EQ(h.r32(reg::DB_PAGES), pci::PF_DB_PAGES);
    EXPECT_EQ(h.r32(reg::MSIX_VECTORS), pci::PF_MSIX_VECTORS);
    h.w32(reg::SCRATCH, 0xdeadbeef);
    EXPECT_EQ(h.r32(reg::SCRATCH), 0xdeadbeefu);
    uint32_t hb = uint32_t(h.r32(reg::HEARTBEAT));
    h.advance(5'000'000);
    EXPECT_EQ(h.r32(reg::HEARTBEAT), hb + 5);
    Res r = d.cmd(cmd_opcode::QUERY_CAPS);
    EXPECT_EQ(r.status, st::OK);
    EXPECT_EQ(r.out_len, sizeof(caps_out));
    auto c = r.as<caps_out>();
    EXPECT_EQ(c.num_ports, 1);
    EXPECT_EQ(c.rss_table_size, limits::RSS_TABLE_SIZE);
    EXPECT_EQ(c.features & reg::CAPS_TSO, reg::CAPS_TSO);
    EXPECT_EQ(uint32_t(c.features), h.r32(reg::CAPS));
}

// DEV_CTRL.RESET disables and clears the command ring; a PCIe FLR returns
// every BAR0 register to its reset value; a ring base must be 4 KiB aligned.
TEST_F(Cmd, ResetAndFlrClearRegisters) {
    ASSERT_NE(h.r32(reg::CMDQ_BASE_LO), 0u);
    h.w32(reg::DEV_CTRL, reg::DEV_CTRL_RESET);
    EXPECT_EQ(h.r32(reg::DEV_CTRL) & reg::DEV_CTRL_RESET, 0u);
    EXPECT_EQ(h.r32(reg::CMDQ_BASE_LO), 0u);
    EXPECT_EQ(h.r32(reg::CMDQ_LOG_SIZE), 0u);
    h.w32(reg::CMDQ_BASE_LO, uint32_t(d.cmdq) + 64);
    h.w32(reg::CMDQ_LOG_SIZE, 3);
    EXPECT_EQ(h.r32(reg::CMDQ_LOG_SIZE), 0u) << "a ring on an unaligned base";
    d.reset_and_init();
    ASSERT_EQ(d.cmd(cmd_opcode::QUERY_CAPS).status, st::OK);
    h.w32(reg::SCRATCH, 0x5a5a5a5a);
    h.abi->flr(h.card, 0);
    for (uint32_t off : {reg::CMDQ_BASE_LO, reg::CMDQ_BASE_HI, reg::CMDQ_LOG_SIZE, reg::CMDQ_PI, reg::SCRATCH})
        EXPECT_EQ(h.r32(off), 0u) << "BAR0 0x" << std::hex << off << " after an FLR";
    EXPECT_EQ(h.r32(reg::DEV_CTRL) & reg::DEV_CTRL_RESET, 0u);
    EXPECT_TRUE(h.r32(reg::DEV_STATUS) & reg::DEV_STATUS_READY);
    d.reset_and_init();
    EXPECT_EQ(d.cmd(cmd_opcode::QUERY_CAPS).status, st::OK);
}

TEST_F(Cmd, EnvelopeChecks) {
    EXPECT_CMD(d.cmd(0x7777), BAD_OPCODE, CMD_UNKNOWN_OPCODE);
    EXPECT_CMD(d.cmd(cmd_opcode::QUERY_CAPS, nullptr, 0, 2), BAD_VERSION, CMD_VERSION);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_VF_CONFIG), NOT_SUPPORTED, NONE);
    // RDMA commands exist: an all-zero input fails validation instead.
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_QP), BAD_OBJECT, PD_UNKNOWN);
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_SRQ), BAD_OBJECT, PD_UNKNOWN);
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_AH), BAD_OBJECT, PD_UNKNOWN);
    EXPECT_CMD(d.cmd(cmd_opcode::RESIZE_CQ), BAD_OBJECT, CQ_UNKNOWN);
    EXPECT_CMD(d.cmd(cmd_opcode::ADD_GID), BAD_PARAM, GID_TYPE);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE), BAD_PARAM, FILTER_NOT_FOUND);  // remove of an empty slot
    auto hl = d.cmd(cmd_opcode::QUERY_HEALTH).as<health_out>();
    EXPECT_EQ(hl.state, 0);
    EXPECT_GE(hl.cmd_errors, 9u);
}

TEST_F(Cmd, EqValidation) {
    Queue q;
    EXPECT_CMD(d.create_eq(q, 1, 0, true), BAD_SIZE, EQ_LOG_SIZE);
    EXPECT_CMD(d.create_eq(q, 16, 0, true), BAD_SIZE, EQ_LOG_SIZE);
    EXPECT_CMD(d.create_eq(q, 4, 64, true), BAD_PARAM, EQ_VECTOR);
    create_eq_in in{};
    in.base = h.alloc(4096) + 64;
    in.log_size = 4;
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_EQ, in), BAD_PARAM, EQ_ALIGN);
    in.base -= 64;
    in.db_page = 5;
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_EQ, in), BAD_PARAM, DB_PAGE_RANGE);
    in.db_page = 0;
    in.flags = 0x80;
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_EQ, in), BAD_PARAM, CMD_RESERVED_NONZERO);
    ASSERT_EQ(d.create_eq(d.eq, 4, 0, true).status, st::OK);
    EXPECT_CMD(d.create_eq(q, 4, 0, false), BUSY, EQ_VECTOR_IN_USE);
    EXPECT_CMD(d.create_eq(q, 4, 1, true), BUSY, EQ_ASYNC_EXISTS);
    ASSERT_EQ(d.create_cq(d.cq, 4, d.eq.id).status, st::OK);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_EQ, obj_in{d.eq.id, 0}), BUSY, EQ_IN_USE);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_EQ, obj_in{77, 0}), BAD_OBJECT, EQ_UNKNOWN);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_CQ, obj_in{d.cq.id, 0}), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_EQ, obj_in{d.eq.id, 0}), OK, NONE);
    // Exhaust: one EQ per vector, 64 vectors; the pool has more, so vectors run out first.
    for (uint16_t v = 0; v < 64; v++)
        ASSERT_EQ(d.create_eq(q, 2, v, false).status, st::OK);
    EXPECT_CMD(d.create_eq(q, 2, 0, false), BUSY, EQ_VECTOR_IN_USE);
}

TEST_F(Cmd, CqAndWqValidation) {
    ASSERT_EQ(d.create_eq(d.eq, 4, 0, true).status, st::OK);
    Queue q;
    EXPECT_CMD(d.create_cq(q, 16, d.eq.id), BAD_SIZE, CQ_LOG_SIZE);
    EXPECT_CMD(d.create_cq(q, 4, 99), BAD_OBJECT, EQ_UNKNOWN);
    EXPECT_CMD(d.create_cq(q, 4, d.eq.id, 5000), BAD_PARAM, CQ_MODERATION);
    ASSERT_EQ(d.create_cq(d.cq, 4, d.eq.id).status, st::OK);
    modify_cq_in m{};
    m.cqn = 300;
    EXPECT_CMD(d.cmd(cmd_opcode::MODIFY_CQ, m), BAD_OBJECT, CQ_UNKNOWN);
    m.cqn = d.cq.id;
    m.mod_usec = 4096;
    EXPECT_CMD(d.cmd(cmd_opcode::MODIFY_CQ, m), BAD_PARAM, CQ_MODERATION);

    EXPECT_CMD(d.create_wq(false, q, 1, 6, d.cq.id), BAD_SIZE, WQ_LOG_SIZE);
    EXPECT_CMD(d.create_wq(false, q, 4, 5, d.cq.id), BAD_SIZE, WQ_LOG_STRIDE);
    EXPECT_CMD(d.create_wq(false, q, 4, 10, d.cq.id), BAD_SIZE, WQ_LOG_STRIDE);
    EXPECT_CMD(d.create_wq(false, q, 4, 6, 77), BAD_OBJECT, CQ_UNKNOWN);
    EXPECT_CMD(d.create_wq(false, q, 4, 6, d.cq.id, create_wq_in::FLAGS_VLAN_STRIP), BAD_PARAM,
               CMD_RESERVED_NONZERO);
    create_wq_in in{};
    in.base = h.alloc(8192);
    in.log_size = 4;
    in.log_stride = 6;
    in.cqn = d.cq.id;
    in.port = 1;
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_SQ, in), BAD_PARAM, WQ_PORT);
    ASSERT_EQ(d.create_wq(true, d.rq, 4, 6, d.cq.id).status, st::OK);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_CQ, obj_in{d.cq.id, 0}), BUSY, CQ_IN_USE);
    EXPECT_CMD(d.modify_wq(true, d.rq.id, wq_state::ERR), BAD_STATE, WQ_STATE);
    EXPECT_CMD(d.modify_wq(true, d.rq.id, 7), BAD_PARAM, WQ_STATE);
    EXPECT_CMD(d.modify_wq(true, 400, wq_state::RDY), BAD_OBJECT, WQ_UNKNOWN);
    EXPECT_CMD(d.modify_wq(true, d.rq.id, wq_state::RDY), OK, NONE);
    ASSERT_EQ(d.set_rss(0, {uint16_t(d.rq.id)}, 0).status, st::OK);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_RQ, obj_in{d.rq.id, 0}), BUSY, WQ_IN_USE);
    auto qo = d.cmd(cmd_opcode::QUERY_RQ, obj_in{d.rq.id, 0});
    EXPECT_EQ(qo.as<query_wq_out>().state, wq_state::RDY);
    EXPECT_EQ(qo.as<query_wq_out>().cqn, d.cq.id);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_RSS, obj_in{0, 0}), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_RSS, obj_in{0, 0}), BAD_OBJECT, RSS_CTX_RANGE);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_RQ, obj_in{d.rq.id, 0}), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_CQ, obj_in{d.cq.id, 0}), OK, NONE);
}

TEST_F(Cmd, FlowRuleValidation) {
    d.bring_up();
    uint32_t rq = d.rq.id;
    auto rule = [&](uint16_t slot, uint8_t action, uint32_t q, uint16_t c) {
        flow_rule_in in{};
        in.rule = slot;
        in.op = 1;
        in.l4_proto = 6;
        in.match = flow_rule_in::MATCH_DST_PORT;
        in.dst_port = uint16_t(5001 >> 8 | (5001 & 0xff) << 8);
        in.action = action;
        in.rq = q;
        in.ctx = c;
        return in;
    };
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, rule(0, 0, rq, 0)), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, rule(0, 2, 0, 0)), OK, NONE);  // replaces slot 0
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, rule(limits::MAX_FLOW_RULES, 2, 0, 0)), BAD_PARAM,
               FLOW_RULE_RANGE);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, rule(1, 0, 333, 0)), BAD_PARAM, FLOW_RULE_ACTION);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, rule(1, 0, 0, 0)), BAD_PARAM, FLOW_RULE_ACTION);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, rule(1, 1, 0, 3)), BAD_PARAM, FLOW_RULE_ACTION);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, rule(1, 1, 0, 16)), BAD_PARAM, FLOW_RULE_ACTION);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, rule(1, 3, 0, 0)), BAD_PARAM, FLOW_RULE_ACTION);
    auto in = rule(1, 2, 0, 0);
    in.l4_proto = 1;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, in), BAD_PARAM, FLOW_RULE_MATCH);
    in = rule(1, 2, 0, 0);
    in.match |= 0x20;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, in), BAD_PARAM, FLOW_RULE_MATCH);
    in = rule(1, 2, 0, 0);
    in.match |= flow_rule_in::MATCH_SRC_IP;  // IPv4 without the ::ffff: prefix
    in.src_ip[15] = 1;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, in), BAD_PARAM, FLOW_RULE_MATCH);
    in = rule(1, 2, 0, 0);
    in.op = 2;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, in), BAD_PARAM, FLOW_RULE_MATCH);
    in = rule(1, 2, 0, 0);
    in.port = 1;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, in), BAD_PARAM, PORT_RANGE);
    in = rule(1, 2, 0, 0);
    in.rsvd[1] = 1;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, in), BAD_PARAM, CMD_RESERVED_NONZERO);
    Res r = d.set_rss(0xffff, {uint16_t(rq)}, 0);
    ASSERT_EQ(r.status, st::OK);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, rule(1, 1, 0, uint16_t(r.id()))), OK, NONE);
    // A rule to an RQ holds it like an RSS context does.
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, rule(2, 0, rq, 0)), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_RSS, obj_in{0, 0}), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_RSS, obj_in{r.id(), 0}), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_RQ, obj_in{rq, 0}), BUSY, WQ_IN_USE);
    in = rule(2, 0, 0, 0);
    in.op = 0;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, in), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_FLOW_RULE, in), BAD_PARAM, FILTER_NOT_FOUND);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_RQ, obj_in{rq, 0}), OK, NONE);
}

TEST_F(Cmd, RssAndFilterValidation) {
    d.bring_up();
    uint16_t rq = uint16_t(d.rq.id);
    EXPECT_CMD(d.set_rss(16, {rq}, 0), BAD_PARAM, RSS_CTX_RANGE);
    EXPECT_CMD(d.set_rss(0, {rq}, 0x40), BAD_PARAM, RSS_HASH_FIELDS);
    EXPECT_CMD(d.set_rss(0, {rq}, rss_field::IPV4_TCP), BAD_PARAM, RSS_HASH_FIELDS);
    EXPECT_CMD(d.set_rss(0, {rq, rq, rq}, 0), BAD_PARAM, RSS_TABLE_SIZE);
    EXPECT_CMD(d.set_rss(0, {rq, 333}, 0), BAD_PARAM, RSS_TABLE);
    Res r = d.set_rss(0xffff, {rq, rq}, rss_field::IPV4);
    EXPECT_CMD(r, OK, NONE);
    EXPECT_EQ(r.id(), 1u);
    for (int i = 2; i < 16; i++)
        ASSERT_EQ(d.set_rss(0xffff, {rq}, 0).status, st::OK);
    EXPECT_CMD(d.set_rss(0xffff, {rq}, 0), NO_RESOURCES, RSS_CTX_RANGE);
    set_rss_in bad{};
    bad.table_size = 1;
    bad.table_addr = 0x10;  // not host memory
    EXPECT_CMD(d.cmd(cmd_opcode::SET_RSS, bad), DMA_ERROR, DMA_READ);

    mac_filter_in m{};
    EXPECT_CMD(d.cmd(cmd_opcode::SET_MAC_FILTER, m), BAD_PARAM, FILTER_MAC);
    m.mac[0] = 0x02;
    m.mac[5] = 1;
    m.port = 3;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_MAC_FILTER, m), BAD_PARAM, PORT_RANGE);
    m.port = 0;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_MAC_FILTER, m), BAD_OBJECT, FILTER_NOT_FOUND);
    m.op = 1;
    for (int i = 0; i < 16; i++) {
        m.mac[5] = uint8_t(i + 1);
        ASSERT_EQ(d.cmd(cmd_opcode::SET_MAC_FILTER, m).status, st::OK);
    }
    m.mac[5] = 100;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_MAC_FILTER, m), NO_RESOURCES, FILTER_FULL);
    vlan_filter_in v{};
    v.vid = 4095;
    v.op = 1;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_VLAN_FILTER, v), BAD_PARAM, FILTER_VLAN);
    v.vid = 10;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_VLAN_FILTER, v), OK, NONE);
    v.op = 0;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_VLAN_FILTER, v), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::SET_VLAN_FILTER, v), BAD_OBJECT, FILTER_NOT_FOUND);
    rx_mode_in rm{};
    rm.flags = 0x10;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_RX_MODE, rm), BAD_PARAM, CMD_RESERVED_NONZERO);
    rm.flags = rx_mode_in::FLAGS_PROMISC;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_RX_MODE, rm), OK, NONE);
}

TEST_F(Cmd, PortStatsHealthDbPages) {
    obj_in p{1, 0};
    EXPECT_CMD(d.cmd(cmd_opcode::QUERY_PORT, p), BAD_PARAM, PORT_RANGE);
    p.id = 0;
    auto pi = d.cmd(cmd_opcode::QUERY_PORT, p).as<port_info>();
    EXPECT_EQ(pi.mtu, 1500);
    EXPECT_EQ(pi.admin_up, 0);
    EXPECT_EQ(0, std::memcmp(pi.mac, PF_MAC, 6));
    port_info sp{};
    sp.mask = port_info::MASK_MTU;
    sp.mtu = 60;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_PORT, sp), BAD_PARAM, PORT_MTU);
    sp.mask = port_info::MASK_FEC;
    sp.fec = 9;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_PORT, sp), BAD_PARAM, PORT_FEC);
    sp.mask = port_info::MASK_MTU;
    sp.mtu = 9000;
    EXPECT_CMD(d.cmd(cmd_opcode::SET_PORT, sp), OK, NONE);

    query_stats_in q{};
    q.addr = h.alloc(4096);
    q.len = 100;
    EXPECT_CMD(d.cmd(cmd_opcode::QUERY_STATS, q), BAD_SIZE, STATS_LEN);
    q.len = 4096;
    q.scope = 9;
    EXPECT_CMD(d.cmd(cmd_opcode::QUERY_STATS, q), BAD_PARAM, STATS_SCOPE);
    q.scope = stats_scope::FUNC;
    EXPECT_CMD(d.cmd(cmd_opcode::QUERY_STATS, q), NOT_SUPPORTED, NONE);
    q.scope = stats_scope::QP;
    q.id = 77;
    EXPECT_CMD(d.cmd(cmd_opcode::QUERY_STATS, q), BAD_PARAM, STATS_SCOPE);
    q.id = 0;
    q.scope = stats_scope::PORT;
    h.frame_in(with_fcs(udp4_frame(PF_MAC, 10)));  // link down: not counted
    h.db(0, db::SQ, 5 << 16);                        // counted
    q.flags = query_stats_in::FLAGS_CLEAR;
    EXPECT_CMD(d.cmd(cmd_opcode::QUERY_STATS, q), OK, NONE);
    EXPECT_EQ(h.rd<port_stats>(q.addr).db_dropped, 1u);
    EXPECT_EQ(h.stats().db_dropped, 0u);
    h.db(0, db::SQ, 5 << 16);
    q.addr = 0x10;  // refused by the host
    EXPECT_CMD(d.cmd(cmd_opcode::QUERY_STATS, q), DMA_ERROR, DMA_WRITE);
    EXPECT_EQ(h.stats().db_dropped, 1u);  // a result that could not be delivered clears nothing

    Res a = d.cmd(cmd_opcode::ALLOC_DB_PAGE);
    EXPECT_CMD(a, OK, NONE);
    EXPECT_EQ(a.id(), 1u);
    EXPECT_CMD(d.cmd(cmd_opcode::FREE_DB_PAGE, obj_in{0, 0}), BAD_PARAM, DB_PAGE_RANGE);
    EXPECT_CMD(d.cmd(cmd_opcode::FREE_DB_PAGE, obj_in{2, 0}), BAD_OBJECT, DB_UNKNOWN);
    create_eq_in e{};
    e.base = h.alloc(4096);
    e.log_size = 4;
    e.db_page = 1;
    ASSERT_EQ(d.cmd(cmd_opcode::CREATE_EQ, e).status, st::OK);
    EXPECT_CMD(d.cmd(cmd_opcode::FREE_DB_PAGE, obj_in{1, 0}), BUSY, DB_IN_USE);
    for (int i = 2; i < 256; i++)
        ASSERT_EQ(d.cmd(cmd_opcode::ALLOC_DB_PAGE).status, st::OK);
    EXPECT_CMD(d.cmd(cmd_opcode::ALLOC_DB_PAGE), NO_RESOURCES, DB_NONE_FREE);
}

TEST_F(Cmd, PdAndMr) {
    Res pd = d.cmd(cmd_opcode::ALLOC_PD);
    ASSERT_EQ(pd.status, st::OK);
    uint64_t page = h.alloc(3 * 4096);
    uint64_t mtt = h.alloc(64);
    for (int i = 0; i < 3; i++)
        h.wr<uint64_t>(mtt + 8 * i, page + 4096u * i);
    create_mr_in m{};
    m.iova = 0x7000'0000'0100;
    m.length = 2 * 4096;
    m.mtt_addr = mtt;
    m.mtt_count = 3;
    m.pdn = 99;
    m.page_shift = 12;
    m.access = create_mr_in::ACCESS_LOCAL_WRITE;
    m.key_variant = 0x5a;
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_MR, m), BAD_OBJECT, PD_UNKNOWN);
    m.pdn = pd.id();
    m.access = create_mr_in::ACCESS_REMOTE_WRITE;
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_MR, m), BAD_PARAM, MR_ACCESS);
    m.access = create_mr_in::ACCESS_LOCAL_WRITE;
    m.page_shift = 11;
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_MR, m), BAD_PARAM, MR_PAGE_SHIFT);
    m.page_shift = 12;
    m.mtt_count = 2;  // 0x100 offset + 8 KiB spans 3 pages
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_MR, m), BAD_SIZE, MR_LENGTH);
    m.mtt_count = 3;
    m.mtt_addr = 0x20;
    EXPECT_CMD(d.cmd(cmd_opcode::CREATE_MR, m), DMA_ERROR, MR_MTT_DMA);
    m.mtt_addr = mtt;
    Res mr = d.cmd(cmd_opcode::CREATE_MR, m);
    ASSERT_EQ(mr.status, st::OK);
    EXPECT_EQ(mr.id() & 0xff, 0x5au);
    auto q = d.cmd(cmd_opcode::QUERY_MR, obj_in{mr.id(), 0}).as<create_mr_in>();
    EXPECT_EQ(q.length, m.length);
    EXPECT_EQ(q.mtt_count, 3u);
    EXPECT_CMD(d.cmd(cmd_opcode::QUERY_MR, obj_in{mr.id() ^ 1, 0}), BAD_OBJECT, MR_UNKNOWN);
    EXPECT_CMD(d.cmd(cmd_opcode::DEALLOC_PD, obj_in{pd.id(), 0}), BUSY, PD_IN_USE);
    EXPECT_CMD(d.cmd(cmd_opcode::DESTROY_MR, obj_in{mr.id(), 0}), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::DEALLOC_PD, obj_in{pd.id(), 0}), OK, NONE);
    EXPECT_CMD(d.cmd(cmd_opcode::DEALLOC_PD, obj_in{pd.id(), 0}), BAD_OBJECT, PD_UNKNOWN);
}

TEST_F(Cmd, WrongOwnerFunctionIsRejected) {
    d.bring_up();
    h.abi->set_num_vfs(h.card, 1);
    Driver vf{h, 1};
    vf.reset_and_init();
    EXPECT_EQ(h.r32(reg::FUNC_INFO, 1) & reg::FUNC_INFO_IS_VF, reg::FUNC_INFO_IS_VF);
    EXPECT_CMD(vf.cmd(cmd_opcode::DESTROY_EQ, obj_in{d.eq.id, 0}), WRONG_OWNER, EQ_OWNER);
    EXPECT_CMD(vf.cmd(cmd_opcode::DESTROY_CQ, obj_in{d.cq.id, 0}), WRONG_OWNER, CQ_OWNER);
    EXPECT_CMD(vf.cmd(cmd_opcode::DESTROY_SQ, obj_in{d.sq.id, 0}), WRONG_OWNER, WQ_OWNER);
    EXPECT_CMD(vf.modify_wq(true, d.rq.id, wq_state::RST), WRONG_OWNER, WQ_OWNER);
    EXPECT_CMD(vf.create_cq(vf.cq, 4, d.eq.id), WRONG_OWNER, EQ_OWNER);
    EXPECT_CMD(vf.create_eq(vf.eq, 4, 8, true), BAD_PARAM, EQ_VECTOR);
    ASSERT_EQ(vf.create_eq(vf.eq, 4, 0, true).status, st::OK);  // its own vector 0
    EXPECT_CMD(vf.create_wq(false, vf.sq, 4, 6, d.cq.id), WRONG_OWNER, CQ_OWNER);
    EXPECT_CMD(vf.set_rss(0, {uint16_t(d.rq.id)}, 0), BAD_PARAM, RSS_TABLE);
    flow_rule_in fr{};
    fr.op = 1;
    fr.l4_proto = 17;
    fr.rq = d.rq.id;  // the PF's RQ
    EXPECT_CMD(vf.cmd(cmd_opcode::SET_FLOW_RULE, fr), BAD_PARAM, FLOW_RULE_ACTION);
    EXPECT_CMD(vf.cmd(cmd_opcode::FLASH_BEGIN, flash_in{}), NOT_PERMITTED, CMD_PF_ONLY);
    EXPECT_CMD(vf.set_port(true), NOT_PERMITTED, CMD_PF_ONLY);
    // A VF reset leaves the PF's objects alone.
    vf.reset_and_init();
    EXPECT_EQ(d.cmd(cmd_opcode::QUERY_SQ, obj_in{d.sq.id, 0}).status, st::OK);
    h.abi->set_num_vfs(h.card, 0);
    EXPECT_EQ(h.r32(reg::MAGIC, 1), 0xffffffffu);
}

// The RDMA objects of a function: a VF cannot free the PF's PD.
TEST_F(Cmd, WrongOwnerPdIsRejected) {
    d.bring_up();
    Res pd = d.cmd(cmd_opcode::ALLOC_PD);
    ASSERT_EQ(pd.status, st::OK);
    h.abi->set_num_vfs(h.card, 1);
    Driver vf{h, 1};
    vf.reset_and_init();
    EXPECT_CMD(vf.cmd(cmd_opcode::DEALLOC_PD, obj_in{pd.id(), 0}), WRONG_OWNER, PD_OWNER);
    EXPECT_EQ(d.cmd(cmd_opcode::DEALLOC_PD, obj_in{pd.id(), 0}).status, st::OK);
}

namespace {
std::vector<uint8_t> fw_image(uint32_t version, size_t size) {
    std::vector<uint8_t> img(size);
    for (size_t i = 0; i < size; i++)
        img[i] = uint8_t(i * 31);
    fw_image_header hd{};
    hd.magic = flash::FW_IMAGE_MAGIC;
    hd.header_version = 1;
    hd.image_len = uint32_t(size);
    hd.fw_version = version;
    hd.build = 42;
    std::strcpy(reinterpret_cast<char *>(hd.version_str), "kite-fw test");
    std::memcpy(img.data(), &hd, sizeof(hd));
    return img;
}
void do_flash(Driver &d, const std::vector<uint8_t> &img, uint32_t crc, Res *commit) {
    flash_in b{};
    b.len = uint32_t(img.size());
    ASSERT_EQ(d.cmd(cmd_opcode::FLASH_BEGIN, b).status, st::OK);
    uint64_t buf = d.h.alloc(img.size());
    std::memcpy(d.h.ptr(buf), img.data(), img.size());
    for (size_t off = 0; off < img.size(); off += 4096) {
        flash_in w{};
        w.addr = buf + off;
        w.offset = uint32_t(off);
        w.len = uint32_t(std::min<size_t>(4096, img.size() - off));
        ASSERT_EQ(d.cmd(cmd_opcode::FLASH_WRITE, w).status, st::OK);
    }
    flash_in c{};
    c.crc32 = crc;
    *commit = d.cmd(cmd_opcode::FLASH_COMMIT, c);
}
}  // namespace

TEST_F(Cmd, FlashUpdate) {
    char path[] = "/tmp/kite_flash_XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    uint32_t v2 = (2u << 24) | (1u << 16) | 3;
    {
        FakeHost fh(1, path);
        Driver fd_{fh};
        fd_.reset_and_init();
        flash_in w{};
        w.len = 16;
        EXPECT_CMD(fd_.cmd(cmd_opcode::FLASH_WRITE, w), BAD_STATE, FLASH_STATE);
        EXPECT_CMD(fd_.cmd(cmd_opcode::FLASH_COMMIT, flash_in{}), BAD_STATE, FLASH_STATE);
        flash_in b{};
        b.len = 10;
        EXPECT_CMD(fd_.cmd(cmd_opcode::FLASH_BEGIN, b), BAD_SIZE, FLASH_IMAGE);
        b.len = flash::FW_IMAGE_MAX + 1;
        EXPECT_CMD(fd_.cmd(cmd_opcode::FLASH_BEGIN, b), BAD_SIZE, FLASH_IMAGE);
        b.len = 100;
        ASSERT_EQ(fd_.cmd(cmd_opcode::FLASH_BEGIN, b).status, st::OK);
        w.offset = 90;
        w.addr = fh.alloc(4096);
        EXPECT_CMD(fd_.cmd(cmd_opcode::FLASH_WRITE, w), BAD_PARAM, FLASH_RANGE);

        auto img = fw_image(v2, 10000);
        Res r;
        do_flash(fd_, img, kite::crc32(img.data(), img.size()) ^ 1, &r);
        EXPECT_CMD(r, BAD_PARAM, FLASH_IMAGE);
        auto bad = img;
        bad[0] ^= 0xff;  // magic
        do_flash(fd_, bad, kite::crc32(bad.data(), bad.size()), &r);
        EXPECT_CMD(r, BAD_PARAM, FLASH_IMAGE);
        do_flash(fd_, img, kite::crc32(img.data(), img.size()), &r);
        EXPECT_CMD(r, OK, NONE);
        auto q = fd_.cmd(cmd_opcode::FLASH_QUERY).as<fw_out>();
        EXPECT_EQ(q.pending_bank, 0);
        EXPECT_EQ(q.pending_version, v2);
        EXPECT_EQ(q.running_bank, 0xff);
        EXPECT_NE(fh.r32(reg::FW_VERSION), v2) << "takes effect after a reset";
        fd_.reset_and_init();
        EXPECT_EQ(fh.r32(reg::FW_VERSION), v2);
        q = fd_.cmd(cmd_opcode::QUERY_FW).as<fw_out>();
        EXPECT_EQ(q.running_bank, 0);
        EXPECT_EQ(q.pending_bank, 0xff);
        EXPECT_EQ(q.build, 42u);
        EXPECT_STREQ(reinterpret_cast<const char *>(q.version_str), "kite-fw test");
    }
    {
        FakeHost fh(1, path);  // the flash file persists across power cycles
        EXPECT_EQ(fh.r32(reg::FW_VERSION), v2);
    }
    unlink(path);
}
