// kite_mac_cdc testbench: the host (250 MHz) and CMAC (322.27 MHz) clocks run
// at their true ratio (picosecond event times; also the reverse ratio and
// equal clocks). Frames are random bytes, 1..9018 B; the reference is the
// list of frames sent:
//   TX (host -> MAC, back-pressure): every frame not marked bad arrives intact
//     and in order; once a frame has started, the MAC side never sees
//     valid drop before its last beat (the CMAC would abort the frame); a frame longer than the FIFO is
//     dropped and counted once, and the stream goes on.
//   RX (MAC -> host, no back-pressure): what arrives is the sent sequence
//     with whole frames missing only (never a partial or corrupted frame);
//     5% of the frames are marked bad with their last beat (the CMAC's
//     rx_axis_tuser; the flag is random on every other beat, where it means
//     nothing) and are never delivered; every other frame is delivered or
//     dropped, the drop count equals the good frames missing (a bad frame is
//     not a drop, even when it did not fit either), and nothing is dropped
//     while the host keeps up.
//   MAC statistics events (mac_ev_i -> host_ev_o): random pulses in the MAC
//     domain, each bit at its own rate, two of them in bursts of one event
//     per MAC cycle (up to 600, which at the real ratio leaves the host up to
//     about 135 behind); once the run settles, the host has seen exactly as
//     many pulses per bit as events were raised, and no pulse comes before
//     its event can have crossed (two host clock edges after the MAC edge
//     that took it).
// Then throughput: a host-side TX stream fills the MAC side at 250/322 of its
// cycles, and back-to-back 64-byte RX frames at 322 MHz are delivered at one
// beat per host cycle with the excess dropped whole.
#include <deque>
#include <vector>

#include "Vkite_mac_cdc.h"
#include "tb.hpp"

namespace {

using Frame = std::vector<uint8_t>;

struct Bench {
    Vkite_mac_cdc m;
    tb::Checker &chk;
    tb::Rng &rng;
    bool inject = false;
    // clocks: periods and next rising edge in ps
    uint64_t host_ps = 4000, mac_ps = 3103, t = 0, host_next = 0, mac_next = 0;
    uint64_t host_cycles = 0, mac_cycles = 0;

    // TX state: frames to send (host side), frames expected (MAC side)
    std::deque<std::pair<Frame, bool>> tx_in;  // frame, bad
    size_t tx_off = 0;
    std::deque<Frame> tx_exp;
    Frame tx_cur;
    bool tx_mid = false;
    long tx_out = 0, tx_drops = 0, tx_gaps = 0, tx_beats_out = 0;
    double tx_p_valid = 1.0, tx_p_ready = 1.0;

    // RX state
    std::deque<std::pair<Frame, bool>> rx_in;  // frame, bad
    size_t rx_off = 0;
    std::deque<std::pair<Frame, bool>> rx_sent;  // in order, awaiting output, drop or discard
    Frame rx_cur;
    long rx_out = 0, rx_drops = 0, rx_missing = 0, rx_bad = 0, rx_bad_gone = 0;
    double rx_p_valid = 1.0, rx_p_ready = 1.0;
    double rx_gap = 0.0;  // idle MAC cycles after a frame, per beat of it
    long rx_idle = 0;

    // MAC statistics events, per bit: a rate per MAC cycle, and bursts of
    // one event per cycle (started at ev_burst_p), each followed by as many
    // quiet cycles so the host (250 of 322 MHz) catches up.
    static constexpr int NEV = 8;
    bool ev_on = true;
    double ev_p[NEV] = {}, ev_burst_p[NEV] = {};
    long ev_burst[NEV] = {}, ev_quiet[NEV] = {};
    std::deque<uint64_t> ev_pend[NEV];  // MAC edge times of events not yet pulsed on the host side
    long ev_sent[NEV] = {}, ev_got[NEV] = {};
    size_t ev_backlog = 0;  // most events of one bit outstanding

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        m.tx_s_valid_i = 0;
        m.rx_s_valid_i = 0;
        m.rx_s_bad_i = 0;
        m.mac_ev_i = 0;
        m.tx_m_ready_i = 1;
        m.rx_m_ready_i = 1;
        m.host_rst_ni = 0;
        m.mac_rst_ni = 0;
        for (int i = 0; i < 8; i++) step();
        m.host_rst_ni = 1;
        m.mac_rst_ni = 1;
        for (int i = 0; i < 8; i++) step();
    }

    void set_beat(VlWide<16> &data, uint64_t &keep, uint8_t &last, const Frame &f, size_t off) {
        size_t n = std::min<size_t>(64, f.size() - off);
        tb::put_bytes(data, f.data() + off, n);
        keep = tb::keep_mask(n);
        last = off + n >= f.size();
    }

    void append(Frame &cur, const VlWide<16> &data, uint64_t keep) {
        for (size_t i = 0; i < 64; i++)
            if (keep >> i & 1) cur.push_back(tb::get_byte(data, i));
    }

    // Host domain rising edge: TX input, RX output.
    void host_edge() {
        m.eval();
        bool tx_fire = m.tx_s_valid_i && m.tx_s_ready_o;
        bool rx_pop = m.rx_m_valid_o && m.rx_m_ready_i;
        if (m.tx_drop_o) tx_drops++;
        if (m.rx_drop_o) rx_drops++;
        for (int b = 0; b < NEV; b++) {
            if (!(m.host_ev_o >> b & 1)) continue;
            ev_got[b]++;
            if (chk.expect(!ev_pend[b].empty(), "event %d: host pulse %ld with no MAC event outstanding", b,
                           ev_got[b])) {
                // The output shows the synchronizer's second flop, loaded at
                // the last host edge from the first, loaded the edge before
                // (a MAC edge at the same time comes after it).
                uint64_t te = ev_pend[b].front();
                ev_pend[b].pop_front();
                chk.expect(te + 2 * host_ps < t, "event %d: host pulse at %llu ps for a MAC event at %llu ps", b,
                           (unsigned long long)t, (unsigned long long)te);
            }
        }
        if (rx_pop) {
            append(rx_cur, m.rx_m_data_o, m.rx_m_keep_o);
            if (m.rx_m_last_o) rx_frame_done();
        }
        if (tx_fire) {
            tx_off += 64;
            if (tx_off >= tx_in.front().first.size()) {
                // bad frames are discarded, frames over the FIFO dropped
                if (!tx_in.front().second && tx_in.front().first.size() <= 256 * 64)
                    tx_exp.push_back(tx_in.front().first);
                tx_in.pop_front();
                tx_off = 0;
            }
        }
        m.host_clk_i = 1;
        m.eval();
        m.host_clk_i = 0;
        m.eval();
        host_cycles++;
        // new host-side inputs
        m.tx_s_valid_i = !tx_in.empty() && tb::chance(rng, tx_p_valid);
        if (!tx_in.empty()) {
            set_beat(m.tx_s_data_i, m.tx_s_keep_i, m.tx_s_last_i, tx_in.front().first, tx_off);
            m.tx_s_bad_i = m.tx_s_last_i && tx_in.front().second;
            m.tx_s_user_i = tx_in.front().first[0] & 1;
        }
        m.rx_m_ready_i = tb::chance(rng, rx_p_ready);
    }

    // MAC domain rising edge: TX output, RX input.
    void mac_edge() {
        m.eval();
        bool tx_pop = m.tx_m_valid_o && m.tx_m_ready_i;
        if (tx_mid && !m.tx_m_valid_o) tx_gaps++;
        if (tx_pop) {
            tx_beats_out++;
            append(tx_cur, m.tx_m_data_o, m.tx_m_keep_o);
            chk.expect(m.tx_m_user_o == (tx_cur[0] & 1), "TX sideband follows the frame");
            tx_mid = !m.tx_m_last_o;
            if (m.tx_m_last_o) tx_frame_done();
        }
        for (int b = 0; b < NEV; b++) {
            if (!(m.mac_ev_i >> b & 1)) continue;
            ev_sent[b]++;
            ev_pend[b].push_back(t);
            ev_backlog = std::max(ev_backlog, ev_pend[b].size());
        }
        if (m.rx_s_valid_i) {
            rx_off += 64;
            if (rx_off >= rx_in.front().first.size()) {
                rx_idle = long(rx_gap * double((rx_in.front().first.size() + 63) / 64) + 0.999);
                rx_bad += rx_in.front().second;
                rx_sent.push_back(rx_in.front());
                rx_in.pop_front();
                rx_off = 0;
            }
        }
        m.mac_clk_i = 1;
        m.eval();
        m.mac_clk_i = 0;
        m.eval();
        mac_cycles++;
        m.tx_m_ready_i = tb::chance(rng, tx_p_ready);
        // A MAC delivers a frame's beats back to back; gaps only between frames.
        bool start = rx_off == 0;
        if (start && rx_idle > 0) rx_idle--;
        m.rx_s_valid_i = !rx_in.empty() && (!start || (rx_idle == 0 && tb::chance(rng, rx_p_valid)));
        if (!rx_in.empty()) set_beat(m.rx_s_data_i, m.rx_s_keep_i, m.rx_s_last_i, rx_in.front().first, rx_off);
        m.rx_s_user_i = !rx_in.empty() && (rx_in.front().first[0] & 1);
        // The error flag counts with a valid last beat only; elsewhere it is noise.
        m.rx_s_bad_i = m.rx_s_valid_i && m.rx_s_last_i ? rx_in.front().second : tb::chance(rng, 0.5);
        uint8_t ev = 0;
        for (int b = 0; b < NEV && ev_on; b++) {
            bool fire = false;
            if (ev_burst[b] > 0) {
                fire = true;
                ev_burst[b]--;
            } else if (ev_quiet[b] > 0) {
                ev_quiet[b]--;
            } else if (tb::chance(rng, ev_burst_p[b])) {
                long n = tb::rnd(rng, 1, 600);
                ev_burst[b] = n - 1;
                ev_quiet[b] = n;
                fire = true;
            } else {
                fire = tb::chance(rng, ev_p[b]);
            }
            ev |= uint8_t(fire) << b;
        }
        m.mac_ev_i = ev;
    }

    void tx_frame_done() {
        if (chk.expect(!tx_exp.empty(), "TX: frame out with none expected")) {
            Frame e = tx_exp.front();
            tx_exp.pop_front();
            if (inject && tx_out == 7) e[0] ^= 1;
            chk.expect(tx_cur == e, "TX frame %ld: %zu bytes out, %zu expected", tx_out, tx_cur.size(), e.size());
        }
        tx_out++;
        tx_cur.clear();
    }

    void rx_frame_done() {
        // The output must be the next sent frame, possibly after whole
        // dropped or discarded (bad) ones, and not a bad one itself.
        while (!rx_sent.empty() && rx_sent.front().first != rx_cur) {
            (rx_sent.front().second ? rx_bad_gone : rx_missing)++;
            rx_sent.pop_front();
        }
        chk.expect(!rx_sent.empty(), "RX frame %ld (%zu bytes) is not a frame sent, in order", rx_out, rx_cur.size());
        if (!rx_sent.empty()) {
            chk.expect(!rx_sent.front().second, "RX frame %ld (%zu bytes) was marked bad but delivered", rx_out,
                       rx_cur.size());
            rx_sent.pop_front();
        }
        rx_out++;
        rx_cur.clear();
    }

    void step() {
        t = std::min(host_next, mac_next);
        if (host_next == t) {
            host_edge();
            host_next += host_ps;
        }
        if (mac_next == t) {
            mac_edge();
            mac_next += mac_ps;
        }
    }

    bool idle() const {
        return tx_in.empty() && tx_exp.empty() && rx_in.empty() && !m.tx_m_valid_o && !m.rx_m_valid_o;
    }
    void run_until_idle(long limit = 20000000) {
        // idle for a while: frames and drop counts still crossing arrive
        long n = 0, quiet = 0;
        while (quiet < 300 && n++ < limit) {
            step();
            quiet = idle() ? quiet + 1 : 0;
        }
        // frames sent on RX but never delivered were dropped, or discarded if bad
        for (auto &f : rx_sent) (f.second ? rx_bad_gone : rx_missing)++;
        rx_sent.clear();
        chk.expect(idle(), "drained (TX %zu to send, %zu expected)", tx_in.size(), tx_exp.size());
        // No more events; those still crossing arrive within the largest
        // backlog (well under 1000 host cycles), then no pulse may follow.
        ev_on = false;
        for (int i = 0; i < 3000; i++) step();
        for (int b = 0; b < NEV; b++)
            chk.expect(ev_pend[b].empty() && ev_got[b] == ev_sent[b], "event %d: %ld host pulses for %ld MAC events",
                       b, ev_got[b], ev_sent[b]);
    }
    long ev_total() const {
        long n = 0;
        for (long v : ev_sent) n += v;
        return n;
    }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("mac_cdc");
    std::printf("[mac_cdc] seed %llu\n", (unsigned long long)args.seed);

    const uint64_t ratios[][2] = {{4000, 3103}, {3103, 4000}, {4000, 4000}};
    long iters = args.iters(400);
    for (auto &r : ratios) {
        Bench b(chk, rng);
        b.inject = args.inject;
        b.host_ps = r[0];
        b.mac_ps = r[1];
        // Random traffic, random stalls both sides; the host keeps up with RX on average.
        b.tx_p_valid = 0.8;
        b.tx_p_ready = 0.9;
        // At the real ratio the host keeps up with RX (always ready, the MAC
        // idle half a frame after each: 215 M beats/s); otherwise both stall.
        bool real = r[0] == 4000 && r[1] == 3103;
        b.rx_p_valid = 0.3;
        b.rx_p_ready = real ? 1.0 : 0.9;
        b.rx_gap = real ? 0.5 : 0.0;
        // MAC statistics: rare to frequent (bit 5 at half the MAC cycles, 161
        // M/s at the real ratio, under the host's 250 M/s), bits 2 and 7 also
        // in bursts of one per MAC cycle.
        const double ev_p[8] = {0.02, 0.005, 0.05, 0.0005, 0.01, 0.5, 0.3, 0.1};
        const double ev_burst_p[8] = {0, 0, 0.0005, 0, 0, 0, 0, 0.002};
        for (int k = 0; k < 8; k++) {
            b.ev_p[k] = ev_p[k];
            b.ev_burst_p[k] = ev_burst_p[k];
        }
        long bad = 0;
        for (long i = 0; i < iters; i++) {
            size_t n = tb::chance(rng, 0.8) ? tb::rnd(rng, 1, 1600) : tb::rnd(rng, 1601, 9018);
            bool is_bad = tb::chance(rng, 0.05);
            bad += is_bad;
            b.tx_in.emplace_back(tb::rbytes(rng, n), is_bad);
            n = tb::chance(rng, 0.8) ? tb::rnd(rng, 1, 1600) : tb::rnd(rng, 1601, 9018);
            b.rx_in.emplace_back(tb::rbytes(rng, n), tb::chance(rng, 0.05));
        }
        // One frame longer than the TX FIFO (256 beats): dropped, counted, the stream goes on.
        b.tx_in.emplace(b.tx_in.begin() + iters / 2, tb::rbytes(rng, 300 * 64), false);
        b.run_until_idle();
        chk.expect(b.tx_out == iters - bad, "TX %llu:%llu ps: %ld frames out, want %ld (bad %ld)",
                   (unsigned long long)r[0], (unsigned long long)r[1], b.tx_out, iters - bad, bad);
        chk.expect(b.tx_drops == 1, "TX: the oversize frame counted once (%ld)", b.tx_drops);
        chk.expect(b.tx_gaps == 0, "TX: no gap inside a frame towards the MAC (%ld)", b.tx_gaps);
        chk.expect(b.rx_drops == b.rx_missing, "RX: drop count %ld = good frames missing %ld", b.rx_drops,
                   b.rx_missing);
        chk.expect(b.rx_bad_gone == b.rx_bad && b.rx_bad > 0, "RX: %ld of %ld bad frames discarded", b.rx_bad_gone,
                   b.rx_bad);
        std::printf("[mac_cdc] host %llu ps, mac %llu ps: TX %ld frames, RX %ld delivered, %ld dropped, %ld bad "
                    "discarded; %ld events crossed, at most %zu of one kind outstanding\n",
                    (unsigned long long)r[0], (unsigned long long)r[1], b.tx_out, b.rx_out, b.rx_drops, b.rx_bad_gone,
                    b.ev_total(), b.ev_backlog);
        if (real)
            chk.expect(b.rx_drops == 0, "RX: nothing dropped while the host keeps up (%ld)", b.rx_drops);
    }

    // Throughput at the real clocks.
    {
        Bench b(chk, rng);
        b.inject = args.inject;
        for (int i = 0; i < 200; i++) b.tx_in.emplace_back(tb::rbytes(rng, 1514), false);
        while (b.tx_out < 10) b.step();
        long beats0 = b.tx_beats_out, mac0 = long(b.mac_cycles), host0 = long(b.host_cycles);
        while (b.tx_out < 190) b.step();
        double per_mac = double(b.tx_beats_out - beats0) / double(long(b.mac_cycles) - mac0);
        double per_host = double(b.tx_beats_out - beats0) / double(long(b.host_cycles) - host0);
        std::printf("[mac_cdc] throughput TX 1514 B: %.3f beats per host cycle (%.3f per MAC cycle)\n", per_host,
                    per_mac);
        chk.expect(per_host > 0.99, "TX carries one beat per host cycle (%.3f)", per_host);
        b.run_until_idle();

        // RX: back-to-back 64-byte frames at 322 MHz, host always ready: one
        // beat per host cycle delivered, the rest dropped whole.
        b.rx_p_valid = 1.0;
        b.rx_p_ready = 1.0;
        // 5% of them bad: not delivered, and not counted even when they do not fit.
        for (int i = 0; i < 4000; i++) b.rx_in.emplace_back(tb::rbytes(rng, 64), tb::chance(rng, 0.05));
        long out0 = b.rx_out;
        uint64_t h0 = b.host_cycles;
        while (!b.rx_in.empty()) b.step();
        double rate = double(b.rx_out - out0) / double(b.host_cycles - h0);
        b.run_until_idle();
        std::printf("[mac_cdc] throughput RX 64 B back to back at 322 MHz: %.3f frames per host cycle, "
                    "%ld of 4000 dropped whole, %ld bad discarded\n", rate, b.rx_drops, b.rx_bad_gone);
        chk.expect(rate > 0.97, "RX delivers one 64-byte frame per host cycle (%.3f)", rate);
        chk.expect(b.rx_drops == b.rx_missing && b.rx_drops > 0, "RX excess dropped and counted (%ld, missing %ld)",
                   b.rx_drops, b.rx_missing);
        chk.expect(b.rx_bad_gone == b.rx_bad, "RX: %ld of %ld bad frames discarded", b.rx_bad_gone, b.rx_bad);
    }
    return chk.finish();
}
