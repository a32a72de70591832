// kite_rxp testbench: generated frames (Ethernet, 802.1Q, IPv4 with options,
// IPv6, TCP, UDP, RoCEv2, fragments, other ethertypes, padding, malformed
// headers, corrupted checksums, random junk) with random gaps and
// back-pressure; every record is compared field by field with
// kite_ref::parse. Then throughput: back-to-back 64-byte frames.
#include <deque>
#include <vector>

#include "Vkite_rxp.h"
#include "kite_ref.hpp"
#include "tb.hpp"

namespace {

using Frame = std::vector<uint8_t>;

void put16(Frame &f, size_t o, uint32_t v) { f[o] = uint8_t(v >> 8); f[o + 1] = uint8_t(v); }

// Builds a well-formed frame with valid checksums, then maybe breaks it.
Frame make_frame(tb::Rng &r, long i) {
    using tb::chance;
    using tb::rnd;
    int kind = int(rnd(r, 0, 9));
    if (kind == 0) {  // junk of any length (incl. shorter than a header)
        Frame f = tb::rbytes(r, rnd(r, 1, 200));
        if (chance(r, 0.5) && f.size() > 14) put16(f, 12, chance(r, 0.5) ? 0x0800 : 0x86dd);
        return f;
    }
    bool vlan = chance(r, 0.3);
    bool v6 = chance(r, 0.4);
    int l4 = int(rnd(r, 0, 3));  // 0 other proto, 1 TCP, 2 UDP, 3 RoCEv2
    size_t ihl = v6 ? 0 : (chance(r, 0.3) ? rnd(r, 5, 15) : 5);
    size_t l3len = v6 ? 40 : 4 * ihl;
    size_t l4hdr = l4 == 1 ? 20 : (l4 == 0 ? 0 : 8);
    size_t payload = chance(r, 0.5) ? rnd(r, 0, 40) : rnd(r, 0, chance(r, 0.9) ? 1500 : 8900);
    if (l4 == 3) payload = std::max<size_t>(payload, 12 + 4);  // BTH + ICRC
    Frame f = tb::rbytes(r, 14 + (vlan ? 4 : 0));
    if (vlan) { put16(f, 12, 0x8100); }
    size_t l3 = f.size();
    put16(f, l3 - 2, v6 ? 0x86dd : 0x0800);
    Frame body = tb::rbytes(r, l3len + l4hdr + payload);
    size_t iplen = body.size();
    uint8_t proto = l4 == 1 ? 6 : (l4 >= 2 ? 17 : uint8_t(rnd(r, 0, 255)));
    if (proto == 6 || proto == 17) { if (l4 == 0) proto = 50; }
    if (v6) {
        body[0] = uint8_t(0x60 | (body[0] & 0x0f));
        put16(body, 4, uint32_t(iplen - 40));
        body[6] = proto;
    } else {
        body[0] = uint8_t(0x40 | ihl);
        put16(body, 2, uint32_t(iplen));
        put16(body, 6, chance(r, 0.1) ? rnd(r, 1, 0xffff) : (body[6] & 0x40) << 8);  // fragments sometimes
        body[9] = proto;
        put16(body, 10, 0);
        put16(body, 10, uint16_t(~kite_ref::csum(body.data(), l3len)));
    }
    size_t l4off = l3len, l4len = iplen - l3len;
    if (l4 >= 1) {
        if (l4 == 3) put16(body, l4off + 2, 4791);
        size_t cs = l4off + (l4 == 1 ? 16 : 6);
        if (l4 >= 2) put16(body, l4off + 4, uint32_t(l4len));
        put16(body, cs, 0);
        uint32_t ps = proto + uint32_t(l4len);
        size_t ao = v6 ? 8 : 12, alen = v6 ? 16 : 4;
        for (size_t k = 0; k < 2 * alen; k += 2) ps += uint32_t(body[ao + k]) << 8 | body[ao + k + 1];
        uint16_t c = uint16_t(~kite_ref::csum(body.data() + l4off, l4len, kite_ref::csum(nullptr, 0, uint16_t((ps & 0xffff) + (ps >> 16)))));
        if (l4 >= 2 && c == 0) c = 0xffff;  // UDP: 0 means "no checksum"
        put16(body, cs, c);
        if (!v6 && l4 == 2 && chance(r, 0.1)) put16(body, cs, 0);
    }
    f.insert(f.end(), body.begin(), body.end());
    if (f.size() < 60 && chance(r, 0.7)) f.resize(60, 0);  // Ethernet padding
    // Breakage.
    int bad = int(rnd(r, 0, 12));
    if (bad == 0) f[rnd(r, uint32_t(l3), uint32_t(f.size() - 1))] ^= uint8_t(1u << rnd(r, 0, 7));
    if (bad == 1) f[l3] ^= 0x10;                                     // version
    if (bad == 2 && !v6) f[l3] = uint8_t(0x40 | rnd(r, 0, 4));       // IHL < 5
    if (bad == 3) f.resize(rnd(r, 1, uint32_t(f.size())));           // truncated
    if (bad == 4) put16(f, l3 + (v6 ? 4 : 2), rnd(r, 0, 0xffff));   // IP length lies
    (void)i;
    return f;
}

struct Bench {
    Vkite_rxp m;
    tb::Clock<Vkite_rxp> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    std::deque<kite_ref::Parsed> sb;
    bool inject = false;
    long outputs = 0;
    double p_gap = 0.0, p_ready = 1.0;
    long stat_l4ok = 0, stat_l4bad = 0, stat_roce = 0, stat_malformed = 0, stat_v6 = 0, stat_l3bad = 0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        m.s_valid_i = 0;
        m.m_ready_i = 1;
        clk.reset();
    }

    static std::array<uint8_t, 16> ip_bytes(const VlWide<4> &w, uint8_t l3) {
        std::array<uint8_t, 16> a{};
        size_t n = l3 == 2 ? 16 : 4;
        for (size_t i = 0; i < n; i++) {
            size_t bit = 8 * (n - 1 - i);
            a[i] = uint8_t(w[bit / 32] >> (bit % 32));
        }
        return a;
    }

    void sample_output() {
        if (!(m.m_valid_o && m.m_ready_i)) return;
        if (!chk.expect(!sb.empty(), "record without frame")) return;
        kite_ref::Parsed e = sb.front();
        sb.pop_front();
        if (inject && outputs == 7) e.l4_ok = !e.l4_ok;  // deliberate mismatch (--inject)
        outputs++;
        stat_l4ok += e.l4_ok; stat_l4bad += e.l4_bad; stat_roce += e.roce;
        stat_malformed += e.malformed; stat_v6 += e.l3 == 2; stat_l3bad += e.l3 == 1 && !e.l3_ok;
        auto src = ip_bytes(m.m_src_ip_o, m.m_l3_o), dst = ip_bytes(m.m_dst_ip_o, m.m_l3_o);
        bool ok = m.m_len_o == e.len && bool(m.m_vlan_o) == e.vlan && m.m_tci_o == e.tci &&
                  m.m_ethertype_o == e.ethertype && m.m_l3_o == e.l3 && m.m_l4_o == e.l4 &&
                  src == e.src && dst == e.dst && m.m_sport_o == e.sport && m.m_dport_o == e.dport &&
                  bool(m.m_frag_o) == e.frag && bool(m.m_malformed_o) == e.malformed &&
                  bool(m.m_l3_ok_o) == e.l3_ok && bool(m.m_l4_ok_o) == e.l4_ok &&
                  bool(m.m_l4_bad_o) == e.l4_bad && m.m_csum_complete_o == e.csum_complete &&
                  bool(m.m_roce_o) == e.roce && m.m_bth_opcode_o == e.bth_opcode &&
                  m.m_bth_dqpn_o == e.bth_dqpn && m.m_bth_psn_o == e.bth_psn;
        chk.expect(ok,
                   "frame %ld len %u/%u et %04x/%04x l3 %u/%u l4 %u/%u ports %u,%u/%u,%u frag %d/%d mal %d/%d "
                   "l3ok %d/%d l4ok %d/%d l4bad %d/%d csum %04x/%04x roce %d/%d",
                   outputs, m.m_len_o, e.len, m.m_ethertype_o, e.ethertype, m.m_l3_o, e.l3, m.m_l4_o, e.l4,
                   m.m_sport_o, m.m_dport_o, e.sport, e.dport, m.m_frag_o, e.frag, m.m_malformed_o,
                   e.malformed, m.m_l3_ok_o, e.l3_ok, m.m_l4_ok_o, e.l4_ok, m.m_l4_bad_o, e.l4_bad,
                   m.m_csum_complete_o, e.csum_complete, m.m_roce_o, e.roce);
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

    void send(const Frame &f) {
        sb.push_back(kite_ref::parse(f.data(), f.size()));
        for (size_t off = 0; off < f.size(); off += 64) {
            size_t n = std::min<size_t>(64, f.size() - off);
            // Lanes past the end carry junk: the RTL must ignore them.
            auto beat = tb::rbytes(rng, 64);
            std::copy(f.begin() + long(off), f.begin() + long(off + n), beat.begin());
            tb::put_bytes(m.s_data_i, beat.data(), 64);
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

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("rxp");
    std::printf("[rxp] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk, rng);
    b.inject = args.inject;

    long iters = args.iters(6000);
    for (long i = 0; i < iters; i++) {
        b.p_gap = (i % 3 == 0) ? 0.0 : 0.15;
        b.p_ready = (i % 4 == 0) ? 1.0 : 0.7;
        b.send(make_frame(rng, i));
    }
    b.drain();
    std::printf("[rxp] coverage: l4_ok %ld, l4_bad %ld, ipv4 hdr bad %ld, ipv6 %ld, roce %ld, malformed %ld\n",
                b.stat_l4ok, b.stat_l4bad, b.stat_l3bad, b.stat_v6, b.stat_roce, b.stat_malformed);
    chk.expect(b.stat_l4ok > 100 && b.stat_l4bad > 20 && b.stat_roce > 20 && b.stat_malformed > 20 &&
                   b.stat_l3bad > 5 && b.stat_v6 > 100,
               "stimulus did not cover every verdict");

    // Throughput: 64-byte frames (60 bytes + FCS stripped = 60 on this
    // interface, one beat) back to back: one record per cycle.
    b.p_gap = 0.0;
    b.p_ready = 1.0;
    for (size_t len : {60u, 61u, 1514u}) {
        const long frames = 2000;
        long beats = 0;
        std::vector<Frame> fs;
        for (long i = 0; i < frames; i++) {
            Frame f;
            do { f = make_frame(rng, i); } while (f.size() > len);
            f.resize(len, 0);
            beats += long((f.size() + 63) / 64);
            fs.push_back(f);
        }
        uint64_t c0 = b.clk.cycle;
        for (auto &f : fs) b.send(f);
        uint64_t cycles = b.clk.cycle - c0;
        std::printf("[rxp] throughput %zu B frames: %ld frames, %ld beats in %llu cycles (%.3f beats/cycle)\n", len,
                    frames, beats, (unsigned long long)cycles, double(beats) / double(cycles));
        chk.expect(uint64_t(beats) == cycles, "below one beat per cycle at %zu B", len);
        b.drain();
    }
    std::printf("[rxp] %ld records compared\n", b.outputs);
    return chk.finish();
}
