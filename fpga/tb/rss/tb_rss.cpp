// kite_rss testbench: Microsoft RSS verification suite (published vectors),
// then randomized keys, field selections, table sizes, tables, tuples
// (malformed ones too) and back-pressure, then generated frames parsed by the
// model, then a throughput run (one tuple per cycle). Every run spreads its
// tuples randomly over the NCTX contexts, each with its own configuration,
// and rewrites contexts while tuples of the others flow (the config port
// then writes in the same cycles as tuples are taken). Expected hash and type
// come from the model's kite::rss_hash (fpga/model/rss/rss.cpp, which refuses
// malformed frames) and the queue from RxPipeline::receive's choice,
// table[hash_fields ? hash % table_size : 0] (fpga/model/rxp/rxp.cpp).
#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <vector>

#include "Vkite_rss.h"
#include "kite_ref.hpp"
#include "tb.hpp"
#include "../rxp/frames.hpp"
// The model's RSS input selection and hash (library source, compiled in).
#include "../../model/rss/rss.cpp"

namespace {

// kite_rtl_pkg l3_type_e / l4_type_e: the model's l3_type / l4_type values.
enum : uint8_t { L3_NONE = 0, L3_IPV4 = 1, L3_IPV6 = 2 };
enum : uint8_t { L4_NONE = 0, L4_TCP = 1, L4_UDP = 2, L4_OTHER = 3 };
static_assert(uint8_t(kite::l3_type::IPV6) == L3_IPV6 && uint8_t(kite::l4_type::OTHER) == L4_OTHER);
namespace rf = kite::spec::rss_field;
enum : uint8_t { F_IPV4 = rf::IPV4, F_IPV4_TCP = rf::IPV4_TCP, F_IPV6 = rf::IPV6, F_IPV6_TCP = rf::IPV6_TCP };

constexpr unsigned NCTX = 32;  // kite_rss default: 2 ports x MAX_RSS_CTX
static_assert(NCTX == 2 * kite::spec::limits::MAX_RSS_CTX);

struct Tuple {
    unsigned ctx = 0;
    uint8_t l3 = L3_NONE, l4 = L4_NONE;
    bool malformed = false;
    std::array<uint8_t, 16> src{}, dst{};  // wire order; IPv4 uses bytes 0..3
    uint16_t sport = 0, dport = 0;
    uint16_t tag = 0;
    // The frame it came from (empty: a bare tuple) with the model's parse.
    std::vector<uint8_t> frame;
    kite::parsed_frame parsed;
};

struct Expect {
    uint32_t hash;
    uint8_t type;
    uint16_t queue;
    uint16_t tag;
    unsigned ctx;
};

struct Rss {
    std::array<uint8_t, 40> key{};
    uint8_t fields = 0;
    uint16_t table_size = 256;  // a power of two (SET_RSS rejects others)
    std::array<uint16_t, 256> table{};

    // The model's decision. A bare tuple is laid out as a frame for
    // kite::rss_hash: an IPv4/IPv6 header at 14, the L4 ports at 54.
    Expect expect(const Tuple &t) const {
        kite::rss_result h;
        if (!t.frame.empty()) {
            h = kite::rss_hash(t.frame.data(), t.parsed, fields, key.data());
        } else {
            std::array<uint8_t, 64> f{};
            kite::parsed_frame p;
            p.l3 = kite::l3_type(t.l3);
            p.l4 = kite::l4_type(t.l4);
            p.malformed = t.malformed;
            p.l3_off = 14;
            p.l4_off = 54;
            bool v4 = t.l3 == L3_IPV4;
            std::copy_n(t.src.begin(), v4 ? 4 : 16, f.begin() + 14 + (v4 ? 12 : 8));
            std::copy_n(t.dst.begin(), v4 ? 4 : 16, f.begin() + 14 + (v4 ? 16 : 24));
            f[54] = uint8_t(t.sport >> 8);
            f[55] = uint8_t(t.sport);
            f[56] = uint8_t(t.dport >> 8);
            f[57] = uint8_t(t.dport);
            h = kite::rss_hash(f.data(), p, fields, key.data());
        }
        // RxPipeline::receive: rc.table[rc.hash_fields ? h.hash % rc.table_size : 0]
        uint16_t q = table[fields ? h.hash % table_size : 0];
        return {h.hash, h.hash_type, q, t.tag, t.ctx};
    }

    // The config port writes that load this context.
    std::vector<std::pair<uint32_t, uint32_t>> writes() const {
        std::vector<std::pair<uint32_t, uint32_t>> w;
        for (uint32_t a = 0; a < 10; a++) {
            uint32_t v = 0;
            for (int b = 0; b < 4; b++) v |= uint32_t(key[4 * a + b]) << (8 * b);
            w.emplace_back(a, v);
        }
        w.emplace_back(16, fields);
        w.emplace_back(17, table_size);
        for (uint32_t i = 0; i < 256; i++) w.emplace_back(256 + i, table[i]);
        return w;
    }
};

// The RTL's inputs for a frame, as kite_rxp reports them: the model's parse
// fields, the addresses and ports read where the parse puts them (zero
// beyond the frame: the RSS block must not use them when malformed).
Tuple frame_tuple(std::vector<uint8_t> f, uint16_t tag) {
    Tuple t;
    t.parsed = kite::parse_frame(f.data(), f.size());
    const kite::parsed_frame &p = t.parsed;
    t.l3 = uint8_t(p.l3);
    t.l4 = uint8_t(p.l4);
    t.malformed = p.malformed;
    auto at = [&](size_t o) { return o < f.size() ? f[o] : uint8_t(0); };
    bool v4 = p.l3 == kite::l3_type::IPV4;
    for (size_t i = 0; i < (v4 ? 4u : 16u); i++) {
        t.src[i] = at(p.l3_off + (v4 ? 12 : 8) + i);
        t.dst[i] = at(p.l3_off + (v4 ? 16 : 24) + i);
    }
    t.sport = uint16_t(at(p.l4_off) << 8 | at(p.l4_off + 1));
    t.dport = uint16_t(at(p.l4_off + 2) << 8 | at(p.l4_off + 3));
    t.tag = tag;
    t.frame = std::move(f);
    return t;
}

// Addresses go to the RTL as network-order numbers in the low bits.
void drive_addr(VlWide<4> &w, const Tuple &t, const std::array<uint8_t, 16> &a) {
    size_t n = t.l3 == L3_IPV6 ? 16 : 4;
    for (int i = 0; i < 4; i++) w[i] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t bit = 8 * (n - 1 - i);
        w[bit / 32] |= uint32_t(a[i]) << (bit % 32);
    }
}

struct Bench {
    Vkite_rss m;
    tb::Clock<Vkite_rss> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    std::array<Rss, NCTX> cfg;
    std::vector<unsigned> active;  // contexts tuples may use
    std::deque<Expect> sb;
    bool inject = false;
    long outputs = 0;
    // A context being rewritten under traffic: its writes go out once no
    // tuple of it is in flight, and it is used again after the last.
    int pend_ctx = -1;
    std::deque<std::pair<uint32_t, uint32_t>> pend;
    long live_writes = 0, rewrites = 0;
    // Coverage: outputs per table size and per context, malformed inputs
    // that an enabled field would otherwise hash, queues where the size made
    // a difference.
    std::map<unsigned, long> per_size;
    std::array<long, NCTX> per_ctx{};
    long malformed_hashable = 0, size_mattered = 0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        m.cfg_we_i = 0;
        m.s_valid_i = 0;
        m.m_ready_i = 1;
        clk.reset();
    }

    void cfg_write(unsigned ctx, uint32_t addr, uint32_t data) {
        m.cfg_we_i = 1;
        m.cfg_ctx_i = ctx;
        m.cfg_addr_i = addr;
        m.cfg_wdata_i = data;
        clk.tick();
        m.cfg_we_i = 0;
    }
    // Load with the pipeline empty.
    void load(unsigned ctx, const Rss &r) {
        drain();
        cfg[ctx] = r;
        for (auto [a, v] : r.writes()) cfg_write(ctx, a, v);
    }
    // Rewrite under traffic: the context leaves the active set until done.
    void rewrite(unsigned ctx, const Rss &r) {
        while (pend_ctx >= 0) step(nullptr, true);
        std::erase(active, ctx);
        cfg[ctx] = r;
        for (auto w : r.writes()) pend.push_back(w);
        pend_ctx = int(ctx);
        rewrites++;
    }
    unsigned pick() { return active[tb::rnd(rng, 0, uint32_t(active.size()) - 1)]; }

    // One cycle: offer @t if given; consume output with probability p_ready.
    bool step(const Tuple *t, bool ready) {
        m.m_ready_i = ready;
        m.s_valid_i = t != nullptr;
        if (t) {
            m.s_ctx_i = t->ctx;
            m.s_l3_i = t->l3;
            m.s_l4_i = t->l4;
            m.s_malformed_i = t->malformed;
            drive_addr(m.s_src_ip_i, *t, t->src);
            drive_addr(m.s_dst_ip_i, *t, t->dst);
            m.s_sport_i = t->sport;
            m.s_dport_i = t->dport;
            m.s_tag_i = t->tag;
        }
        m.cfg_we_i = 0;
        if (pend_ctx >= 0 &&
            std::none_of(sb.begin(), sb.end(), [&](const Expect &e) { return e.ctx == unsigned(pend_ctx); })) {
            m.cfg_we_i = 1;
            m.cfg_ctx_i = unsigned(pend_ctx);
            m.cfg_addr_i = pend.front().first;
            m.cfg_wdata_i = pend.front().second;
            pend.pop_front();
            live_writes += t != nullptr;
        }
        clk.eval();
        bool accepted = t && m.s_ready_o;
        if (m.m_valid_o && m.m_ready_i) check_output();
        if (accepted) {
            const Rss &c = cfg[t->ctx];
            chk.expect(int(t->ctx) != pend_ctx, "tuple on a context being written");
            Expect e = c.expect(*t);
            sb.push_back(e);
            per_size[c.table_size]++;
            per_ctx[t->ctx]++;
            if (t->malformed && t->l3 != L3_NONE && c.fields) {
                Tuple ok = *t;  // what the hash would have been
                ok.malformed = false;
                ok.parsed.malformed = false;
                ok.frame.clear();  // the bare tuple: a malformed frame may end early
                if (c.expect(ok).type != 0) malformed_hashable++;
            }
            if (c.fields && e.queue != c.table[e.hash & 0xff]) size_mattered++;
        }
        clk.tick();
        m.cfg_we_i = 0;
        if (pend_ctx >= 0 && pend.empty()) {
            active.push_back(unsigned(pend_ctx));
            pend_ctx = -1;
        }
        return accepted;
    }

    void check_output() {
        if (!chk.expect(!sb.empty(), "output without input")) return;
        Expect e = sb.front();
        sb.pop_front();
        if (inject && outputs == 3) e.hash ^= 1;  // deliberate mismatch (--inject)
        outputs++;
        chk.expect(m.m_hash_o == e.hash && m.m_hash_type_o == e.type && m.m_queue_o == e.queue &&
                       m.m_tag_o == e.tag,
                   "ctx %u tag %u: hash %08x/%08x type %u/%u queue %u/%u", e.ctx, e.tag, m.m_hash_o, e.hash,
                   m.m_hash_type_o, e.type, m.m_queue_o, e.queue);
    }

    void drain() {
        for (int i = 0; i < 600 && (!sb.empty() || pend_ctx >= 0); i++) step(nullptr, true);
        chk.expect(sb.empty() && pend_ctx < 0, "pipeline did not drain (%zu left)", sb.size());
    }
};

std::array<uint8_t, 16> v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) { return {a, b, c, d}; }

void run_published(Bench &b) {
    // Microsoft "Verifying the RSS Hash Calculation" (also the 82599
    // datasheet 7.1.2.8.3 suite): key, tuples and the expected hashes.
    static const uint8_t ms_key[40] = {0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
                                       0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
                                       0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
                                       0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa};
    struct V { std::array<uint8_t, 16> src, dst; uint16_t sport, dport; uint32_t h2, h4; bool v6; };
    const V vs[] = {
        {v4(66, 9, 149, 187), v4(161, 142, 100, 80), 2794, 1766, 0x323e8fc2, 0x51ccc178, false},
        {v4(199, 92, 111, 2), v4(65, 69, 140, 83), 14230, 4739, 0xd718262a, 0xc626b0ea, false},
        {v4(24, 19, 198, 95), v4(12, 22, 207, 184), 12898, 38024, 0xd2d0a5de, 0x5c2b394a, false},
        {v4(38, 27, 205, 30), v4(209, 142, 163, 6), 48228, 2217, 0x82989176, 0xafc7327f, false},
        {v4(153, 39, 163, 191), v4(202, 188, 127, 2), 44251, 1303, 0x5d1809c5, 0x10e828a2, false},
        {{0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x07},
         {0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01},
         2794, 1766, 0x2cc18cd5, 0x40207d3d, true},
        {{0x3f, 0xfe, 0x05, 0x01, 0x00, 0x08, 0, 0, 0x02, 0x60, 0x97, 0xff, 0xfe, 0x40, 0xef, 0xab},
         {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01},
         14230, 4739, 0x0f0c461c, 0xdde51bbf, true},
        {{0x3f, 0xfe, 0x19, 0x00, 0x45, 0x45, 0x00, 0x03, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf},
         {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf},
         44251, 38024, 0x4b61e985, 0x02d1feef, true},
    };
    Rss r;
    std::copy(ms_key, ms_key + 40, r.key.begin());
    r.fields = F_IPV4 | F_IPV4_TCP | F_IPV6 | F_IPV6_TCP;
    for (int i = 0; i < 256; i++) r.table[i] = uint16_t(i * 7 + 1);
    const unsigned ctx = NCTX - 3;
    b.load(ctx, r);
    uint16_t tag = 0;
    for (const V &v : vs) {
        for (int four = 0; four < 2; four++) {
            Tuple t;
            t.ctx = ctx;
            t.l3 = v.v6 ? L3_IPV6 : L3_IPV4;
            t.l4 = four ? L4_TCP : L4_NONE;
            t.src = v.src; t.dst = v.dst; t.sport = v.sport; t.dport = v.dport;
            t.tag = tag++;
            // The reference itself must reproduce the published number.
            uint32_t want = four ? v.h4 : v.h2;
            b.chk.expect(r.expect(t).hash == want, "reference disagrees with published vector %08x", want);
            while (!b.step(&t, true)) {}
        }
    }
    b.drain();
}

// A random configuration; table sizes 1..256 (powers of two).
Rss random_rss(tb::Rng &rng, long round) {
    Rss r;
    for (auto &k : r.key) k = uint8_t(rng());
    r.fields = round == 0 ? 0 : uint8_t(rng() & 0x3f);
    r.table_size = uint16_t(1u << (round == 1 ? 8 : tb::rnd(rng, 0, 8)));
    for (auto &e : r.table) e = uint16_t(rng());
    return r;
}

// Table sizes SET_RSS would reject are ignored: the size stays.
void bad_sizes(Bench &b, tb::Rng &rng) {
    static const uint32_t bad[] = {0, 3, 96, 255, 257, 384, 512, 0x10100};
    b.drain();
    for (uint32_t v : bad) b.cfg_write(tb::rnd(rng, 0, NCTX - 1), 17, v);
    for (int i = 0; i < 200; i++) {
        Tuple t;
        t.ctx = b.pick();
        t.l3 = L3_IPV4;
        t.l4 = L4_TCP;
        for (int k = 0; k < 4; k++) { t.src[k] = uint8_t(rng()); t.dst[k] = uint8_t(rng()); }
        t.sport = uint16_t(rng());
        t.dport = uint16_t(rng());
        t.tag = uint16_t(i);
        b.step(&t, true);
    }
    b.drain();
}

void run_random(Bench &b, tb::Rng &rng, long iters) {
    for (long round = 0; round < 16; round++) {
        // Round 0 loads every context; later rounds rewrite a few under traffic.
        if (round == 0) {
            for (unsigned c = 0; c < NCTX; c++) b.load(c, random_rss(rng, long(c % 3)));
            b.active.clear();
            for (unsigned c = 0; c < NCTX; c++) b.active.push_back(c);
        }
        if (round % 4 == 3) bad_sizes(b, rng);
        for (long i = 0; i < iters / 16; i++) {
            if (round > 0 && i % 500 == 0) b.rewrite(b.pick(), random_rss(rng, round));
            Tuple t;
            t.ctx = b.pick();
            t.l3 = uint8_t(tb::rnd(rng, 0, 2));
            t.l4 = uint8_t(tb::rnd(rng, 0, 3));
            t.malformed = tb::chance(rng, 0.1);
            for (auto &x : t.src) x = uint8_t(rng());
            for (auto &x : t.dst) x = uint8_t(rng());
            if (t.l3 != L3_IPV6) {  // IPv4: upper bytes ignored, keep them random-zero mixed
                std::fill(t.src.begin() + 4, t.src.end(), 0);
                std::fill(t.dst.begin() + 4, t.dst.end(), 0);
            }
            t.sport = uint16_t(rng());
            t.dport = uint16_t(rng());
            t.tag = uint16_t(i);
            bool offer = tb::chance(rng, 0.8);
            bool ready = tb::chance(rng, 0.7);
            if (offer) { while (!b.step(&t, ready)) ready = tb::chance(rng, 0.7); }
            else b.step(nullptr, ready);
        }
        b.drain();
    }
}

// Frames from the rxp generator (tags, IPv4 options, IPv6 extension chains,
// TCP/UDP/RoCE, fragments, breakage), parsed by the model as kite_rxp
// reports them; hashed by the model's rss_hash on the frame itself.
void run_frames(Bench &b, tb::Rng &rng, long n) {
    long malformed = 0;
    for (long round = 0; round < 8; round++) {
        for (int k = 0; k < 4; k++) {
            Rss r = random_rss(rng, round + 1);
            if (round >= 2) r.fields |= F_IPV4 | F_IPV6 | (round % 2 ? F_IPV4_TCP | F_IPV6_TCP : 0);
            r.fields &= uint8_t(rng() | F_IPV4 | F_IPV6);
            b.rewrite(b.pick(), r);
        }
        for (long i = 0; i < n / 8; i++) {
            Tuple t = frame_tuple(tb::make_frame(rng), uint16_t(i));
            t.ctx = b.pick();
            malformed += t.malformed;
            bool ready = tb::chance(rng, 0.8);
            while (!b.step(&t, ready)) ready = tb::chance(rng, 0.8);
        }
        b.drain();
    }
    std::printf("[rss] frames: %ld generated frames, %ld of them malformed\n", n, malformed);
    b.chk.expect(malformed > n / 20, "coverage: %ld malformed frames", malformed);
}

// Back-to-back tuples with the sink always ready: one accepted per cycle.
void run_throughput(Bench &b, tb::Rng &rng) {
    const long n = 4096;
    long accepted = 0;
    uint64_t c0 = b.clk.cycle;
    for (long i = 0; i < n; i++) {
        Tuple t;
        t.ctx = b.pick();
        t.l3 = L3_IPV4; t.l4 = L4_TCP;
        for (int k = 0; k < 4; k++) { t.src[k] = uint8_t(rng()); t.dst[k] = uint8_t(rng()); }
        t.sport = uint16_t(rng()); t.dport = uint16_t(rng()); t.tag = uint16_t(i);
        accepted += b.step(&t, true);
    }
    uint64_t cycles = b.clk.cycle - c0;
    b.drain();
    std::printf("[rss] throughput: %ld tuples accepted in %llu cycles (%.3f per cycle)\n", accepted,
                (unsigned long long)cycles, double(accepted) / double(cycles));
    b.chk.expect(accepted == n && cycles == uint64_t(n), "throughput below one tuple per cycle");
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    // --bench (tools/bench/bench.py): only the throughput and latency runs.
    const bool bench = std::find(argv + 1, argv + argc, std::string_view("--bench")) != argv + argc;
    tb::Rng rng(args.seed);
    tb::Checker chk("rss");
    std::printf("[rss] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk, rng);
    b.inject = args.inject;
    run_published(b);
    if (bench) {  // the throughput run only
        b.active = {NCTX - 3};
        run_throughput(b, rng);
        return chk.finish();
    }
    run_random(b, rng, args.iters(20000));
    run_frames(b, rng, args.iters(20000) / 4);
    run_throughput(b, rng);
    std::printf("[rss] %ld outputs compared; per table size:", b.outputs);
    for (auto &kv : b.per_size) std::printf(" %u:%ld", kv.first, kv.second);
    std::printf("\n[rss] %ld malformed inputs an enabled field would have hashed, %ld queues where table_size "
                "mattered\n", b.malformed_hashable, b.size_mattered);
    long least = *std::min_element(b.per_ctx.begin(), b.per_ctx.end());
    std::printf("[rss] %u contexts, at least %ld outputs each; %ld rewrites under traffic, %ld config writes in "
                "cycles that also offered a tuple\n", NCTX, least, b.rewrites, b.live_writes);
    chk.expect(b.per_size.size() >= 6 && b.malformed_hashable > 100 && b.size_mattered > 100,
               "coverage: table sizes, malformed inputs, mod table_size");
    chk.expect(least > 100 && b.rewrites >= 40 && b.live_writes > 1000, "coverage: contexts, rewrites under traffic");
    return chk.finish();
}
