// kite_stats testbench: 7 increment sources every cycle against a reference
// sum per counter. Sources 0-3 count anywhere; 4 only port_stats (counters
// 0-63), 5 only the RQs' queue_stats (4160 up) and 6 only the SQs' (64 to
// 4159), as the card uses them; an increment outside its source's window is
// rejected and counted. Random phase: hot counters hit by several sources in the
// same and in consecutive cycles, random amounts up to 2^32-1, out-of-range
// indices (dropped and counted), reads with and without clear interleaved at
// random (a read must include every increment presented before its accept
// cycle, a clear must lose none presented later). Directed phase: RX frames
// counted the way the model's RX pipeline counts them (fpga/model/rxp:
// rx_packets, rx_bytes, rx_hist[kite::model::rmon_bucket(len)], queue
// packets) into struct port_stats / queue_stats slots, read back word by
// word and compared with the structs. Then a saturation run.
#include <cstddef>
#include <cstring>
#include <deque>
#include <vector>

#include "Vkite_stats.h"
#include "kite/spec.hpp"
#include "stats/stats.hpp"
#include "tb.hpp"

namespace {

constexpr uint32_t N_CNT = 8256, N_SRC = 7, IDX_W = 14, PORTS = 2;
constexpr uint32_t LO_CNT = 64, HI_BASE = 4160;
// Source s's window (kite_stats SRC_WIN default): [lo, hi).
uint32_t win_lo(uint32_t s) { return s == 5 ? HI_BASE : s == 6 ? LO_CNT : 0; }
uint32_t win_hi(uint32_t s) { return s == 4 ? LO_CNT : s == 6 ? HI_BASE : N_CNT; }
namespace spec = kite::spec;

// Card counter map (rtl.rst): port p's port_stats at p * 32, queue q's
// queue_stats at 64 + 8 q.
uint32_t port_idx(uint32_t p, size_t off) { return p * 32 + uint32_t(off / 8); }
uint32_t queue_idx(uint32_t q, size_t off) { return 64 + q * 8 + uint32_t(off / 8); }

struct Inc {
    bool v = false;
    uint32_t idx = 0;
    uint32_t amt = 0;
};

struct Bench {
    Vkite_stats m;
    tb::Clock<Vkite_stats> clk{m};
    tb::Checker &chk;
    std::vector<uint64_t> ref = std::vector<uint64_t>(N_CNT);
    struct Pending {
        uint32_t idx;
        uint64_t want;
        bool err;
    };
    std::deque<Pending> rd;
    long reads = 0, clears = 0, incs = 0, bad = 0;
    bool inject;
    std::vector<uint64_t> got;  // read results, in order

    Bench(tb::Checker &c, bool inj) : chk(c), inject(inj) {
        m.inc_valid_i = 0;
        m.rd_valid_i = 0;
        clk.reset();
        long n = 0;
        while (m.busy_o && n++ < 20000) clk.tick();
        chk.expect(!m.busy_o, "RAM initialisation finishes");
    }

    // One cycle with these increments and optionally a read; returns whether
    // the read was accepted.
    bool cycle(const Inc (&in)[N_SRC], bool read, uint32_t ridx, bool clear) {
        uint8_t v = 0;
        for (size_t i = 0; i < (N_SRC * IDX_W + 31) / 32; i++) m.inc_idx_i[i] = 0;
        for (uint32_t s = 0; s < N_SRC; s++) {
            v |= uint8_t(in[s].v) << s;
            uint64_t x = uint64_t(in[s].idx & ((1u << IDX_W) - 1)) << (s * IDX_W % 32);
            m.inc_idx_i[s * IDX_W / 32] |= uint32_t(x);
            if (x >> 32) m.inc_idx_i[s * IDX_W / 32 + 1] |= uint32_t(x >> 32);
            m.inc_amt_i[s] = in[s].amt;
        }
        m.inc_valid_i = v;
        m.rd_valid_i = read;
        m.rd_idx_i = ridx;
        m.rd_clear_i = clear;
        clk.eval();
        bool acc = read && m.rd_ready_o;
        if (m.rd_valid_o) {
            if (chk.expect(!rd.empty(), "read data without a read")) {
                Pending p = rd.front();
                rd.pop_front();
                if (inject && reads == 5) p.want ^= 4;  // deliberate mismatch (--inject)
                chk.expect(m.rd_data_o == p.want && bool(m.rd_err_o) == p.err,
                           "read %ld of counter %u: %llx err %d, want %llx err %d", reads, p.idx,
                           (unsigned long long)m.rd_data_o, m.rd_err_o, (unsigned long long)p.want, p.err);
                got.push_back(m.rd_data_o);
                reads++;
            }
        }
        // The read sees every increment of earlier cycles, none of this one.
        if (acc) {
            bool ok = ridx < N_CNT;
            rd.push_back({ridx, ok ? ref[ridx] : 0, !ok});
            if (!ok) bad++;
            if (ok && clear) {
                ref[ridx] = 0;
                clears++;
            }
        }
        for (uint32_t s = 0; s < N_SRC; s++) {
            if (!in[s].v) continue;
            if (in[s].idx >= win_lo(s) && in[s].idx < win_hi(s)) {
                ref[in[s].idx] += in[s].amt;
                incs++;
            } else {
                bad++;
            }
        }
        clk.tick();
        return acc;
    }
    void idle(int n) {
        Inc none[N_SRC];
        for (int i = 0; i < n; i++) cycle(none, false, 0, false);
    }
    uint64_t last_latency = 0;
    uint64_t read(uint32_t idx, bool clear = false) {
        Inc none[N_SRC];
        while (!cycle(none, true, idx, clear)) {}
        uint64_t t = clk.cycle - 1;  // the accept cycle
        size_t n = got.size();
        while (got.size() == n) cycle(none, false, 0, false);
        last_latency = clk.cycle - 1 - t;
        return got.back();
    }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("stats");
    std::printf("[stats] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk, args.inject);

    // ------------------------------------------------ random
    // Hot counters: 0-1 in source 4's window, 2-3 in source 5's, 4-5 in 6's.
    uint32_t hot[6];
    hot[0] = 0;
    hot[1] = tb::rnd(rng, 1, LO_CNT - 1);
    hot[2] = N_CNT - 1;
    hot[3] = tb::rnd(rng, HI_BASE, N_CNT - 2);
    hot[4] = LO_CNT;
    hot[5] = tb::rnd(rng, LO_CNT + 1, HI_BASE - 1);
    long same_cycle = 0;
    const long iters = args.iters(60000);
    for (long i = 0; i < iters; i++) {
        double p = (i / 5000) % 2 ? 0.95 : 0.5;
        Inc in[N_SRC];
        for (uint32_t s = 0; s < N_SRC; s++) {
            in[s].v = tb::chance(rng, p);
            uint32_t r = tb::rnd(rng, 0, 99);
            if (s < 4) {
                in[s].idx = r < 60 ? hot[tb::rnd(rng, 0, 5)]
                          : r < 97 ? tb::rnd(rng, 0, N_CNT - 1)
                                   : tb::rnd(rng, N_CNT, (1u << IDX_W) - 1);
            } else {
                // Mostly its window's hot pair or anywhere in it; 3 % outside
                // (below or above the window).
                uint32_t h = 2 * (s - 4);
                bool below = win_lo(s) > 0 && (win_hi(s) == (1u << IDX_W) || tb::chance(rng, 0.5));
                in[s].idx = r < 60 ? hot[h + tb::rnd(rng, 0, 1)]
                          : r < 97 ? tb::rnd(rng, win_lo(s), win_hi(s) - 1)
                          : below  ? tb::rnd(rng, 0, win_lo(s) - 1)
                                   : tb::rnd(rng, win_hi(s), (1u << IDX_W) - 1);
            }
            uint32_t a = tb::rnd(rng, 0, 9);
            in[s].amt = a < 5 ? 1 : a < 9 ? tb::rnd(rng, 0, 9022) : uint32_t(rng());
        }
        for (uint32_t s = 1; s < N_SRC; s++)
            for (uint32_t t = 0; t < s; t++)
                if (in[s].v && in[t].v && in[s].idx == in[t].idx) same_cycle++;
        bool read = tb::chance(rng, 0.4);
        uint32_t ridx = tb::chance(rng, 0.7) ? hot[tb::rnd(rng, 0, 5)]
                      : tb::chance(rng, 0.95) ? tb::rnd(rng, 0, N_CNT - 1)
                                               : tb::rnd(rng, N_CNT, (1u << IDX_W) - 1);
        b.cycle(in, read, ridx, tb::chance(rng, 0.3));
    }
    b.idle(8);
    // Every counter that moved, read back and cleared.
    for (uint32_t i = 0; i < N_CNT; i++)
        if (b.ref[i]) b.read(i, true);
    for (uint32_t i = 0; i < 6; i++) chk.expect(b.read(hot[i]) == 0, "cleared counter %u reads 0", hot[i]);
    chk.expect(b.m.bad_count_o == uint32_t(b.bad), "rejected inputs counted: %u, want %ld", b.m.bad_count_o, b.bad);
    std::printf("[stats] random: %ld increments (%ld same counter in one cycle), %ld reads, %ld clears, %ld rejected\n",
                b.incs, same_cycle, b.reads, b.clears, b.bad);
    chk.expect(same_cycle > 1000 && b.clears > 1000 && b.bad > 100, "coverage");

    // ------------------------------------------------ RX frames as the model counts them
    spec::port_stats ps[PORTS]{};
    spec::queue_stats qs[4]{};
    std::deque<Inc> q;  // increments waiting for a free source
    for (int f = 0; f < 20000; f++) {
        uint32_t port = tb::rnd(rng, 0, PORTS - 1), rq = tb::rnd(rng, 0, 3);
        size_t len = tb::rnd(rng, 60, 9022), flen = len - 4;  // len includes the FCS
        spec::port_stats &st = ps[port];
        // As fpga/model/rxp/rxp.cpp counts a delivered frame.
        st.rx_packets++;
        st.rx_bytes += flen;
        st.rx_hist[kite::model::rmon_bucket(len)]++;
        qs[rq].packets++;
        qs[rq].bytes += flen;
        size_t bucket = offsetof(spec::port_stats, rx_hist) + 8 * kite::model::rmon_bucket(len);
        // Port counters on sources 0, 1 and 4, the RQ's (queue slot 512 + rq,
        // as the card counts RQs) on 5 and, for the bytes, a shared source.
        Inc frame[N_SRC] = {{true, port_idx(port, offsetof(spec::port_stats, rx_packets)), 1},
                            {true, port_idx(port, offsetof(spec::port_stats, rx_bytes)), uint32_t(flen)},
                            {},
                            {},
                            {true, port_idx(port, bucket), 1},
                            {true, queue_idx(512 + rq, offsetof(spec::queue_stats, packets)), 1}};
        Inc qb{true, queue_idx(512 + rq, offsetof(spec::queue_stats, bytes)), uint32_t(flen)};
        b.cycle(frame, false, 0, false);
        Inc second[N_SRC] = {qb};
        if (f % 2) b.cycle(second, false, 0, false);
        else q.push_back(qb);
        while (q.size() >= 4) {
            Inc batch[N_SRC];
            for (int k = 0; k < 4; k++) { batch[k] = q.front(); q.pop_front(); }
            b.cycle(batch, false, 0, false);
        }
    }
    while (!q.empty()) {
        Inc batch[N_SRC];
        batch[0] = q.front();
        q.pop_front();
        b.cycle(batch, false, 0, false);
    }
    b.idle(4);
    long words = 0;
    for (uint32_t p = 0; p < PORTS; p++) {
        uint64_t w[32];
        for (uint32_t i = 0; i < 32; i++, words++) w[i] = b.read(port_idx(p, 8 * i));
        chk.expect(std::memcmp(w, &ps[p], sizeof(w)) == 0, "port %u port_stats read back as the model counted", p);
    }
    for (uint32_t r = 0; r < 4; r++) {
        uint64_t w[8];
        for (uint32_t i = 0; i < 8; i++, words++) w[i] = b.read(queue_idx(512 + r, 8 * i));
        chk.expect(std::memcmp(w, &qs[r], sizeof(w)) == 0, "RQ %u queue_stats read back as the model counted", r);
    }
    std::printf("[stats] RX frames: 20000 frames on %u ports and 4 queues, %ld counter words compared\n", PORTS, words);

    // ------------------------------------------------ saturation: every source, one counter, every cycle
    // (source 5: one of its own, RQ 7's bytes)
    {
        uint32_t c = port_idx(1, offsetof(spec::port_stats, tx_bytes));
        uint32_t c5 = queue_idx(512 + 7, offsetof(spec::queue_stats, bytes));
        uint32_t c6 = queue_idx(9, offsetof(spec::queue_stats, bytes));
        uint64_t before = b.ref[c], before5 = b.ref[c5], before6 = b.ref[c6];
        const long N = 10000;
        long rds = 0;
        uint64_t t0 = b.clk.cycle;
        for (long i = 0; i < N; i++) {
            Inc in[N_SRC];
            for (auto &x : in) x = {true, c, 1500};
            in[5].idx = c5;
            in[6].idx = c6;
            if (b.cycle(in, i % 3 == 0, i % 3 ? c : i % 2 ? c5 : c6, false)) rds++;
        }
        uint64_t cyc = b.clk.cycle - t0;
        b.idle(4);
        chk.expect(b.read(c) == before + uint64_t(N) * (N_SRC - 2) * 1500 && b.read(c5) == before5 + uint64_t(N) * 1500 &&
                       b.read(c6) == before6 + uint64_t(N) * 1500,
                   "no increment lost at %u per cycle", N_SRC);
        std::printf("[stats] throughput: %ld increments to three counters in %llu cycles (%.2f per cycle) with %ld reads "
                    "in between, none lost\n",
                    N * N_SRC, (unsigned long long)cyc, double(N * N_SRC) / double(cyc), rds);
    }
    b.read(0);
    std::printf("[stats] latency: read request -> data %llu cycles\n", (unsigned long long)b.last_latency);
    chk.expect(b.last_latency == 4, "read latency");
    std::printf("[stats] %ld reads compared\n", b.reads);
    return chk.finish();
}
