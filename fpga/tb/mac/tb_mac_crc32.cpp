// kite_mac_crc32 testbench: the CRC-32 check value (published), then random
// frames (1..9100 bytes, some ending in a correct FCS, some corrupted) with
// random input gaps and output back-pressure, against kite_ref::crc32; then
// a throughput run of back-to-back minimum frames.
#include <deque>
#include <vector>

#include "Vkite_mac_crc32.h"
#include "kite_ref.hpp"
#include "tb.hpp"

namespace {

struct Expect {
    uint32_t crc;
    uint32_t len;
    bool fcs_ok;
};

struct Bench {
    Vkite_mac_crc32 m;
    tb::Clock<Vkite_mac_crc32> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    std::deque<Expect> sb;
    bool inject = false;
    long outputs = 0;
    double p_gap = 0.0, p_ready = 1.0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        m.s_valid_i = 0;
        m.m_ready_i = 1;
        clk.reset();
    }

    void sample_output() {
        if (!(m.m_valid_o && m.m_ready_i)) return;
        if (!chk.expect(!sb.empty(), "output without frame")) return;
        Expect e = sb.front();
        sb.pop_front();
        if (inject && outputs == 5) e.crc ^= 0x80;  // deliberate mismatch (--inject)
        outputs++;
        chk.expect(m.m_crc_o == e.crc && m.m_len_o == e.len && bool(m.m_residue_ok_o) == e.fcs_ok,
                   "frame %ld len %u/%u: crc %08x/%08x fcs_ok %d/%d", outputs, m.m_len_o, e.len,
                   m.m_crc_o, e.crc, m.m_residue_ok_o, e.fcs_ok);
    }

    // Drives one cycle; returns true when the offered beat was taken.
    bool cycle(bool offer) {
        m.m_ready_i = tb::chance(rng, p_ready);
        m.s_valid_i = offer;
        clk.eval();
        bool took = offer && m.s_ready_o;
        sample_output();
        clk.tick();
        return took;
    }

    void send(const std::vector<uint8_t> &f) {
        bool ok = f.size() > 4 && kite_ref::crc32(f.data(), f.size() - 4) ==
                                      (uint32_t(f[f.size() - 4]) | uint32_t(f[f.size() - 3]) << 8 |
                                       uint32_t(f[f.size() - 2]) << 16 | uint32_t(f[f.size() - 1]) << 24);
        sb.push_back({kite_ref::crc32(f.data(), f.size()), uint32_t(f.size()), ok});
        for (size_t off = 0; off < f.size(); off += 64) {
            size_t n = std::min<size_t>(64, f.size() - off);
            tb::put_bytes(m.s_data_i, f.data() + off, n);
            m.s_keep_i = tb::keep_mask(n);
            m.s_last_i = off + n == f.size();
            while (tb::chance(rng, p_gap)) cycle(false);
            while (!cycle(true)) {}
        }
    }

    void drain() {
        for (int i = 0; i < 64 && !sb.empty(); i++) cycle(false);
        chk.expect(sb.empty(), "%zu frames never reported", sb.size());
    }
};

std::vector<uint8_t> with_fcs(std::vector<uint8_t> f) {
    uint32_t c = kite_ref::crc32(f.data(), f.size());
    for (int i = 0; i < 4; i++) f.push_back(uint8_t(c >> (8 * i)));
    return f;
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("mac_crc32");
    std::printf("[mac_crc32] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk, rng);
    b.inject = args.inject;

    // Published check value of CRC-32/IEEE: "123456789" -> 0xCBF43926.
    const std::vector<uint8_t> check = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    chk.expect(kite_ref::crc32(check.data(), check.size()) == 0xcbf43926u, "reference check value");
    b.send(check);

    // Every length of the first three beats, then random lengths.
    for (size_t n = 1; n <= 200; n++) b.send(tb::chance(rng, 0.5) ? with_fcs(tb::rbytes(rng, n)) : tb::rbytes(rng, n + 4));
    long iters = args.iters(3000);
    for (long i = 0; i < iters; i++) {
        b.p_gap = (i % 3 == 0) ? 0.0 : 0.2;
        b.p_ready = (i % 4 == 0) ? 1.0 : 0.6;
        size_t n = tb::chance(rng, 0.9) ? tb::rnd(rng, 1, 1600) : tb::rnd(rng, 1601, 9100);
        auto f = with_fcs(tb::rbytes(rng, n));
        if (tb::chance(rng, 0.3)) f[tb::rnd(rng, 0, uint32_t(f.size() - 1))] ^= uint8_t(1u << tb::rnd(rng, 0, 7));
        b.send(f);
    }
    b.drain();

    // Throughput: back-to-back 64-byte frames (1 beat) and 65-byte frames
    // (2 beats), no gaps, sink always ready: one beat per cycle.
    b.p_gap = 0.0;
    b.p_ready = 1.0;
    for (size_t len : {64u, 65u, 1518u}) {
        const long frames = 2000;
        long beats = frames * long((len + 63) / 64);
        uint64_t c0 = b.clk.cycle;
        for (long i = 0; i < frames; i++) b.send(with_fcs(tb::rbytes(rng, len - 4)));
        uint64_t cycles = b.clk.cycle - c0;
        std::printf("[mac_crc32] throughput %zu B frames: %ld beats in %llu cycles (%.3f beats/cycle)\n", len,
                    beats, (unsigned long long)cycles, double(beats) / double(cycles));
        chk.expect(uint64_t(beats) == cycles, "below one beat per cycle at %zu B", len);
        b.drain();
    }
    std::printf("[mac_crc32] %ld frames compared\n", b.outputs);
    return chk.finish();
}
