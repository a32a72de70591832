// Shared Verilator testbench helpers: clocking, TAP-like checks, random
// numbers, AXI-Stream beat packing. C++20.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kite/pcie_fn.hpp"
#include "verilated.h"

namespace tb {

// Command line shared by every testbench:
//   --seed N     random seed (default 1; printed so failures reproduce)
//   --inject     corrupt one expected value: the run must then fail. check.sh
//                uses it to prove each testbench can detect a mismatch, and
//                needs no more than the exit status: the run stops at its
//                first failure (the rest would cost as much as the real run).
//   --n N        random iterations
inline bool stop_at_first_fail = false;

struct Args {
    uint64_t seed = 1;
    bool inject = false;
    long n = -1;
    Args(int argc, char **argv) {
        for (int i = 1; i < argc; i++) {
            std::string_view a = argv[i];
            if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
            else if (a == "--inject") inject = stop_at_first_fail = true;
            else if (a == "--n" && i + 1 < argc) n = std::strtol(argv[++i], nullptr, 0);
        }
    }
    long iters(long dflt) const { return n > 0 ? n : dflt; }
};

// Counts checks and failures; prints at most a few failure details.
struct Checker {
    std::string name;
    long checks = 0, fails = 0;
    explicit Checker(std::string n) : name(std::move(n)) {}
    template <class... A>
    bool expect(bool ok, const char *fmt, A... a) {
        checks++;
        if (!ok) {
            if (++fails <= 10) {
                std::fprintf(stderr, "[%s] FAIL: ", name.c_str());
                std::fprintf(stderr, fmt, a...);
                std::fputc('\n', stderr);
            }
            if (stop_at_first_fail) {
                std::fprintf(stderr, "[%s] stopped at the first failure (--inject)\n", name.c_str());
                std::exit(finish());
            }
        }
        return ok;
    }
    int finish() const {
        std::printf("[%s] %ld checks, %ld failures\n", name.c_str(), checks, fails);
        return fails ? 1 : 0;
    }
};

// One clock: inputs must be set before; outputs read after reflect the new state.
template <class M>
struct Clock {
    M &m;
    uint64_t cycle = 0;
    explicit Clock(M &mod) : m(mod) {}
    void eval() { m.eval(); }
    void tick() {
        m.clk_i = 0;
        m.eval();
        m.clk_i = 1;
        m.eval();
        cycle++;
    }
    void reset(int cycles = 4) {
        m.rst_ni = 0;
        for (int i = 0; i < cycles; i++) tick();
        m.rst_ni = 1;
        tick();
    }
};

using Rng = std::mt19937_64;
inline uint32_t rnd(Rng &r, uint32_t lo, uint32_t hi) {  // inclusive
    return std::uniform_int_distribution<uint32_t>(lo, hi)(r);
}
inline bool chance(Rng &r, double p) { return std::bernoulli_distribution(p)(r); }
inline std::vector<uint8_t> rbytes(Rng &r, size_t n) {
    std::vector<uint8_t> v(n);
    for (auto &b : v) b = static_cast<uint8_t>(r());
    return v;
}

// Wide Verilator signals: byte i of a beat is bits [8i+7:8i] (lane 0 first on the wire).
template <size_t W>
void put_bytes(VlWide<W> &w, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < W; i++) w[i] = 0;
    for (size_t i = 0; i < n && i < W * 4; i++) w[i / 4] |= uint32_t(p[i]) << (8 * (i % 4));
}
template <size_t W>
uint8_t get_byte(const VlWide<W> &w, size_t i) {
    return static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4)));
}
inline uint64_t keep_mask(size_t n) { return n >= 64 ? ~0ULL : ((1ULL << n) - 1); }

// PCIe function numbers: the card's and the PCIe core's (kite/pcie_fn.hpp).
using kite::pcie_fn::card_fn;
using kite::pcie_fn::core_fn;

}  // namespace tb
