// SPDX-License-Identifier: MIT
// The control CPU's instruction-set simulator (cpu/rv32.hpp) and ELF loader
// (cpu/elf.hpp). The RTL testbench trusts the ISS, so these tests pin its
// behaviour with values worked out by hand, and encodings checked against
// the GNU assembler, not against the ISS itself.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "cpu/elf.hpp"
#include "cpu/rv32.hpp"

using namespace kite::cpu;

namespace {

// 64 KiB of flat memory at 0; [kFaultLo, kFaultHi) and everything from
// kMemSize up answer with an access fault.
constexpr uint32_t kMemSize = 0x10000, kFaultLo = 0x8000, kFaultHi = 0x9000;
constexpr uint32_t kData = 0x4000; // where the tests keep their data

struct FlatBus : Bus {
    std::vector<uint8_t> m = std::vector<uint8_t>(kMemSize);
    unsigned loads = 0, stores = 0;

    static bool ok(uint32_t a, unsigned n) {
        return uint64_t(a) + n <= kMemSize && !(a + n > kFaultLo && a < kFaultHi);
    }
    bool fetch(uint32_t a, uint16_t &h) override {
        EXPECT_EQ(a & 1, 0u) << "odd fetch address";
        if (!ok(a, 2)) return false;
        h = uint16_t(m[a] | m[a + 1] << 8);
        return true;
    }
    bool load(uint32_t a, unsigned n, uint32_t &v) override {
        EXPECT_TRUE(n == 1 || n == 2 || n == 4);
        EXPECT_EQ(a & (n - 1), 0u) << "misaligned access reached the bus";
        ++loads;
        if (!ok(a, n)) return false;
        v = 0;
        for (unsigned i = 0; i < n; ++i) v |= uint32_t(m[a + i]) << (8 * i);
        return true;
    }
    bool store(uint32_t a, unsigned n, uint32_t v) override {
        EXPECT_TRUE(n == 1 || n == 2 || n == 4);
        EXPECT_EQ(a & (n - 1), 0u) << "misaligned access reached the bus";
        ++stores;
        if (!ok(a, n)) return false;
        for (unsigned i = 0; i < n; ++i) m[a + i] = uint8_t(v >> (8 * i));
        return true;
    }
    uint32_t rd32(uint32_t a) const { return uint32_t(m[a] | m[a + 1] << 8 | m[a + 2] << 16) | uint32_t(m[a + 3]) << 24; }
    void wr32(uint32_t a, uint32_t v) {
        for (unsigned i = 0; i < 4; ++i) m[a + i] = uint8_t(v >> (8 * i));
    }
    void wr16(uint32_t a, uint16_t v) {
        m[a] = uint8_t(v);
        m[a + 1] = uint8_t(v >> 8);
    }
};

// A tiny RV32 encoder, independent of the ISS's own (checked against the
// assembler in CpuEncoder).
namespace rv {
constexpr uint32_t zero = 0, ra = 1, sp = 2, t0 = 5, t1 = 6, t2 = 7, s0 = 8, s1 = 9, a0 = 10,
                   a1 = 11, a2 = 12, a3 = 13, a4 = 14, a5 = 15, t5 = 30, t6 = 31;

constexpr uint32_t R(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
constexpr uint32_t I(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    return uint32_t(imm) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
constexpr uint32_t S(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
    const uint32_t u = uint32_t(imm);
    return (u >> 5) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 31) << 7 | 0x23;
}
constexpr uint32_t B(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3) {
    const uint32_t u = uint32_t(imm);
    return (u >> 12 & 1) << 31 | (u >> 5 & 63) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u >> 1 & 15) << 8 |
           (u >> 11 & 1) << 7 | 0x63;
}
constexpr uint32_t lui(uint32_t rd, uint32_t imm20) { return imm20 << 12 | rd << 7 | 0x37; }
constexpr uint32_t auipc(uint32_t rd, uint32_t imm20) { return imm20 << 12 | rd << 7 | 0x17; }
constexpr uint32_t jal(uint32_t rd, int32_t off) {
    const uint32_t u = uint32_t(off);
    return (u >> 20 & 1) << 31 | (u >> 1 & 0x3ff) << 21 | (u >> 11 & 1) << 20 | (u >> 12 & 0xff) << 12 | rd << 7 |
           0x6f;
}
constexpr uint32_t jalr(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 0, rd, 0x67); }
constexpr uint32_t beq(uint32_t a, uint32_t b, int32_t off) { return B(off, b, a, 0); }
constexpr uint32_t bne(uint32_t a, uint32_t b, int32_t off) { return B(off, b, a, 1); }
constexpr uint32_t blt(uint32_t a, uint32_t b, int32_t off) { return B(off, b, a, 4); }
constexpr uint32_t bge(uint32_t a, uint32_t b, int32_t off) { return B(off, b, a, 5); }
constexpr uint32_t bltu(uint32_t a, uint32_t b, int32_t off) { return B(off, b, a, 6); }
constexpr uint32_t bgeu(uint32_t a, uint32_t b, int32_t off) { return B(off, b, a, 7); }
constexpr uint32_t lb(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 0, rd, 0x03); }
constexpr uint32_t lh(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 1, rd, 0x03); }
constexpr uint32_t lw(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 2, rd, 0x03); }
constexpr uint32_t lbu(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 4, rd, 0x03); }
constexpr uint32_t lhu(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 5, rd, 0x03); }
constexpr uint32_t sb(uint32_t rs2, uint32_t rs1, int32_t imm) { return S(imm, rs2, rs1, 0); }
constexpr uint32_t sh(uint32_t rs2, uint32_t rs1, int32_t imm) { return S(imm, rs2, rs1, 1); }
constexpr uint32_t sw(uint32_t rs2, uint32_t rs1, int32_t imm) { return S(imm, rs2, rs1, 2); }
constexpr uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 0, rd, 0x13); }
constexpr uint32_t slti(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 2, rd, 0x13); }
constexpr uint32_t sltiu(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 3, rd, 0x13); }
constexpr uint32_t xori(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 4, rd, 0x13); }
constexpr uint32_t ori(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 6, rd, 0x13); }
constexpr uint32_t andi(uint32_t rd, uint32_t rs1, int32_t imm) { return I(imm, rs1, 7, rd, 0x13); }
constexpr uint32_t slli(uint32_t rd, uint32_t rs1, uint32_t sh) { return R(0, sh, rs1, 1, rd, 0x13); }
constexpr uint32_t srli(uint32_t rd, uint32_t rs1, uint32_t sh) { return R(0, sh, rs1, 5, rd, 0x13); }
constexpr uint32_t srai(uint32_t rd, uint32_t rs1, uint32_t sh) { return R(0x20, sh, rs1, 5, rd, 0x13); }
constexpr uint32_t add(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(0, rs2, rs1, 0, rd, 0x33); }
constexpr uint32_t sub(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(0x20, rs2, rs1, 0, rd, 0x33); }
constexpr uint32_t sll(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(0, rs2, rs1, 1, rd, 0x33); }
constexpr uint32_t slt(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(0, rs2, rs1, 2, rd, 0x33); }
constexpr uint32_t sltu(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(0, rs2, rs1, 3, rd, 0x33); }
constexpr uint32_t xor_(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(0, rs2, rs1, 4, rd, 0x33); }
constexpr uint32_t srl(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(0, rs2, rs1, 5, rd, 0x33); }
constexpr uint32_t sra(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(0x20, rs2, rs1, 5, rd, 0x33); }
constexpr uint32_t or_(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(0, rs2, rs1, 6, rd, 0x33); }
constexpr uint32_t and_(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(0, rs2, rs1, 7, rd, 0x33); }
constexpr uint32_t mul(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(1, rs2, rs1, 0, rd, 0x33); }
constexpr uint32_t mulh(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(1, rs2, rs1, 1, rd, 0x33); }
constexpr uint32_t mulhsu(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(1, rs2, rs1, 2, rd, 0x33); }
constexpr uint32_t mulhu(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(1, rs2, rs1, 3, rd, 0x33); }
constexpr uint32_t div(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(1, rs2, rs1, 4, rd, 0x33); }
constexpr uint32_t divu(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(1, rs2, rs1, 5, rd, 0x33); }
constexpr uint32_t rem(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(1, rs2, rs1, 6, rd, 0x33); }
constexpr uint32_t remu(uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(1, rs2, rs1, 7, rd, 0x33); }
constexpr uint32_t csrrw(uint32_t rd, uint32_t csr, uint32_t rs1) { return I(int32_t(csr), rs1, 1, rd, 0x73); }
constexpr uint32_t csrrs(uint32_t rd, uint32_t csr, uint32_t rs1) { return I(int32_t(csr), rs1, 2, rd, 0x73); }
constexpr uint32_t csrrc(uint32_t rd, uint32_t csr, uint32_t rs1) { return I(int32_t(csr), rs1, 3, rd, 0x73); }
constexpr uint32_t csrrwi(uint32_t rd, uint32_t csr, uint32_t u) { return I(int32_t(csr), u, 5, rd, 0x73); }
constexpr uint32_t csrrsi(uint32_t rd, uint32_t csr, uint32_t u) { return I(int32_t(csr), u, 6, rd, 0x73); }
constexpr uint32_t csrrci(uint32_t rd, uint32_t csr, uint32_t u) { return I(int32_t(csr), u, 7, rd, 0x73); }
constexpr uint32_t csrr(uint32_t rd, uint32_t csr) { return csrrs(rd, csr, zero); }
constexpr uint32_t csrw(uint32_t csr, uint32_t rs1) { return csrrw(zero, csr, rs1); }
constexpr uint32_t ecall() { return 0x00000073; }
constexpr uint32_t ebreak() { return 0x00100073; }
constexpr uint32_t mret() { return 0x30200073; }
constexpr uint32_t wfi() { return 0x10500073; }
constexpr uint32_t amo(uint32_t f5, uint32_t rd, uint32_t rs1, uint32_t rs2) { return R(f5 << 2, rs2, rs1, 2, rd, 0x2f); }
constexpr uint32_t lr(uint32_t rd, uint32_t rs1) { return amo(0x02, rd, rs1, 0); }
constexpr uint32_t sc(uint32_t rd, uint32_t rs1, uint32_t rs2) { return amo(0x03, rd, rs1, rs2); }
constexpr uint16_t c_nop = 0x0001, c_ebreak = 0x9002, c_jr_ra = 0x8082;
} // namespace rv

using namespace rv;

std::string hex(uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%08x", v);
    return b;
}

class CpuFixture : public ::testing::Test {
protected:
    static constexpr uint32_t kCode = 0x100, kTrapVec = 0x40;
    FlatBus bus;
    Rv32 cpu{bus, kCode};

    CpuFixture() { cpu.mtvec = kTrapVec; }

    // Places insn at pc and executes it.
    Retire exec(uint32_t insn) {
        bus.wr32(cpu.pc, insn);
        return cpu.step();
    }
    Retire exec16(uint16_t c) {
        bus.wr16(cpu.pc, c);
        return cpu.step();
    }
    // Executes insn, which must retire; returns what it wrote to rd.
    uint32_t val(uint32_t insn) {
        const Retire r = exec(insn);
        EXPECT_FALSE(r.trap) << hex(insn) << " cause " << r.cause;
        return cpu.x[insn >> 7 & 31];
    }
    // a0 = f(a1, a2) with a1 = a, a2 = b.
    uint32_t rr(uint32_t (*f)(uint32_t, uint32_t, uint32_t), uint32_t a, uint32_t b) {
        cpu.x[a1] = a;
        cpu.x[a2] = b;
        return val(f(a0, a1, a2));
    }
    uint32_t ri(uint32_t (*f)(uint32_t, uint32_t, int32_t), uint32_t a, int32_t imm) {
        cpu.x[a1] = a;
        return val(f(a0, a1, imm));
    }
    void expect_trap(const Retire &r, uint32_t cause, uint32_t tval) {
        EXPECT_TRUE(r.trap);
        EXPECT_EQ(r.cause, cause);
        EXPECT_EQ(r.tval, tval);
        EXPECT_EQ(r.rd, 0);
        EXPECT_EQ(r.next_pc, kTrapVec);
        EXPECT_EQ(cpu.pc, kTrapVec);
        EXPECT_EQ(cpu.mepc, r.pc);
        EXPECT_EQ(cpu.mcause, cause);
        EXPECT_EQ(cpu.mtval, tval);
    }
    // What expect_no_effect_trap() leaves in register r.
    static uint32_t preset(uint32_t r) { return kData + 0x100 + 4 * r; }
    // Runs one instruction that must trap without touching a register,
    // memory or minstret.
    Retire expect_no_effect_trap(uint32_t cause, uint32_t tval, uint32_t insn, bool compressed) {
        cpu.pc = kCode;
        for (unsigned i = 1; i < 32; ++i) cpu.x[i] = preset(i);
        const uint32_t before[32] = {cpu.x[0], cpu.x[1], cpu.x[2], cpu.x[3], cpu.x[4], cpu.x[5], cpu.x[6],
                                     cpu.x[7], cpu.x[8], cpu.x[9], cpu.x[10], cpu.x[11], cpu.x[12], cpu.x[13],
                                     cpu.x[14], cpu.x[15], cpu.x[16], cpu.x[17], cpu.x[18], cpu.x[19], cpu.x[20],
                                     cpu.x[21], cpu.x[22], cpu.x[23], cpu.x[24], cpu.x[25], cpu.x[26], cpu.x[27],
                                     cpu.x[28], cpu.x[29], cpu.x[30], cpu.x[31]};
        const uint64_t instret = cpu.minstret;
        const unsigned loads = bus.loads, stores = bus.stores;
        const Retire r = compressed ? exec16(uint16_t(insn)) : exec(insn);
        expect_trap(r, cause, tval);
        EXPECT_EQ(r.insn, insn);
        EXPECT_FALSE(r.mem);
        for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(cpu.x[i], before[i]) << "x" << i;
        EXPECT_EQ(cpu.minstret, instret);
        EXPECT_EQ(bus.loads, loads);
        EXPECT_EQ(bus.stores, stores);
        return r;
    }
};

using CpuAlu = CpuFixture;
using CpuMulDiv = CpuFixture;
using CpuLoadStore = CpuFixture;
using CpuBranch = CpuFixture;
using CpuCompressed = CpuFixture;
using CpuIllegal = CpuFixture;
using CpuMemTrap = CpuFixture;
using CpuTrap = CpuFixture;
using CpuCsr = CpuFixture;
using CpuCounters = CpuFixture;
using CpuAtomic = CpuFixture;
using CpuFetch = CpuFixture;
using CpuProgram = CpuFixture;

} // namespace

// --- the test encoder itself, against riscv64-unknown-elf-as -----------------

TEST(CpuEncoder, MatchesAssembler) {
    EXPECT_EQ(addi(a0, a1, -2048), 0x80058513u);
    EXPECT_EQ(slli(t0, t1, 31), 0x01f31293u);
    EXPECT_EQ(srai(t0, t1, 7), 0x40735293u);
    EXPECT_EQ(lui(a0, 0xfffff), 0xfffff537u);
    EXPECT_EQ(auipc(a0, 0x80000), 0x80000517u);
    EXPECT_EQ(jal(ra, 0xffffe), 0x7ffff0efu);
    EXPECT_EQ(jal(zero, -0x100000), 0x8000006fu);
    EXPECT_EQ(jalr(ra, a0, -1), 0xfff500e7u);
    EXPECT_EQ(beq(a0, a1, 4094), 0x7eb50fe3u);
    EXPECT_EQ(bltu(t0, t1, -4096), 0x8062e063u);
    EXPECT_EQ(lb(a0, sp, -1), 0xfff10503u);
    EXPECT_EQ(lhu(a5, a1, 2047), 0x7ff5d783u);
    EXPECT_EQ(sw(a1, a0, -2048), 0x80b52023u);
    EXPECT_EQ(sb(t6, s1, 31), 0x01f48fa3u);
    EXPECT_EQ(mulhsu(a0, a1, a2), 0x02c5a533u);
    EXPECT_EQ(remu(t0, t1, t2), 0x027372b3u);
    EXPECT_EQ(sra(s0, s1, a5), 0x40f4d433u);
    EXPECT_EQ(csrrw(a0, csr::mscratch, a1), 0x34059573u);
    EXPECT_EQ(csrrci(zero, csr::mstatus, 8), 0x30047073u);
    EXPECT_EQ(lr(a0, a1) | 3u << 25, 0x1605a52fu); // lr.w.aqrl
    EXPECT_EQ(sc(a0, a1, a2), 0x18c5a52fu);
    EXPECT_EQ(amo(0x01, a0, a1, a2), 0x08c5a52fu);          // amoswap.w
    EXPECT_EQ(amo(0x1c, t0, t2, t1) | 1u << 26, 0xe463a2afu); // amomaxu.w.aq
    EXPECT_EQ(amo(0x08, zero, a1, a2), 0x40c5a02fu);        // amoor.w
}

// --- RV32I ---------------------------------------------------------------------

TEST_F(CpuAlu, AddSubWrapAndImmediates) {
    EXPECT_EQ(ri(addi, 0x7fffffff, 1), 0x80000000u);
    EXPECT_EQ(ri(addi, 0, -2048), 0xfffff800u);
    EXPECT_EQ(ri(addi, 5, 2047), 2052u);
    EXPECT_EQ(rr(add, 0xffffffff, 1), 0u);
    EXPECT_EQ(rr(sub, 0, 1), 0xffffffffu);
    EXPECT_EQ(rr(sub, 0x80000000, 1), 0x7fffffffu);
    EXPECT_EQ(ri(xori, 0x12345678, -1), 0xedcba987u);
    EXPECT_EQ(ri(ori, 0x00000001, -2048), 0xfffff801u);
    EXPECT_EQ(ri(andi, 0xffffffff, -256), 0xffffff00u);
    EXPECT_EQ(ri(andi, 0x12345678, 0x7f0), 0x670u);
    EXPECT_EQ(rr(xor_, 0xff00ff00, 0x0ff00ff0), 0xf0f0f0f0u);
    EXPECT_EQ(rr(or_, 0xff00ff00, 0x0ff00ff0), 0xfff0fff0u);
    EXPECT_EQ(rr(and_, 0xff00ff00, 0x0ff00ff0), 0x0f000f00u);
}

TEST_F(CpuAlu, Compares) {
    EXPECT_EQ(rr(slt, 0xffffffff, 1), 1u);  // -1 < 1
    EXPECT_EQ(rr(sltu, 0xffffffff, 1), 0u); // 0xffffffff > 1
    EXPECT_EQ(rr(slt, 0x80000000, 0x7fffffff), 1u);
    EXPECT_EQ(rr(sltu, 0x80000000, 0x7fffffff), 0u);
    EXPECT_EQ(rr(slt, 5, 5), 0u);
    EXPECT_EQ(ri(slti, 0xfffffffb, -4), 1u); // -5 < -4
    EXPECT_EQ(ri(slti, 0, -1), 0u);
    EXPECT_EQ(ri(sltiu, 5, -1), 1u);          // imm sign-extends to 0xffffffff, then unsigned
    EXPECT_EQ(ri(sltiu, 0xffffffff, -1), 0u);
    EXPECT_EQ(ri(sltiu, 0, 1), 1u);           // seqz
    EXPECT_EQ(ri(sltiu, 7, 1), 0u);
}

TEST_F(CpuAlu, Shifts) {
    cpu.x[a1] = 1;
    EXPECT_EQ(val(slli(a0, a1, 31)), 0x80000000u);
    cpu.x[a1] = 0x80000000;
    EXPECT_EQ(val(srli(a0, a1, 31)), 1u);
    EXPECT_EQ(val(srai(a0, a1, 31)), 0xffffffffu);
    EXPECT_EQ(val(srai(a0, a1, 4)), 0xf8000000u);
    EXPECT_EQ(val(srai(a0, a1, 0)), 0x80000000u);
    cpu.x[a1] = 0x40000000;
    EXPECT_EQ(val(srai(a0, a1, 4)), 0x04000000u);
    // Register shifts use the low 5 bits of rs2 only.
    EXPECT_EQ(rr(sll, 3, 33), 6u);
    EXPECT_EQ(rr(sll, 1, 0xffffffff), 0x80000000u);
    EXPECT_EQ(rr(srl, 0x80000000, 0x20), 0x80000000u);
    EXPECT_EQ(rr(srl, 0x80000000, 63), 1u);
    EXPECT_EQ(rr(sra, 0x80000000, 0x21), 0xc0000000u);
    EXPECT_EQ(rr(sra, 0x7fffffff, 30), 1u);
}

TEST_F(CpuAlu, LuiAuipcAndX0) {
    EXPECT_EQ(val(lui(a0, 0xfffff)), 0xfffff000u);
    cpu.pc = 0x200;
    const Retire r = exec(auipc(a0, 0x80000));
    EXPECT_EQ(r.rd, a0);
    EXPECT_EQ(r.rd_val, 0x80000200u);
    EXPECT_EQ(r.next_pc, 0x204u);
    EXPECT_EQ(val(auipc(a0, 0xfffff)), 0x204u - 0x1000u);
    // Writes to x0 vanish and are reported as rd = 0.
    const Retire z = exec(addi(zero, zero, 5));
    EXPECT_FALSE(z.trap);
    EXPECT_EQ(z.rd, 0);
    EXPECT_EQ(z.rd_val, 0u);
    EXPECT_EQ(cpu.x[0], 0u);
    EXPECT_EQ(exec(lui(zero, 1)).rd, 0);
    EXPECT_EQ(cpu.x[0], 0u);
}

TEST_F(CpuAlu, RetireFields) {
    cpu.x[a1] = 40;
    cpu.x[a2] = 2;
    const Retire r = exec(add(a0, a1, a2));
    EXPECT_EQ(r.pc, kCode);
    EXPECT_EQ(r.insn, add(a0, a1, a2));
    EXPECT_FALSE(r.trap);
    EXPECT_EQ(r.rd, a0);
    EXPECT_EQ(r.rd_val, 42u);
    EXPECT_FALSE(r.mem);
    EXPECT_EQ(r.next_pc, kCode + 4);
    EXPECT_EQ(cpu.pc, kCode + 4);
}

TEST_F(CpuAlu, FenceAndWfiAreNops) {
    for (uint32_t insn : {0x0330000fu, 0x0000100fu, 0xffff8f8fu /* FENCE, every other field set */,
                          0xffff9f8fu /* FENCE.I likewise */, 0x8330000fu /* fence.tso */, wfi()}) {
        SCOPED_TRACE(hex(insn));
        const uint32_t pc = cpu.pc;
        const Retire r = exec(insn);
        EXPECT_FALSE(r.trap);
        EXPECT_EQ(r.rd, 0);
        EXPECT_FALSE(r.mem);
        EXPECT_EQ(r.next_pc, pc + 4);
    }
    for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(cpu.x[i], 0u);
    EXPECT_EQ(cpu.minstret, 6u);
}

// --- M -------------------------------------------------------------------------

TEST_F(CpuMulDiv, Multiply) {
    EXPECT_EQ(rr(mul, 0x80000000, 0xffffffff), 0x80000000u);
    EXPECT_EQ(rr(mul, 0xffffffff, 0xffffffff), 1u);
    EXPECT_EQ(rr(mul, 0x12345678, 0x10), 0x23456780u);
    EXPECT_EQ(rr(mulh, 0xffffffff, 0xffffffff), 0u);          // -1 * -1 = 1
    EXPECT_EQ(rr(mulh, 0x80000000, 0x80000000), 0x40000000u); // 2^62
    EXPECT_EQ(rr(mulh, 0xfffffffe, 3), 0xffffffffu);          // -6
    EXPECT_EQ(rr(mulh, 0x80000000, 0x7fffffff), 0xc0000000u); // -2^31 (2^31 - 1) = 0xc0000000_80000000
    EXPECT_EQ(rr(mulhsu, 0xffffffff, 0xffffffff), 0xffffffffu); // -(2^32 - 1) = 0xffffffff_00000001
    EXPECT_EQ(rr(mulhsu, 0x80000000, 0xffffffff), 0x80000000u); // -2^63 + 2^31
    EXPECT_EQ(rr(mulhsu, 2, 0x80000000), 1u);                   // rs2 unsigned: 2^32
    EXPECT_EQ(rr(mulhsu, 0xffffffff, 1), 0xffffffffu);          // -1
    EXPECT_EQ(rr(mulhu, 0xffffffff, 0xffffffff), 0xfffffffeu);  // 0xfffffffe_00000001
    EXPECT_EQ(rr(mulhu, 0x80000000, 2), 1u);
    EXPECT_EQ(rr(mulhu, 0xffffffff, 1), 0u);
}

TEST_F(CpuMulDiv, Divide) {
    EXPECT_EQ(rr(div, 0xfffffff9, 2), 0xfffffffdu); // -7 / 2 = -3 (truncates)
    EXPECT_EQ(rr(rem, 0xfffffff9, 2), 0xffffffffu); // -7 % 2 = -1
    EXPECT_EQ(rr(div, 7, 0xfffffffe), 0xfffffffdu); // 7 / -2 = -3
    EXPECT_EQ(rr(rem, 7, 0xfffffffe), 1u);
    EXPECT_EQ(rr(divu, 0xfffffff9, 2), 0x7ffffffcu);
    EXPECT_EQ(rr(remu, 0xfffffff9, 2), 1u);
    EXPECT_EQ(rr(divu, 7, 0xfffffffe), 0u);
    EXPECT_EQ(rr(remu, 7, 0xfffffffe), 7u);
    // Divide by zero: quotient all ones, remainder the dividend.
    EXPECT_EQ(rr(div, 5, 0), 0xffffffffu);
    EXPECT_EQ(rr(div, 0xfffffffb, 0), 0xffffffffu);
    EXPECT_EQ(rr(divu, 5, 0), 0xffffffffu);
    EXPECT_EQ(rr(rem, 0xfffffffb, 0), 0xfffffffbu);
    EXPECT_EQ(rr(remu, 0xfffffff9, 0), 0xfffffff9u);
    // Overflow: INT_MIN / -1.
    EXPECT_EQ(rr(div, 0x80000000, 0xffffffff), 0x80000000u);
    EXPECT_EQ(rr(rem, 0x80000000, 0xffffffff), 0u);
    EXPECT_EQ(rr(divu, 0x80000000, 0xffffffff), 0u);
    EXPECT_EQ(rr(remu, 0x80000000, 0xffffffff), 0x80000000u);
    EXPECT_EQ(rr(div, 0x80000000, 1), 0x80000000u);
}

// --- loads and stores ----------------------------------------------------------

TEST_F(CpuLoadStore, LoadExtension) {
    bus.wr32(kData, 0x7f80ff01);     // bytes 01 ff 80 7f
    bus.wr32(kData + 4, 0x80017fff); // halves 7fff 8001
    cpu.x[a1] = kData;
    EXPECT_EQ(val(lb(a0, a1, 0)), 1u);
    EXPECT_EQ(val(lb(a0, a1, 1)), 0xffffffffu);
    EXPECT_EQ(val(lb(a0, a1, 2)), 0xffffff80u);
    EXPECT_EQ(val(lb(a0, a1, 3)), 0x7fu);
    EXPECT_EQ(val(lbu(a0, a1, 1)), 0xffu);
    EXPECT_EQ(val(lbu(a0, a1, 2)), 0x80u);
    EXPECT_EQ(val(lh(a0, a1, 0)), 0xffffff01u);
    EXPECT_EQ(val(lh(a0, a1, 2)), 0x7f80u);
    EXPECT_EQ(val(lh(a0, a1, 6)), 0xffff8001u);
    EXPECT_EQ(val(lh(a0, a1, 4)), 0x7fffu);
    EXPECT_EQ(val(lhu(a0, a1, 6)), 0x8001u);
    EXPECT_EQ(val(lhu(a0, a1, 0)), 0xff01u);
    EXPECT_EQ(val(lw(a0, a1, 4)), 0x80017fffu);
    cpu.x[a1] = kData + 0x800;
    EXPECT_EQ(val(lw(a0, a1, -2048)), 0x7f80ff01u);
    const Retire r = exec(lhu(a2, a1, -2042));
    EXPECT_TRUE(r.mem);
    EXPECT_FALSE(r.mem_we);
    EXPECT_EQ(r.mem_addr, kData + 6);
    EXPECT_EQ(r.mem_size, 2);
    EXPECT_EQ(r.mem_wdata, 0u);
    EXPECT_EQ(r.rd, a2);
    EXPECT_EQ(r.rd_val, 0x8001u);
    // A load into x0 still accesses memory.
    const Retire z = exec(lw(zero, a1, -2048));
    EXPECT_TRUE(z.mem);
    EXPECT_EQ(z.rd, 0);
    EXPECT_EQ(cpu.x[0], 0u);
}

TEST_F(CpuLoadStore, StoreSizes) {
    bus.wr32(kData, 0xaaaaaaaa);
    bus.wr32(kData + 4, 0xaaaaaaaa);
    cpu.x[a1] = kData;
    cpu.x[a2] = 0x12345678;
    Retire r = exec(sb(a2, a1, 1));
    EXPECT_FALSE(r.trap);
    EXPECT_TRUE(r.mem);
    EXPECT_TRUE(r.mem_we);
    EXPECT_EQ(r.mem_addr, kData + 1);
    EXPECT_EQ(r.mem_size, 1);
    EXPECT_EQ(r.mem_wdata, 0x78u);
    EXPECT_EQ(r.rd, 0);
    EXPECT_EQ(bus.rd32(kData), 0xaaaa78aau);
    r = exec(sh(a2, a1, 6));
    EXPECT_EQ(r.mem_size, 2);
    EXPECT_EQ(r.mem_wdata, 0x5678u);
    EXPECT_EQ(bus.rd32(kData + 4), 0x5678aaaau);
    cpu.x[a1] = kData + 0x808;
    r = exec(sw(a2, a1, -2048));
    EXPECT_EQ(r.mem_addr, kData + 8);
    EXPECT_EQ(r.mem_size, 4);
    EXPECT_EQ(r.mem_wdata, 0x12345678u);
    EXPECT_EQ(bus.rd32(kData + 8), 0x12345678u);
    EXPECT_EQ(bus.rd32(kData), 0xaaaa78aau);
}

// --- control transfer ----------------------------------------------------------

TEST_F(CpuBranch, ConditionsSignedAndUnsigned) {
    struct Case {
        uint32_t (*f)(uint32_t, uint32_t, int32_t);
        uint32_t a, b;
        bool taken;
    } cases[] = {
        {beq, 5, 5, true},          {beq, 5, 6, false},
        {bne, 5, 6, true},          {bne, 0xffffffff, 0xffffffff, false},
        {blt, 0xffffffff, 1, true}, {bltu, 0xffffffff, 1, false},
        {bge, 0xffffffff, 1, false}, {bgeu, 0xffffffff, 1, true},
        {blt, 1, 0xffffffff, false}, {bltu, 1, 0xffffffff, true},
        {bge, 7, 7, true},          {bgeu, 7, 7, true},
        {blt, 7, 7, false},         {bltu, 7, 7, false},
        {blt, 0x80000000, 0x7fffffff, true}, {bge, 0x7fffffff, 0x80000000, true},
    };
    for (const auto &c : cases) {
        cpu.pc = 0x1000;
        cpu.x[a1] = c.a;
        cpu.x[a2] = c.b;
        const Retire r = exec(c.f(a1, a2, -16));
        SCOPED_TRACE(hex(r.insn));
        EXPECT_FALSE(r.trap);
        EXPECT_EQ(r.rd, 0);
        EXPECT_EQ(r.next_pc, c.taken ? 0xff0u : 0x1004u);
    }
    cpu.pc = 0x1000;
    EXPECT_EQ(exec(beq(zero, zero, 4094)).next_pc, 0x1000u + 4094);
    cpu.pc = 0x1000;
    EXPECT_EQ(exec(beq(zero, zero, -4096)).next_pc, 0u);
    cpu.pc = 0x1000;
    EXPECT_EQ(exec(bne(zero, zero, -4096)).next_pc, 0x1004u);
}

TEST_F(CpuBranch, JalJalrLink) {
    cpu.pc = 0x1000;
    Retire r = exec(jal(ra, 0x7fe));
    EXPECT_EQ(r.rd, ra);
    EXPECT_EQ(r.rd_val, 0x1004u);
    EXPECT_EQ(r.next_pc, 0x17feu);
    r = exec(jal(zero, -0x7fe));
    EXPECT_EQ(r.rd, 0);
    EXPECT_EQ(r.next_pc, 0x1000u);
    cpu.pc = 0x2000;
    r = exec(jal(t0, -0x2000));
    EXPECT_EQ(cpu.x[t0], 0x2004u);
    EXPECT_EQ(r.next_pc, 0u);
    // JALR adds the immediate, then clears bit 0.
    cpu.pc = 0x1000;
    cpu.x[a0] = 0x301;
    r = exec(jalr(ra, a0, 0));
    EXPECT_EQ(r.next_pc, 0x300u);
    EXPECT_EQ(cpu.x[ra], 0x1004u);
    cpu.pc = 0x1000;
    cpu.x[a0] = 0x300;
    r = exec(jalr(ra, a0, -1));
    EXPECT_EQ(r.next_pc, 0x2feu);
    // rd == rs1: the target uses the old value.
    cpu.pc = 0x1000;
    cpu.x[a0] = 0x400;
    r = exec(jalr(a0, a0, 8));
    EXPECT_EQ(r.next_pc, 0x408u);
    EXPECT_EQ(cpu.x[a0], 0x1004u);
    EXPECT_EQ(r.rd_val, 0x1004u);
}

// --- compressed ----------------------------------------------------------------

namespace {
struct RvcCase {
    uint16_t c;
    uint32_t e;
    const char *text;
};
// Parcels from riscv64-unknown-elf-as -march=rv32imac; offsets of jumps and
// branches relative to the instruction.
const RvcCase kRvc[] = {
    {0x1fe0, addi(s0, sp, 1020), "c.addi4spn s0,sp,1020"},
    {0x005c, addi(a5, sp, 4), "c.addi4spn a5,sp,4"},
    {0x5de8, lw(a0, a1, 124), "c.lw a0,124(a1)"},
    {0x4384, lw(s1, a5, 0), "c.lw s1,0(a5)"},
    {0xdde8, sw(a0, a1, 124), "c.sw a0,124(a1)"},
    {0xc3a4, sw(s1, a5, 64), "c.sw s1,64(a5)"},
    {0x0001, addi(zero, zero, 0), "c.nop"},
    {0x1501, addi(a0, a0, -32), "c.addi a0,-32"},
    {0x02fd, addi(t0, t0, 31), "c.addi t0,31"},
    {0x5501, addi(a0, zero, -32), "c.li a0,-32"},
    {0x4ffd, addi(t6, zero, 31), "c.li t6,31"},
    {0x7101, addi(sp, sp, -512), "c.addi16sp sp,-512"},
    {0x617d, addi(sp, sp, 496), "c.addi16sp sp,496"},
    {0x6141, addi(sp, sp, 16), "c.addi16sp sp,16"},
    {0x7501, lui(a0, 0xfffe0), "c.lui a0,0xfffe0"},
    {0x6505, lui(a0, 1), "c.lui a0,1"},
    {0x637d, lui(t1, 0x1f), "c.lui t1,0x1f"},
    {0x817d, srli(a0, a0, 31), "c.srli a0,31"},
    {0x8085, srli(s1, s1, 1), "c.srli s1,1"},
    {0x8505, srai(a0, a0, 1), "c.srai a0,1"},
    {0x87fd, srai(a5, a5, 31), "c.srai a5,31"},
    {0x997d, andi(a0, a0, -1), "c.andi a0,-1"},
    {0x8881, andi(s1, s1, 0), "c.andi s1,0"},
    {0x8a55, andi(a2, a2, 21), "c.andi a2,21"},
    {0x8d0d, sub(a0, a0, a1), "c.sub a0,a1"},
    {0x8c3d, xor_(s0, s0, a5), "c.xor s0,a5"},
    {0x8ed9, or_(a3, a3, a4), "c.or a3,a4"},
    {0x8e65, and_(a2, a2, s1), "c.and a2,s1"},
    {0x057e, slli(a0, a0, 31), "c.slli a0,31"},
    {0x0f06, slli(t5, t5, 1), "c.slli t5,1"},
    {0x557e, lw(a0, sp, 252), "c.lwsp a0,252(sp)"},
    {0x4f82, lw(t6, sp, 0), "c.lwsp t6,0(sp)"},
    {0xdfaa, sw(a0, sp, 252), "c.swsp a0,252(sp)"},
    {0xc27e, sw(t6, sp, 4), "c.swsp t6,4(sp)"},
    {0x8082, jalr(zero, ra, 0), "c.jr ra"},
    {0x8782, jalr(zero, a5, 0), "c.jr a5"},
    {0x852e, add(a0, zero, a1), "c.mv a0,a1"},
    {0x8fa2, add(t6, zero, s0), "c.mv t6,s0"},
    {0x9002, ebreak(), "c.ebreak"},
    {0x9502, jalr(ra, a0, 0), "c.jalr a0"},
    {0x9082, jalr(ra, ra, 0), "c.jalr ra"},
    {0x952e, add(a0, a0, a1), "c.add a0,a1"},
    {0x9ffe, add(t6, t6, t6), "c.add t6,t6"},
    {0xaffd, jal(zero, 2046), "c.j .+2046"},
    {0xb001, jal(zero, -2048), "c.j .-2048"},
    {0xa009, jal(zero, 2), "c.j .+2"},
    {0x2ffd, jal(ra, 2046), "c.jal .+2046"},
    {0x3001, jal(ra, -2048), "c.jal .-2048"},
    {0x3ffd, jal(ra, -2), "c.jal .-2"},
    {0xcd7d, beq(a0, zero, 254), "c.beqz a0,.+254"},
    {0xd081, beq(s1, zero, -256), "c.beqz s1,.-256"},
    {0xeffd, bne(a5, zero, 254), "c.bnez a5,.+254"},
    {0xf001, bne(s0, zero, -256), "c.bnez s0,.-256"},
    {0xe909, bne(a0, zero, 18), "c.bnez a0,.+18"},
};
} // namespace

TEST_F(CpuCompressed, ExpansionTable) {
    for (const auto &t : kRvc) EXPECT_EQ(expand_rvc(t.c), t.e) << t.text;
}

// Each compressed instruction and its expansion, from the same state, end in
// the same state (but for the 2-byte link and fall-through).
TEST_F(CpuCompressed, SameResultsAsExpansion) {
    const uint32_t patterns[3][4] = {
        {0x80000000, 0xffffffff, 0x7fffffff, 0x00000001},
        {0x12345678, 0x00000000, 0xfedcba98, 0x0000001f},
        {0, 0, 0, 0},
    };
    for (const auto &t : kRvc) {
        for (const auto &pat : patterns) {
            SCOPED_TRACE(t.text);
            FlatBus bc, be;
            for (uint32_t a = kData; a < kData + 0x800; a += 4) bc.wr32(a, a * 0x9e3779b9u);
            be.m = bc.m;
            Rv32 cc(bc, 0x1000), ce(be, 0x1000);
            for (unsigned i = 1; i < 32; ++i) cc.x[i] = pat[i % 4] + (pat[3] ? i : 0);
            cc.x[sp] = kData + 0x400; // the bases the memory cases use
            cc.x[a1] = kData + 0x100;
            cc.x[a5] = kData + 0x200;
            for (unsigned i = 0; i < 32; ++i) ce.x[i] = cc.x[i];
            bc.wr16(0x1000, t.c);
            be.wr32(0x1000, t.e);
            const Retire rc = cc.step(), re = ce.step();
            const bool is_jump = (t.e & 0x7f) == 0x6f || (t.e & 0x7f) == 0x67;
            EXPECT_EQ(rc.insn, t.c);
            EXPECT_EQ(re.insn, t.e);
            EXPECT_EQ(rc.trap, re.trap);
            EXPECT_EQ(rc.cause, re.cause);
            EXPECT_EQ(rc.tval, re.tval);
            EXPECT_EQ(rc.mem, re.mem);
            EXPECT_EQ(rc.mem_we, re.mem_we);
            EXPECT_EQ(rc.mem_addr, re.mem_addr);
            EXPECT_EQ(rc.mem_size, re.mem_size);
            EXPECT_EQ(rc.mem_wdata, re.mem_wdata);
            EXPECT_EQ(rc.rd, re.rd);
            if (!is_jump) {
                EXPECT_EQ(rc.rd_val, re.rd_val);
            }
            for (unsigned i = 0; i < 32; ++i) {
                if (is_jump && i == ra && re.rd == ra) {
                    EXPECT_EQ(cc.x[i] + 2, ce.x[i]);
                } else {
                    EXPECT_EQ(cc.x[i], ce.x[i]) << "x" << i;
                }
            }
            if (re.next_pc == 0x1004 && !re.trap) {
                EXPECT_EQ(rc.next_pc, 0x1002u);
            } else {
                EXPECT_EQ(rc.next_pc, re.next_pc);
            }
            EXPECT_TRUE(std::equal(bc.m.begin() + kData, bc.m.begin() + kData + 0x800, be.m.begin() + kData));
            EXPECT_EQ(cc.minstret, ce.minstret);
        }
    }
}

TEST_F(CpuCompressed, KnownValues) {
    Retire r = exec16(0x5501); // c.li a0,-32
    EXPECT_EQ(r.insn, 0x5501u);
    EXPECT_EQ(r.rd, a0);
    EXPECT_EQ(r.rd_val, 0xffffffe0u);
    EXPECT_EQ(r.next_pc, kCode + 2);
    EXPECT_EQ(exec16(0x7501).rd_val, 0xfffe0000u); // c.lui a0,0xfffe0
    EXPECT_EQ(exec16(0x6505).rd_val, 0x1000u);     // c.lui a0,1
    cpu.x[sp] = 0x5000;
    EXPECT_EQ(exec16(0x7101).rd_val, 0x4e00u); // c.addi16sp sp,-512
    EXPECT_EQ(exec16(0x1fe0).rd_val, 0x51fcu); // c.addi4spn s0,sp,1020
    cpu.x[a5] = 0x80000000;
    EXPECT_EQ(exec16(0x87fd).rd_val, 0xffffffffu); // c.srai a5,31
    cpu.x[a0] = 0x80000000;
    EXPECT_EQ(exec16(0x817d).rd_val, 1u); // c.srli a0,31
    cpu.x[a0] = 3;
    EXPECT_EQ(exec16(0x057e).rd_val, 0x80000000u); // c.slli a0,31
    cpu.x[a0] = 10;
    cpu.x[a1] = 13;
    EXPECT_EQ(exec16(0x8d0d).rd_val, 0xfffffffdu); // c.sub a0,a1
    EXPECT_EQ(exec16(0x852e).rd_val, 13u);         // c.mv a0,a1
    EXPECT_EQ(exec16(0x952e).rd_val, 26u);         // c.add a0,a1
    cpu.x[a2] = 0xff;
    EXPECT_EQ(exec16(0x8a55).rd_val, 21u); // c.andi a2,21
    // Stack-relative load and store.
    cpu.x[sp] = kData;
    cpu.x[a0] = 0xcafef00d;
    r = exec16(0xdfaa); // c.swsp a0,252(sp)
    EXPECT_EQ(r.mem_addr, kData + 252);
    EXPECT_EQ(bus.rd32(kData + 252), 0xcafef00du);
    bus.wr32(kData, 0x13579bdf);
    r = exec16(0x4f82); // c.lwsp t6,0(sp)
    EXPECT_EQ(r.mem_addr, kData);
    EXPECT_EQ(r.rd, t6);
    EXPECT_EQ(r.rd_val, 0x13579bdfu);
    // Links are pc + 2.
    cpu.pc = 0x1000;
    r = exec16(0x3ffd); // c.jal .-2
    EXPECT_EQ(r.rd, ra);
    EXPECT_EQ(r.rd_val, 0x1002u);
    EXPECT_EQ(r.next_pc, 0xffeu);
    cpu.pc = 0x1000;
    cpu.x[a0] = 0x301;
    r = exec16(0x9502); // c.jalr a0
    EXPECT_EQ(r.rd_val, 0x1002u);
    EXPECT_EQ(r.next_pc, 0x300u);
    cpu.pc = 0x1000;
    r = exec16(c_jr_ra);
    EXPECT_EQ(r.rd, 0);
    EXPECT_EQ(r.next_pc, 0x1002u);
    // Branches: taken to the offset, else pc + 2.
    cpu.pc = 0x1000;
    cpu.x[a0] = 0;
    EXPECT_EQ(exec16(0xcd7d).next_pc, 0x10feu); // c.beqz a0,.+254
    cpu.pc = 0x1000;
    cpu.x[a0] = 1;
    EXPECT_EQ(exec16(0xcd7d).next_pc, 0x1002u);
    cpu.pc = 0x1000;
    cpu.x[s0] = 1;
    EXPECT_EQ(exec16(0xf001).next_pc, 0xf00u); // c.bnez s0,.-256
}

TEST_F(CpuCompressed, Hints) {
    // HINTs execute as their expansion: nothing changes but pc.
    for (uint16_t c : {uint16_t(0x0001) /* c.nop */, uint16_t(0x0005) /* c.addi x0,1 */,
                       uint16_t(0x0501) /* c.addi a0,0 */, uint16_t(0x4015) /* c.li x0,5 */,
                       uint16_t(0x6005) /* c.lui x0,1 */, uint16_t(0x802e) /* c.mv x0,a1 */,
                       uint16_t(0x902e) /* c.add x0,a1 */, uint16_t(0x0502) /* c.slli a0,0 */,
                       uint16_t(0x8001) /* c.srli s0,0 */, uint16_t(0x8401) /* c.srai s0,0 */}) {
        SCOPED_TRACE(hex(c));
        for (unsigned i = 1; i < 32; ++i) cpu.x[i] = 0x80000000u | i;
        const uint32_t pc = cpu.pc;
        const Retire r = exec16(c);
        EXPECT_FALSE(r.trap);
        EXPECT_EQ(r.next_pc, pc + 2);
        for (unsigned i = 1; i < 32; ++i) EXPECT_EQ(cpu.x[i], 0x80000000u | i) << "x" << i;
        EXPECT_EQ(cpu.x[0], 0u);
    }
}

TEST_F(CpuCompressed, Ebreak) {
    cpu.pc = 0x1234;
    const Retire r = exec16(c_ebreak);
    expect_trap(r, kBreakpoint, 0x1234);
    EXPECT_EQ(r.insn, 0x9002u);
}

// --- illegal instructions ------------------------------------------------------

TEST_F(CpuIllegal, Opcodes32) {
    const uint32_t legal[] = {0x03, 0x0f, 0x13, 0x17, 0x23, 0x2f, 0x33, 0x37, 0x63, 0x67, 0x6f, 0x73};
    unsigned n = 0;
    for (uint32_t o = 0; o < 32; ++o) {
        const uint32_t opc = o << 2 | 3;
        if (std::find(std::begin(legal), std::end(legal), opc) != std::end(legal)) continue;
        const uint32_t insn = 0x00b50000u | opc; // something in rd/rs fields too
        SCOPED_TRACE(hex(insn));
        expect_no_effect_trap(kIllegalInsn, insn, insn, false);
        ++n;
    }
    EXPECT_EQ(n, 20u);
    expect_no_effect_trap(kIllegalInsn, 0xffffffff, 0xffffffff, false);
}

TEST_F(CpuIllegal, Funct3AndFunct7) {
    std::vector<uint32_t> bad;
    for (uint32_t f3 = 1; f3 < 8; ++f3) bad.push_back(I(0, a1, f3, a0, 0x67)); // JALR
    for (uint32_t f3 : {2u, 3u}) bad.push_back(B(8, a2, a1, f3));             // BRANCH
    for (uint32_t f3 : {3u, 6u, 7u}) bad.push_back(I(0, a1, f3, a0, 0x03));   // LOAD
    for (uint32_t f3 = 3; f3 < 8; ++f3) bad.push_back(S(0, a2, a1, f3));      // STORE
    for (uint32_t f7 : {0x01u, 0x20u, 0x40u, 0x7fu}) bad.push_back(R(f7, 3, a1, 1, a0, 0x13)); // SLLI
    for (uint32_t f7 : {0x01u, 0x21u, 0x40u, 0x60u, 0x7fu}) bad.push_back(R(f7, 3, a1, 5, a0, 0x13)); // SRLI/SRAI
    for (uint32_t f3 : {1u, 2u, 3u, 4u, 6u, 7u}) bad.push_back(R(0x20, a2, a1, f3, a0, 0x33)); // OP f7=0x20
    for (uint32_t f7 : {0x02u, 0x04u, 0x21u, 0x40u, 0x7fu})
        for (uint32_t f3 = 0; f3 < 8; ++f3) bad.push_back(R(f7, a2, a1, f3, a0, 0x33));
    for (uint32_t f3 = 2; f3 < 8; ++f3) bad.push_back(I(0, 0, f3, 0, 0x0f)); // MISC-MEM
    for (uint32_t insn : bad) {
        SCOPED_TRACE(hex(insn));
        expect_no_effect_trap(kIllegalInsn, insn, insn, false);
    }
}

TEST_F(CpuIllegal, SystemAndAmo) {
    const uint32_t bad[] = {
        0x000000f3, // ecall with rd = 1
        0x00058073, // ecall with rs1 = a1
        0x00200073, // uret
        0x10200073, // sret
        0x302000f3, // mret with rd = 1
        0x10500873, // wfi with rd = 16
        0x7b200073, // dret
        0x12000073, // sfence.vma
        0x00400073, // funct12 = 4
        0x00004073, // funct3 = 4
        0x3005c573, // funct3 = 4 with a CSR number
        R(0x01 << 2, a2, a1, 3, a0, 0x2f), // amoswap.d (funct3 = 3)
        R(0x00 << 2, a2, a1, 0, a0, 0x2f), // amoadd, funct3 = 0
        R(0x03 << 2, a2, a1, 1, a0, 0x2f), // sc, funct3 = 1
        R(0x02 << 2, 0, a1, 6, a0, 0x2f),  // lr, funct3 = 6
        amo(0x02, a0, a1, a2),             // lr.w with rs2 != 0
        amo(0x02, a0, a1, 1),
    };
    for (uint32_t insn : bad) {
        SCOPED_TRACE(hex(insn));
        expect_no_effect_trap(kIllegalInsn, insn, insn, false);
    }
    // Every funct5 outside LR, SC and the nine AMOs.
    const uint32_t ok[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x0c, 0x10, 0x14, 0x18, 0x1c};
    unsigned n = 0;
    for (uint32_t f5 = 0; f5 < 32; ++f5) {
        if (std::find(std::begin(ok), std::end(ok), f5) != std::end(ok)) continue;
        const uint32_t insn = amo(f5, a0, a1, a2);
        SCOPED_TRACE(hex(insn));
        expect_no_effect_trap(kIllegalInsn, insn, insn, false);
        ++n;
    }
    EXPECT_EQ(n, 21u);
}

TEST_F(CpuIllegal, Csrs) {
    // Not implemented, even for a read.
    for (uint32_t c : {0x000u, 0x001u, 0x180u, 0x302u, 0x303u, 0x306u, 0x310u, 0x320u, 0x34au, 0x3a0u, 0x3b0u,
                       0x7a0u, 0x7b0u, 0x7c0u, 0xb01u, 0xb03u, 0xb81u, 0xc01u, 0xc81u, 0xc03u, 0xf10u, 0xf15u,
                       0xfffu}) {
        SCOPED_TRACE(hex(c));
        expect_no_effect_trap(kIllegalInsn, csrr(a0, c), csrr(a0, c), false);
        expect_no_effect_trap(kIllegalInsn, csrrw(a0, c, a1), csrrw(a0, c, a1), false);
        expect_no_effect_trap(kIllegalInsn, csrrci(zero, c, 0), csrrci(zero, c, 0), false);
    }
    // Writes to read-only CSRs (csr[11:10] = 3), by every form that writes.
    for (uint32_t c : {0xc00u, 0xc80u, 0xc02u, 0xc82u, 0xf11u, 0xf12u, 0xf13u, 0xf14u}) {
        SCOPED_TRACE(hex(c));
        for (uint32_t insn : {csrrw(a0, c, a1), csrrw(zero, c, zero), csrrs(a0, c, a1), csrrc(zero, c, a1),
                              csrrwi(a0, c, 0), csrrsi(a0, c, 1), csrrci(zero, c, 31)})
            expect_no_effect_trap(kIllegalInsn, insn, insn, false);
    }
}

TEST_F(CpuIllegal, ReadOnlyCsrReadsAreLegal) {
    cpu.mcycle = 0x0000000500000007;
    cpu.minstret = 0x0000000900000003;
    for (uint32_t insn : {csrrs(a0, 0xc00, zero), csrrc(a0, 0xc00, zero), csrrsi(a0, 0xc00, 0), csrrci(a0, 0xc00, 0)}) {
        SCOPED_TRACE(hex(insn));
        const uint32_t before = uint32_t(cpu.mcycle);
        const Retire r = exec(insn);
        EXPECT_FALSE(r.trap);
        EXPECT_EQ(r.rd_val, before);
    }
    EXPECT_EQ(val(csrr(a0, 0xc80)), 5u);
    EXPECT_EQ(val(csrr(a0, 0xc82)), 9u);
    EXPECT_EQ(val(csrr(a0, 0xf14)), 0u);
}

TEST_F(CpuIllegal, Compressed) {
    const uint16_t bad[] = {
        0x0000,                                 // all zeros
        0x0004, 0x0010, 0x001c,                 // c.addi4spn, nzuimm = 0
        0x2000, 0x2004, 0x6000, 0x6ffc,         // c.fld, c.flw
        0x8000, 0x9ffc,                         // quadrant 0 funct3 100: reserved
        0xa000, 0xaffc, 0xe000, 0xeffc,         // c.fsd, c.fsw
        0x6501, 0x6f81, 0x6001,                 // c.lui a0 / t6 / x0, nzimm = 0
        0x6101,                                 // c.addi16sp, nzimm = 0
        0x9001, 0x907d,                         // c.srli shamt[5] = 1
        0x9401, 0x947d,                         // c.srai shamt[5] = 1
        0x1502, 0x1006,                         // c.slli shamt[5] = 1
        0x9c01, 0x9c21, 0x9c41, 0x9c61, 0x9ffd, // c.subw / c.addw / reserved
        0x4002, 0x5002, 0x407e,                 // c.lwsp rd = 0
        0x8002,                                 // c.jr rs1 = 0
        0x2002, 0x3ffe, 0x6002, 0x6106, 0xa002, 0xbffe, 0xe002, 0xfffe, // FP loads/stores from sp
    };
    for (uint16_t c : bad) {
        SCOPED_TRACE(hex(c));
        expect_no_effect_trap(kIllegalInsn, c, c, true);
    }
}

// --- data access traps ---------------------------------------------------------

TEST_F(CpuMemTrap, Misaligned) {
    const uint32_t base = preset(a1); // 4-aligned
    const struct {
        uint32_t insn;
        uint32_t cause, addr;
    } cases[] = {
        {lw(a0, a1, 2), kLoadMisaligned, base + 2},
        {lw(a0, a1, 1), kLoadMisaligned, base + 1},
        {lw(a0, a1, -1), kLoadMisaligned, base - 1},
        {lh(a0, a1, 1), kLoadMisaligned, base + 1},
        {lhu(a0, a1, 3), kLoadMisaligned, base + 3},
        {sw(a2, a1, 2), kStoreMisaligned, base + 2},
        {sw(a2, a1, 1), kStoreMisaligned, base + 1},
        {sh(a2, a1, -1), kStoreMisaligned, base - 1},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(hex(c.insn));
        expect_no_effect_trap(c.cause, c.addr, c.insn, false);
    }
    // Byte accesses are never misaligned.
    cpu.pc = kCode;
    cpu.x[a1] = kData + 3;
    EXPECT_FALSE(exec(lb(a0, a1, 0)).trap);
    EXPECT_FALSE(exec(sb(a0, a1, 0)).trap);
}

TEST_F(CpuMemTrap, MisalignedAtomics) {
    for (uint32_t f5 : {0x02u, 0x03u, 0x01u, 0x00u, 0x04u, 0x0cu, 0x08u, 0x10u, 0x14u, 0x18u, 0x1cu}) {
        const uint32_t insn = amo(f5, a0, a1, f5 == 0x02 ? 0 : a2);
        cpu.pc = kCode;
        cpu.x[a0] = 0x55;
        cpu.x[a1] = kData + 2;
        cpu.resv_valid = true;
        cpu.resv_addr = kData + 2;
        const unsigned loads = bus.loads, stores = bus.stores;
        const uint64_t instret = cpu.minstret;
        SCOPED_TRACE(hex(insn));
        const Retire r = exec(insn);
        expect_trap(r, f5 == 0x02 ? kLoadMisaligned : kStoreMisaligned, kData + 2);
        EXPECT_FALSE(r.mem);
        EXPECT_EQ(cpu.x[a0], 0x55u);
        EXPECT_EQ(bus.loads, loads);
        EXPECT_EQ(bus.stores, stores);
        EXPECT_EQ(cpu.minstret, instret);
        EXPECT_TRUE(cpu.resv_valid); // traps leave the reservation alone
        EXPECT_EQ(cpu.resv_addr, kData + 2);
    }
}

TEST_F(CpuMemTrap, AccessFaults) {
    cpu.x[a2] = 0x11223344;
    const struct {
        uint32_t insn, base, cause;
        bool we;
        uint8_t size;
        uint32_t wdata;
    } cases[] = {
        {lw(a0, a1, 0), kFaultLo, kLoadAccessFault, false, 4, 0},
        {lb(a0, a1, 0), kFaultHi - 1, kLoadAccessFault, false, 1, 0},
        {lhu(a0, a1, 0), 0x20000, kLoadAccessFault, false, 2, 0},
        {lw(a0, a1, 0), 0xfffffffc, kLoadAccessFault, false, 4, 0},
        {sw(a2, a1, 0), kFaultLo + 4, kStoreAccessFault, true, 4, 0x11223344},
        {sh(a2, a1, 0), kFaultLo + 2, kStoreAccessFault, true, 2, 0x3344},
        {sb(a2, a1, 0), kMemSize, kStoreAccessFault, true, 1, 0x44},
        {lr(a0, a1), kFaultLo, kLoadAccessFault, false, 4, 0},
        // An AMO's load faults as a store/AMO access fault.
        {amo(0x00, a0, a1, a2), kFaultLo, kStoreAccessFault, false, 4, 0},
        {amo(0x01, a0, a1, a2), kFaultLo + 0x10, kStoreAccessFault, false, 4, 0},
        {amo(0x1c, a0, a1, a2), 0x20000, kStoreAccessFault, false, 4, 0},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(hex(c.insn));
        cpu.pc = kCode;
        cpu.x[a0] = 0x55;
        cpu.x[a1] = c.base;
        const uint64_t instret = cpu.minstret;
        const Retire r = exec(c.insn);
        expect_trap(r, c.cause, c.base);
        EXPECT_EQ(cpu.x[a0], 0x55u);
        EXPECT_EQ(cpu.minstret, instret);
        // The faulting access is reported.
        EXPECT_TRUE(r.mem);
        EXPECT_EQ(r.mem_we, c.we);
        EXPECT_EQ(r.mem_addr, c.base);
        EXPECT_EQ(r.mem_size, c.size);
        EXPECT_EQ(r.mem_wdata, c.wdata);
    }
    EXPECT_FALSE(cpu.resv_valid); // the faulting LR set no reservation
}

TEST_F(CpuMemTrap, ScStoreFault) {
    cpu.x[a1] = kFaultLo;
    cpu.x[a2] = 7;
    cpu.resv_valid = true;
    cpu.resv_addr = kFaultLo;
    const Retire r = exec(sc(a0, a1, a2));
    expect_trap(r, kStoreAccessFault, kFaultLo);
    EXPECT_TRUE(r.mem && r.mem_we);
    EXPECT_EQ(r.mem_wdata, 7u);
    EXPECT_FALSE(cpu.resv_valid); // the SC reached the bus: its reservation is spent
    // No reservation: SC fails without touching memory, so no fault.
    cpu.pc = kCode;
    cpu.resv_valid = false;
    const Retire f = exec(sc(a0, a1, a2));
    EXPECT_FALSE(f.trap);
    EXPECT_FALSE(f.mem);
    EXPECT_EQ(f.rd_val, 1u);
}

// --- fetch ---------------------------------------------------------------------

TEST_F(CpuFetch, StraddlesWordBoundary) {
    bus.wr16(kCode, c_nop);
    bus.wr32(kCode + 2, addi(a0, zero, 1234)); // bytes 0x102..0x105
    EXPECT_FALSE(cpu.step().trap);
    const Retire r = cpu.step();
    EXPECT_EQ(r.pc, kCode + 2);
    EXPECT_EQ(r.insn, addi(a0, zero, 1234));
    EXPECT_EQ(r.rd_val, 1234u);
    EXPECT_EQ(r.next_pc, kCode + 6);
    // A compressed instruction after it at 0x106.
    bus.wr16(kCode + 6, 0x852e); // c.mv a0,a1
    cpu.x[a1] = 99;
    EXPECT_EQ(cpu.step().next_pc, kCode + 8);
    EXPECT_EQ(cpu.x[a0], 99u);
}

TEST_F(CpuFetch, AccessFaults) {
    cpu.pc = kFaultLo + 0x10;
    Retire r = cpu.step();
    expect_trap(r, kInsnAccessFault, kFaultLo + 0x10);
    EXPECT_EQ(r.insn, 0u);
    EXPECT_EQ(cpu.minstret, 0u);
    // The second parcel of a 32-bit instruction faults: tval is its address.
    bus.wr16(kFaultLo - 2, uint16_t(addi(a0, zero, 1)));
    cpu.pc = kFaultLo - 2;
    r = cpu.step();
    expect_trap(r, kInsnAccessFault, kFaultLo);
    EXPECT_EQ(r.pc, kFaultLo - 2);
    EXPECT_EQ(r.insn, 0u);
    EXPECT_EQ(cpu.x[a0], 0u);
    // A compressed instruction right below the hole runs fine.
    bus.wr16(kFaultLo - 2, 0x4505); // c.li a0,1
    cpu.pc = kFaultLo - 2;
    r = cpu.step();
    EXPECT_FALSE(r.trap);
    EXPECT_EQ(cpu.x[a0], 1u);
    // Fetching past the end of memory.
    cpu.pc = 0xfffffffe;
    expect_trap(cpu.step(), kInsnAccessFault, 0xfffffffe);
}

// --- traps, CSRs, counters -----------------------------------------------------

TEST_F(CpuTrap, EcallEbreakMretRoundTrip) {
    cpu.mtval = 0xdeadbeef;
    EXPECT_EQ(val(csrrsi(zero, csr::mstatus, 8)), 0u); // MIE = 1
    EXPECT_TRUE(cpu.mie);
    EXPECT_EQ(val(csrr(a0, csr::mstatus)), 0x1808u);
    const uint32_t at = cpu.pc;
    Retire r = exec(ecall());
    expect_trap(r, kEcallM, 0);
    EXPECT_EQ(cpu.mepc, at);
    EXPECT_FALSE(cpu.mie);
    EXPECT_TRUE(cpu.mpie);
    EXPECT_EQ(val(csrr(a0, csr::mstatus)), 0x1880u);
    EXPECT_EQ(val(csrr(a1, csr::mepc)), at);
    EXPECT_EQ(val(csrr(a2, csr::mcause)), 11u);
    EXPECT_EQ(val(csrr(a3, csr::mtval)), 0u);
    // Skip the ECALL and return.
    EXPECT_EQ(val(addi(a1, a1, 4)), at + 4);
    EXPECT_EQ(val(csrw(csr::mepc, a1)), 0u);
    const uint32_t mret_pc = cpu.pc;
    r = exec(mret());
    EXPECT_FALSE(r.trap);
    EXPECT_EQ(r.pc, mret_pc);
    EXPECT_EQ(r.rd, 0);
    EXPECT_EQ(r.next_pc, at + 4);
    EXPECT_TRUE(cpu.mie);
    EXPECT_TRUE(cpu.mpie);
    EXPECT_EQ(val(csrr(a0, csr::mstatus)), 0x1888u);
    // EBREAK reports its own pc; MIE = 1 goes to MPIE again.
    const uint32_t bp = cpu.pc;
    r = exec(ebreak());
    expect_trap(r, kBreakpoint, bp);
    EXPECT_EQ(r.insn, ebreak());
    EXPECT_EQ(val(csrr(a0, csr::mstatus)), 0x1880u);
    // MRET with MPIE = 0 clears MIE and sets MPIE.
    cpu.mpie = false;
    cpu.mie = true;
    cpu.mepc = 0x300;
    r = exec(mret());
    EXPECT_EQ(r.next_pc, 0x300u);
    EXPECT_FALSE(cpu.mie);
    EXPECT_TRUE(cpu.mpie);
}

TEST_F(CpuTrap, TrapsDoNotRetire) {
    EXPECT_FALSE(exec(addi(a0, zero, 1)).trap);
    EXPECT_EQ(cpu.minstret, 1u);
    EXPECT_EQ(cpu.mcycle, 1u);
    cpu.pc = kCode;
    exec(ecall());
    cpu.pc = kCode;
    exec(ebreak());
    cpu.pc = kCode;
    exec(0);
    EXPECT_EQ(cpu.minstret, 1u);
    EXPECT_EQ(cpu.mcycle, 4u); // mcycle counts every step
}

TEST_F(CpuTrap, VectorAndEpcAlignment) {
    cpu.x[a1] = 0x203;
    EXPECT_EQ(val(csrrw(a0, csr::mtvec, a1)), kTrapVec);
    EXPECT_EQ(cpu.mtvec, 0x200u);
    EXPECT_EQ(val(csrr(a0, csr::mtvec)), 0x200u);
    cpu.x[a1] = 0x301;
    exec(csrw(csr::mepc, a1));
    EXPECT_EQ(val(csrr(a0, csr::mepc)), 0x300u);
    const uint32_t at = cpu.pc;
    const Retire r = exec(0xffffffff);
    EXPECT_EQ(r.next_pc, 0x200u);
    EXPECT_EQ(cpu.mepc, at);
    EXPECT_EQ(cpu.mcause, 2u);
    EXPECT_EQ(cpu.mtval, 0xffffffffu);
}

TEST_F(CpuCsr, ReadWriteSemantics) {
    // mstatus: only MIE and MPIE are writable, MPP reads 3.
    cpu.x[a1] = 0xffffffff;
    EXPECT_EQ(val(csrrw(a0, csr::mstatus, a1)), 0x1800u);
    EXPECT_EQ(val(csrr(a0, csr::mstatus)), 0x1888u);
    EXPECT_EQ(val(csrrw(a0, csr::mstatus, zero)), 0x1888u);
    EXPECT_EQ(val(csrr(a0, csr::mstatus)), 0x1800u);
    EXPECT_EQ(val(csrrsi(a0, csr::mstatus, 0x8)), 0x1800u);
    EXPECT_EQ(val(csrrci(a0, csr::mstatus, 0x8)), 0x1808u);
    // misa, mie, mip: fixed, writes ignored without a trap.
    EXPECT_EQ(val(csrrw(a0, csr::misa, a1)), 0x40001105u);
    EXPECT_EQ(val(csrr(a0, csr::misa)), 0x40001105u);
    EXPECT_EQ(val(csrrw(a0, csr::mie, a1)), 0u);
    EXPECT_EQ(val(csrrs(a0, csr::mie, a1)), 0u);
    EXPECT_EQ(val(csrrwi(a0, csr::mip, 31)), 0u);
    EXPECT_EQ(val(csrr(a0, csr::mip)), 0u);
    // mscratch, mcause, mtval: all 32 bits.
    cpu.x[a1] = 0xf0f0f0f0;
    EXPECT_EQ(val(csrrw(a0, csr::mscratch, a1)), 0u);
    cpu.x[a2] = 0x0000ffff;
    EXPECT_EQ(val(csrrs(a0, csr::mscratch, a2)), 0xf0f0f0f0u);
    EXPECT_EQ(cpu.mscratch, 0xf0f0ffffu);
    EXPECT_EQ(val(csrrc(a0, csr::mscratch, a1)), 0xf0f0ffffu);
    EXPECT_EQ(cpu.mscratch, 0x00000f0fu);
    EXPECT_EQ(val(csrrwi(a0, csr::mscratch, 31)), 0x00000f0fu);
    EXPECT_EQ(cpu.mscratch, 31u);
    EXPECT_EQ(val(csrrci(a0, csr::mscratch, 1)), 31u);
    EXPECT_EQ(cpu.mscratch, 30u);
    cpu.x[a1] = 0xffffffff;
    exec(csrw(csr::mcause, a1));
    EXPECT_EQ(cpu.mcause, 0xffffffffu);
    exec(csrw(csr::mtval, a1));
    EXPECT_EQ(val(csrr(a0, csr::mtval)), 0xffffffffu);
    // CSRRW with rd = x0 writes; reports no register.
    cpu.x[a1] = 77;
    const Retire r = exec(csrrw(zero, csr::mscratch, a1));
    EXPECT_EQ(r.rd, 0);
    EXPECT_EQ(cpu.mscratch, 77u);
    // rd == rs1: old value to rd, the write uses rs1's old value.
    cpu.x[a1] = 5;
    EXPECT_EQ(val(csrrw(a1, csr::mscratch, a1)), 77u);
    EXPECT_EQ(cpu.mscratch, 5u);
    // Machine information registers read 0.
    for (uint32_t c : {0xf11u, 0xf12u, 0xf13u, 0xf14u}) EXPECT_EQ(val(csrr(a0, c)), 0u);
}

TEST_F(CpuCounters, InstretAndCycle) {
    EXPECT_EQ(val(addi(a0, zero, 1)), 1u);
    EXPECT_EQ(val(addi(a0, zero, 2)), 2u);
    // A read sees the count before the reading instruction retires.
    EXPECT_EQ(val(csrr(a0, csr::minstret)), 2u);
    EXPECT_EQ(val(csrr(a0, csr::instret)), 3u);
    EXPECT_EQ(val(csrr(a0, csr::mcycle)), 4u);
    EXPECT_EQ(val(csrr(a0, csr::cycle)), 5u);
    EXPECT_EQ(cpu.minstret, 6u);
    EXPECT_EQ(cpu.mcycle, 6u);
    // The high halves.
    cpu.mcycle = 0x00000001ffffffffull;
    cpu.minstret = 0x00000002fffffffdull; // the mcycleh read below counts too
    EXPECT_EQ(val(csrr(a0, csr::mcycleh)), 1u);
    EXPECT_EQ(val(csrr(a0, csr::instreth)), 2u);
    EXPECT_EQ(val(csrr(a0, csr::minstret)), 0xffffffffu);
    EXPECT_EQ(val(csrr(a0, csr::minstreth)), 3u); // carried
    EXPECT_EQ(val(csrr(a0, csr::cycleh)), 2u);
}

TEST_F(CpuCounters, WritesSuppressTheIncrement) {
    cpu.x[a1] = 100;
    exec(csrw(csr::minstret, a1));
    EXPECT_EQ(cpu.minstret, 100u);
    EXPECT_EQ(cpu.mcycle, 1u); // only minstret was written
    exec(addi(a0, zero, 0));
    EXPECT_EQ(cpu.minstret, 101u);
    cpu.x[a1] = 5;
    exec(csrw(csr::minstreth, a1));
    EXPECT_EQ(cpu.minstret, 0x0000000500000065ull);
    cpu.x[a1] = 1000;
    exec(csrw(csr::mcycle, a1));
    EXPECT_EQ(cpu.mcycle, 1000u);
    EXPECT_EQ(cpu.minstret, 0x0000000500000066ull); // still counts this one
    exec(csrw(csr::mcycleh, a1));
    EXPECT_EQ(cpu.mcycle, 0x000003e8000003e8ull);
    exec(addi(a0, zero, 0));
    EXPECT_EQ(cpu.mcycle, 0x000003e8000003e9ull);
    // Set/clear forms write too; with rs1 = x0 / uimm = 0 they do not.
    cpu.minstret = 0x10;
    exec(csrrsi(a0, csr::minstret, 1));
    EXPECT_EQ(cpu.minstret, 0x11u);
    exec(csrrci(a0, csr::minstret, 1));
    EXPECT_EQ(cpu.minstret, 0x10u);
    exec(csrrs(a0, csr::minstret, zero));
    EXPECT_EQ(cpu.minstret, 0x11u);
    exec(csrrci(a0, csr::minstret, 0));
    EXPECT_EQ(cpu.minstret, 0x12u);
    cpu.x[a1] = 0;
    exec(csrrc(a0, csr::minstret, a1)); // rs1 = a1 holds 0 but is not x0: a write
    EXPECT_EQ(cpu.minstret, 0x12u);
    // A write of the value it has still counts as a write.
    cpu.mcycle = 50;
    cpu.x[a1] = 50;
    exec(csrw(csr::mcycle, a1));
    EXPECT_EQ(cpu.mcycle, 50u);
    // An illegal write to the read-only shadow changes nothing.
    cpu.pc = kCode;
    const uint64_t c = cpu.mcycle, i = cpu.minstret;
    exec(csrw(csr::cycle, a1));
    EXPECT_EQ(cpu.minstret, i);
    EXPECT_EQ(cpu.mcycle, c + 1);
}

// --- A -------------------------------------------------------------------------

TEST_F(CpuAtomic, LrScSuccessAndFailure) {
    bus.wr32(kData, 5);
    cpu.x[a1] = kData;
    cpu.x[a2] = 0xabcd;
    Retire r = exec(lr(a0, a1));
    EXPECT_EQ(r.rd_val, 5u);
    EXPECT_TRUE(r.mem);
    EXPECT_FALSE(r.mem_we);
    EXPECT_EQ(r.mem_addr, kData);
    EXPECT_EQ(r.mem_size, 4);
    EXPECT_TRUE(cpu.resv_valid);
    EXPECT_EQ(cpu.resv_addr, kData);
    r = exec(sc(a3, a1, a2));
    EXPECT_FALSE(r.trap);
    EXPECT_EQ(r.rd, a3);
    EXPECT_EQ(r.rd_val, 0u);
    EXPECT_TRUE(r.mem && r.mem_we);
    EXPECT_EQ(r.mem_addr, kData);
    EXPECT_EQ(r.mem_size, 4);
    EXPECT_EQ(r.mem_wdata, 0xabcdu);
    EXPECT_EQ(bus.rd32(kData), 0xabcdu);
    EXPECT_FALSE(cpu.resv_valid);
    // Again without a reservation: fails, no access.
    const unsigned stores = bus.stores, loads = bus.loads;
    cpu.x[a2] = 1;
    r = exec(sc(a3, a1, a2));
    EXPECT_EQ(r.rd, a3);
    EXPECT_EQ(r.rd_val, 1u);
    EXPECT_FALSE(r.mem);
    EXPECT_EQ(bus.stores, stores);
    EXPECT_EQ(bus.loads, loads);
    EXPECT_EQ(bus.rd32(kData), 0xabcdu);
    // A reservation on another address: fails and is cleared.
    exec(lr(a0, a1));
    cpu.x[a4] = kData + 4;
    r = exec(sc(a3, a4, a2));
    EXPECT_EQ(r.rd_val, 1u);
    EXPECT_FALSE(cpu.resv_valid);
    r = exec(sc(a3, a1, a2));
    EXPECT_EQ(r.rd_val, 1u);
    // SC into x0 still stores.
    exec(lr(zero, a1));
    r = exec(sc(zero, a1, a2));
    EXPECT_EQ(r.rd, 0);
    EXPECT_TRUE(r.mem_we);
    EXPECT_EQ(bus.rd32(kData), 1u);
}

TEST_F(CpuAtomic, ReservationSurvivesTrapsAndStores) {
    cpu.x[a1] = kData;
    cpu.x[a2] = 9;
    exec(lr(a0, a1));
    exec(sw(a2, a1, 0)); // plain stores do not touch the reservation
    const uint32_t back = cpu.pc;
    exec(ecall());
    EXPECT_TRUE(cpu.resv_valid);
    cpu.pc = back;
    exec(0); // illegal
    cpu.pc = back;
    cpu.x[a4] = kData + 2;
    exec(sc(a3, a4, a2)); // misaligned SC
    EXPECT_TRUE(cpu.resv_valid);
    cpu.pc = back;
    const Retire r = exec(sc(a3, a1, a2));
    EXPECT_FALSE(r.trap);
    EXPECT_EQ(r.rd_val, 0u);
    // An LR elsewhere moves the reservation.
    exec(lr(a0, a1));
    exec(lr(a0, a4)); // a4 is misaligned: traps, keeps kData
    EXPECT_EQ(cpu.resv_addr, kData);
    cpu.pc = back;
    cpu.x[a4] = kData + 8;
    exec(lr(a0, a4));
    EXPECT_EQ(cpu.resv_addr, kData + 8);
    EXPECT_EQ(exec(sc(a3, a1, a2)).rd_val, 1u);
}

TEST_F(CpuAtomic, EachAmo) {
    const uint32_t m = 0x80000003, s = 0x7ffffff1;
    const struct {
        uint32_t f5, result;
        const char *name;
    } cases[] = {
        {0x01, s, "amoswap"},           {0x00, 0xfffffff4, "amoadd"},
        {0x04, 0xfffffff2, "amoxor"},   {0x0c, 0x00000001, "amoand"},
        {0x08, 0xfffffff3, "amoor"},    {0x10, m, "amomin"},
        {0x14, s, "amomax"},            {0x18, s, "amominu"},
        {0x1c, m, "amomaxu"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.name);
        bus.wr32(kData + 16, m);
        cpu.x[a1] = kData + 16;
        cpu.x[a2] = s;
        const uint32_t insn = amo(c.f5, a0, a1, a2) | 3u << 25; // aq/rl ignored
        const Retire r = exec(insn);
        EXPECT_FALSE(r.trap);
        EXPECT_EQ(r.rd, a0);
        EXPECT_EQ(r.rd_val, m);
        EXPECT_TRUE(r.mem);
        EXPECT_TRUE(r.mem_we);
        EXPECT_EQ(r.mem_addr, kData + 16);
        EXPECT_EQ(r.mem_size, 4);
        EXPECT_EQ(r.mem_wdata, c.result);
        EXPECT_EQ(bus.rd32(kData + 16), c.result);
    }
    // Signed and unsigned min/max differ on the sign bit only.
    bus.wr32(kData, 0xffffffff);
    cpu.x[a1] = kData;
    cpu.x[a2] = 1;
    exec(amo(0x10, a0, a1, a2));
    EXPECT_EQ(bus.rd32(kData), 0xffffffffu);
    exec(amo(0x18, a0, a1, a2));
    EXPECT_EQ(bus.rd32(kData), 1u);
    // rd == rs2: the stored value is the old register.
    bus.wr32(kData, 10);
    cpu.x[a0] = 20;
    exec(amo(0x01, a0, a1, a0));
    EXPECT_EQ(cpu.x[a0], 10u);
    EXPECT_EQ(bus.rd32(kData), 20u);
    // rd = x0 still stores.
    const Retire r = exec(amo(0x00, zero, a1, a0));
    EXPECT_EQ(r.rd, 0);
    EXPECT_EQ(bus.rd32(kData), 30u);
}

// --- whole programs ------------------------------------------------------------

TEST_F(CpuProgram, SumLoop) {
    const uint32_t prog[] = {
        addi(a0, zero, 0),
        addi(a1, zero, 100),
        add(a0, a0, a1),     // loop:
        addi(a1, a1, -1),
        bne(a1, zero, -8),
        ebreak(),
    };
    for (unsigned i = 0; i < 6; ++i) bus.wr32(kCode + 4 * i, prog[i]);
    Retire r;
    unsigned steps = 0;
    do r = cpu.step();
    while (!r.trap && ++steps < 1000);
    EXPECT_EQ(r.cause, kBreakpoint);
    EXPECT_EQ(r.pc, kCode + 20);
    EXPECT_EQ(cpu.x[a0], 5050u);
    EXPECT_EQ(cpu.minstret, 302u);
    EXPECT_EQ(cpu.mcycle, 303u);
}

TEST_F(CpuProgram, MemcpyCallWithCompressed) {
    // main:   addi a0, zero, dst     ; 32-bit
    //         addi a1, zero, src
    //         c.li a2, 16             ; words
    //         jal  ra, memcpy
    //         ecall
    // memcpy: c.lw a3, 0(a1)         ; loop
    //         c.sw a3, 0(a0)
    //         c.addi a0, 4
    //         c.addi a1, 4
    //         c.addi a2, -1
    //         c.bnez a2, loop         ; -10
    //         c.jr ra
    std::vector<uint16_t> p;
    const auto w32 = [&](uint32_t v) {
        p.push_back(uint16_t(v));
        p.push_back(uint16_t(v >> 16));
    };
    w32(addi(a0, zero, 0x600));
    w32(addi(a1, zero, 0x500));
    p.push_back(0x4641); // c.li a2,16
    w32(jal(ra, 8));     // to memcpy, over the ecall
    w32(ecall());
    // memcpy, at kCode + 18 (the jal and the ecall straddle words)
    p.push_back(0x4194); // c.lw a3,0(a1)
    p.push_back(0xc114); // c.sw a3,0(a0)
    p.push_back(0x0511); // c.addi a0,4
    p.push_back(0x0591); // c.addi a1,4
    p.push_back(0x167d); // c.addi a2,-1
    p.push_back(0xfa7d); // c.bnez a2,.-10
    p.push_back(c_jr_ra);
    for (size_t i = 0; i < p.size(); ++i) bus.wr16(kCode + 2 * uint32_t(i), p[i]);
    for (uint32_t i = 0; i < 16; ++i) bus.wr32(0x500 + 4 * i, 0x01010101u * i + 0xa0000000u);
    Retire r;
    unsigned steps = 0;
    do r = cpu.step();
    while (!r.trap && ++steps < 1000);
    EXPECT_EQ(r.cause, kEcallM);
    EXPECT_EQ(r.pc, kCode + 14);
    for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(bus.rd32(0x600 + 4 * i), 0x01010101u * i + 0xa0000000u) << i;
    EXPECT_EQ(bus.rd32(0x640), 0u);
    EXPECT_EQ(cpu.x[a0], 0x640u);
    EXPECT_EQ(cpu.x[a2], 0u);
    EXPECT_EQ(cpu.x[ra], kCode + 14);
    EXPECT_EQ(cpu.minstret, 4u + 16 * 6 + 1);
}

TEST_F(CpuCompressed, ProgramParcelsMatchAssembler) {
    // The hand-assembled parcels above, decoded.
    EXPECT_EQ(expand_rvc(0x4641), addi(a2, zero, 16));
    EXPECT_EQ(expand_rvc(0x4194), lw(a3, a1, 0));
    EXPECT_EQ(expand_rvc(0xc114), sw(a3, a0, 0));
    EXPECT_EQ(expand_rvc(0x0511), addi(a0, a0, 4));
    EXPECT_EQ(expand_rvc(0x0591), addi(a1, a1, 4));
    EXPECT_EQ(expand_rvc(0x167d), addi(a2, a2, -1));
    EXPECT_EQ(expand_rvc(0xfa7d), bne(a2, zero, -10));
}

// --- ELF loader ----------------------------------------------------------------

namespace {
struct TempFile {
    std::string path;
    explicit TempFile(const std::vector<uint8_t> &bytes) {
        char p[] = "/tmp/kite_cpu_elf_XXXXXX";
        const int fd = mkstemp(p);
        EXPECT_GE(fd, 0);
        if (!bytes.empty()) {
            EXPECT_EQ(write(fd, bytes.data(), bytes.size()), ssize_t(bytes.size()));
        }
        close(fd);
        path = p;
    }
    ~TempFile() { unlink(path.c_str()); }
};

void put16le(std::vector<uint8_t> &b, size_t o, uint16_t v) {
    b[o] = uint8_t(v);
    b[o + 1] = uint8_t(v >> 8);
}
void put32le(std::vector<uint8_t> &b, size_t o, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[o + i] = uint8_t(v >> (8 * i));
}

// An ELF32 RISC-V executable with three program headers: a load segment
// whose LMA (0x200) differs from its VMA (0x10000000) and that has 8 bytes
// of .bss (zeroed at the VMA, after the 4 bytes of .data), a PT_NOTE, and a
// 2-byte text segment at 0.
std::vector<uint8_t> tiny_elf() {
    std::vector<uint8_t> b(52 + 3 * 32 + 8, 0);
    b[0] = 0x7f, b[1] = 'E', b[2] = 'L', b[3] = 'F', b[4] = 1, b[5] = 1, b[6] = 1;
    put16le(b, 16, 2);   // ET_EXEC
    put16le(b, 18, 243); // EM_RISCV
    put32le(b, 20, 1);
    put32le(b, 24, 0x1234); // entry
    put32le(b, 28, 52);     // phoff
    put16le(b, 40, 52);
    put16le(b, 42, 32);
    put16le(b, 44, 3);
    const size_t data = 52 + 3 * 32;
    size_t ph = 52;
    put32le(b, ph, 1), put32le(b, ph + 4, data), put32le(b, ph + 8, 0x10000000), put32le(b, ph + 12, 0x200);
    put32le(b, ph + 16, 4), put32le(b, ph + 20, 12);
    ph += 32;
    put32le(b, ph, 4), put32le(b, ph + 4, data), put32le(b, ph + 12, 0x900), put32le(b, ph + 16, 8);
    put32le(b, ph + 20, 8);
    ph += 32;
    put32le(b, ph, 1), put32le(b, ph + 4, data + 4), put32le(b, ph + 16, 2), put32le(b, ph + 20, 2);
    b[data] = 0x11, b[data + 1] = 0x22, b[data + 2] = 0x33, b[data + 3] = 0x44;
    b[data + 4] = 0x01, b[data + 5] = 0x00;
    return b;
}
} // namespace

TEST(CpuElf, LoadsAtPhysicalAddressAndZeroFills) {
    TempFile f(tiny_elf());
    std::map<uint32_t, uint8_t> mem;
    uint32_t entry = 0;
    std::string err;
    ASSERT_TRUE(load_elf(
        f.path,
        [&](uint32_t a, const uint8_t *d, size_t n) {
            for (size_t i = 0; i < n; ++i) EXPECT_TRUE(mem.emplace(a + uint32_t(i), d[i]).second);
        },
        entry, err))
        << err;
    EXPECT_EQ(entry, 0x1234u);
    const std::map<uint32_t, uint8_t> want = {
        {0x200, 0x11},     {0x201, 0x22},     {0x202, 0x33},     {0x203, 0x44},
        {0x10000004, 0},   {0x10000005, 0},   {0x10000006, 0},   {0x10000007, 0},
        {0x10000008, 0},   {0x10000009, 0},   {0x1000000a, 0},   {0x1000000b, 0},
        {0x0, 0x01},       {0x1, 0x00},
    };
    EXPECT_EQ(mem, want);
}

TEST(CpuElf, Errors) {
    uint32_t entry = 0;
    std::string err;
    const auto noop = [](uint32_t, const uint8_t *, size_t) {};
    EXPECT_FALSE(load_elf("/nonexistent/kite.elf", noop, entry, err));
    EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
    const auto expect_err = [&](std::vector<uint8_t> b, const char *what) {
        TempFile f(b);
        err.clear();
        EXPECT_FALSE(load_elf(f.path, noop, entry, err)) << what;
        EXPECT_NE(err.find(what), std::string::npos) << err;
    };
    expect_err({}, "too short");
    auto b = tiny_elf();
    b[1] = 'X';
    expect_err(b, "not an ELF file");
    b = tiny_elf();
    b[4] = 2;
    expect_err(b, "ELFCLASS32");
    b = tiny_elf();
    b[5] = 2;
    expect_err(b, "little-endian");
    b = tiny_elf();
    put16le(b, 16, 1);
    expect_err(b, "ET_EXEC");
    b = tiny_elf();
    put16le(b, 18, 62);
    expect_err(b, "EM_RISCV");
    b = tiny_elf();
    put32le(b, 52 + 16, 0x1000);
    put32le(b, 52 + 20, 0x1000);
    expect_err(b, "past end of file");
    b = tiny_elf();
    put32le(b, 52 + 16, 16);
    expect_err(b, "p_filesz > p_memsz");
    b = tiny_elf();
    put16le(b, 44, 0);
    expect_err(b, "no program headers");
    b = tiny_elf();
    put32le(b, 52, 0);
    put32le(b, 52 + 64, 0);
    expect_err(b, "no PT_LOAD");
}
