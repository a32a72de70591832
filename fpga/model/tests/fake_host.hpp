// SPDX-License-Identifier: MIT
// Unit-test platform: kite_host_ops over a byte array of host memory, a
// manual clock, and a tiny driver that talks to the card only as a real
// driver would (command ring, rings in host memory, doorbells).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "kite/card_abi.h"
#include "kite/spec.hpp"

namespace kt {

using namespace kite::spec;

struct FakeHost {
    static constexpr uint64_t MEM_BASE = 0x100000;
    static constexpr uint64_t MEM_SIZE = 32 << 20;
    std::vector<uint8_t> mem = std::vector<uint8_t>(MEM_SIZE);
    uint64_t brk = MEM_BASE;
    uint64_t now = 1'000'000'000;
    uint64_t deadline = ~uint64_t(0);
    bool scheduled = false;
    uint64_t fail_lo = 0, fail_hi = 0;  // DMA to [lo, hi) fails
    std::vector<std::pair<uint16_t, uint16_t>> msix;
    std::deque<std::vector<uint8_t>> wire[2];  // frames the card sent
    int rx_ready = 0;
    std::vector<std::string> logs;
    kite_host_ops ops{};
    const kite_card_abi *abi = kite_card_get_abi();
    kite_card *card = nullptr;
    FakeHost *peer = nullptr;  // back-to-back: frames go to peer->card

    explicit FakeHost(unsigned ports = 1, const char *flash = nullptr, uint8_t mac_last = 0x10, uint32_t max_vfs = 4);
    ~FakeHost();

    uint64_t alloc(size_t n, size_t align = 4096);
    template <typename T> T rd(uint64_t a) {
        T v;
        std::memcpy(&v, &mem[a - MEM_BASE], sizeof(T));
        return v;
    }
    template <typename T> void wr(uint64_t a, const T &v) { std::memcpy(&mem[a - MEM_BASE], &v, sizeof(T)); }
    uint8_t *ptr(uint64_t a) { return &mem[a - MEM_BASE]; }

    uint64_t r32(uint32_t off, uint16_t fn = 0) { return abi->mmio_read(card, fn, 0, off, 4); }
    void w32(uint32_t off, uint32_t v, uint16_t fn = 0) { abi->mmio_write(card, fn, 0, off, v, 4); }
    void db(uint32_t page, uint32_t off, uint32_t v, uint16_t fn = 0) {
        abi->mmio_write(card, fn, 2, uint64_t(page) * 4096 + off, v, 4);
    }
    // Runs deferred work (the platform's bottom half).
    void pump();
    void advance(uint64_t ns);
    // Delivers queued frames to the peer (both directions) until quiet.
    void exchange();
    std::vector<uint8_t> pop_frame(unsigned port = 0);
    int frame_in(const std::vector<uint8_t> &f, unsigned port = 0) {
        int r = abi->frame_in(card, port, f.data(), f.size());
        pump();
        return r;
    }
    port_stats stats(unsigned port = 0);
};

struct Res {
    uint8_t status;
    uint32_t syndrome;
    uint16_t out_len;
    uint8_t out[128];
    template <typename T> T as() const {
        T v;
        std::memcpy(&v, out, sizeof(T));
        return v;
    }
    uint32_t id() const { return as<obj_out>().id; }
};

struct Queue {
    uint32_t id = 0;
    uint64_t base = 0;
    uint32_t log_size = 0, stride = 0;
    uint32_t pi = 0, ci = 0;  // free running
};

struct Driver {
    FakeHost &h;
    uint16_t fn;
    uint64_t cmdq = 0;
    uint16_t cmd_pi = 0;
    uint32_t cmd_log = 3;
    Queue eq, cq, sq, rq;
    uint32_t token = 0;

    explicit Driver(FakeHost &host, uint16_t f = 0) : h(host), fn(f) {}
    void reset_and_init();
    Res cmd(uint32_t opcode, const void *in = nullptr, size_t in_len = 0, uint8_t version = 1, uint8_t flags = 0);
    template <typename T> Res cmd(uint32_t opcode, const T &in) { return cmd(opcode, &in, sizeof(T)); }
    Res create_eq(Queue &q, uint32_t log, uint16_t vector, bool async);
    Res create_cq(Queue &q, uint32_t log, uint32_t eqn, uint16_t mod_usec = 0, uint16_t mod_count = 0);
    Res create_wq(bool rq, Queue &q, uint32_t log, uint32_t log_stride, uint32_t cqn, uint8_t flags = 0);
    Res modify_wq(bool rq, uint32_t id, uint8_t state);
    Res set_rss(uint16_t ctx, const std::vector<uint16_t> &table, uint8_t fields, const uint8_t *key = nullptr);
    Res set_port(bool admin_up, uint16_t mtu = 0, uint8_t pause = 0);
    // Full Ethernet bring-up: async EQ, CQ, SQ and RQ ready, RSS to the RQ.
    void bring_up(uint8_t rq_flags = 0, uint32_t log = 4);
    // Posts one TX WQE gathering @frame: @first bytes (if set), then chunks of @chunk bytes.
    uint16_t post_tx(const std::vector<uint8_t> &frame, const wqe_eth &eth, size_t chunk = 0,
                     uint8_t ctrl_flags = wqe_ctrl::FLAGS_SIGNALED, size_t first = 0);
    void ring_sq() { h.db(0, db::SQ, sq.id << 16 | (sq.pi & 0xffff), fn); }
    // Posts RX buffers (one SGE of @len each).
    std::vector<uint64_t> post_rx(unsigned n, uint32_t len = 2048);
    std::optional<cqe> poll_cq(Queue &q);
    std::optional<eqe> poll_eq(Queue &q);
    void arm_cq() { h.db(0, db::CQ_ARM, cq.id << 16 | (cq.ci & 0xffff), fn); }
    void arm_eq() { h.db(0, db::EQ_ARM, eq.id << 16 | (eq.ci & 0xffff), fn); }
};

// Frame builders (without FCS).
std::vector<uint8_t> eth_hdr(const uint8_t dst[6], const uint8_t src[6], uint16_t type);
std::vector<uint8_t> udp4_frame(const uint8_t dst[6], size_t payload, uint32_t sip = 0x0a000001,
                                uint32_t dip = 0x0a000002, uint16_t sport = 1000, uint16_t dport = 2000);
std::vector<uint8_t> tcp4_frame(const uint8_t dst[6], size_t payload, uint32_t seq, uint8_t flags);
std::vector<uint8_t> tcp6_frame(const uint8_t dst[6], size_t payload, uint32_t seq, uint8_t flags);
std::vector<uint8_t> with_fcs(std::vector<uint8_t> f);
extern const uint8_t PF_MAC[6];
extern const uint8_t PEER_MAC[6];

}  // namespace kt
