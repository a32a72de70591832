// Shared by the control CPU's testbenches (tb_cpu, tb_cpu_sys): the card's
// CPU memory map on both sides of the comparison, the ISS's bus, a small
// RV32 encoder and the random program generator.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "../../../firmware/include/kite_fw/cpu_io.hpp"
#include "cpu/rv32.hpp"
#include "tb.hpp"

namespace cputb {

constexpr uint32_t ROM = 0x00000000, RAM = 0x10000000, IO = 0x20000000, CTX = 0x30000000;
constexpr uint32_t MEM_SIZE = 128 * 1024, IO_SIZE = 64 * 1024, CTX_SIZE = 1024 * 1024;

struct Access {
    bool we;
    uint32_t addr;   // word address
    uint8_t be;
    uint32_t wdata;  // bytes outside be are 0
    bool operator==(const Access &) const = default;
};

// One side's memory as on the card (kite_cpu_sys): ROM (code and constants;
// a store to it is an access fault, so a stray store cannot corrupt the
// code or the trap handler), RAM and the context store (data; fetching from
// them is an access fault), the MMIO window, errors elsewhere.
struct Memory {
    std::vector<uint8_t> rom = std::vector<uint8_t>(MEM_SIZE), ram = std::vector<uint8_t>(MEM_SIZE),
                         ctx = std::vector<uint8_t>(CTX_SIZE);
    uint64_t io_seed = 0, io_reads = 0, io_writes = 0;
    std::vector<Access> log;   // data accesses since the last retire

    uint8_t *at(uint32_t a) {
        if (a - ROM < MEM_SIZE) return &rom[a - ROM];
        if (a - RAM < MEM_SIZE) return &ram[a - RAM];
        if (a - CTX < CTX_SIZE) return &ctx[a - CTX];
        return nullptr;
    }
    static uint64_t mix(uint64_t x) {
        x += 0x9e3779b97f4a7c15ULL;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
    }
    // A word access; false = access fault.
    bool word(uint32_t wa, bool we, uint8_t be, uint32_t &data, bool instr) {
        if (wa - IO < IO_SIZE && !instr) {
            if (we) {
                io_writes++;
                log.push_back({true, wa, be, data & bemask(be)});
            } else {
                data = io_read(wa - IO);
                io_reads++;
                log.push_back({false, wa, be, 0});
            }
            return true;
        }
        uint8_t *p = at(wa);
        if (!p || (we && wa - ROM < MEM_SIZE) || (instr && wa - ROM >= MEM_SIZE)) return false;
        if (we) {
            for (int i = 0; i < 4; i++)
                if (be >> i & 1) p[i] = uint8_t(data >> (8 * i));
        } else {
            data = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
        }
        if (!instr) log.push_back({we, wa, be, we ? data & bemask(be) : 0});
        return true;
    }
    // The card side of the window (kite_cpu_io's map, kite::fw::cpu_io),
    // as far as the firmware's loops need it: a clock that runs, a few
    // functions and ports; every other read (busy bits included) a hash of
    // the address and the read's index, the same on both sides.
    uint32_t io_read(uint32_t off) const {
        namespace io = kite::fw::cpu_io;
        uint64_t h = mix(io_seed ^ off ^ (io_reads << 32));
        switch (off) {
        case io::TIME_LO: return uint32_t(io_reads * 40);
        case io::TIME_HI: return uint32_t(io_seed >> 40);
        case io::NUM_FN: return 1 + uint32_t(h % 8);
        case io::NUM_PORTS: return 1 + uint32_t(h % 2);
        default: return uint32_t(h);
        }
    }
    static uint32_t bemask(uint8_t be) {
        uint32_t m = 0;
        for (int i = 0; i < 4; i++)
            if (be >> i & 1) m |= 0xffu << (8 * i);
        return m;
    }
    void put(uint32_t a, const uint8_t *d, size_t n) {
        for (size_t i = 0; i < n; i++)
            if (uint8_t *p = at(a + uint32_t(i))) *p = d[i];
    }
};

// The ISS's side of the bus, in the core's terms (word + byte enables).
struct IssBus final : kite::cpu::Bus {
    Memory &m;
    explicit IssBus(Memory &mem) : m(mem) {}
    bool fetch(uint32_t addr, uint16_t &half) override {
        uint32_t w = 0;
        if (!m.word(addr & ~3u, false, 0xf, w, true)) return false;
        half = uint16_t(w >> (8 * (addr & 2)));
        return true;
    }
    bool load(uint32_t addr, unsigned size, uint32_t &val) override {
        uint32_t w = 0;
        uint8_t be = uint8_t(((1u << size) - 1) << (addr & 3));
        if (!m.word(addr & ~3u, false, be, w, false)) return false;
        val = (w >> (8 * (addr & 3))) & (size == 4 ? ~0u : (1u << (8 * size)) - 1);
        return true;
    }
    bool store(uint32_t addr, unsigned size, uint32_t val) override {
        uint8_t be = uint8_t(((1u << size) - 1) << (addr & 3));
        uint32_t w = val << (8 * (addr & 3));
        return m.word(addr & ~3u, true, be, w, false);
    }
};

// --- instruction encoding ---------------------------------------------------
inline uint32_t enc_r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
inline uint32_t enc_i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    return uint32_t(imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
inline uint32_t enc_s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
    uint32_t u = uint32_t(imm);
    return (u >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 0x1f) << 7 | 0x23;
}
inline uint32_t enc_b(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
    uint32_t u = uint32_t(imm);
    return (u >> 12 & 1) << 31 | (u >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u >> 1 & 0xf) << 8 |
           (u >> 11 & 1) << 7 | 0x63;
}
inline uint32_t enc_u(uint32_t imm20, uint32_t rd, uint32_t op) { return imm20 << 12 | rd << 7 | op; }
inline uint32_t enc_j(int32_t imm, uint32_t rd) {
    uint32_t u = uint32_t(imm);
    return (u >> 20 & 1) << 31 | (u >> 1 & 0x3ff) << 21 | (u >> 11 & 1) << 20 | (u >> 12 & 0xff) << 12 | rd << 7 | 0x6f;
}
constexpr uint32_t OP_IMM = 0x13, OP = 0x33, LOAD = 0x03, SYSTEM = 0x73, AMO = 0x2f;
inline uint32_t csrrw(uint32_t rd, uint32_t csr, uint32_t rs1) { return enc_i(int32_t(csr), rs1, 1, rd, SYSTEM); }
inline uint32_t csrrs(uint32_t rd, uint32_t csr, uint32_t rs1) { return enc_i(int32_t(csr), rs1, 2, rd, SYSTEM); }
inline uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm) { return enc_i(imm, rs1, 0, rd, OP_IMM); }
constexpr uint32_t MRET = 0x30200073;

// Builds a program as a byte image with 16- and 32-bit instructions.
struct Prog {
    std::vector<uint8_t> b;
    uint32_t base = 0;
    uint32_t pc() const { return base + uint32_t(b.size()); }
    void w32(uint32_t x) {
        for (int i = 0; i < 4; i++) b.push_back(uint8_t(x >> (8 * i)));
    }
    void w16(uint16_t x) {
        b.push_back(uint8_t(x));
        b.push_back(uint8_t(x >> 8));
    }
    void li(uint32_t rd, uint32_t v) {   // lui + addi
        uint32_t hi = (v + 0x800) >> 12;
        w32(enc_u(hi & 0xfffff, rd, 0x37));
        w32(addi(rd, rd, int32_t(v << 20) >> 20));
    }
};

inline bool is_cycle_csr(uint32_t insn) {
    if ((insn & 3) != 3 || (insn & 0x7f) != SYSTEM || (insn >> 12 & 7) == 0 || (insn >> 12 & 7) == 4) return false;
    uint32_t csr = insn >> 20;
    return csr == 0xb00 || csr == 0xb80 || csr == 0xc00 || csr == 0xc80;
}

// When to acknowledge a request held until its answer: after a random wait
// drawn when it first shows (0: in its own cycle).
struct AckDelay {
    bool waiting = false;
    unsigned left = 0;
    bool due(tb::Rng &r, double p0, unsigned hi) {
        if (!waiting) {
            waiting = true;
            left = tb::chance(r, p0) ? 0 : tb::rnd(r, 1, hi);
        }
        if (left) {
            left--;
            return false;
        }
        waiting = false;
        return true;
    }
};

// One retired instruction of the core (its retire port, rt_*) against one
// ISS step. A read of the cycle counter takes the core's value (the ISS is
// not cycle-exact). inject corrupts the expected register value.
template <class M>
bool compare_retire(tb::Checker &chk, const M &m, kite::cpu::Rv32 &iss, kite::cpu::Retire &e, long n, bool inject) {
    const uint32_t rd_val = m.rt_rd_val_o;
    if (!e.trap && is_cycle_csr(e.insn) && e.rd) iss.x[e.rd] = e.rd_val = rd_val;
    if (inject) e.rd_val ^= 1, e.rd = e.rd ? e.rd : 1;
    bool ok = true;
    ok &= chk.expect(m.rt_pc_o == e.pc, "#%ld pc %08x, ISS %08x", n, m.rt_pc_o, e.pc);
    ok &= chk.expect(m.rt_insn_o == e.insn, "#%ld pc %08x insn %08x, ISS %08x", n, e.pc, m.rt_insn_o, e.insn);
    ok &= chk.expect(m.rt_trap_o == e.trap && (!e.trap || (m.rt_cause_o == e.cause && m.rt_tval_o == e.tval)),
                     "#%ld pc %08x insn %08x trap %d cause %u tval %08x, ISS %d %u %08x", n, e.pc, e.insn, m.rt_trap_o,
                     m.rt_cause_o, m.rt_tval_o, e.trap, e.cause, e.tval);
    ok &= chk.expect(m.rt_rd_o == e.rd && (e.rd == 0 || rd_val == e.rd_val), "#%ld pc %08x insn %08x x%u = %08x, ISS x%u = %08x",
                     n, e.pc, e.insn, m.rt_rd_o, rd_val, e.rd, e.rd_val);
    ok &= chk.expect(m.rt_next_pc_o == e.next_pc, "#%ld pc %08x insn %08x next %08x, ISS %08x", n, e.pc, e.insn,
                     m.rt_next_pc_o, e.next_pc);
    return ok;
}

// --- random programs ----------------------------------------------------------
constexpr uint32_t HANDLER = 0x180, CODE = 0x200, CODE_END = 0xf000, DATA = 0x10010000;

// C.J, C.JAL, C.BEQZ, C.BNEZ backward or to themselves.
inline bool backward_c(uint16_t c) {
    if ((c & 3) != 1) return false;
    unsigned f3 = c >> 13;
    if (f3 == 1 || f3 == 5) return (c >> 12 & 1) || (c & 0x1ffc) == 0;
    if (f3 == 6 || f3 == 7) return (c >> 12 & 1) || (c & 0x0c7c) == 0;
    return false;
}

inline void gen_random(Prog &p, tb::Rng &r) {
    auto reg = [&] { return tb::rnd(r, 1, 31); };
    auto anyreg = [&] { return tb::rnd(r, 0, 31); };
    // Prologue: mtvec, every register a random value, sp in RAM.
    p.li(31, HANDLER);
    p.w32(csrrw(0, 0x305, 31));
    for (uint32_t i = 1; i < 32; i++) p.li(i, uint32_t(r()));
    p.li(2, DATA + 0x800);
    p.w32(enc_j(int32_t(CODE - p.pc()), 0));
    if (p.pc() > HANDLER) std::abort();
    while (p.pc() < HANDLER) p.w16(0x0001);
    // Handler: after a fetch fault resume somewhere in the code (chosen by
    // minstret, which both sides agree on), otherwise after the instruction
    // (its length from its first parcel; x30 kept in mscratch).
    p.w32(csrrs(31, 0x342, 0));
    p.w32(addi(31, 31, -1));
    p.w32(enc_b(24, 0, 31, 1));                      // bne x31, x0, +24
    p.w32(csrrs(31, 0xb02, 0));
    p.w32(enc_i(20, 31, 1, 31, OP_IMM));             // slli 20
    p.w32(enc_i(17, 31, 5, 31, OP_IMM));             // srli 17: (minstret & 0xfff) << 3
    p.w32(addi(31, 31, int32_t(CODE)));
    p.w32(enc_j(40, 0));                             // j to the mepc write
    p.w32(csrrw(0, 0x340, 30));
    p.w32(csrrs(31, 0x341, 0));
    p.w32(enc_i(0, 31, 5, 30, LOAD));                // lhu x30, 0(x31)
    p.w32(enc_i(3, 30, 7, 30, OP_IMM));              // andi x30, x30, 3
    p.w32(addi(31, 31, 2));
    p.w32(addi(30, 30, -3));
    p.w32(enc_b(8, 0, 30, 1));                       // bne x30, x0, +8
    p.w32(addi(31, 31, 2));
    p.w32(csrrs(30, 0x340, 0));
    p.w32(csrrw(0, 0x341, 31));
    p.w32(MRET);
    if (p.pc() > CODE) std::abort();
    while (p.pc() < CODE) p.w16(0x0001);

    static const uint32_t csrs[] = {0x300, 0x301, 0x304, 0x344, 0x340, 0x341, 0x342, 0x343, 0xb00, 0xb80, 0xb02,
                                    0xb82, 0xc00, 0xc80, 0xc02, 0xc82, 0xf11, 0xf12, 0xf13, 0xf14, 0x305,
                                    0x7c0, 0x001, 0x003, 0x306, 0xb01, 0xc01, 0x320};
    static const uint32_t amo5[] = {0x00, 0x01, 0x04, 0x0c, 0x08, 0x10, 0x14, 0x18, 0x1c, 0x02, 0x03, 0x03, 0x05};
    while (p.pc() < CODE_END - 64) {
        unsigned k = tb::rnd(r, 0, 99);
        if (k < 4) {    // a new random value, so compressed ops on x8..x15 see negative ones too
            p.li(anyreg(), uint32_t(r()));
        } else if (k < 18) {   // R-type, M included
            uint32_t f3 = tb::rnd(r, 0, 7), f7 = 0;
            unsigned v = tb::rnd(r, 0, 9);
            if (v < 3) f7 = 1;
            else if (v < 5 && (f3 == 0 || f3 == 5)) f7 = 0x20;
            p.w32(enc_r(f7, anyreg(), anyreg(), f3, anyreg(), OP));
        } else if (k < 29) {   // I-type ALU
            uint32_t f3 = tb::rnd(r, 0, 7);
            int32_t imm = int32_t(tb::rnd(r, 0, 4095)) - 2048;
            if (f3 == 1) imm &= 31;
            if (f3 == 5) imm = (imm & 31) | (tb::chance(r, 0.5) ? 0x400 : 0);
            p.w32(enc_i(imm, anyreg(), f3, anyreg(), OP_IMM));
        } else if (k < 32) {   // LR, then one or two SCs (the second to the same or another word)
            uint32_t base = reg(), rd = anyreg();
            p.w32(enc_u(DATA >> 12, base, 0x37));
            if (tb::chance(r, 0.8)) p.w32(0x02 << 27 | base << 15 | 2 << 12 | rd << 7 | AMO);
            if (tb::chance(r, 0.5)) p.w32(enc_i(int32_t(tb::rnd(r, 0, 2047)), anyreg(), 0, anyreg(), OP_IMM));
            for (unsigned n = tb::rnd(r, 1, 2); n; n--) {
                uint32_t sb = base;
                if (tb::chance(r, 0.3)) {
                    sb = reg();
                    p.w32(enc_u(DATA >> 12, sb, 0x37));
                    p.w32(addi(sb, sb, tb::chance(r, 0.5) ? 4 : 0));
                }
                p.w32(0x03 << 27 | anyreg() << 20 | sb << 15 | 2 << 12 | anyreg() << 7 | AMO);
            }
        } else if (k < 36) {   // LUI / AUIPC
            p.w32(enc_u(uint32_t(r()) & 0xfffff, anyreg(), tb::chance(r, 0.5) ? 0x37 : 0x17));
        } else if (k < 50) {   // load / store into RAM
            uint32_t base = reg();
            p.w32(enc_u(DATA >> 12, base, 0x37));
            int32_t imm = int32_t(tb::rnd(r, 0, 4095)) - 2048;
            if (tb::chance(r, 0.7)) imm &= ~3;
            if (tb::chance(r, 0.5)) {
                static const uint32_t lf3[] = {0, 1, 2, 4, 5};
                p.w32(enc_i(imm, base, lf3[tb::rnd(r, 0, 4)], anyreg(), LOAD));
            } else {
                p.w32(enc_s(imm, anyreg(), base, tb::rnd(r, 0, 2)));
            }
        } else if (k < 55) {   // LR / SC / AMO
            uint32_t base = reg();
            p.w32(enc_u(DATA >> 12, base, 0x37));
            int32_t off = int32_t(tb::rnd(r, 0, 63)) * 4 + (tb::chance(r, 0.1) ? 2 : 0);
            p.w32(addi(base, base, off));
            uint32_t f5 = amo5[tb::rnd(r, 0, 12)];
            uint32_t rs2 = f5 == 0x02 && tb::chance(r, 0.8) ? 0 : anyreg();
            p.w32(f5 << 27 | tb::rnd(r, 0, 3) << 25 | rs2 << 20 | base << 15 | 2 << 12 | anyreg() << 7 | AMO);
        } else if (k < 63) {   // branch (forward only: a backward one would mostly loop forever)
            int32_t off = int32_t(tb::rnd(r, 1, 63)) * 2;
            static const uint32_t bf3[] = {0, 1, 4, 5, 6, 7};
            p.w32(enc_b(off, anyreg(), anyreg(), bf3[tb::rnd(r, 0, 5)]));
        } else if (k < 66) {   // JAL
            p.w32(enc_j(int32_t(tb::rnd(r, 1, 127)) * 2, anyreg()));
        } else if (k < 69) {   // JALR off an AUIPC
            uint32_t base = reg();
            p.w32(enc_u(0, base, 0x17));
            p.w32(enc_i(int32_t(tb::rnd(r, 8, 255)), base, 0, anyreg(), 0x67));
        } else if (k < 82) {   // a random compressed parcel
            uint16_t c;
            // Mostly not the FP encodings (illegal here): each illegal one costs a trap.
            do c = uint16_t(r());
            while ((c & 3) == 3 || backward_c(c) || ((c & 3) != 1 && (c >> 13 & 1) && tb::chance(r, 0.8)));
            // Now and then a reserved encoding next to a legal one, which
            // random bits would rarely hit: C.LUI / C.ADDI16SP with a zero
            // immediate (rd 0, 2, 5), C.LWSP and C.JR with register 0, C.EBREAK.
            static const uint16_t edge[] = {0x6001, 0x6101, 0x6281, 0x6285, 0x4002, 0x8002, 0x9002, 0x0000};
            if (tb::chance(r, 0.05)) c = edge[tb::rnd(r, 0, 7)];
            p.w16(c);
        } else if (k < 85) {   // compressed load/store through a base in x8..x15
            uint32_t base = tb::rnd(r, 8, 15);
            p.w32(enc_u(DATA >> 12, base, 0x37));
            uint16_t c = uint16_t((tb::chance(r, 0.5) ? 0x4000 : 0xc000) | (uint16_t(r()) & 0x1c7c) | (base - 8) << 7);
            p.w16(c);
        } else if (k < 86) {   // a random 32-bit word
            uint32_t w;
            do w = uint32_t(r()) | 3; while ((w & 0x7f) == 0x63 || (w & 0x7f) == 0x6f || w == MRET);
            p.w32(w);
        } else if (k < 94) {   // CSR (a third of them unimplemented or read-only: illegal)
            uint32_t csr = csrs[tb::rnd(r, 0, sizeof(csrs) / 4 - 1)];
            uint32_t f3 = tb::rnd(r, 1, 7);
            if (f3 == 4) f3 = 2;
            uint32_t rs1 = tb::chance(r, 0.4) ? 0 : anyreg();
            bool cyc = csr == 0xb00 || csr == 0xb80 || csr == 0xc00 || csr == 0xc80;
            // A read-modify-write of the cycle counter would mix the core's count
            // into the ISS; mtvec stays the handler.
            if ((cyc && (f3 & 3) != 1) || csr == 0x305) rs1 = 0, f3 = f3 & 4 ? 6 : 2;
            p.w32(enc_i(int32_t(csr), rs1, f3, anyreg(), SYSTEM));
            // Read it back: what a write kept (mepc bit 0, mstatus's bits) shows.
            if (tb::chance(r, 0.5)) p.w32(csrrs(anyreg(), csr, 0));
        } else if (k < 97) {   // DIV/REM with the edge operands
            uint32_t a = reg(), bb = reg();
            static const uint32_t va[] = {0x80000000u, 0xffffffffu, 0, 7, 0x7fffffff};
            p.li(a, va[tb::rnd(r, 0, 4)]);
            p.li(bb, va[tb::rnd(r, 0, 4)]);
            p.w32(enc_r(1, bb, a, tb::rnd(r, 4, 7), anyreg(), OP));
        } else {   // SYSTEM and MISC-MEM
            // No MRET: it would return to the last trap, a loop (the handler runs MRET on every trap).
            static const uint32_t sys[] = {0x00000073, 0x00100073, 0x10500073, 0x0ff0000f, 0x0000100f,
                                           0x0000200f, 0x00200073, 0x10200073};
            p.w32(sys[tb::rnd(r, 0, 7)]);
        }
    }
    // Back to the start, also from the forward jumps past the end (C.J
    // reaches 2 KiB on).
    while (p.pc() < CODE_END + 2048) p.w32(enc_j(int32_t(CODE) - int32_t(p.pc()), 0));
}


}  // namespace cputb
