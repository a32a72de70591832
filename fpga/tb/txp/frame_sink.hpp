// SPDX-License-Identifier: MIT
// Output side of the TX testbenches (tb_txp, tb_txp_lso): 512-bit AXI-Stream
// beats are gathered into frames, and each finished frame is compared with
// the head of the scoreboard the stimulus side filled from the model.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "tb.hpp"

namespace tb {

struct FrameSink {
    using Frame = std::vector<uint8_t>;
    std::deque<Frame> sb;         // expected frames, in order
    Frame cur;
    bool inject = false;          // --inject: corrupt the 8th expectation
    bool at_start = true;         // the next beat starts a frame
    long frames_out = 0, beats_out = 0;
    uint64_t c0 = 0, c1 = 0;      // cycles of the first and last beat

    // One accepted output beat.
    template <typename Data>
    void beat(Checker &chk, uint64_t cycle, const Data &data, uint64_t keep, bool last) {
        beats_out++;
        if (!c0) c0 = cycle;
        c1 = cycle;
        for (size_t i = 0; i < 64; i++)
            if (keep >> i & 1) cur.push_back(get_byte(data, i));
        chk.expect(last || keep == ~0ull, "partial beat that is not last");
        at_start = last;
        if (!last) return;
        if (!chk.expect(!sb.empty(), "frame without request")) return;
        Frame e = sb.front();
        sb.pop_front();
        if (inject && frames_out == 7) e[e.size() / 2] ^= 1;  // deliberate mismatch
        frames_out++;
        size_t diff = 0;
        while (diff < std::min(e.size(), cur.size()) && e[diff] == cur[diff]) diff++;
        chk.expect(cur == e, "frame %ld: %zu bytes, expected %zu; first difference at byte %zu", frames_out,
                   cur.size(), e.size(), diff);
        cur.clear();
    }
};

}  // namespace tb
