// kite_rxp testbench: generated frames (Ethernet with 0..3 802.1Q/802.1ad
// tags, IPv4 with options, IPv6 with extension-header chains, TCP with
// options, UDP with lying lengths, RoCEv2, fragments, other ethertypes,
// padding, truncation, corrupted fields and checksums, random junk) with
// random gaps and back-pressure. Every record is compared field by field with
// the model: kite::parse_frame, kite::l4_csum_check and the csum_syndrome sum
// (through kite_ref::parse). Frames whose parse reads beyond the RTL's
// 128-byte parse depth must come out with `deep` set and matching L2/L3
// fields. Then throughput (back-to-back 60, 61, 1514-byte frames) and latency.
#include <algorithm>
#include <deque>
#include <vector>

#include "Vkite_rxp.h"
#include "kite_ref.hpp"
#include "frames.hpp"
#include "tb.hpp"

namespace {

using Frame = std::vector<uint8_t>;
constexpr size_t DEPTH = 128;  // kite_rxp parse depth (two beats)

using tb::fix_l4_csum;
using tb::make_frame;
using tb::put16;

struct Bench {
    Vkite_rxp m;
    tb::Clock<Vkite_rxp> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    std::deque<kite_ref::Rx> sb;
    std::deque<uint64_t> last_cycle;
    bool inject = false;
    long outputs = 0;
    double p_gap = 0.0, p_ready = 1.0;
    uint64_t lat_min = ~0ull, lat_max = 0;
    long stat_l4ok = 0, stat_l4bad = 0, stat_roce = 0, stat_malformed = 0, stat_v6ext = 0, stat_l3bad = 0,
         stat_deep = 0, stat_qinq = 0, stat_frag = 0, stat_other = 0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        m.s_valid_i = 0;
        m.m_ready_i = 1;
        clk.reset();
    }

    static std::array<uint8_t, 16> ip_bytes(const VlWide<4> &w, uint8_t l3) {
        std::array<uint8_t, 16> a{};
        size_t n = l3 == 2 ? 16 : (l3 == 1 ? 4 : 0);
        for (size_t i = 0; i < n; i++) {
            size_t bit = 8 * (n - 1 - i);
            a[i] = uint8_t(w[bit / 32] >> (bit % 32));
        }
        return a;
    }

    void sample_output() {
        if (!(m.m_valid_o && m.m_ready_i)) return;
        if (!chk.expect(!sb.empty(), "record without frame")) return;
        kite_ref::Rx e = sb.front();
        sb.pop_front();
        uint64_t lat = clk.cycle - last_cycle.front();
        last_cycle.pop_front();
        lat_min = std::min(lat_min, lat);
        lat_max = std::max(lat_max, lat);
        const kite::parsed_frame &p = e.p;
        if (inject && outputs == 7) e.l4_check = e.l4_check == 1 ? 0 : 1;  // deliberate mismatch (--inject)
        outputs++;
        stat_l4ok += e.l4_check == 1 && !e.deep; stat_l4bad += e.l4_check == 0 && !e.deep;
        stat_roce += p.roce && !e.deep; stat_malformed += p.malformed && !e.deep; stat_deep += e.deep;
        stat_v6ext += p.l3 == kite::l3_type::IPV6 && p.l3_hdr_len > 40 && !e.deep;
        stat_l3bad += p.l3 == kite::l3_type::IPV4 && !p.ipv4_hdr_ok; stat_qinq += p.num_vlans == 2;
        stat_frag += p.ip_frag && !e.deep; stat_other += p.l4 == kite::l4_type::OTHER && !e.deep;
        uint8_t l3 = uint8_t(p.l3), l4 = uint8_t(p.l4);
        auto src = ip_bytes(m.m_src_ip_o, m.m_l3_o), dst = ip_bytes(m.m_dst_ip_o, m.m_l3_o);
        bool l2 = m.m_len_o == p.len && m.m_num_vlans_o == p.num_vlans && m.m_tci_o == p.outer_tci &&
                  m.m_ethertype_o == p.ethertype && m.m_l3_off_o == p.l3_off && m.m_l3_o == l3 &&
                  m.m_l3_end_o == p.l3_end && src == e.src && dst == e.dst &&
                  m.m_csum_complete_o == e.csum_complete && bool(m.m_deep_o) == e.deep;
        bool rest = true;
        if (!e.deep)
            rest = m.m_l3_hdr_len_o == p.l3_hdr_len && bool(m.m_ip_frag_o) == p.ip_frag &&
                   bool(m.m_ipv4_hdr_ok_o) == p.ipv4_hdr_ok && m.m_l4_proto_o == p.l4_proto && m.m_l4_o == l4 &&
                   m.m_l4_off_o == p.l4_off && m.m_sport_o == p.sport && m.m_dport_o == p.dport &&
                   bool(m.m_roce_o) == p.roce && m.m_bth_opcode_o == p.bth_opcode &&
                   m.m_bth_dqpn_o == p.bth_dqpn && m.m_bth_psn_o == p.bth_psn &&
                   bool(m.m_malformed_o) == p.malformed && bool(m.m_l4_ok_o) == (e.l4_check == 1) &&
                   bool(m.m_l4_bad_o) == (e.l4_check == 0);
        chk.expect(l2 && rest,
                   "frame %ld len %u/%zu vl %u/%u et %04x/%04x l3off %u/%zu l3 %u/%u l3hl %u/%zu l3end %u/%zu "
                   "frag %d/%d hok %d/%d proto %u/%u l4 %u/%u l4off %u/%zu ports %u,%u/%u,%u roce %d/%d "
                   "mal %d/%d deep %d/%d l4ok %d l4bad %d check %d csum %04x/%04x",
                   outputs, m.m_len_o, p.len, m.m_num_vlans_o, p.num_vlans, m.m_ethertype_o, p.ethertype,
                   m.m_l3_off_o, p.l3_off, m.m_l3_o, l3, m.m_l3_hdr_len_o, p.l3_hdr_len, m.m_l3_end_o, p.l3_end,
                   m.m_ip_frag_o, p.ip_frag, m.m_ipv4_hdr_ok_o, p.ipv4_hdr_ok, m.m_l4_proto_o, p.l4_proto,
                   m.m_l4_o, l4, m.m_l4_off_o, p.l4_off, m.m_sport_o, m.m_dport_o, p.sport, p.dport, m.m_roce_o,
                   p.roce, m.m_malformed_o, p.malformed, m.m_deep_o, e.deep, m.m_l4_ok_o, m.m_l4_bad_o,
                   e.l4_check, m.m_csum_complete_o, e.csum_complete);
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
        sb.push_back(kite_ref::parse(f.data(), f.size(), DEPTH));
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
        last_cycle.push_back(clk.cycle);  // cycle count after the last beat was taken
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

    // The deep-parse oracle itself: an IPv6 frame whose L4 header starts at
    // byte 126 needs the UDP length at 130..131, beyond the window.
    {
        Frame f(14 + 40 + 72 + 8 + 20, 0);
        put16(f, 12, 0x86dd);
        f[14] = 0x60;
        put16(f, 18, uint32_t(f.size() - 54));
        f[20] = 60;                        // destination options, 72 bytes
        f[54] = 17;
        f[55] = 8;
        chk.expect(kite_ref::parse(f.data(), f.size(), DEPTH).deep, "deep oracle misses a UDP header at 126");
        f[55] = 7;                         // 64 bytes: UDP header at 118, length at 122
        chk.expect(!kite_ref::parse(f.data(), f.size(), DEPTH).deep, "deep oracle flags a shallow frame");
    }

    long iters = args.iters(8000);
    for (long i = 0; i < iters; i++) {
        b.p_gap = (i % 3 == 0) ? 0.0 : 0.15;
        b.p_ready = (i % 4 == 0) ? 1.0 : 0.7;
        b.send(make_frame(rng));
    }
    b.drain();
    std::printf("[rxp] coverage: l4_ok %ld, l4_bad %ld, ipv4 hdr bad %ld, ipv6 ext %ld, qinq %ld, frag %ld, "
                "l4 other %ld, roce %ld, malformed %ld, deep %ld\n",
                b.stat_l4ok, b.stat_l4bad, b.stat_l3bad, b.stat_v6ext, b.stat_qinq, b.stat_frag, b.stat_other,
                b.stat_roce, b.stat_malformed, b.stat_deep);
    chk.expect(b.stat_l4ok > 100 && b.stat_l4bad > 20 && b.stat_roce > 20 && b.stat_malformed > 100 &&
                   b.stat_l3bad > 5 && b.stat_v6ext > 100 && b.stat_qinq > 100 && b.stat_frag > 20 &&
                   b.stat_other > 50 && b.stat_deep > 5,
               "stimulus did not cover every verdict");
    std::printf("[rxp] latency last beat -> record: %llu..%llu cycles (with back-pressure)\n",
                (unsigned long long)b.lat_min, (unsigned long long)b.lat_max);

    // Throughput: 64-byte frames (60 bytes on this interface, FCS stripped;
    // one beat) back to back: one record per cycle.
    b.p_gap = 0.0;
    b.p_ready = 1.0;
    b.lat_min = ~0ull;
    b.lat_max = 0;
    for (size_t len : {60u, 61u, 1514u}) {
        const long frames = 2000;
        long beats = 0;
        std::vector<Frame> fs;
        for (long i = 0; i < frames; i++) {
            Frame f;
            do { f = make_frame(rng); } while (f.size() > len);
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
    std::printf("[rxp] latency last beat -> record without back-pressure: %llu cycles\n",
                (unsigned long long)b.lat_min);
    chk.expect(b.lat_min == b.lat_max, "latency not constant without back-pressure");
    std::printf("[rxp] %ld records compared\n", b.outputs);
    return chk.finish();
}
