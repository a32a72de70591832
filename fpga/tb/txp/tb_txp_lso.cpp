// kite_txp_lso testbench (kite_txp_tso -> kite_txp): random TSO/USO
// super-frames (0..3 tags, IPv4 with options, IPv6 with extension headers,
// TCP with options, UDP, random flags, sequence numbers and IP IDs, hdr_len
// with extra bytes, any MSS from 1 to the largest segment, up to 64 KiB),
// bad descriptors and headers, and plain frames with checksum requests, all
// with or without VLAN insertion, random input gaps and output back-pressure.
// Every output frame is compared byte for byte with the model: a super-frame
// is checked with kite::tx_lso_desc_ok and cut by kite::tx_lso, a plain frame
// gets kite::tx_l3_csum / tx_l4_csum, then kite::tx_vlan_insert; dropped
// frames must move drop_cnt_o and leave the block running. Some frames'
// stated length (s_len_i) differs from their data: the data past it must
// never leave (a plain frame is dropped, a super-frame is cut as tx_lso over
// the stated length), the next frame must follow intact. Directed edge
// cases, then throughput: 64 KiB super-frames cut into 60..9000-byte
// frames, cycles per segment against 100 GbE line rate.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <vector>

#include "Vkite_txp_lso.h"
#include "kite_ref.hpp"
#include "frame_sink.hpp"
#include "tb.hpp"

namespace {

using Frame = std::vector<uint8_t>;
using tb::chance;
using tb::rnd;
void put16(Frame &f, size_t o, uint32_t v) { f[o] = uint8_t(v >> 8); f[o + 1] = uint8_t(v); }

struct Req {
    Frame f;
    uint8_t flags = 0;  // wqe_eth flags
    uint16_t mss = 0, start = 0, off = 0, hdr_len = 0, tci = 0;
    uint32_t len = 0, first_len = 0;  // as the gather would report them
};
enum : uint8_t { F_L3 = 1, F_L4 = 2, F_LSO = 4, F_VLAN = 8, F_USO = 0x20 };

// Now and then a stated length that is not the data's: shorter (the data
// runs past it, anywhere from the first beat on) or longer.
void misstate(tb::Rng &r, Req &q) {
    double m = std::uniform_real_distribution<double>(0, 1)(r);
    if (m < 0.04 && !q.f.empty()) q.len = rnd(r, 0, uint32_t(q.f.size() - 1));
    else if (m < 0.06) q.len = uint32_t(q.f.size()) + rnd(r, 1, 3000);
}

struct Shape {
    int tags = 0;         // 0..3
    int l3 = 4;           // 4, 6 or 0 (not IP)
    bool tcp = true;
    int ihl = 5, doff = 5, ext = 0;
    size_t payload = 0;
};

// Headers of a super-frame; returns the header length.
size_t build(tb::Rng &r, const Shape &s, Frame &f, bool bad_proto = false) {
    f = tb::rbytes(r, 12);
    for (int t = 0; t < s.tags; t++) {
        f.push_back(0); f.push_back(0);
        put16(f, f.size() - 2, chance(r, 0.5) ? 0x8100 : 0x88a8);
        f.push_back(uint8_t(r())); f.push_back(uint8_t(r()));
    }
    f.push_back(0); f.push_back(0);
    put16(f, f.size() - 2, s.l3 == 4 ? 0x0800 : (s.l3 == 6 ? 0x86dd : 0x0806));
    uint8_t proto = s.tcp ? 6 : 17;
    if (bad_proto) proto = uint8_t(rnd(r, 0, 255));
    if (s.l3 == 4) {
        Frame ip = tb::rbytes(r, size_t(4 * s.ihl));
        ip[0] = uint8_t(0x40 | s.ihl);
        ip[9] = proto;
        f.insert(f.end(), ip.begin(), ip.end());
    } else if (s.l3 == 6) {
        Frame ip = tb::rbytes(r, 40);
        ip[0] = uint8_t(0x60 | (ip[0] & 15));
        static const uint8_t kinds[3] = {0, 43, 60};
        ip[6] = s.ext ? kinds[rnd(r, 0, 2)] : proto;
        f.insert(f.end(), ip.begin(), ip.end());
        for (int e = 0; e < s.ext; e++) {
            size_t n = rnd(r, 0, 2);
            Frame x = tb::rbytes(r, (n + 1) * 8);
            x[0] = e + 1 < s.ext ? kinds[rnd(r, 0, 2)] : proto;
            x[1] = uint8_t(n);
            f.insert(f.end(), x.begin(), x.end());
        }
    } else {
        Frame x = tb::rbytes(r, 28);
        f.insert(f.end(), x.begin(), x.end());
    }
    Frame l4 = tb::rbytes(r, s.tcp ? size_t(4 * std::max(s.doff, 5)) : 8);
    if (s.tcp) l4[12] = uint8_t(s.doff << 4 | (l4[12] & 15));
    f.insert(f.end(), l4.begin(), l4.end());
    size_t h = f.size();
    Frame p = tb::rbytes(r, s.payload);
    f.insert(f.end(), p.begin(), p.end());
    return h;
}

Req make_lso(tb::Rng &r) {
    Shape s;
    double u = std::uniform_real_distribution<double>(0, 1)(r);
    s.tags = u < 0.7 ? 0 : (u < 0.9 ? 1 : (u < 0.98 ? 2 : 3));
    s.l3 = chance(r, 0.03) ? 0 : (chance(r, 0.5) ? 4 : 6);
    s.tcp = chance(r, 0.6);
    s.ihl = chance(r, 0.2) ? int(rnd(r, 6, 15)) : 5;
    s.doff = chance(r, 0.3) ? int(rnd(r, 6, 15)) : 5;
    if (chance(r, 0.02)) s.doff = int(rnd(r, 0, 4));
    s.ext = chance(r, 0.25) ? int(rnd(r, 1, 3)) : 0;
    if (chance(r, 0.02)) s.ext = 5;  // more than the model walks
    Req q;
    uint32_t mss;
    double m = std::uniform_real_distribution<double>(0, 1)(r);
    if (m < 0.15) mss = rnd(r, 1, 64);
    else if (m < 0.55) mss = rnd(r, 65, 1500);
    else if (m < 0.75) mss = 1448;
    else if (m < 0.9) mss = rnd(r, 1501, 8000);
    else mss = rnd(r, 8001, 8964);
    // Keep the segment count moderate; a few go to the full 64 KiB.
    size_t maxpay = std::min<size_t>(65000, size_t(mss) * (chance(r, 0.05) ? 2000 : 40));
    double pl = std::uniform_real_distribution<double>(0, 1)(r);
    s.payload = pl < 0.03 ? 0 : (pl < 0.3 ? rnd(r, 1, uint32_t(std::min<size_t>(maxpay, 3 * mss))) :
                                 rnd(r, 1, uint32_t(maxpay)));
    size_t h = build(r, s, q.f, chance(r, 0.02));
    if (s.l3 == 4 && chance(r, 0.02)) q.f[14 + 4 * s.tags] ^= 0x30;  // IP version not 4
    if (q.f.size() > 65536) q.f.resize(65536);
    q.hdr_len = uint16_t(h);
    if (chance(r, 0.1)) q.hdr_len = uint16_t(std::min<size_t>(256, h + rnd(r, 1, 20)));  // extra bytes replicated
    if (chance(r, 0.04)) q.hdr_len = uint16_t(rnd(r, 0, 300));
    if (q.hdr_len + size_t(mss) > kite::tx_max_frame && chance(r, 0.95)) mss = uint32_t(kite::tx_max_frame - q.hdr_len);
    if (mss == 0 || chance(r, 0.01)) mss = chance(r, 0.5) ? 0 : uint32_t(kite::tx_max_frame - q.hdr_len + 1);
    q.mss = uint16_t(mss);
    q.flags = F_LSO | (s.tcp ? 0 : F_USO) | (chance(r, 0.4) ? F_VLAN : 0) | uint8_t(rnd(r, 0, 3));  // L3/L4: ignored
    if (chance(r, 0.02)) q.flags ^= F_USO;
    if (chance(r, 0.01)) {  // over MAX_TSO_SIZE
        Frame p = tb::rbytes(r, 65536 + rnd(r, 1, 200) - q.f.size());
        q.f.insert(q.f.end(), p.begin(), p.end());
    }
    q.len = uint32_t(q.f.size());
    q.first_len = rnd(r, q.hdr_len, uint32_t(std::max<size_t>(q.hdr_len, q.f.size())));
    if (chance(r, 0.02) && q.hdr_len) q.first_len = rnd(r, 0, q.hdr_len - 1u);
    misstate(r, q);
    q.tci = uint16_t(r());
    q.start = uint16_t(r());
    q.off = uint16_t(r());
    return q;
}

// A frame without LSO (kite_txp's offloads after the segmenter).
Req make_plain(tb::Rng &r) {
    Shape s;
    s.tags = chance(r, 0.8) ? 0 : 1;
    s.l3 = chance(r, 0.5) ? 4 : 6;
    s.tcp = chance(r, 0.5);
    s.payload = chance(r, 0.5) ? rnd(r, 0, 100) : rnd(r, 0, chance(r, 0.9) ? 1460 : 8940);
    Req q;
    size_t h = build(r, s, q.f);
    size_t l4 = h - (s.tcp ? 20 : 8);
    if (chance(r, 0.01)) q.f.resize(kite::tx_max_frame + rnd(r, 1, 100));  // too long: dropped
    q.flags = uint8_t(rnd(r, 0, 3)) | (chance(r, 0.4) ? F_VLAN : 0);
    q.start = uint16_t(l4);
    q.off = s.tcp ? 16 : 6;
    q.hdr_len = uint16_t(r());
    q.mss = uint16_t(r());
    q.tci = uint16_t(r());
    q.len = uint32_t(q.f.size());
    q.first_len = q.len;
    misstate(r, q);
    return q;
}

struct Expect {
    std::vector<Frame> out;
    bool dropped = false, lso = false;
    bool ok = true;  // the verdict: false when dropped before any of it is taken as good
};

long cov_drop_desc = 0, cov_drop_hdr = 0, cov_drop_plain = 0, cov_lso = 0, cov_segs = 0, cov_v6ext = 0,
     cov_udp = 0, cov_udp0 = 0, cov_small = 0, cov_jumbo = 0, cov_oddhdr = 0, cov_fin = 0, cov_cut_lso = 0,
     cov_cut_plain = 0, cov_short = 0;

void emit_cb(void *ctx, uint8_t *seg, size_t n) {
    static_cast<std::vector<Frame> *>(ctx)->emplace_back(seg, seg + n);
}

Expect expect(const Req &q) {
    Expect e;
    cov_short += q.len > q.f.size();
    if (q.flags & F_LSO) {
        // In the model the first entry lies in the frame: hdr_len <= len too.
        if (!kite::tx_lso_desc_ok(q.len, q.hdr_len, q.mss, q.first_len) || q.hdr_len > q.len) {
            e.dropped = true;
            e.ok = false;
            cov_drop_desc++;
            return e;
        }
        static std::vector<uint8_t> scratch(kite::tx_max_frame + 64);
        size_t n = std::min<size_t>(q.len, q.f.size());  // nothing past the stated length
        kite::lso_error err =
            kite::tx_lso(q.f.data(), n, q.hdr_len, q.mss, q.flags & F_USO, scratch.data(), emit_cb, &e.out);
        if (err != kite::lso_error::OK) {
            e.dropped = true;
            e.ok = false;
            e.out.clear();
            cov_drop_hdr++;
            return e;
        }
        e.lso = true;
        e.dropped = n < q.f.size();  // cut: counted as a drop
        cov_cut_lso += e.dropped;
        cov_lso++;
        cov_segs += long(e.out.size());
        cov_udp += (q.flags & F_USO) != 0;
        cov_small += q.mss < 64 && e.out.size() > 3;
        cov_jumbo += q.mss > 8000 && e.out.size() > 3;
        cov_oddhdr += q.hdr_len & 1;
        cov_v6ext += q.f[12] == 0x86 && q.f[13] == 0xdd && q.f[20] != 6 && q.f[20] != 17;
    } else {
        // Checked on the stated length and the first beat; data past the
        // stated length later drops the frame after its verdict.
        if (q.len > kite::tx_max_frame || std::min<size_t>(64, q.f.size()) > q.len) {
            e.dropped = true;
            e.ok = false;
            cov_drop_plain++;
            return e;
        }
        if (q.f.size() > q.len) {
            e.dropped = true;
            cov_cut_plain++;
            return e;
        }
        Frame f = q.f;
        if (q.flags & F_L3) kite::tx_l3_csum(f.data(), f.size());
        if (q.flags & F_L4) kite::tx_l4_csum(f.data(), f.size(), q.start, q.off);
        e.out.push_back(f);
    }
    if (q.flags & F_VLAN) {
        for (Frame &f : e.out) {
            size_t n = f.size();
            f.resize(n + 4);
            f.resize(kite::tx_vlan_insert(f.data(), n, q.tci));
        }
    }
    return e;
}

struct Bench {
    Vkite_txp_lso m;
    tb::Clock<Vkite_txp_lso> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    tb::FrameSink out;
    long exp_drops = 0, exp_lso = 0, exp_segs = 0, verdicts = 0;
    std::deque<bool> exp_v;  // each frame's verdict (taken), in input order
    double p_gap = 0.0, p_ready = 1.0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        m.s_valid_i = 0;
        m.m_ready_i = 1;
        clk.reset();
    }

    void sample_output() {
        if (m.m_valid_o && m.m_ready_i) out.beat(chk, clk.cycle, m.m_data_o, m.m_keep_o, m.m_last_o);
        if (m.v_valid_o) {
            verdicts++;
            if (chk.expect(!exp_v.empty(), "verdict with no frame waiting for one (cycle %llu)",
                           (unsigned long long)clk.cycle)) {
                chk.expect(bool(m.v_ok_o) == exp_v.front(), "verdict %ld: ok %d, expected %d", verdicts,
                           int(m.v_ok_o), int(exp_v.front()));
                exp_v.pop_front();
            }
        }
    }

    bool cycle(bool offer) {
        m.m_ready_i = chance(rng, p_ready);
        m.s_valid_i = offer;
        clk.eval();
        bool took = offer && m.s_ready_o;
        sample_output();
        clk.tick();
        return took;
    }

    void send(const Req &q) {
        Expect e = expect(q);
        for (auto &f : e.out) out.sb.push_back(f);
        exp_drops += e.dropped;
        exp_v.push_back(e.ok);
        exp_lso += e.lso;
        if (e.lso) exp_segs += long(e.out.size());
        const Frame &f = q.f;
        uint32_t eth[4] = {uint32_t(q.flags) | uint32_t(q.mss) << 16, uint32_t(q.start) | uint32_t(q.off) << 16,
                           uint32_t(q.hdr_len) | uint32_t(q.tci) << 16, uint32_t(rng())};
        for (size_t off = 0; off < f.size(); off += 64) {
            size_t n = std::min<size_t>(64, f.size() - off);
            auto beat = tb::rbytes(rng, 64);
            std::copy(f.begin() + long(off), f.begin() + long(off + n), beat.begin());
            tb::put_bytes(m.s_data_i, beat.data(), 64);
            m.s_keep_i = tb::keep_mask(n);
            m.s_last_i = off + n == f.size();
            for (int k = 0; k < 4; k++) m.s_eth_i[k] = off == 0 ? eth[k] : uint32_t(rng());
            m.s_len_i = off == 0 ? q.len : uint32_t(rng());
            m.s_first_len_i = off == 0 ? q.first_len : uint32_t(rng());
            while (chance(rng, p_gap)) cycle(false);
            // A held input is a hang, not a slow block: 100,000 cycles is
            // over 25 times the longest the output can be busy per frame.
            long held = 0;
            while (!cycle(true)) {
                if (++held == 100000) {
                    chk.expect(false, "input held for %ld cycles at byte %zu of a %zu-byte frame", held, off,
                               f.size());
                    std::exit(chk.finish());
                }
            }
        }
    }

    void drain() {
        for (int i = 0; i < 200000 && !out.sb.empty(); i++) cycle(false);
        for (int i = 0; i < 50; i++) cycle(false);
        chk.expect(out.sb.empty(), "%zu frames never sent", out.sb.size());
        chk.expect(exp_v.empty(), "%zu frames without a verdict", exp_v.size());
        chk.expect(long(m.drop_cnt_o) == exp_drops, "drop_cnt_o %u, expected %ld", m.drop_cnt_o, exp_drops);
        chk.expect(long(m.lso_cnt_o) == exp_lso, "lso_cnt_o %u, expected %ld", m.lso_cnt_o, exp_lso);
        chk.expect(long(m.seg_cnt_o) == exp_segs, "seg_cnt_o %u, expected %ld", m.seg_cnt_o, exp_segs);
    }
};

// A v4/v6 TCP/UDP super-frame with the given header shape, payload and MSS.
Req directed(tb::Rng &r, int l3, bool tcp, size_t payload, uint32_t mss, bool vlan = false) {
    Shape s;
    s.l3 = l3;
    s.tcp = tcp;
    s.payload = payload;
    Req q;
    q.hdr_len = uint16_t(build(r, s, q.f));
    q.mss = uint16_t(mss);
    q.flags = F_LSO | (tcp ? 0 : F_USO) | (vlan ? F_VLAN : 0);
    q.len = q.first_len = uint32_t(q.f.size());
    q.tci = uint16_t(r());
    return q;
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("txp_lso");
    std::printf("[txp_lso] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk, rng);
    b.out.inject = args.inject;

    // Directed edge cases.
    {
        // FIN/PSH/CWR on a payload that is an exact multiple of the MSS.
        Req q = directed(rng, 4, true, 3000, 1000);
        size_t l4 = q.hdr_len - 20;
        q.f[l4 + 13] = 0xff;
        b.send(q);
        cov_fin++;
        // Header only (payload 0): one segment.
        b.send(directed(rng, 6, true, 0, 1448));
        b.send(directed(rng, 4, false, 0, 1448, true));
        // MSS 1, and sequence number / IP ID wrapping.
        q = directed(rng, 4, true, 100, 1);
        put16(q.f, 18, 0xfffe);
        put16(q.f, q.hdr_len - 16, 0xffff);
        put16(q.f, q.hdr_len - 14, 0xffc0);
        b.send(q);
        // Largest header: IPv6, extension headers and TCP options to 256 bytes.
        Shape s;
        s.l3 = 6;
        s.tcp = true;
        s.doff = 15;
        s.payload = 20000;
        for (;;) {
            s.ext = 3;
            q = Req{};
            size_t h = build(rng, s, q.f);
            if (h <= 256) {
                q.hdr_len = 256;
                break;
            }
        }
        q.mss = uint16_t(kite::tx_max_frame - 256);
        q.flags = F_LSO | F_VLAN;
        q.len = q.first_len = uint32_t(q.f.size());
        b.send(q);
        // UDP checksum that comes out 0: sent as 0xffff.
        for (int v = 4; v <= 6; v += 2) {
            q = directed(rng, v, false, 200, 1400);
            std::vector<Frame> segs;
            std::vector<uint8_t> scr(kite::tx_max_frame);
            kite::tx_lso(q.f.data(), q.f.size(), q.hdr_len, q.mss, true, scr.data(), emit_cb, &segs);
            size_t l4 = q.hdr_len - 8;
            uint16_t c = uint16_t(segs[0][l4 + 6] << 8 | segs[0][l4 + 7]);
            uint32_t w = uint32_t(q.f[q.hdr_len] << 8 | q.f[q.hdr_len + 1]) + c;
            put16(q.f, q.hdr_len, uint16_t(w + (w >> 16)));
            segs.clear();
            kite::tx_lso(q.f.data(), q.f.size(), q.hdr_len, q.mss, true, scr.data(), emit_cb, &segs);
            cov_udp0 += segs[0][l4 + 6] == 0xff && segs[0][l4 + 7] == 0xff;
            b.send(q);
        }
        // Full 64 KiB super-frame, then every kind of bad input between good ones.
        b.send(directed(rng, 4, true, 65536 - 54, 1448));
        for (int k = 0; k < 7; k++) {
            q = directed(rng, k & 1 ? 6 : 4, true, 5000, 1448);
            switch (k) {
            case 0: q.mss = 0; break;
            case 1: q.hdr_len = 257; break;
            case 2: q.first_len = q.hdr_len - 1u; break;
            case 3: q.mss = uint16_t(kite::tx_max_frame - q.hdr_len + 1); break;
            case 4: q.f.resize(65537); q.len = q.first_len = 65537; break;
            case 5: q.hdr_len = uint16_t(q.hdr_len - 1); break;
            case 6: q.flags |= F_USO; break;
            }
            b.send(q);
            b.send(directed(rng, 4, k & 1, 3000, 1000, k & 2));
        }
        // Data past the stated length, between good frames: a plain frame
        // longer than the whole buffer (it must not wait for room that only
        // its own end would free), and a 64 KiB super-frame stated as 3000
        // bytes (cut there; 62 KiB consumed).
        q = make_plain(rng);
        q.f.resize(40000);
        q.len = 1514;
        b.send(q);
        b.send(directed(rng, 6, true, 3000, 1000));
        q = directed(rng, 4, true, 65536 - 54, 1448);
        q.len = 3000;
        b.send(q);
        b.send(directed(rng, 4, false, 3000, 1000, true));
        b.drain();
    }

    long iters = args.iters(3000);
    for (long i = 0; i < iters; i++) {
        b.p_gap = (i % 3 == 0) ? 0.0 : 0.2;
        b.p_ready = (i % 4 == 0) ? 1.0 : 0.6;
        b.send(chance(rng, 0.25) ? make_plain(rng) : make_lso(rng));
    }
    b.drain();
    std::printf("[txp_lso] coverage: %ld super-frames -> %ld segments (udp %ld, mss < 64 %ld, mss > 8000 %ld, odd "
                "hdr_len %ld, ipv6 ext %ld, udp 0 -> ffff %ld, fin/psh/cwr %ld); dropped: descriptor %ld, headers "
                "%ld, plain over 9018 B or its stated length %ld; data past the stated length: super-frames cut "
                "%ld, plain frames dropped %ld; data short of it %ld\n",
                cov_lso, cov_segs, cov_udp, cov_small, cov_jumbo, cov_oddhdr, cov_v6ext, cov_udp0, cov_fin,
                cov_drop_desc, cov_drop_hdr, cov_drop_plain, cov_cut_lso, cov_cut_plain, cov_short);
    chk.expect(cov_lso > 500 && cov_segs > 20000 && cov_udp > 150 && cov_small > 20 && cov_jumbo > 20 &&
                   cov_oddhdr > 10 && cov_v6ext > 50 && cov_udp0 == 2 && cov_drop_desc > 20 && cov_drop_hdr > 20 &&
                   cov_drop_plain > 0 && cov_cut_lso > 10 && cov_cut_plain > 5 && cov_short > 20,
               "stimulus did not cover every case");

    // Throughput: back-to-back 64 KiB IPv4/TCP super-frames cut into frames
    // of L bytes (without FCS), output always ready. Line rate at 100 GbE:
    // each frame takes (max(L, 60) + 4 + 20) * 8 bits of wire time.
    b.p_gap = 0.0;
    b.p_ready = 1.0;
    for (size_t len : {60u, 64u, 65u, 128u, 1514u, 9000u, 9018u}) {
        const int frames = 3;
        long segs0 = long(b.m.seg_cnt_o), out0 = b.out.beats_out;
        b.out.c0 = 0;
        uint64_t c0 = b.clk.cycle;
        for (int i = 0; i < frames; i++) b.send(directed(rng, 4, true, 65536 - 54, uint32_t(len - 54)));
        uint64_t in_cycles = b.clk.cycle - c0;
        b.drain();
        long segs = long(b.m.seg_cnt_o) - segs0, out_beats = b.out.beats_out - out0;
        uint64_t busy = b.out.c1 - b.out.c0 + 1;
        double cps = double(busy) / double(segs);
        double wire_ns = double(std::max<size_t>(len, 60) + 24) * 8 / 100.0;
        double need322 = wire_ns * 0.32227, need250 = wire_ns * 0.25;
        std::printf("[txp_lso] throughput %zu B segments: %ld segments, in %llu cycles, out %ld beats in %llu cycles: "
                    "%.3f cycles/segment (%.3f beats/cycle); 100 GbE needs <= %.3f at 322 MHz (%s), <= %.3f at "
                    "250 MHz (%s)\n",
                    len, segs, (unsigned long long)in_cycles, out_beats, (unsigned long long)busy, cps,
                    double(out_beats) / double(busy), need322, cps <= need322 ? "sustained" : "NOT sustained",
                    need250, cps <= need250 ? "sustained" : "NOT sustained");
        chk.expect(cps <= need322, "%zu B segments below 100 GbE at 322 MHz", len);
    }
    // Small super-frames (the per-super-frame header parse), 1514-byte frames.
    for (size_t nseg : {1u, 2u, 4u}) {
        const int frames = 200;
        long segs0 = long(b.m.seg_cnt_o), out0 = b.out.beats_out;
        b.out.c0 = 0;
        for (int i = 0; i < frames; i++) b.send(directed(rng, 4, true, 1460 * nseg, 1460));
        b.drain();
        long segs = long(b.m.seg_cnt_o) - segs0, out_beats = b.out.beats_out - out0;
        uint64_t busy = b.out.c1 - b.out.c0 + 1;
        double cps = double(busy) / double(segs);
        double need322 = (1514.0 + 24) * 8 / 100.0 * 0.32227;
        std::printf("[txp_lso] throughput %zu-segment super-frames of 1514 B segments: %.3f cycles/segment (%.3f "
                    "beats/cycle); 100 GbE needs <= %.3f at 322 MHz (%s)\n",
                    nseg, cps, double(out_beats) / double(busy), need322, cps <= need322 ? "sustained" : "NOT sustained");
    }
    // Latency: last beat of a one-segment super-frame in -> first beat out
    // (segmenter and kite_txp, each store and forward).
    for (size_t pay : {6u, 1000u}) {
        long out0 = b.out.beats_out;
        b.send(directed(rng, 4, true, pay, 1448));
        uint64_t t0 = b.clk.cycle;
        while (b.out.beats_out == out0) b.cycle(false);
        std::printf("[txp_lso] latency %zu B frame, last beat in -> first beat out: %llu cycles\n", pay + 54,
                    (unsigned long long)(b.clk.cycle - 1 - t0));
        b.drain();
    }
    std::printf("[txp_lso] %ld frames compared\n", b.out.frames_out);
    return chk.finish();
}
