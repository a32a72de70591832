// kite_txp testbench: generated TX frames (0..3 802.1Q/802.1ad tags, IPv4
// with options, IPv6, TCP, UDP, other protocols, runts and jumbo frames) with
// random wqe_eth offload requests (L3_CSUM, L4_CSUM with the right or random
// csum_start/csum_offset, odd starts, out-of-range requests, VLAN_INSERT),
// random input gaps and output back-pressure. Every output frame is compared
// byte for byte with the model: kite::tx_l3_csum, kite::tx_l4_csum and
// kite::tx_vlan_insert applied in the TX pipeline's order, and its NO_FCS
// flag with the request's. Bad input among them (frames over
// kite::tx_max_frame, beats with an empty or holed keep, a partial beat before
// the last) must be dropped whole, counted in drop_cnt_o, and leave the next
// frame intact; a frame longer than the buffer must be consumed while the
// output is held. Then throughput (back-to-back frames of 60..9000 bytes,
// with and without a tag) and latency.
#include <algorithm>
#include <cstdlib>
#include <deque>
#include <vector>

#include "Vkite_txp.h"
#include "kite_ref.hpp"
#include "frame_sink.hpp"
#include "tb.hpp"

namespace {

using Frame = std::vector<uint8_t>;
void put16(Frame &f, size_t o, uint32_t v) { f[o] = uint8_t(v >> 8); f[o + 1] = uint8_t(v); }

// Ways an input frame can be bad (kite_txp drops each whole).
enum Bad { GOOD, TOO_LONG, PARTIAL, HOLE, EMPTY, NBAD };
const char *const bad_name[NBAD] = {"good", "too long", "partial beat before the last", "keep with a hole",
                                    "empty keep"};

struct Req {
    Frame f;
    bool l3 = false, l4 = false, vlan = false, nofcs = false;
    uint16_t start = 0, off = 0, tci = 0;
    Bad bad = GOOD;
    size_t bad_beat = 0;          // the beat whose keep is bad
};

Req make_req(tb::Rng &r, size_t min_len = 14, size_t max_len = kite::tx_max_frame) {
    using tb::chance;
    using tb::rnd;
    Req q;
    Frame &f = q.f;
    f = tb::rbytes(r, 12);
    int ntags = chance(r, 0.6) ? 0 : int(rnd(r, 1, 3));
    for (int t = 0; t < ntags; t++) {
        f.push_back(0); f.push_back(0);
        put16(f, f.size() - 2, chance(r, 0.5) ? 0x8100 : 0x88a8);
        f.push_back(uint8_t(r())); f.push_back(uint8_t(r()));
    }
    int l3k = int(rnd(r, 0, 9));  // 0 other, 1..5 IPv4, 6..9 IPv6
    bool v4 = l3k >= 1 && l3k <= 5, v6 = l3k >= 6;
    f.push_back(0); f.push_back(0);
    put16(f, f.size() - 2, v4 ? 0x0800 : (v6 ? 0x86dd : rnd(r, 0, 0xffff)));
    size_t l3 = f.size(), l4 = l3;
    bool tcp = chance(r, 0.5);
    if (v4) {
        size_t ihl = chance(r, 0.3) ? rnd(r, 5, 15) : 5;
        Frame ip = tb::rbytes(r, 4 * ihl);
        ip[0] = uint8_t(0x40 | ihl);
        if (chance(r, 0.05)) ip[0] = uint8_t(rnd(r, 0, 255));  // not a valid header
        ip[9] = tcp ? 6 : 17;
        f.insert(f.end(), ip.begin(), ip.end());
        l4 = f.size();
    } else if (v6) {
        Frame ip = tb::rbytes(r, 40);
        ip[0] = uint8_t(0x60 | (ip[0] & 15));
        ip[6] = tcp ? 6 : 17;
        f.insert(f.end(), ip.begin(), ip.end());
        l4 = f.size();
    }
    Frame l4h = tb::rbytes(r, tcp ? 20 : 8);
    f.insert(f.end(), l4h.begin(), l4h.end());
    size_t pay = chance(r, 0.4) ? rnd(r, 0, 60) : rnd(r, 0, chance(r, 0.9) ? 1500 : 9000);
    Frame p = tb::rbytes(r, pay);
    f.insert(f.end(), p.begin(), p.end());
    if (chance(r, 0.1)) f.resize(rnd(r, uint32_t(min_len), uint32_t(std::max(min_len, f.size()))));
    if (f.size() > max_len) f.resize(max_len);
    if (f.size() < min_len) f.resize(min_len, 0);
    if (v4 && f.size() >= l3 + 4) put16(f, l3 + 2, uint32_t(f.size() - l3));
    q.l3 = chance(r, 0.6);
    q.l4 = chance(r, 0.7);
    q.vlan = chance(r, 0.4);
    q.nofcs = chance(r, 0.3);
    q.tci = uint16_t(r());
    q.start = uint16_t(l4);
    q.off = tcp ? 16 : 6;
    if (chance(r, 0.2)) q.start = uint16_t(rnd(r, 0, uint32_t(f.size() + 8)));  // any start, odd too
    if (chance(r, 0.1)) q.off = uint16_t(rnd(r, 0, 64));
    if (chance(r, 0.01)) q.start = uint16_t(r());
    // The driver leaves the pseudo-header sum in the field; any value works.
    // Sometimes choose it so that the UDP result is 0 (sent as 0xffff).
    if (q.off == 6 && q.start + 8u <= f.size() && chance(r, 0.05)) {
        put16(f, q.start + 6u, 0);
        Frame g = f;
        if (q.l3) kite::tx_l3_csum(g.data(), g.size());
        put16(f, q.start + 6u, uint16_t(~kite::csum_fold(kite::csum_partial(&g[q.start], g.size() - q.start))));
    }
    return q;
}

// Makes q bad in one of the ways: longer than kite::tx_max_frame (sometimes
// longer than the 32 KiB buffer), or one beat's keep malformed.
void make_bad(tb::Rng &r, Req &q) {
    q.bad = Bad(tb::rnd(r, TOO_LONG, NBAD - 1));
    size_t beats = (q.f.size() + 63) / 64;
    if (q.bad == PARTIAL && beats < 2) q.bad = TOO_LONG;
    if (q.bad == TOO_LONG) {
        size_t n = tb::chance(r, 0.1) ? tb::rnd(r, 32768, 40000) : kite::tx_max_frame + tb::rnd(r, 1, 100);
        Frame tail = tb::rbytes(r, n - std::min(n, q.f.size()));
        q.f.insert(q.f.end(), tail.begin(), tail.end());
        return;
    }
    q.bad_beat = tb::rnd(r, 0, uint32_t(beats - (q.bad == PARTIAL ? 2 : 1)));
}

// The keep of beat i (n bytes of the frame in it) as q's badness makes it.
uint64_t req_keep(tb::Rng &r, const Req &q, size_t i, size_t n) {
    uint64_t k = tb::keep_mask(n);
    if (i != q.bad_beat) return k;
    switch (q.bad) {
    case PARTIAL: return tb::keep_mask(tb::rnd(r, 1, 63));
    case EMPTY: return 0;
    case HOLE: {
        // At least one byte kept above the hole.
        size_t top = tb::rnd(r, 2, 64), hole = tb::rnd(r, 0, uint32_t(top - 2));
        return tb::keep_mask(top) & ~(1ull << hole);
    }
    default: return k;
    }
}

long cov_bad[NBAD] = {}, cov_huge = 0;
long cov_l3 = 0, cov_l4 = 0, cov_odd = 0, cov_udp0 = 0, cov_overlap = 0, cov_vlan = 0;

Frame expect(const Req &q) {
    Frame f = q.f;
    f.resize(q.f.size() + 4);
    size_t n = q.f.size();
    bool l3 = q.l3 && kite::tx_l3_csum(f.data(), n);
    Frame before = f;
    bool l4 = q.l4 && kite::tx_l4_csum(f.data(), n, q.start, q.off);
    cov_l3 += l3;
    cov_l4 += l4;
    cov_odd += l4 && (q.start & 1);
    cov_udp0 += l4 && q.off == 6 && f[q.start + 6u] == 0xff && f[q.start + 7u] == 0xff;
    cov_overlap += l3 && l4 && q.start < 40 && before != q.f;
    cov_vlan += q.vlan;
    if (q.vlan) n = kite::tx_vlan_insert(f.data(), n, q.tci);
    f.resize(n);
    return f;
}

struct Bench {
    Vkite_txp m;
    tb::Clock<Vkite_txp> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    tb::FrameSink out;
    std::deque<uint64_t> t_in;
    std::deque<bool> nofcs;       // each expected frame's NO_FCS
    long drops = 0;               // bad frames sent
    double p_gap = 0.0, p_ready = 1.0;
    uint64_t lat_min = ~0ull, lat_max = 0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        m.s_valid_i = 0;
        m.m_ready_i = 1;
        clk.reset();
    }

    void sample_output() {
        if (!(m.m_valid_o && m.m_ready_i)) return;
        if (out.at_start) {
            uint64_t lat = clk.cycle - t_in.front();
            t_in.pop_front();
            lat_min = std::min(lat_min, lat);
            lat_max = std::max(lat_max, lat);
        }
        if (chk.expect(!nofcs.empty(), "beat without request")) {
            chk.expect(bool(m.m_no_fcs_o) == nofcs.front(), "frame %ld: m_no_fcs_o %d, requested %d",
                       out.frames_out + 1, m.m_no_fcs_o, int(nofcs.front()));
            if (m.m_last_o) nofcs.pop_front();
        }
        out.beat(chk, clk.cycle, m.m_data_o, m.m_keep_o, m.m_last_o);
    }

    bool cycle(bool offer) {
        m.m_ready_i = tb::chance(rng, p_ready);
        m.s_valid_i = offer;
        clk.eval();
        bool took = offer && m.s_ready_o;
        sample_output();
        clk.tick();
        return took;
    }

    void send(const Req &q) {
        if (q.bad == GOOD) {
            out.sb.push_back(expect(q));
            nofcs.push_back(q.nofcs);
        }
        drops += q.bad != GOOD;
        cov_bad[q.bad]++;
        cov_huge += q.f.size() > 32768;
        const Frame &f = q.f;
        uint32_t eth[4] = {uint32_t(q.l3) | uint32_t(q.l4) << 1 | uint32_t(q.vlan) << 3 | (tb::rnd(rng, 0, 1) << 2) |
                               uint32_t(q.nofcs) << 4,
                           uint32_t(q.start) | uint32_t(q.off) << 16, uint32_t(q.tci) << 16 | uint16_t(rng()),
                           uint32_t(rng())};
        for (size_t off = 0; off < f.size(); off += 64) {
            size_t n = std::min<size_t>(64, f.size() - off);
            auto beat = tb::rbytes(rng, 64);
            std::copy(f.begin() + long(off), f.begin() + long(off + n), beat.begin());
            tb::put_bytes(m.s_data_i, beat.data(), 64);
            m.s_keep_i = req_keep(rng, q, off / 64, n);
            m.s_last_i = off + n == f.size();
            for (int k = 0; k < 4; k++) m.s_eth_i[k] = off == 0 ? eth[k] : uint32_t(rng());
            while (tb::chance(rng, p_gap)) cycle(false);
            for (long w = 0; !cycle(true); w++) {
                if (w == 100000) {
                    chk.expect(false, "input beat not taken in %ld cycles", w);
                    std::exit(chk.finish());
                }
            }
        }
        if (q.bad == GOOD) t_in.push_back(clk.cycle);
    }

    void drain() {
        for (int i = 0; i < 2000 && !out.sb.empty(); i++) cycle(false);
        chk.expect(out.sb.empty(), "%zu frames never sent", out.sb.size());
        chk.expect(long(m.drop_cnt_o) == drops, "drop_cnt_o %u, %ld bad frames sent", m.drop_cnt_o, drops);
    }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("txp");
    std::printf("[txp] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk, rng);
    b.out.inject = args.inject;

    long iters = args.iters(4000);
    for (long i = 0; i < iters; i++) {
        b.p_gap = (i % 3 == 0) ? 0.0 : 0.2;
        b.p_ready = (i % 4 == 0) ? 1.0 : 0.6;
        Req q = make_req(rng);
        if (tb::chance(rng, 0.05)) make_bad(rng, q);
        b.send(q);
    }
    b.drain();
    std::printf("[txp] bad input dropped:");
    for (int k = TOO_LONG; k < NBAD; k++) std::printf(" %s %ld%s", bad_name[k], cov_bad[k], k + 1 < NBAD ? "," : "");
    std::printf(" (over the 32 KiB buffer %ld)\n", cov_huge);
    chk.expect(cov_bad[TOO_LONG] > 10 && cov_bad[PARTIAL] > 10 && cov_bad[HOLE] > 10 && cov_bad[EMPTY] > 10 &&
                   cov_huge > 0,
               "bad input not covered");

    // A frame longer than the buffer, output held: consumed whole, nothing
    // sent; the next frame then leaves intact.
    {
        b.p_gap = 0.0;
        b.p_ready = 0.0;
        Req huge = make_req(rng);
        huge.f.resize(40000, 0x5a);
        huge.bad = TOO_LONG;
        long beats0 = b.out.beats_out;
        b.send(huge);
        chk.expect(b.out.beats_out == beats0, "output moved while held");
        b.p_ready = 1.0;
        Req next = make_req(rng, 9000, 9000);
        b.send(next);
        b.drain();
    }
    std::printf("[txp] coverage: ipv4 csum %ld, l4 csum %ld (odd start %ld, udp 0 -> ffff %ld, ipv4 field in the "
                "l4 range %ld), vlan %ld\n", cov_l3, cov_l4, cov_odd, cov_udp0, cov_overlap, cov_vlan);
    chk.expect(cov_l3 > 500 && cov_l4 > 1000 && cov_odd > 20 && cov_udp0 > 5 && cov_overlap > 5 && cov_vlan > 500,
               "stimulus did not cover every case");
    std::printf("[txp] latency last beat in -> first beat out: %llu..%llu cycles (with back-pressure)\n",
                (unsigned long long)b.lat_min, (unsigned long long)b.lat_max);

    // Throughput: back-to-back frames, output always ready.
    b.p_gap = 0.0;
    b.p_ready = 1.0;
    for (int vlan = 0; vlan < 2; vlan++) {
        for (size_t len : {60u, 61u, 64u, 65u, 1514u, 9000u}) {
            const long frames = len > 2000 ? 100 : 1000;
            long in_beats = 0, out0 = b.out.beats_out;
            std::vector<Req> qs;
            for (long i = 0; i < frames; i++) {
                Req q = make_req(rng, len, len);
                q.vlan = vlan;
                in_beats += long((q.f.size() + 63) / 64);
                qs.push_back(q);
            }
            b.lat_min = ~0ull;
            b.out.c0 = 0;
            uint64_t c0 = b.clk.cycle;
            for (auto &q : qs) b.send(q);
            uint64_t in_cycles = b.clk.cycle - c0;
            b.drain();
            long out_beats = b.out.beats_out - out0;
            // Output cycles from the first beat out to the last (store and
            // forward: the first frame is in the buffer before it leaves).
            uint64_t busy = b.out.c1 - b.out.c0 + 1;
            std::printf("[txp] throughput %zu B frames%s: in %ld beats in %llu cycles (%.3f/cycle), out %ld beats "
                        "in %llu cycles (%.3f/cycle)\n",
                        len, vlan ? " + tag" : "", in_beats, (unsigned long long)in_cycles,
                        double(in_beats) / double(in_cycles), out_beats, (unsigned long long)busy,
                        double(out_beats) / double(busy));
            if (!vlan) chk.expect(uint64_t(in_beats) == in_cycles, "input below one beat per cycle at %zu B", len);
            chk.expect(uint64_t(out_beats) == busy, "output gaps at %zu B%s", len, vlan ? " + tag" : "");
        }
    }
    std::printf("[txp] latency last beat in -> first beat out without back-pressure: %llu cycles\n",
                (unsigned long long)b.lat_min);

    // The length limit to the byte (the random frames meet it only by
    // chance): kite::tx_max_frame bytes leave, one more is dropped.
    const uint32_t cnt0 = b.m.drop_cnt_o;
    for (size_t len : {size_t(kite::tx_max_frame), size_t(kite::tx_max_frame) + 1}) {
        Req q = make_req(rng, kite::tx_max_frame, kite::tx_max_frame);
        if (q.f.size() < len) {
            q.f.push_back(0x5a);
            q.bad = TOO_LONG;
        }
        b.send(q);
    }
    b.drain();
    std::printf("[txp] at the length limit: %zu bytes sent, %zu bytes dropped (drop_cnt_o +%u)\n",
                size_t(kite::tx_max_frame), size_t(kite::tx_max_frame) + 1, unsigned(b.m.drop_cnt_o - cnt0));
    std::printf("[txp] %ld frames compared\n", b.out.frames_out);
    return chk.finish();
}
