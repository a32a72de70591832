// Requester completion (RC) beats as the UltraScale+ PCIe core presents them
// (PG213, 512-bit, DWORD-aligned mode), for the host models of the
// testbenches and the co-simulation. A completion TLP is its 12-byte
// descriptor followed by its payload DWs.
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

}  // namespace tb::pcie
