// kite_card_rxfcs testbench: frames with their FCS in, the same frames
// without the last 4 bytes out, as the model's RxPipeline::receive parses
// them (parse_frame(f, len - limits::FCS_LEN), fpga/model/rxp/rxp.cpp).
// Random sizes weighted to put the FCS at every place of a beat (ending
// one, straddling two, a beat of its own of 1..4 bytes), random input gaps
// and output back-pressure; every output beat packed from lane 0 and full
// but the last. Frames of 4 bytes or less (the MAC drops runts) must still
// leave as one byte. Then a throughput run: one beat in per cycle.
#include <algorithm>
#include <deque>
#include <vector>

#include "Vkite_card_rxfcs.h"
#include "kite/spec.hpp"
#include "tb.hpp"

namespace {

using Frame = std::vector<uint8_t>;
constexpr size_t FCS = kite::spec::limits::FCS_LEN;

struct Bench {
    Vkite_card_rxfcs m;
    tb::Clock<Vkite_card_rxfcs> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    bool inject = false;
    std::deque<Frame> in, exp;
    size_t in_off = 0;
    Frame cur;
    long frames_out = 0, beats_in = 0, beats_out = 0, short_tail = 0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        m.s_valid_i = 0;
        m.m_ready_i = 1;
        clk.reset();
    }

    void offer(const Frame &f) {
        in.push_back(f);
        Frame e(f.begin(), f.size() > FCS ? f.end() - long(FCS) : f.begin() + 1);
        if (inject && frames_out + long(exp.size()) == 7) e[0] ^= 1;  // deliberate mismatch (--inject)
        exp.push_back(e);
        size_t last = f.size() % 64 ? f.size() % 64 : 64;
        short_tail += f.size() > 64 && last <= FCS;
    }

    void step(double p_gap, double p_ready) {
        bool v = !in.empty() && !tb::chance(rng, p_gap);
        m.s_valid_i = v;
        if (v) {
            const Frame &f = in.front();
            size_t n = std::min<size_t>(64, f.size() - in_off);
            tb::put_bytes(m.s_data_i, f.data() + in_off, n);
            m.s_keep_i = tb::keep_mask(n);
            m.s_last_i = in_off + n == f.size();
        }
        m.m_ready_i = tb::chance(rng, p_ready);
        clk.eval();
        if (m.m_valid_o && m.m_ready_i) {
            uint64_t keep = m.m_keep_o;
            size_t n = 0;
            while (n < 64 && (keep >> n & 1)) n++;
            chk.expect(n > 0 && keep == tb::keep_mask(n), "output keep %016llx packed from lane 0",
                       (unsigned long long)keep);
            chk.expect(m.m_last_o || n == 64, "a beat before the last is full (%zu)", n);
            for (size_t i = 0; i < n; i++) cur.push_back(tb::get_byte(m.m_data_o, i));
            beats_out++;
            if (m.m_last_o) {
                if (chk.expect(!exp.empty(), "output frame without input")) {
                    chk.expect(cur == exp.front(), "frame %ld: %zu bytes out, %zu expected%s", frames_out, cur.size(),
                               exp.front().size(), cur.size() == exp.front().size() ? " (bytes differ)" : "");
                    exp.pop_front();
                }
                frames_out++;
                cur.clear();
            }
        }
        if (v && m.s_ready_o) {
            beats_in++;
            size_t n = std::min<size_t>(64, in.front().size() - in_off);
            in_off += n;
            if (in_off == in.front().size()) {
                in.pop_front();
                in_off = 0;
            }
        }
        clk.tick();
    }

    void drain() {
        for (int i = 0; i < 100000 && (!in.empty() || !exp.empty()); i++) step(0.0, 0.7);
        chk.expect(in.empty() && exp.empty(), "drained (%zu in, %zu expected left)", in.size(), exp.size());
    }
};

size_t rand_size(tb::Rng &rng) {
    unsigned k = tb::rnd(rng, 0, 9);
    if (k < 5) return 64 * tb::rnd(rng, 1, 20) + tb::rnd(rng, 0, 5);  // FCS around a beat's end
    if (k < 6) return tb::rnd(rng, 1, 8);                              // shorter than the MAC lets through
    return tb::rnd(rng, 60, 9022);
}

}  // namespace

int main(int argc, char **argv) {
    tb::Args args(argc, argv);
    tb::Checker chk("card_rxfcs");
    tb::Rng rng(args.seed);
    std::printf("[card_rxfcs] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk, rng);
    b.inject = args.inject;
    const long n = args.iters(3000);
    for (long i = 0; i < n; i++) {
        b.offer(tb::rbytes(rng, rand_size(rng)));
        if (i % 50 == 49) {
            double gap = tb::chance(rng, 0.5) ? 0.0 : 0.3, ready = tb::chance(rng, 0.5) ? 1.0 : 0.6;
            for (int k = 0; k < 4000 && !b.in.empty(); k++) b.step(gap, ready);
        }
    }
    b.drain();
    std::printf("[card_rxfcs] %ld frames, %ld beats in, %ld out, %ld frames whose last beat is FCS only\n",
                b.frames_out, b.beats_in, b.beats_out, b.short_tail);
    chk.expect(b.frames_out == n && b.short_tail > 100, "coverage: frames out, FCS-only last beats");
    // Throughput: frames back to back, output always ready.
    for (int i = 0; i < 400; i++) b.offer(tb::rbytes(rng, 64 * tb::rnd(rng, 1, 3) + tb::rnd(rng, 0, 5)));
    long in0 = b.beats_in;
    uint64_t c0 = b.clk.cycle;
    while (!b.in.empty()) b.step(0.0, 1.0);
    uint64_t cycles = b.clk.cycle - c0;
    b.drain();
    long beats = b.beats_in - in0;
    std::printf("[card_rxfcs] throughput: %ld beats in %llu cycles (%.3f per cycle)\n", beats,
                (unsigned long long)cycles, double(beats) / double(cycles));
    chk.expect(uint64_t(beats) == cycles, "one beat per cycle");
    return chk.finish();
}
