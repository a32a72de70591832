// SPDX-License-Identifier: MIT
// Instruction-set simulator of the Kite control CPU (fpga/rtl/cpu/kite_cpu.sv):
// RV32IMAC + Zicsr, machine mode only, no interrupts. The RTL testbench steps
// this and the core side by side and compares every Retire, so the behaviour
// here is the reference: every corner (illegal encodings, trap causes, counter
// writes, reservation rules) is deliberate, not whatever was easiest.
// An include guard, not #pragma once: the header is also compiled on its own
// (-fsyntax-only), where GCC warns about #pragma once in the main file.
#ifndef KITE_CPU_RV32_HPP
#define KITE_CPU_RV32_HPP

#include <cstdint>

namespace kite::cpu {

// The core's memory. false = access fault.
struct Bus {
    virtual bool fetch(uint32_t addr, uint16_t &half) = 0;              // one 16-bit parcel, addr even
    virtual bool load(uint32_t addr, unsigned size, uint32_t &val) = 0; // size 1,2,4, aligned; zero-extended
    virtual bool store(uint32_t addr, unsigned size, uint32_t val) = 0; // low `size` bytes of val
    virtual ~Bus() = default;
};

// What one step did, for comparison with the RTL's retire port.
struct Retire {
    uint32_t pc = 0;
    uint32_t insn = 0;  // 16-bit parcel zero-extended for compressed; 0 if the fetch faulted
    bool trap = false;
    uint32_t cause = 0, tval = 0;
    uint8_t rd = 0;     // 0 = no register written (x0 writes included)
    uint32_t rd_val = 0;
    // The data access made (an AMO reports its store). On a trap, the access
    // that faulted: an access fault reports it (an AMO whose load faulted with
    // mem_we = 0), a misaligned one was never made, so mem = false.
    bool mem = false, mem_we = false;
    uint32_t mem_addr = 0;
    uint8_t mem_size = 0;
    uint32_t mem_wdata = 0; // the low mem_size bytes only, upper bytes 0
    uint32_t next_pc = 0;
};

enum Cause : uint32_t {
    kInsnAccessFault = 1,
    kIllegalInsn = 2,
    kBreakpoint = 3,
    kLoadMisaligned = 4,
    kLoadAccessFault = 5,
    kStoreMisaligned = 6,
    kStoreAccessFault = 7,
    kEcallM = 11,
};

namespace csr {
enum : uint16_t {
    mstatus = 0x300, misa = 0x301, mie = 0x304, mtvec = 0x305,
    mscratch = 0x340, mepc = 0x341, mcause = 0x342, mtval = 0x343, mip = 0x344,
    mcycle = 0xB00, minstret = 0xB02, mcycleh = 0xB80, minstreth = 0xB82,
    cycle = 0xC00, instret = 0xC02, cycleh = 0xC80, instreth = 0xC82,
    mvendorid = 0xF11, marchid = 0xF12, mimpid = 0xF13, mhartid = 0xF14,
};
}

inline constexpr uint32_t kMisa = 0x40001105; // MXL=32, I M A C

// 32-bit encoders and opcodes, for expanding compressed instructions.
namespace detail {
namespace enc {
constexpr uint32_t r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
constexpr uint32_t i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    return (uint32_t(imm) & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
constexpr uint32_t s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t op) {
    const uint32_t u = uint32_t(imm);
    return (u >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 0x1f) << 7 | op;
}
constexpr uint32_t b(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t op) {
    const uint32_t u = uint32_t(imm);
    return (u >> 12 & 1) << 31 | (u >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
           (u >> 1 & 0xf) << 8 | (u >> 11 & 1) << 7 | op;
}
constexpr uint32_t u(uint32_t imm, uint32_t rd, uint32_t op) { return (imm & 0xfffff000u) | rd << 7 | op; }
constexpr uint32_t j(int32_t imm, uint32_t rd, uint32_t op) {
    const uint32_t v = uint32_t(imm);
    return (v >> 20 & 1) << 31 | (v >> 1 & 0x3ff) << 21 | (v >> 11 & 1) << 20 | (v >> 12 & 0xff) << 12 |
           rd << 7 | op;
}
} // namespace enc

namespace op {
enum : uint32_t {
    LOAD = 0x03, MISC_MEM = 0x0f, OP_IMM = 0x13, AUIPC = 0x17, STORE = 0x23, AMO = 0x2f,
    OP = 0x33, LUI = 0x37, BRANCH = 0x63, JALR = 0x67, JAL = 0x6f, SYSTEM = 0x73,
};
}

// Sign-extends the low `bits` bits of v.
constexpr int32_t sext(uint32_t v, unsigned bits) {
    const unsigned sh = 32 - bits;
    return int32_t(v << sh) >> sh;
}
} // namespace detail

// Expands a 16-bit RVC parcel to its 32-bit equivalent; 0 = illegal/reserved
// (no legal expansion is 0, its low bits are 11).
constexpr uint32_t expand_rvc(uint16_t c) {
    namespace enc = detail::enc;
    namespace op = detail::op;
    using detail::sext;
    const auto bit = [c](unsigned n) -> uint32_t { return uint32_t(c) >> n & 1; };
    const auto bits = [c](unsigned hi, unsigned lo) -> uint32_t {
        return uint32_t(c) >> lo & ((1u << (hi - lo + 1)) - 1);
    };
    const uint32_t f3 = bits(15, 13);
    const uint32_t rd = bits(11, 7);             // also rs1 in full-register forms
    const uint32_t rs2 = bits(6, 2);
    const uint32_t rdp = bits(4, 2) + 8;         // rd' / rs2'
    const uint32_t rs1p = bits(9, 7) + 8;        // rs1' / rd'
    const int32_t imm6 = sext(bit(12) << 5 | bits(6, 2), 6);
    const uint32_t lw_off = bits(12, 10) << 3 | bit(6) << 2 | bit(5) << 6;
    const int32_t j_off = sext(bit(12) << 11 | bit(11) << 4 | bits(10, 9) << 8 | bit(8) << 10 | bit(7) << 6 |
                                   bit(6) << 7 | bits(5, 3) << 1 | bit(2) << 5,
                               12);
    const int32_t b_off =
        sext(bit(12) << 8 | bits(11, 10) << 3 | bits(6, 5) << 6 | bits(4, 3) << 1 | bit(2) << 5, 9);

    switch (c & 3) {
    case 0:
        switch (f3) {
        case 0: { // C.ADDI4SPN (the all-zero parcel lands here too: nzuimm = 0)
            const uint32_t nzuimm = bits(12, 11) << 4 | bits(10, 7) << 6 | bit(6) << 2 | bit(5) << 3;
            if (nzuimm == 0) return 0;
            return enc::i(int32_t(nzuimm), 2, 0, rdp, op::OP_IMM);
        }
        case 2: return enc::i(int32_t(lw_off), rs1p, 2, rdp, op::LOAD);   // C.LW
        case 6: return enc::s(int32_t(lw_off), rdp, rs1p, 2, op::STORE);  // C.SW
        default: return 0; // FP loads/stores and reserved
        }
    case 1:
        switch (f3) {
        case 0: return enc::i(imm6, rd, 0, rd, op::OP_IMM);           // C.ADDI / C.NOP
        case 1: return enc::j(j_off, 1, op::JAL);                     // C.JAL
        case 2: return enc::i(imm6, 0, 0, rd, op::OP_IMM);            // C.LI
        case 3:
            if (rd == 2) { // C.ADDI16SP
                const int32_t nz = sext(bit(12) << 9 | bit(6) << 4 | bit(5) << 6 | bits(4, 3) << 7 | bit(2) << 5, 10);
                if (nz == 0) return 0;
                return enc::i(nz, 2, 0, 2, op::OP_IMM);
            }
            // C.LUI. nzimm = 0 is reserved whatever rd (the spec, and Spike);
            // rd = 0 with a nonzero immediate is a HINT.
            if (imm6 == 0) return 0;
            return enc::u(uint32_t(imm6) << 12, rd, op::LUI);
        case 4:
            switch (bits(11, 10)) {
            case 0:
                if (bit(12)) return 0; // shamt[5] = 1 is reserved on RV32
                return enc::r(0x00, rs2, rs1p, 5, rs1p, op::OP_IMM); // C.SRLI
            case 1:
                if (bit(12)) return 0;
                return enc::r(0x20, rs2, rs1p, 5, rs1p, op::OP_IMM); // C.SRAI
            case 2: return enc::i(imm6, rs1p, 7, rs1p, op::OP_IMM); // C.ANDI
            default: {
                if (bit(12)) return 0; // C.SUBW / C.ADDW / reserved
                const uint32_t sel = bits(6, 5); // SUB XOR OR AND
                const uint32_t fn3 = sel == 0 ? 0 : sel == 1 ? 4 : sel == 2 ? 6 : 7;
                return enc::r(sel == 0 ? 0x20 : 0x00, rdp, rs1p, fn3, rs1p, op::OP);
            }
            }
        case 5: return enc::j(j_off, 0, op::JAL);                     // C.J
        case 6: return enc::b(b_off, 0, rs1p, 0, op::BRANCH);         // C.BEQZ
        default: return enc::b(b_off, 0, rs1p, 1, op::BRANCH);        // C.BNEZ
        }
    case 2:
        switch (f3) {
        case 0:
            if (bit(12)) return 0;
            return enc::r(0x00, rs2, rd, 1, rd, op::OP_IMM);          // C.SLLI
        case 2: {                                                     // C.LWSP
            if (rd == 0) return 0;
            const uint32_t off = bit(12) << 5 | bits(6, 4) << 2 | bits(3, 2) << 6;
            return enc::i(int32_t(off), 2, 2, rd, op::LOAD);
        }
        case 4:
            if (!bit(12)) {
                if (rs2 == 0) {                                       // C.JR
                    if (rd == 0) return 0;
                    return enc::i(0, rd, 0, 0, op::JALR);
                }
                return enc::r(0, rs2, 0, 0, rd, op::OP);              // C.MV
            }
            if (rs2 == 0) {
                if (rd == 0) return 0x00100073;                       // C.EBREAK
                return enc::i(0, rd, 0, 1, op::JALR);                 // C.JALR
            }
            return enc::r(0, rs2, rd, 0, rd, op::OP);                 // C.ADD
        case 6: {                                                     // C.SWSP
            const uint32_t off = bits(12, 9) << 2 | bits(8, 7) << 6;
            return enc::s(int32_t(off), rs2, 2, 2, op::STORE);
        }
        default: return 0; // FP loads/stores
        }
    default: return 0; // not a compressed parcel
    }
}

class Rv32 {
public:
    Rv32(Bus &bus, uint32_t reset_pc) : pc(reset_pc), bus_(bus) {}

    // Executes one instruction, or takes one trap.
    Retire step() {
        Retire r;
        r.pc = pc;
        cycle_written_ = instret_written_ = false;
        execute(r);
        if (!cycle_written_) ++mcycle;
        if (!r.trap && !instret_written_) ++minstret;
        x[0] = 0;
        r.next_pc = pc;
        return r;
    }

    uint32_t x[32]{};
    uint32_t pc;
    uint64_t mcycle = 0, minstret = 0;
    uint32_t mtvec = 0, mepc = 0, mcause = 0, mtval = 0, mscratch = 0;
    bool mie = false, mpie = false;
    bool resv_valid = false;
    uint32_t resv_addr = 0;

private:
    Bus &bus_;
    bool cycle_written_ = false, instret_written_ = false;

    void trap(Retire &r, uint32_t cause, uint32_t tval) {
        r.trap = true;
        r.cause = cause;
        r.tval = tval;
        r.rd = 0;
        r.rd_val = 0;
        mepc = pc;
        mcause = cause;
        mtval = tval;
        mpie = mie;
        mie = false;
        pc = mtvec;
    }

    void write_rd(Retire &r, uint32_t rd, uint32_t v) {
        if (rd == 0) return;
        x[rd] = v;
        r.rd = uint8_t(rd);
        r.rd_val = v;
    }

    static void note_mem(Retire &r, bool we, uint32_t addr, unsigned size, uint32_t wdata) {
        r.mem = true;
        r.mem_we = we;
        r.mem_addr = addr;
        r.mem_size = uint8_t(size);
        r.mem_wdata = wdata;
    }

    static uint32_t mask(unsigned size) { return size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1; }

    // Reads a CSR; false = not implemented.
    bool csr_read(uint32_t a, uint32_t &v) const {
        switch (a) {
        case csr::mstatus: v = 3u << 11 | uint32_t(mpie) << 7 | uint32_t(mie) << 3; return true;
        case csr::misa: v = kMisa; return true;
        case csr::mie: case csr::mip: v = 0; return true;
        case csr::mtvec: v = mtvec; return true;
        case csr::mscratch: v = mscratch; return true;
        case csr::mepc: v = mepc; return true;
        case csr::mcause: v = mcause; return true;
        case csr::mtval: v = mtval; return true;
        case csr::mcycle: case csr::cycle: v = uint32_t(mcycle); return true;
        case csr::mcycleh: case csr::cycleh: v = uint32_t(mcycle >> 32); return true;
        case csr::minstret: case csr::instret: v = uint32_t(minstret); return true;
        case csr::minstreth: case csr::instreth: v = uint32_t(minstret >> 32); return true;
        case csr::mvendorid: case csr::marchid: case csr::mimpid: case csr::mhartid: v = 0; return true;
        default: return false;
        }
    }

    // Only called for implemented, writable CSRs.
    void csr_write(uint32_t a, uint32_t v) {
        switch (a) {
        case csr::mstatus: mie = v >> 3 & 1; mpie = v >> 7 & 1; break;
        case csr::mtvec: mtvec = v & ~3u; break;
        case csr::mscratch: mscratch = v; break;
        case csr::mepc: mepc = v & ~1u; break;
        case csr::mcause: mcause = v; break;
        case csr::mtval: mtval = v; break;
        case csr::mcycle: mcycle = (mcycle & 0xffffffff00000000ull) | v; cycle_written_ = true; break;
        case csr::mcycleh: mcycle = (mcycle & 0xffffffffull) | uint64_t(v) << 32; cycle_written_ = true; break;
        case csr::minstret: minstret = (minstret & 0xffffffff00000000ull) | v; instret_written_ = true; break;
        case csr::minstreth: minstret = (minstret & 0xffffffffull) | uint64_t(v) << 32; instret_written_ = true; break;
        default: break; // misa, mie, mip: writes ignored
        }
    }

    void execute(Retire &r) {
        uint16_t lo = 0;
        if (!bus_.fetch(pc, lo)) return trap(r, kInsnAccessFault, pc);
        uint32_t insn = lo;
        uint32_t len = 2;
        if ((lo & 3) == 3) {
            uint16_t hi = 0;
            if (!bus_.fetch(pc + 2, hi)) return trap(r, kInsnAccessFault, pc + 2);
            insn |= uint32_t(hi) << 16;
            len = 4;
        }
        r.insn = insn;
        if (len == 2) {
            const uint32_t e = expand_rvc(lo);
            if (e == 0) return trap(r, kIllegalInsn, insn);
            exec32(r, e, len);
        } else {
            exec32(r, insn, len);
        }
    }

    // Executes a 32-bit (possibly expanded) instruction; traps report r.insn
    // as tval, so a compressed instruction reports its 16 bits.
    void exec32(Retire &r, uint32_t in, uint32_t len) {
        namespace op = detail::op;
        const uint32_t opc = in & 0x7f;
        const uint32_t rd = in >> 7 & 31;
        const uint32_t f3 = in >> 12 & 7;
        const uint32_t rs1 = in >> 15 & 31;
        const uint32_t rs2 = in >> 20 & 31;
        const uint32_t f7 = in >> 25;
        const uint32_t a = x[rs1], b = x[rs2];
        const int32_t imm_i = int32_t(in) >> 20;
        const int32_t imm_s = int32_t(in & 0xfe000000u) >> 20 | int32_t(in >> 7 & 31);
        const int32_t imm_b = int32_t(in & 0x80000000u) >> 19 | int32_t((in & 0x80) << 4) |
                              int32_t(in >> 20 & 0x7e0) | int32_t(in >> 7 & 0x1e);
        const int32_t imm_j = int32_t(in & 0x80000000u) >> 11 | int32_t(in & 0xff000) |
                              int32_t((in >> 9) & 0x800) | int32_t((in >> 20) & 0x7fe);
        const uint32_t link = pc + len;
        const auto illegal = [&] { trap(r, kIllegalInsn, r.insn); };

        switch (opc) {
        case op::LUI: write_rd(r, rd, in & 0xfffff000u); pc = link; return;
        case op::AUIPC: write_rd(r, rd, pc + (in & 0xfffff000u)); pc = link; return;
        case op::JAL: {
            const uint32_t t = pc + uint32_t(imm_j);
            write_rd(r, rd, link);
            pc = t;
            return;
        }
        case op::JALR: {
            if (f3 != 0) return illegal();
            const uint32_t t = (a + uint32_t(imm_i)) & ~1u;
            write_rd(r, rd, link);
            pc = t;
            return;
        }
        case op::BRANCH: {
            bool take;
            switch (f3) {
            case 0: take = a == b; break;
            case 1: take = a != b; break;
            case 4: take = int32_t(a) < int32_t(b); break;
            case 5: take = int32_t(a) >= int32_t(b); break;
            case 6: take = a < b; break;
            case 7: take = a >= b; break;
            default: return illegal();
            }
            pc = take ? pc + uint32_t(imm_b) : link;
            return;
        }
        case op::LOAD: {
            unsigned size;
            switch (f3) {
            case 0: case 4: size = 1; break;
            case 1: case 5: size = 2; break;
            case 2: size = 4; break;
            default: return illegal();
            }
            const uint32_t addr = a + uint32_t(imm_i);
            if (addr & (size - 1)) return trap(r, kLoadMisaligned, addr);
            uint32_t v = 0;
            note_mem(r, false, addr, size, 0);
            if (!bus_.load(addr, size, v)) return trap(r, kLoadAccessFault, addr);
            v &= mask(size);
            if (f3 == 0) v = uint32_t(detail::sext(v, 8));
            if (f3 == 1) v = uint32_t(detail::sext(v, 16));
            write_rd(r, rd, v);
            pc = link;
            return;
        }
        case op::STORE: {
            if (f3 > 2) return illegal();
            const unsigned size = 1u << f3;
            const uint32_t addr = a + uint32_t(imm_s);
            if (addr & (size - 1)) return trap(r, kStoreMisaligned, addr);
            const uint32_t wd = b & mask(size);
            note_mem(r, true, addr, size, wd);
            if (!bus_.store(addr, size, wd)) return trap(r, kStoreAccessFault, addr);
            pc = link;
            return;
        }
        case op::OP_IMM: {
            const uint32_t sh = rs2; // shamt field
            uint32_t v;
            switch (f3) {
            case 0: v = a + uint32_t(imm_i); break;
            case 1:
                if (f7 != 0) return illegal();
                v = a << sh;
                break;
            case 2: v = int32_t(a) < imm_i; break;
            case 3: v = a < uint32_t(imm_i); break;
            case 4: v = a ^ uint32_t(imm_i); break;
            case 5:
                if (f7 == 0) v = a >> sh;
                else if (f7 == 0x20) v = uint32_t(int32_t(a) >> sh);
                else return illegal();
                break;
            case 6: v = a | uint32_t(imm_i); break;
            default: v = a & uint32_t(imm_i); break;
            }
            write_rd(r, rd, v);
            pc = link;
            return;
        }
        case op::OP: {
            uint32_t v;
            if (f7 == 0x01) {
                v = muldiv(f3, a, b);
            } else if (f7 == 0x20) {
                if (f3 == 0) v = a - b;
                else if (f3 == 5) v = uint32_t(int32_t(a) >> (b & 31));
                else return illegal();
            } else if (f7 == 0) {
                switch (f3) {
                case 0: v = a + b; break;
                case 1: v = a << (b & 31); break;
                case 2: v = int32_t(a) < int32_t(b); break;
                case 3: v = a < b; break;
                case 4: v = a ^ b; break;
                case 5: v = a >> (b & 31); break;
                case 6: v = a | b; break;
                default: v = a & b; break;
                }
            } else {
                return illegal();
            }
            write_rd(r, rd, v);
            pc = link;
            return;
        }
        case op::MISC_MEM: // FENCE, FENCE.I: nothing to order or flush here
            if (f3 > 1) return illegal();
            pc = link;
            return;
        case op::SYSTEM: return system(r, in, link);
        case op::AMO: return amo(r, in, link);
        default: return illegal();
        }
    }

    static uint32_t muldiv(uint32_t f3, uint32_t a, uint32_t b) {
        const int32_t sa = int32_t(a), sb = int32_t(b);
        switch (f3) {
        case 0: return a * b;
        case 1: return uint32_t(uint64_t(int64_t(sa) * int64_t(sb)) >> 32);
        case 2: return uint32_t(uint64_t(int64_t(sa) * int64_t(uint64_t(b))) >> 32);
        case 3: return uint32_t(uint64_t(a) * uint64_t(b) >> 32);
        case 4:
            if (b == 0) return 0xffffffffu;
            if (a == 0x80000000u && sb == -1) return a;
            return uint32_t(sa / sb);
        case 5: return b == 0 ? 0xffffffffu : a / b;
        case 6:
            if (b == 0) return a;
            if (a == 0x80000000u && sb == -1) return 0;
            return uint32_t(sa % sb);
        default: return b == 0 ? a : a % b;
        }
    }

    void system(Retire &r, uint32_t in, uint32_t link) {
        const uint32_t rd = in >> 7 & 31;
        const uint32_t f3 = in >> 12 & 7;
        const uint32_t rs1 = in >> 15 & 31;
        const uint32_t addr = in >> 20;
        if (f3 == 0) {
            switch (in) {
            case 0x00000073: return trap(r, kEcallM, 0);
            case 0x00100073: return trap(r, kBreakpoint, pc);
            case 0x30200073: // MRET
                pc = mepc;
                mie = mpie;
                mpie = true;
                return;
            case 0x10500073: pc = link; return; // WFI: no interrupts to wait for
            default: return trap(r, kIllegalInsn, r.insn);
            }
        }
        if (f3 == 4) return trap(r, kIllegalInsn, r.insn);
        // rs1 field is the register for CSRRW/S/C and the uimm for the I forms.
        const uint32_t src = (f3 & 4) ? rs1 : x[rs1];
        const uint32_t kind = f3 & 3; // 1 = W, 2 = S, 3 = C
        const bool writes = kind == 1 || rs1 != 0;
        uint32_t old = 0;
        if (!csr_read(addr, old)) return trap(r, kIllegalInsn, r.insn);
        if (writes && (addr >> 10) == 3) return trap(r, kIllegalInsn, r.insn);
        if (writes) csr_write(addr, kind == 1 ? src : kind == 2 ? (old | src) : (old & ~src));
        write_rd(r, rd, old);
        pc = link;
    }

    void amo(Retire &r, uint32_t in, uint32_t link) {
        const uint32_t rd = in >> 7 & 31;
        const uint32_t f3 = in >> 12 & 7;
        const uint32_t rs2 = in >> 20 & 31;
        const uint32_t f5 = in >> 27;
        if (f3 != 2) return trap(r, kIllegalInsn, r.insn);
        const uint32_t addr = x[in >> 15 & 31], src = x[rs2];
        const bool aligned = (addr & 3) == 0;
        if (f5 == 0x02) { // LR.W
            if (rs2 != 0) return trap(r, kIllegalInsn, r.insn);
            if (!aligned) return trap(r, kLoadMisaligned, addr);
            uint32_t v = 0;
            note_mem(r, false, addr, 4, 0);
            if (!bus_.load(addr, 4, v)) return trap(r, kLoadAccessFault, addr);
            resv_valid = true;
            resv_addr = addr;
            write_rd(r, rd, v);
            pc = link;
            return;
        }
        if (f5 == 0x03) { // SC.W
            if (!aligned) return trap(r, kStoreMisaligned, addr);
            if (resv_valid && resv_addr == addr) {
                // An SC that reaches the bus ends the reservation even when its
                // store faults (the core clears it as the store starts).
                resv_valid = false;
                note_mem(r, true, addr, 4, src);
                if (!bus_.store(addr, 4, src)) return trap(r, kStoreAccessFault, addr);
                write_rd(r, rd, 0);
            } else {
                resv_valid = false;
                write_rd(r, rd, 1);
            }
            pc = link;
            return;
        }
        uint32_t (*fn)(uint32_t, uint32_t);
        switch (f5) {
        case 0x01: fn = [](uint32_t, uint32_t s) { return s; }; break;
        case 0x00: fn = [](uint32_t m, uint32_t s) { return m + s; }; break;
        case 0x04: fn = [](uint32_t m, uint32_t s) { return m ^ s; }; break;
        case 0x0c: fn = [](uint32_t m, uint32_t s) { return m & s; }; break;
        case 0x08: fn = [](uint32_t m, uint32_t s) { return m | s; }; break;
        case 0x10: fn = [](uint32_t m, uint32_t s) { return int32_t(m) < int32_t(s) ? m : s; }; break;
        case 0x14: fn = [](uint32_t m, uint32_t s) { return int32_t(m) > int32_t(s) ? m : s; }; break;
        case 0x18: fn = [](uint32_t m, uint32_t s) { return m < s ? m : s; }; break;
        case 0x1c: fn = [](uint32_t m, uint32_t s) { return m > s ? m : s; }; break;
        default: return trap(r, kIllegalInsn, r.insn);
        }
        // AMOs are store-class: every fault is a store/AMO fault, the load's too.
        if (!aligned) return trap(r, kStoreMisaligned, addr);
        uint32_t old = 0;
        note_mem(r, false, addr, 4, 0);
        if (!bus_.load(addr, 4, old)) return trap(r, kStoreAccessFault, addr);
        const uint32_t nv = fn(old, src);
        note_mem(r, true, addr, 4, nv);
        if (!bus_.store(addr, 4, nv)) return trap(r, kStoreAccessFault, addr);
        write_rd(r, rd, old);
        pc = link;
    }
};

} // namespace kite::cpu

#endif // KITE_CPU_RV32_HPP
