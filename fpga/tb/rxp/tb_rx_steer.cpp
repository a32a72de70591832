// kite_rx_steer testbench. Expected verdicts come from the model's own
// steering code (fpga/model/rxp/steer.hpp: filter_accepts, flow_match, as
// RxPipeline::receive calls them) on the same tables the RTL was given
// through its config port (filter_ctx / flow_ctx of each port, converted as
// fpga/cosim/rtl_card.cpp does).
// Rounds: random tables (rx_mode, permanent MAC, unicast and multicast
// entries, VLAN bitmap, flow rules, many cut from frames of the round so
// that they match, with random match masks and actions), writes to unmapped
// addresses (cfg_bad_o, no effect), then random frames (tb_rxp's generator:
// tags, IPv4 options, IPv6 extension chains, TCP/UDP/RoCE, fragments,
// breakage) with destination MACs from the tables, broadcast or random, on
// random ports, with input gaps and output back-pressure. Every output is
// compared (drop and its reason; RQ / RSS context and the destination class
// for frames kept). Then directed cases and a throughput / latency run.
#include <algorithm>
#include <array>
#include <deque>
#include <vector>

#include "Vkite_rx_steer.h"
#include "kite_ref.hpp"
#include "tb.hpp"
#include "frames.hpp"
#include "../../model/rxp/steer.hpp"

namespace {

using Frame = std::vector<uint8_t>;
namespace ctx = kite::ctx;
namespace sp = kite::spec;
constexpr unsigned NPORT = 2, NRULE = sp::limits::MAX_FLOW_RULES;

struct Tables {
    ctx::filter_ctx filt[NPORT]{};
    std::array<ctx::flow_ctx, NRULE> rules[NPORT]{};
};

// The config port's words (kite_rx_steer.sv header), as rtl_card.cpp.
uint64_t mac64(const uint8_t *m) {
    uint64_t v = 0;
    for (int i = 0; i < 6; i++) v |= uint64_t(m[i]) << (8 * i);
    return v;
}
uint64_t ip_hi(const uint8_t *ip) {  // bytes 0..7, byte 0 on top
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | ip[i];
    return v;
}
void filter_words(const ctx::filter_ctx &f, std::vector<std::pair<unsigned, uint64_t>> &w) {
    w.push_back({0x000, f.rx_mode & 0xfu});
    w.push_back({0x001, mac64(f.perm_mac)});
    for (unsigned i = 0; i < ctx::NUM_UC; i++) w.push_back({0x040 + i, mac64(f.uc[i]) | uint64_t(i < f.num_uc) << 48});
    for (unsigned i = 0; i < ctx::NUM_MC; i++) w.push_back({0x080 + i, mac64(f.mc[i]) | uint64_t(i < f.num_mc) << 48});
    for (unsigned i = 0; i < 64; i++) {
        uint64_t v;
        std::memcpy(&v, f.vlan + 8 * i, 8);
        w.push_back({0x0c0 + i, v});
    }
}
void rule_words(unsigned r, const ctx::flow_ctx &f, std::vector<std::pair<unsigned, uint64_t>> &w) {
    using fr = sp::flow_rule_in;
    uint64_t w0 = uint64_t(f.valid != 0) | uint64_t((f.match & fr::MATCH_IPV6) != 0) << 1 |
                  uint64_t((f.match & fr::MATCH_SRC_IP) != 0) << 2 | uint64_t((f.match & fr::MATCH_DST_IP) != 0) << 3 |
                  uint64_t((f.match & fr::MATCH_SRC_PORT) != 0) << 4 |
                  uint64_t((f.match & fr::MATCH_DST_PORT) != 0) << 5 | uint64_t(std::min<uint8_t>(f.action, 3)) << 6 |
                  uint64_t(f.l4_proto) << 8 | uint64_t(f.sport) << 16 | uint64_t(f.dport) << 32 |
                  uint64_t(f.ctx & 0xf) << 48;
    unsigned a = 0x200 + 8 * r;
    w.push_back({a, w0});
    w.push_back({a + 1, std::min<uint32_t>(f.rq, 0xffff)});
    w.push_back({a + 2, ip_hi(f.src_ip)});
    w.push_back({a + 3, ip_hi(f.src_ip + 8)});
    w.push_back({a + 4, ip_hi(f.dst_ip)});
    w.push_back({a + 5, ip_hi(f.dst_ip + 8)});
}

struct In {
    Frame f;
    kite::parsed_frame p;
    unsigned port;
    uint8_t tag;
};

struct Exp {
    uint8_t tag;
    bool drop, drop_flow, to_rq, mcast, bcast;
    uint16_t rq;
    uint8_t ctx;
};

struct Bench {
    Vkite_rx_steer m;
    tb::Clock<Vkite_rx_steer> clk{m};
    tb::Checker &chk;
    Tables t;
    std::deque<Exp> exp;
    bool inject = false;
    long outputs = 0, n_drop = 0, n_flow_drop = 0, n_rq = 0, n_ctx = 0, n_mc = 0, n_bc = 0, n_vlan_drop = 0;
    long cfg_bad = 0;

    explicit Bench(tb::Checker &c) : chk(c) {
        m.cfg_we_i = 0;
        m.s_valid_i = 0;
        m.m_ready_i = 1;
        clk.reset();
    }

    void cfg(unsigned port, unsigned addr, uint64_t v) {
        m.cfg_we_i = 1;
        m.cfg_port_i = port;
        m.cfg_addr_i = addr;
        m.cfg_wdata_i = v;
        m.eval();
        cfg_bad += m.cfg_bad_o;
        clk.tick();
        m.cfg_we_i = 0;
    }
    void load(const Tables &nt) {
        t = nt;
        for (unsigned p = 0; p < NPORT; p++) {
            std::vector<std::pair<unsigned, uint64_t>> w;
            filter_words(t.filt[p], w);
            for (unsigned r = 0; r < NRULE; r++) rule_words(r, t.rules[p][r], w);
            for (auto &x : w) cfg(p, x.first, x.second);
        }
    }

    Exp expect(const In &in) const {
        const kite::parsed_frame &p = in.p;
        bool acc = kite::model::filter_accepts(t.filt[in.port], in.f.data(), p.outer_tci & 0xfff, p.num_vlans > 0);
        const ctx::flow_ctx *r = kite::model::flow_match(t.rules[in.port].data(), in.f.data(), p);
        Exp e{};
        e.tag = in.tag;
        bool fdrop = r && r->action == 2;
        e.drop = !acc || fdrop;
        e.drop_flow = acc && fdrop;
        e.to_rq = r && r->action == 0;
        e.rq = e.to_rq ? uint16_t(r->rq) : 0;
        e.ctx = r && r->action == 1 ? uint8_t(r->ctx) : 0;
        e.bcast = std::all_of(in.f.begin(), in.f.begin() + 6, [](uint8_t b) { return b == 0xff; });
        e.mcast = (in.f[0] & 1) && !e.bcast;
        return e;
    }

    void drive(const In &in) {
        const kite::parsed_frame &p = in.p;
        m.s_valid_i = 1;
        m.s_port_i = in.port;
        m.s_da_i = mac64(in.f.data());
        m.s_num_vlans_i = std::min<uint8_t>(p.num_vlans, 3);
        m.s_tci_i = p.outer_tci;
        m.s_l3_i = uint8_t(p.l3);
        m.s_l4_i = uint8_t(p.l4);
        m.s_l4_proto_i = p.l4_proto;
        m.s_ip_frag_i = p.ip_frag;
        m.s_malformed_i = p.malformed;
        // kite_rxp's address layout: byte 0 on top, IPv4 in [31:0].
        uint8_t src[16]{}, dst[16]{};
        if (p.l3 == kite::l3_type::IPV6 && in.f.size() >= p.l3_off + 40) {
            std::memcpy(src, &in.f[p.l3_off + 8], 16);
            std::memcpy(dst, &in.f[p.l3_off + 24], 16);
        } else if (p.l3 == kite::l3_type::IPV4 && in.f.size() >= p.l3_off + 20) {
            std::memcpy(src + 12, &in.f[p.l3_off + 12], 4);
            std::memcpy(dst + 12, &in.f[p.l3_off + 16], 4);
        }
        for (int w = 0; w < 4; w++) {
            uint32_t s = 0, d = 0;
            for (int b = 0; b < 4; b++) {
                s = s << 8 | src[15 - 4 * w - 3 + b];
                d = d << 8 | dst[15 - 4 * w - 3 + b];
            }
            m.s_src_ip_i[w] = s;
            m.s_dst_ip_i[w] = d;
        }
        m.s_sport_i = p.sport;
        m.s_dport_i = p.dport;
        m.s_tag_i = in.tag;
    }

    // Output side: compare, then the clock edge. Returns whether the offered input was taken.
    bool step(const In *in, bool ready) {
        if (in) drive(*in);
        else m.s_valid_i = 0;
        m.m_ready_i = ready;
        m.eval();
        bool took = in && m.s_ready_o;
        if (m.m_valid_o && m.m_ready_i) {
            if (chk.expect(!exp.empty(), "output without input")) {
                Exp e = exp.front();
                exp.pop_front();
                if (inject && outputs == 777) e.drop = !e.drop;
                bool ok = m.m_tag_o == e.tag && bool(m.m_drop_o) == e.drop;
                if (ok && e.drop) ok = bool(m.m_drop_flow_o) == e.drop_flow;
                if (ok && !e.drop)
                    ok = bool(m.m_to_rq_o) == e.to_rq && (!e.to_rq || m.m_rq_o == e.rq) && m.m_rss_ctx_o == e.ctx &&
                         bool(m.m_mcast_o) == e.mcast && bool(m.m_bcast_o) == e.bcast;
                chk.expect(ok, "output %ld tag %u: drop %d/%d to_rq %d rq %u ctx %u mc %d bc %d; model tag %u drop %d/%d "
                           "to_rq %d rq %u ctx %u mc %d bc %d", outputs, unsigned(m.m_tag_o), int(m.m_drop_o),
                           int(m.m_drop_flow_o), int(m.m_to_rq_o), unsigned(m.m_rq_o), unsigned(m.m_rss_ctx_o),
                           int(m.m_mcast_o), int(m.m_bcast_o), e.tag, int(e.drop), int(e.drop_flow), int(e.to_rq),
                           e.rq, e.ctx, int(e.mcast), int(e.bcast));
                outputs++;
                n_drop += e.drop && !e.drop_flow;
                n_flow_drop += e.drop_flow;
                n_rq += !e.drop && e.to_rq;
                n_ctx += !e.drop && e.ctx;
                n_mc += !e.drop && e.mcast;
                n_bc += !e.drop && e.bcast;
            }
        }
        if (took) exp.push_back(expect(*in));
        clk.tick();
        return took;
    }
    void drain() {
        for (int i = 0; i < 20 && !exp.empty(); i++) step(nullptr, true);
        chk.expect(exp.empty(), "%zu outputs missing", exp.size());
        exp.clear();
    }
};

void rand_mac(tb::Rng &r, uint8_t *m, bool mc) {
    for (int i = 0; i < 6; i++) m[i] = uint8_t(r());
    m[0] = uint8_t(mc ? m[0] | 1 : m[0] & ~1);
}

Frame pool_frame(tb::Rng &r) {
    Frame f = tb::make_frame(r);
    if (f.size() < 14) f.resize(14, 0);
    return f;
}

// A rule that matches f (when its parse allows), then maybe perturbed.
ctx::flow_ctx rule_from(tb::Rng &r, const Frame &f) {
    using fr = sp::flow_rule_in;
    ctx::flow_ctx c{};
    kite::parsed_frame p = kite::parse_frame(f.data(), f.size());
    c.valid = 1;
    c.l4_proto = p.l4_proto;
    bool v6 = p.l3 == kite::l3_type::IPV6;
    c.match = uint8_t((v6 ? fr::MATCH_IPV6 : 0) | (r() & 0xf));
    uint8_t src[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, dst[16];
    std::memcpy(dst, src, 12);
    if (v6 && f.size() >= p.l3_off + 40) {
        std::memcpy(src, &f[p.l3_off + 8], 16);
        std::memcpy(dst, &f[p.l3_off + 24], 16);
    } else if (f.size() >= p.l3_off + 20) {
        std::memcpy(src + 12, &f[p.l3_off + 12], 4);
        std::memcpy(dst + 12, &f[p.l3_off + 16], 4);
    }
    std::memcpy(c.src_ip, src, 16);
    std::memcpy(c.dst_ip, dst, 16);
    c.sport = p.sport;
    c.dport = p.dport;
    c.action = uint8_t(tb::rnd(r, 0, 2));
    c.ctx = uint16_t(tb::rnd(r, 0, 15));
    c.rq = tb::rnd(r, 0, 511);
    switch (tb::rnd(r, 0, 9)) {  // near misses
    case 0: c.src_ip[tb::rnd(r, 0, 15)] ^= uint8_t(1u << tb::rnd(r, 0, 7)); break;
    case 1: c.dst_ip[tb::rnd(r, 0, 15)] ^= uint8_t(1u << tb::rnd(r, 0, 7)); break;
    case 2: c.sport ^= uint16_t(1u << tb::rnd(r, 0, 15)); break;
    case 3: c.dport ^= uint16_t(1u << tb::rnd(r, 0, 15)); break;
    case 4: c.match ^= fr::MATCH_IPV6; break;
    case 5: c.l4_proto ^= uint8_t(1u << tb::rnd(r, 0, 7)); break;
    default: break;
    }
    return c;
}

Tables random_tables(tb::Rng &r, const std::vector<Frame> &pool, int round) {
    Tables t;
    for (unsigned p = 0; p < NPORT; p++) {
        ctx::filter_ctx &f = t.filt[p];
        f.rx_mode = uint8_t(r() & 0xe);
        if (tb::chance(r, 0.1)) f.rx_mode |= sp::rx_mode_in::FLAGS_PROMISC;
        rand_mac(r, f.perm_mac, false);
        f.num_uc = uint8_t(tb::rnd(r, 0, ctx::NUM_UC));
        f.num_mc = uint8_t(tb::rnd(r, 0, ctx::NUM_MC));
        // Stale entries beyond the counts must not match: fill them all.
        for (auto &u : f.uc) rand_mac(r, u, false);
        for (auto &u : f.mc) rand_mac(r, u, true);
        uint32_t dens = tb::rnd(r, 0, 3);
        for (auto &v : f.vlan) v = uint8_t(dens == 0 ? 0 : dens == 3 ? 0xff : (r() & r()));
        unsigned n = round % 4 == 0 ? NRULE : tb::rnd(r, 0, NRULE);
        for (unsigned i = 0; i < n; i++) {
            unsigned slot = tb::rnd(r, 0, NRULE - 1);
            ctx::flow_ctx c = tb::chance(r, 0.8) ? rule_from(r, pool[tb::rnd(r, 0, uint32_t(pool.size() - 1))])
                                                 : ctx::flow_ctx{};
            if (!tb::chance(r, 0.8)) {  // fully random
                c.valid = 1;
                c.l4_proto = tb::chance(r, 0.5) ? 6 : 17;
                c.match = uint8_t(r() & 0x1f);
                for (auto &b : c.src_ip) b = uint8_t(r());
                for (auto &b : c.dst_ip) b = uint8_t(r());
                c.sport = uint16_t(r());
                c.dport = uint16_t(r());
                c.action = uint8_t(tb::rnd(r, 0, 2));
                c.ctx = uint16_t(tb::rnd(r, 0, 15));
                c.rq = tb::rnd(r, 0, 511);
            }
            if (tb::chance(r, 0.05)) c.valid = 0;
            t.rules[p][slot] = c;
        }
    }
    return t;
}

// A frame of the pool with a destination from the port's tables, broadcast or random.
In make_in(tb::Rng &r, const Tables &t, const std::vector<Frame> &pool, uint8_t tag) {
    In in;
    in.port = tb::rnd(r, 0, NPORT - 1);
    in.f = pool[tb::rnd(r, 0, uint32_t(pool.size() - 1))];
    const ctx::filter_ctx &f = t.filt[in.port];
    uint8_t *da = in.f.data();
    switch (tb::rnd(r, 0, 6)) {
    case 0: std::memcpy(da, f.perm_mac, 6); break;
    case 1: std::memcpy(da, f.uc[tb::rnd(r, 0, ctx::NUM_UC - 1)], 6); break;
    case 2: std::memcpy(da, f.mc[tb::rnd(r, 0, ctx::NUM_MC - 1)], 6); break;
    case 3: std::memset(da, 0xff, 6); break;
    case 4: rand_mac(r, da, true); break;
    case 5: std::memcpy(da, t.filt[in.port ^ 1].perm_mac, 6); break;  // the other port's
    default: rand_mac(r, da, false); break;
    }
    in.p = kite::parse_frame(in.f.data(), in.f.size());
    in.tag = tag;
    return in;
}

void run_random(Bench &b, tb::Rng &rng, long iters) {
    uint8_t tag = 0;
    for (int round = 0; round < 24; round++) {
        std::vector<Frame> pool;
        for (int i = 0; i < 200; i++) pool.push_back(pool_frame(rng));
        Tables t = random_tables(rng, pool, round);
        b.load(t);
        // Unmapped addresses: refused, tables unchanged.
        long bad0 = b.cfg_bad;
        static const unsigned bad_addr[] = {0x002, 0x03f, 0x050, 0x100, 0x1ff, 0x206, 0x3ff};
        for (unsigned a : bad_addr) b.cfg(tb::rnd(rng, 0, NPORT - 1), a, ~0ull);
        b.chk.expect(b.cfg_bad - bad0 == long(std::size(bad_addr)), "cfg_bad_o on unmapped writes");
        double p_gap = round % 3 == 0 ? 0.0 : 0.3, p_ready = round % 3 == 0 ? 1.0 : 0.6;
        for (long i = 0; i < iters / 24; i++) {
            if (tb::chance(rng, p_gap)) { b.step(nullptr, tb::chance(rng, p_ready)); continue; }
            In in = make_in(rng, t, pool, tag);
            while (!b.step(&in, tb::chance(rng, p_ready))) {}
            tag++;
        }
        b.drain();
    }
}

// Directed: the model scenarios' cases one by one.
void run_directed(Bench &b, tb::Rng &rng) {
    using fr = sp::flow_rule_in;
    Tables t;
    const uint8_t mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
    const uint8_t mc[6] = {0x01, 0x00, 0x5e, 0, 0, 1};
    for (auto &f : t.filt) {
        std::memcpy(f.perm_mac, mac, 6);
        f.rx_mode = sp::rx_mode_in::FLAGS_BROADCAST;
    }
    b.load(t);
    // A UDP/IPv4 frame 10.0.0.1:1000 -> 10.0.0.2:2000.
    Frame f(60, 0);
    std::memcpy(f.data(), mac, 6);
    f[12] = 0x08;
    f[14] = 0x45;
    tb::put16(f, 16, 46);
    f[23] = 17;
    f[26] = 10; f[29] = 1;
    f[30] = 10; f[33] = 2;
    tb::put16(f, 34, 1000);
    tb::put16(f, 36, 2000);
    tb::put16(f, 38, 26);
    auto send = [&](const Frame &x, unsigned port) {
        In in{x, kite::parse_frame(x.data(), x.size()), port, 0xa5};
        Exp e = b.expect(in);
        while (!b.step(&in, true)) {}
        b.drain();
        return e;
    };
    Exp e = send(f, 0);
    b.chk.expect(!e.drop && !e.to_rq && e.ctx == 0, "directed: own MAC kept, RSS context 0");
    Frame g = f;
    std::memcpy(g.data(), mc, 6);
    b.chk.expect(send(g, 0).drop, "directed: multicast not in the list dropped");
    t.filt[0].num_mc = 1;
    std::memcpy(t.filt[0].mc[0], mc, 6);
    b.load(t);
    e = send(g, 0);
    b.chk.expect(!e.drop && e.mcast, "directed: multicast kept after adding it");
    b.chk.expect(send(g, 1).drop, "directed: the list is per port");
    // Rules: slot 5 drops by destination port, slot 3 steers the same flow to RQ 77: slot 3 wins.
    ctx::flow_ctx r{};
    r.valid = 1;
    r.l4_proto = 17;
    r.match = fr::MATCH_DST_PORT;
    r.dport = 2000;
    r.action = 2;
    t.rules[0][5] = r;
    b.load(t);
    e = send(f, 0);
    b.chk.expect(e.drop && e.drop_flow, "directed: drop rule");
    r.action = 0;
    r.rq = 77;
    t.rules[0][3] = r;
    b.load(t);
    e = send(f, 0);
    b.chk.expect(!e.drop && e.to_rq && e.rq == 77, "directed: lowest slot wins");
    t.rules[0][3].action = 1;
    t.rules[0][3].ctx = 9;
    b.load(t);
    e = send(f, 0);
    b.chk.expect(!e.drop && !e.to_rq && e.ctx == 9, "directed: RSS context rule");
    // VLAN filter: tagged VID 100 dropped until its bit is set.
    Frame v = f;
    uint8_t tag[4] = {0x81, 0x00, 0x00, 100};
    v.insert(v.begin() + 12, tag, tag + 4);
    t.filt[0].rx_mode |= sp::rx_mode_in::FLAGS_VLAN_FILTER;
    b.load(t);
    b.chk.expect(send(v, 0).drop, "directed: VLAN not in the bitmap dropped");
    t.filt[0].vlan[100 / 8] |= 1 << (100 % 8);
    b.load(t);
    b.chk.expect(!send(v, 0).drop, "directed: VLAN in the bitmap kept");
    (void)rng;
}

// Back-to-back frames, sink always ready: one per cycle; latency in cycles.
void run_throughput(Bench &b, tb::Rng &rng) {
    std::vector<Frame> pool;
    for (int i = 0; i < 64; i++) pool.push_back(pool_frame(rng));
    Tables t = random_tables(rng, pool, 0);
    b.load(t);
    const long n = 4096;
    long taken = 0;
    uint64_t c0 = b.clk.cycle;
    In first = make_in(rng, t, pool, 0);
    b.step(&first, true);
    uint64_t lat = 0;
    for (int i = 0; i < 10 && !lat; i++) {
        b.m.s_valid_i = 0;
        b.m.eval();
        if (b.m.m_valid_o) lat = b.clk.cycle - c0;
        b.step(nullptr, true);
    }
    c0 = b.clk.cycle;
    for (long i = 0; i < n; i++) {
        In in = make_in(rng, t, pool, uint8_t(i));
        taken += b.step(&in, true);
    }
    uint64_t cycles = b.clk.cycle - c0;
    b.drain();
    std::printf("[rx_steer] throughput: %ld frames accepted in %llu cycles (%.3f per cycle), latency %llu cycles\n",
                taken, (unsigned long long)cycles, double(taken) / double(cycles), (unsigned long long)lat);
    b.chk.expect(taken == n && cycles == uint64_t(n), "throughput below one frame per cycle");
    b.chk.expect(lat == 2, "latency %llu cycles, 2 expected", (unsigned long long)lat);
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("rx_steer");
    std::printf("[rx_steer] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk);
    b.inject = args.inject;
    run_directed(b, rng);
    run_random(b, rng, args.iters(48000));
    run_throughput(b, rng);
    std::printf("[rx_steer] %ld outputs compared: %ld filtered, %ld flow drops, %ld to an RQ, %ld to an RSS context "
                "other than 0, %ld multicast and %ld broadcast kept\n",
                b.outputs, b.n_drop, b.n_flow_drop, b.n_rq, b.n_ctx, b.n_mc, b.n_bc);
    // Each seed draws its own rule tables: seeds 1..40 give at least 247
    // frames of each rule verdict, 2,261 of each address class.
    chk.expect(b.n_drop > 1000 && b.n_flow_drop > 100 && b.n_rq > 100 && b.n_ctx > 100 && b.n_mc > 500 &&
                   b.n_bc > 500,
               "coverage: every verdict");
    return chk.finish();
}
