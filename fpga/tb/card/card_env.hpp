// What surrounds kite_card in its testbenches: a PCIe host (memory serving
// RQ reads with RC completions and taking RQ writes, MMIO requests on CQ,
// completions on CC; PG213 512-bit descriptors as in tb_pcie; completions
// split at a 64-byte RCB, as Intel root complexes do, on the RC stream with
// the 4-TLP straddle the card's core is configured for) and two C++
// MAC ports. Shared by tb_card (kite_card, the firmware played by the
// testbench) and tb_card_sys (kite_card_sys, the firmware on the soft CPU).
//
// A testbench step: drive() sets the inputs, the model evaluates, sample()
// takes what the card presented, then the clock ticks.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <set>
#include <vector>

#include "pcie_host.hpp"
#include "tb.hpp"

namespace card_tb {

struct Beat {
    std::array<uint8_t, 64> d{};
    uint16_t keep = 0;
    bool last = false;
    std::array<uint32_t, 6> user{};
};

inline uint64_t bits(const uint8_t *p, unsigned lo, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= uint64_t((p[(lo + i) / 8] >> ((lo + i) % 8)) & 1) << i;
    return v;
}
inline void setbits(uint8_t *p, unsigned lo, unsigned n, uint64_t v) {
    for (unsigned i = 0; i < n; i++) {
        uint8_t m = uint8_t(1u << ((lo + i) % 8));
        if ((v >> i) & 1) p[(lo + i) / 8] |= m;
        else p[(lo + i) / 8] &= uint8_t(~m);
    }
}
inline unsigned tz4(unsigned be) { return be & 1 ? 0 : be & 2 ? 1 : be & 4 ? 2 : be & 8 ? 3 : 0; }
inline unsigned lz4(unsigned be) { return be & 8 ? 0 : be & 4 ? 1 : be & 2 ? 2 : be & 1 ? 3 : 0; }

// V: the Verilated top (kite_card's PCIe and MAC ports); MEM: host memory
// bytes at address 0 (an access beyond it is refused: Unsupported Request).
template <class V, size_t MEM>
struct Env {
    V m;
    tb::Clock<V> clk{m};
    tb::Checker &chk;
    struct {
        std::vector<uint8_t> mem = std::vector<uint8_t>(MEM);
    } host;
    std::deque<Beat> cq_beats;
    tb::pcie::RcStream rc;
    unsigned rcb = 64;           // the host's Read Completion Boundary (0: one completion per read)
    tb::pcie::RqStream rqs;      // RQ beats (straddled: a read may ride on a write's last beat)
    std::vector<std::vector<uint8_t>> tx_frames[2];
    std::vector<uint8_t> tx_cur[2];
    std::deque<std::vector<uint8_t>> rx_q[2];
    size_t rx_off[2]{};
    std::deque<uint64_t> cc_data;
    uint8_t mmio_tag = 0;
    // Reads of [slow_lo, slow_hi) are answered slow_cycles late, so later
    // requests complete first (PCIe orders no completions of different reads).
    uint64_t slow_lo = 0, slow_hi = 0;
    unsigned slow_cycles = 0;
    std::deque<std::pair<uint64_t, std::vector<std::vector<uint8_t>>>> slow_q;   // (due, completions)
    std::set<unsigned> rq_fns;   // requester functions of the RQ TLPs
    uint64_t watch_lo = 0, watch_hi = 0;   // reads of [watch_lo, watch_hi) are counted
    unsigned watch_reads = 0;
    bool tbl_read_q = false;     // kite_card alone: a BAR4 read to answer (0, no table)

    explicit Env(tb::Checker &c) : chk(c) {
        rc.straddle = 4;
        m.rq_tready_i = 1;
        m.rc_tvalid_i = 0;
        m.cq_tvalid_i = 0;
        m.cc_tready_i = 1;
        m.cfg_max_payload_i = 1;   // 256
        m.cfg_max_read_req_i = 2;  // 512
        m.cfg_ext_tag_i = 1;       // Extended Tag Field Enable, as Linux sets it: 256 read tags
        if constexpr (requires { m.msix_ready_i; }) m.msix_ready_i = 1;
        if constexpr (requires { m.tbl_req_ready_i; }) m.tbl_req_ready_i = 1;
        m.tx_tready_i = 3;
        m.rx_tvalid_i = 0;
        m.mac_ev_i = 0;
    }

    void host_rq_tlp(const tb::pcie::RqTlp &t) {
        const uint8_t *d0 = t.bytes.data();
        uint64_t addr = bits(d0, 2, 62) << 2;
        unsigned dw = unsigned(bits(d0, 64, 11)), type = unsigned(bits(d0, 75, 4)), tag = unsigned(bits(d0, 96, 8));
        unsigned fbe = t.fbe, lbe = t.lbe;
        rq_fns.insert(tb::card_fn(unsigned(bits(d0, 80, 8))));   // the core's number on the wire
        if (type == 0) {
            uint64_t first = addr + tz4(fbe);
            uint32_t len = dw == 1 ? 4 - tz4(fbe) - lz4(fbe) : 4 * dw - tz4(fbe) - lz4(lbe);
            bool ok = first + len <= MEM;  // else Unsupported Request, no data
            watch_reads += first < watch_hi && first + len > watch_lo;
            auto tlps = tb::pcie::read_completions(first, len, tag, ok, rcb,
                                                   [&](uint64_t a) { return host.mem[a]; });
            if (first < slow_hi && first + len > slow_lo) slow_q.push_back({clk.cycle + slow_cycles, std::move(tlps)});
            else for (const auto &t : tlps) rc.push(t);
        } else if (type == 1) {
            for (unsigned j = 0; j < dw; j++) {
                unsigned be = j == 0 ? fbe : (j == dw - 1 ? lbe : 0xf);
                size_t s = 16 + 4 * size_t(j);
                for (unsigned b = 0; b < 4; b++)
                    if ((be >> b & 1) && addr + 4 * j + b < MEM && s + b < t.bytes.size()) host.mem[addr + 4 * j + b] = t.bytes[s + b];
            }
        } else {
            chk.expect(false, "RQ request type %u", type);
        }
    }

    // A one-DW MMIO request on CQ (BAR0 16 address bits, BAR2 20).
    void mmio(unsigned bar, uint32_t off, bool write, uint32_t data, unsigned fbe = 0xf, unsigned fn = 0) {
        uint64_t addr = 0x00003c0000000000ULL + uint64_t(bar) * 0x10000000ULL + off;
        unsigned aper = bar == 0 ? 16 : 20;
        std::vector<uint8_t> b(16 + (write ? 4 : 0));
        setbits(b.data(), 2, 62, addr >> 2);
        setbits(b.data(), 64, 11, 1);
        setbits(b.data(), 75, 4, write ? 1 : 0);
        setbits(b.data(), 96, 8, mmio_tag++);
        setbits(b.data(), 104, 8, tb::core_fn(fn));  // target function, the core's number
        setbits(b.data(), 112, 3, bar);
        setbits(b.data(), 115, 6, aper);
        if (write) std::memcpy(&b[16], &data, 4);
        Beat bt;
        std::copy(b.begin(), b.end(), bt.d.begin());
        bt.keep = uint16_t(0xffffu >> (16 - b.size() / 4));
        bt.last = true;
        bt.user[0] = fbe;
        cq_beats.push_back(bt);
    }

    // Inputs for the coming edge: CQ and RC beats, RX frame beats.
    void drive() {
        while (!slow_q.empty() && slow_q.front().first <= clk.cycle) {
            for (const auto &t : slow_q.front().second) rc.push(t);
            slow_q.pop_front();
        }
        if (!cq_beats.empty()) {
            const Beat &b = cq_beats.front();
            m.cq_tvalid_i = 1;
            tb::put_bytes(m.cq_tdata_i, b.d.data(), 64);
            m.cq_tkeep_i = b.keep;
            m.cq_tlast_i = b.last;
            for (size_t i = 0; i < 6; i++) m.cq_tuser_i[i] = b.user[i];
        } else {
            m.cq_tvalid_i = 0;
        }
        if (!rc.beats.empty()) {
            tb::pcie::RcBeat &b = rc.beats.front();
            b.shown = true;
            m.rc_tvalid_i = 1;
            tb::put_bytes(m.rc_tdata_i, b.d.data(), 64);
            m.rc_tkeep_i = b.keep;
            m.rc_tlast_i = b.last;
            for (size_t i = 0; i < 6; i++) m.rc_tuser_i[i] = b.user[i];
        } else {
            m.rc_tvalid_i = 0;
        }
        uint32_t rxv = 0;
        for (unsigned p = 0; p < 2; p++) {
            if (rx_q[p].empty()) continue;
            const auto &f = rx_q[p].front();
            size_t n = std::min<size_t>(64, f.size() - rx_off[p]);
            uint8_t buf[64]{};
            std::memcpy(buf, f.data() + rx_off[p], n);
            rxv |= 1u << p;
            for (size_t i = 0; i < 64; i++) {
                size_t bit = 512 * p + 8 * i;
                m.rx_tdata_i[bit / 32] = (m.rx_tdata_i[bit / 32] & ~(0xffu << (bit % 32))) | (uint32_t(buf[i]) << (bit % 32));
            }
            m.rx_tkeep_i[2 * p] = uint32_t(tb::keep_mask(n));
            m.rx_tkeep_i[2 * p + 1] = uint32_t(tb::keep_mask(n) >> 32);
            m.rx_tlast_i = (m.rx_tlast_i & ~(1u << p)) | (uint32_t(rx_off[p] + n == f.size()) << p);
        }
        m.rx_tvalid_i = rxv;
        if constexpr (requires { m.tbl_rsp_valid_i; }) {
            m.tbl_rsp_valid_i = tbl_read_q;
            m.tbl_rsp_rdata_i = 0;
        }
    }

    // After eval, before the edge: handshakes on CQ, RC, RX, TX, RQ and CC.
    void sample() {
        if constexpr (requires { m.tbl_req_valid_o; }) tbl_read_q = m.tbl_req_valid_o && !m.tbl_req_write_o;
        if (m.cq_tvalid_i && m.cq_tready_o) cq_beats.pop_front();
        if (m.rc_tvalid_i && m.rc_tready_o) rc.beats.pop_front();
        for (unsigned p = 0; p < 2; p++) {
            if ((m.rx_tvalid_i >> p & 1) && (m.rx_tready_o >> p & 1)) {
                size_t n = std::min<size_t>(64, rx_q[p].front().size() - rx_off[p]);
                rx_off[p] += n;
                if (rx_off[p] == rx_q[p].front().size()) { rx_q[p].pop_front(); rx_off[p] = 0; }
            }
            if ((m.tx_tvalid_o >> p & 1) && (m.tx_tready_i >> p & 1)) {
                uint64_t keep = uint64_t(m.tx_tkeep_o[2 * p]) | uint64_t(m.tx_tkeep_o[2 * p + 1]) << 32;
                for (unsigned i = 0; i < 64; i++)
                    if (keep >> i & 1) tx_cur[p].push_back(uint8_t(m.tx_tdata_o[(512 * p + 8 * i) / 32] >> ((8 * i) % 32)));
                if (m.tx_tlast_o >> p & 1) { tx_frames[p].push_back(tx_cur[p]); tx_cur[p].clear(); }
            }
        }
        if (m.rq_tvalid_o && m.rq_tready_i) {
            Beat b;
            for (unsigned i = 0; i < 64; i++) b.d[i] = tb::get_byte(m.rq_tdata_o, i);
            for (size_t i = 0; i < 5; i++) b.user[i] = m.rq_tuser_o[i];
            for (const auto &t : rqs.push(b.d, b.user)) host_rq_tlp(t);
            chk.expect(rqs.error.empty(), "%s", rqs.error.c_str());
        }
        if (m.cc_tvalid_o && m.cc_tready_i) {
            uint64_t v = 0;
            for (unsigned i = 0; i < 8; i++) v |= uint64_t(tb::get_byte(m.cc_tdata_o, 12 + i)) << (8 * i);
            if (m.cc_tlast_o) cc_data.push_back(v);
        }
    }
};

}  // namespace card_tb
