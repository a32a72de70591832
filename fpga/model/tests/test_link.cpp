// SPDX-License-Identifier: MIT
// Two cards back to back: ordered sets bring the link up and down.
#include <gtest/gtest.h>

#include "fake_host.hpp"
#include "kite/crc32.hpp"

using namespace kt;

namespace {
bool link_up(Driver &d) {
    obj_in in{0, 0};
    return d.cmd(cmd_opcode::QUERY_PORT, in).as<port_info>().link_up;
}
void expect_port_event(Driver &d, uint8_t sub) {
    auto e = d.poll_eq(d.eq);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->ev_type, eqe_type::PORT_CHANGE);
    EXPECT_EQ(e->subtype, sub);
    EXPECT_EQ(e->obj, 0u);
}
}  // namespace

TEST(Link, OrderedSetsBringLinkUpAndDown) {
    FakeHost a(1, nullptr, 0x10), b(1, nullptr, 0x20);
    a.peer = &b;
    b.peer = &a;
    Driver da{a}, db_{b};
    da.bring_up();
    db_.bring_up();
    da.set_port(true);
    a.exchange();
    EXPECT_FALSE(link_up(da)) << "partner still down";
    db_.set_port(true);
    a.exchange();
    EXPECT_TRUE(link_up(da));
    EXPECT_TRUE(link_up(db_));
    expect_port_event(da, port_event::UP);
    expect_port_event(db_, port_event::UP);
    EXPECT_EQ(a.stats().link_changes, 1u);

    // Frames flow both ways, byte exact.
    db_.post_rx(1);
    uint8_t bmac[6] = {0x02, 0x4b, 0x49, 0x00, 0x00, 0x20};
    auto f = udp4_frame(bmac, 500);
    da.post_tx(f, wqe_eth{});
    da.ring_sq();
    a.pump();
    a.exchange();
    auto c = db_.poll_cq(db_.cq);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->byte_cnt, f.size());

    // Administrative down on one side takes both down.
    db_.set_port(false);
    a.exchange();
    EXPECT_FALSE(link_up(da));
    expect_port_event(da, port_event::DOWN);
    expect_port_event(db_, port_event::DOWN);
    db_.set_port(true);
    a.exchange();
    EXPECT_TRUE(link_up(da));
    expect_port_event(da, port_event::UP);

    // Pulling the cable.
    a.abi->set_cable(a.card, 0, 0);
    a.pump();
    EXPECT_FALSE(link_up(da));
    expect_port_event(da, port_event::DOWN);
    a.abi->set_cable(a.card, 0, 1);
    a.pump();
    a.exchange();
    EXPECT_TRUE(link_up(da));
    // A reset sets the port administratively down.
    da.reset_and_init();
    a.exchange();
    EXPECT_FALSE(link_up(da));
    EXPECT_FALSE(link_up(db_));
}

TEST(Link, RetriesUntilPartnerAnswers) {
    FakeHost a;
    Driver d{a};
    d.bring_up();
    d.set_port(true);
    ASSERT_FALSE(a.wire[0].empty());
    a.wire[0].clear();
    a.advance(150'000'000);
    ASSERT_FALSE(a.wire[0].empty()) << "ordered set retransmitted";
    auto os = a.wire[0].front();
    EXPECT_EQ(os.size(), 16u);
    EXPECT_EQ(0, std::memcmp(os.data(), "KITEOS", 6));
    EXPECT_EQ(os[7], 3);  // up, please answer
    EXPECT_TRUE(kite::fcs_ok(os.data(), os.size()));
}
