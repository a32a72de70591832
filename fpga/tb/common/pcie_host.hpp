// The host side of the UltraScale+ PCIe core's requester interfaces (PG213,
// 512-bit, DWORD-aligned mode), for the host models of the testbenches and
// the co-simulation: RC beats as the core presents them (RcStream,
// read_completions) and the TLPs of the card's RQ beats (RqStream).
//
// RC: a completion TLP is its 12-byte descriptor followed by its payload DWs.
//
// * No straddle: each TLP starts a beat; tkeep marks its DWs, tlast its last
//   beat, is_sop[0] its first, is_eop[0] with is_eop0_ptr its last DW.
// * Straddle (AXISTEN_IF_RC_STRADDLE; 4 with ..._4TLP_STRADDLE): a TLP may
//   start in the beat where the previous one ended, at byte 0 or 32 (2) or
//   0, 16, 32, 48 (4), after that TLP's end; tkeep is all ones, tlast 0, and
//   is_sop[i] / is_sopi_ptr (128-bit lane) and is_eop[i] / is_eopi_ptr (last
//   DW) give the i-th TLP starting / ending in the beat.
//
// m_axis_rc_tuser bits used: [67:64] is_sop, [75:68] is_sop0..3_ptr,
// [79:76] is_eop, [95:80] is_eop0..3_ptr (all in word 2 of the bus).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace tb::pcie {

struct RcBeat {
    std::array<uint8_t, 64> d{};
    uint16_t keep = 0;
    bool last = false;
    std::array<uint32_t, 6> user{};
    bool shown = false;        // presented to the card: it may no longer change
};

class RcStream {
public:
    unsigned straddle = 1;     // TLPs that may start in one beat: 1, 2 or 4
    std::deque<RcBeat> beats;

    // Appends a TLP. pack = false starts it in a new beat even with straddle
    // (the core straddles only what it has at hand).
    void push(const std::vector<uint8_t> &tlp, bool pack = true) {
        const unsigned grid = 64 / straddle;
        unsigned pos = 64;     // byte of beats.back() where the TLP starts
        if (straddle > 1 && pack && !beats.empty() && !beats.back().shown && tail_used_ < 64 &&
            tail_sops_ < straddle) {
            pos = (tail_used_ + grid - 1) / grid * grid;
        }
        if (pos >= 64) {
            beats.emplace_back();
            tail_sops_ = tail_eops_ = 0;
            pos = 0;
        }
        RcBeat *b = &beats.back();
        b->user[2] |= 1u << tail_sops_;                           // is_sop[i]
        b->user[2] |= (pos / 16) << (4 + 2 * tail_sops_);         // is_sopi_ptr
        tail_sops_++;
        size_t i = 0;
        for (;;) {
            size_t n = std::min<size_t>(64 - pos, tlp.size() - i);
            std::copy_n(tlp.begin() + long(i), n, b->d.begin() + pos);
            i += n;
            pos += unsigned(n);
            if (i == tlp.size()) break;
            b->keep = 0xffff;
            beats.emplace_back();
            tail_sops_ = tail_eops_ = 0;
            b = &beats.back();
            pos = 0;
        }
        unsigned last_dw = (pos + 3) / 4 - 1;
        b->user[2] |= 1u << (12 + tail_eops_);                    // is_eop[i]
        b->user[2] |= last_dw << (16 + 4 * tail_eops_);           // is_eopi_ptr
        tail_eops_++;
        tail_used_ = (last_dw + 1) * 4;
        if (straddle > 1) {
            b->keep = 0xffff;
            b->last = false;
        } else {
            b->keep = uint16_t(0xffffu >> (15 - last_dw));
            b->last = true;
            tail_used_ = 64;
        }
    }

private:
    unsigned tail_used_ = 64;  // bytes of beats.back() in use
    unsigned tail_sops_ = 0, tail_eops_ = 0;
};

inline void set_bits(uint8_t *p, unsigned lo, unsigned n, uint64_t v) {
    for (unsigned i = 0; i < n; i++) {
        uint8_t m = uint8_t(1u << ((lo + i) % 8));
        if ((v >> i) & 1) p[(lo + i) / 8] |= m;
        else p[(lo + i) / 8] &= uint8_t(~m);
    }
}

// The completion TLPs a host returns for a memory read of len bytes at
// first (PG213 Requester Completion Descriptor: [11:0] lower address, [28:16]
// bytes still to come, [30] request completed, [42:32] DW count, [45:43]
// status, [71:64] tag): split at rcb-byte boundaries (0: one completion), as
// root complexes split at their Read Completion Boundary; byte(a) is the
// byte at address a. Not ok: one Unsupported Request completion, no data.
template <class Byte>
std::vector<std::vector<uint8_t>> read_completions(uint64_t first, uint32_t len, unsigned tag, bool ok,
                                                   unsigned rcb, Byte byte) {
    std::vector<std::vector<uint8_t>> out;
    uint64_t cur = first, end = first + len;
    do {
        uint64_t stop = end;
        if (ok && rcb && (cur / rcb + 1) * rcb < end) stop = (cur / rcb + 1) * rcb;
        uint64_t dwa = cur & ~3ULL;
        unsigned dw = ok ? unsigned((stop - dwa + 3) / 4) : 0;
        std::vector<uint8_t> t(12 + 4 * size_t(dw));
        set_bits(t.data(), 0, 12, cur & 0xfff);
        set_bits(t.data(), 16, 13, end - cur);
        set_bits(t.data(), 30, 1, stop == end);
        set_bits(t.data(), 32, 11, dw);
        set_bits(t.data(), 43, 3, ok ? 0 : 1);
        set_bits(t.data(), 64, 8, tag);
        for (unsigned i = 0; i < 4 * dw; i++)
            if (dwa + i >= cur && dwa + i < stop) t[12 + i] = byte(dwa + i);
        out.push_back(std::move(t));
        cur = stop;
    } while (ok && cur < end);
    return out;
}

// RQ: the card's request TLPs out of its beats, with the core's 2-TLP
// straddle (AXISTEN_IF_EXT_512_RQ_STRADDLE): s_axis_rq_tuser [7:0] first_be
// and [15:8] last_be (4 bits per TLP starting in the beat, in order), [21:20]
// is_sop, [23:22] is_sop0_ptr, [25:24] is_sop1_ptr (0: DW 0, 2: DW 8),
// [27:26] is_eop, [31:28] is_eop0_ptr, [35:32] is_eop1_ptr (last DW). A TLP
// starts at DW 0, or at DW 8 when the previous one ends in the same beat at
// DW 7 or before; none starts while one is open. push() takes each accepted
// beat and returns the TLPs it completes; a beat breaking the rules sets
// error (the first message kept) and is parsed as far as it can be.
struct RqTlp {
    std::vector<uint8_t> bytes;   // descriptor (16 bytes) and payload
    unsigned fbe = 0, lbe = 0;
};

class RqStream {
public:
    std::string error;
    unsigned beats = 0, straddled = 0;   // beats taken; of which carried two TLP starts or ends

    std::vector<RqTlp> push(const std::array<uint8_t, 64> &d, const std::array<uint32_t, 6> &user) {
        std::vector<RqTlp> done;
        const uint32_t u = user[0], u1 = user[1];
        const unsigned sop = u >> 20 & 3, eop = u >> 26 & 3;
        const unsigned sptr[2] = {u >> 22 & 3, u >> 24 & 3};
        const unsigned eptr[2] = {u >> 28 & 0xf, u1 & 0xf};
        const unsigned nsop = __builtin_popcount(sop), neop = __builtin_popcount(eop);
        beats++;
        if (nsop == 2 || neop == 2) straddled++;
        if ((sop & 2 && !(sop & 1)) || (eop & 2 && !(eop & 1))) fail("is_sop / is_eop bit 1 without bit 0");
        // Where TLPs start: the first at DW 0 unless one is open (then at DW 8).
        unsigned start[2] = {0, 8};
        if (nsop >= 1) {
            start[0] = sptr[0] * 4;
            if (nsop == 2) start[1] = sptr[1] * 4;
            if (start[0] != (open_ ? 8u : 0u))
                fail("the first TLP start at DW " + std::to_string(start[0]) + (open_ ? ", one open" : ", none open"));
            if (nsop == 2 && (open_ || start[1] != 8)) fail("two TLP starts not at DW 0 and 8");
        }
        unsigned pos = 0, si = 0, ei = 0;
        for (;;) {
            if (!open_) {
                if (si == nsop) break;
                if (start[si] < pos) fail("a TLP starts inside the previous one");
                pos = start[si];
                cur_ = RqTlp{};
                cur_.fbe = u >> (4 * si) & 0xf;
                cur_.lbe = u >> (8 + 4 * si) & 0xf;
                si++;
                open_ = true;
            }
            unsigned end = 16;      // DW after the last one of the TLP in this beat
            if (ei < neop) {
                end = eptr[ei] + 1;
                if (end <= pos) { fail("an end before its TLP's start"); end = pos + 1; }
            }
            cur_.bytes.insert(cur_.bytes.end(), d.begin() + 4 * pos, d.begin() + 4 * end);
            pos = end;
            if (ei < neop) {
                ei++;
                open_ = false;
                done.push_back(std::move(cur_));
                if (si < nsop && end > 8) fail("a second TLP after an end beyond DW 7");
                continue;
            }
            break;          // the TLP goes on in the next beat
        }
        if (ei < neop) fail("an end without a TLP");
        return done;
    }
    bool open() const { return open_; }

private:
    bool open_ = false;
    RqTlp cur_;
    void fail(const std::string &m) {
        if (error.empty()) error = "RQ beat " + std::to_string(beats) + ": " + m;
    }
};

}  // namespace tb::pcie
