// kite_cpu testbench. The reference is the model's instruction-set simulator
// (kite::cpu::Rv32, fpga/model/cpu/rv32.hpp): both run the same program on
// their own copy of the same memory (kite_cpu_sys's map, cpu_tb.hpp), and
// every instruction the core retires is compared with one ISS step: pc, raw
// bits, trap cause and value, the register written and its value, the next
// pc, and the data accesses it made on the bus (address, byte enables, data
// written). Programs, in this order:
//   - the firmware: kite-fw.elf (firmware/src for rv32imac with the board's
//     HAL, built by check.sh, path in KITE_FW_ELF), 1.5 M instructions, its
//     MMIO window answering as the card side would (a clock that runs, a
//     few functions and ports, hashed values elsewhere), so both sides see
//     the same values and the firmware boots and polls;
//   - directed: short programs with results known by hand (a division, a
//     straddling 32-bit instruction, the cycle counter, ECALL and MRET);
//   - random: 32 programs of 60 KiB of random snippets (ALU, M with edge
//     operands, loads and stores into random RAM, LR/SC sequences and AMOs,
//     forward branches and jumps, CSRs implemented or not with read-backs,
//     random compressed parcels and reserved encodings, random 32-bit words,
//     ECALL/EBREAK/WFI/FENCE) with a trap handler that resumes after the
//     trapping instruction, or somewhere in the code after a fetch fault.
// The bus acknowledges after 0-6 cycles at random (0: in the request's
// cycle), and answers outside the map with an error.
#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <map>
#include <optional>

#include "Vkite_cpu.h"
#include "cpu/elf.hpp"
#include "cpu_tb.hpp"
#include "tb.hpp"

namespace {

using namespace cputb;

struct Bench {
    Vkite_cpu m;
    tb::Clock<Vkite_cpu> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    bool inject = false;
    Memory rtl_mem, iss_mem;
    IssBus iss_bus{iss_mem};
    std::optional<kite::cpu::Rv32> iss;
    AckDelay ack;
    double p_lat0 = 0.3;
    unsigned lat_hi = 3;
    // Coverage.
    long retired = 0, traps = 0, compressed = 0, accesses = 0, loops = 0;
    std::map<uint32_t, long> causes;
    uint32_t last_cycle_read = 0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {}

    void load(const Prog &p, uint64_t io_seed) {
        rtl_mem = Memory{};
        iss_mem = Memory{};
        rtl_mem.put(p.base, p.b.data(), p.b.size());
        iss_mem.put(p.base, p.b.data(), p.b.size());
        rtl_mem.io_seed = iss_mem.io_seed = io_seed;
    }

    // Random RAM, the same on both sides: loads then return random values.
    void fill_ram(tb::Rng &r) {
        for (uint32_t i = 0; i < MEM_SIZE; i += 8) {
            uint64_t v = r();
            for (int j = 0; j < 8; j++) rtl_mem.ram[i + j] = iss_mem.ram[i + j] = uint8_t(v >> (8 * j));
        }
    }

    void reset(uint32_t pc) {
        m.bus_ack_i = 0;
        m.bus_err_i = 0;
        clk.reset();
        iss.emplace(iss_bus, pc);
        ack = AckDelay{};
    }

    // One cycle of the bus: acknowledge the core's request after a random wait.
    void bus_cycle() {
        m.bus_ack_i = 0;
        m.bus_err_i = 0;
        m.bus_rdata_i = 0;
        if (m.bus_req_o && ack.due(rng, p_lat0, lat_hi)) {
            uint32_t data = m.bus_wdata_o;
            bool ok = rtl_mem.word(m.bus_addr_o, m.bus_we_o, uint8_t(m.bus_be_o), data, m.bus_instr_o);
            m.bus_ack_i = 1;
            m.bus_err_i = !ok;
            m.bus_rdata_i = m.bus_we_o ? 0xdeadbeef : data;
        }
        clk.tick();
    }

    // Compares one retired instruction with one ISS step.
    bool compare() {
        kite::cpu::Retire e = iss->step();
        bool ok = compare_retire(chk, m, *iss, e, retired, inject && retired == 1000);
        ok &= chk.expect(rtl_mem.log == iss_mem.log, "#%ld pc %08x insn %08x: %zu data accesses, ISS %zu%s", retired,
                         e.pc, e.insn, rtl_mem.log.size(), iss_mem.log.size(),
                         rtl_mem.log.size() == iss_mem.log.size() ? " (they differ)" : "");
        accesses += long(rtl_mem.log.size());
        rtl_mem.log.clear();
        iss_mem.log.clear();
        retired++;
        if (e.trap) {
            traps++;
            causes[e.cause]++;
        }
        if ((e.insn & 3) != 3 && e.insn) compressed++;
        return ok;
    }

    // Runs until n instructions retired (or a mismatch); returns the cycles.
    uint64_t run(long n, bool end_loops = true) {
        uint64_t c0 = clk.cycle, idle = 0;
        long target = retired + n;
        std::vector<uint32_t> window;
        while (retired < target) {
            bus_cycle();
            if (m.rt_valid_o) {
                idle = 0;
                window.push_back(m.rt_pc_o);
                if (!compare()) break;
                // A random program can still loop (a C.JR to a link register):
                // end the run when 4,096 instructions visited under 64 places.
                if (end_loops && window.size() == 4096) {
                    std::sort(window.begin(), window.end());
                    if (std::unique(window.begin(), window.end()) - window.begin() < 64) {
                        loops++;
                        break;
                    }
                    window.clear();
                }
                if (window.size() == 4096) window.clear();
            } else if (++idle > 200) {
                chk.expect(false, "no instruction retired for 200 cycles at pc %08x", iss->pc);
                break;
            }
        }
        return clk.cycle - c0;
    }
};

// --- directed programs ------------------------------------------------------
void directed(Bench &b) {
    tb::Checker &chk = b.chk;
    // 1. Known results: a division loop, a straddling 32-bit instruction, the
    // cycle counter, ECALL into a handler and MRET back.
    Prog p;
    p.li(5, 0x100);                              // x5 = handler
    p.w32(csrrw(0, 0x305, 5));                   // mtvec = handler
    p.li(10, 1000000007);
    p.li(11, 97);
    p.w32(enc_r(1, 11, 10, 4, 12, OP));          // div x12 = 10309278
    p.w32(enc_r(1, 11, 10, 6, 13, OP));          // rem x13 = 1000000007 - 97 * 10309278 = 41
    p.w16(0x0001);                               // c.nop: the next word straddles
    p.w32(addi(14, 0, 1234));                    // x14 = 1234 at pc % 4 == 2
    p.w32(csrrs(15, 0xb00, 0));                  // x15 = mcycle
    p.w32(addi(0, 0, 0));
    p.w32(csrrs(16, 0xb00, 0));                  // x16 = mcycle
    p.w32(0x00000073);                           // ecall -> handler
    p.w32(addi(17, 0, 77));                      // resumed here
    uint32_t spin = p.pc();
    p.w32(enc_j(0, 0));                          // j .
    while (p.pc() < 0x100) p.w16(0x0001);
    p.w32(csrrs(18, 0x341, 0));                  // handler: x18 = mepc
    p.w32(csrrs(19, 0x342, 0));                  // x19 = mcause
    p.w32(addi(18, 18, 4));
    p.w32(csrrw(0, 0x341, 18));
    p.w32(MRET);
    b.load(p, 1);
    b.p_lat0 = 1.0;   // single-cycle memory for the cycle count
    b.reset(0);
    b.run(25);
    auto &x = b.iss->x;
    chk.expect(x[12] == 10309278 && x[13] == 41, "div/rem %u %u", x[12], x[13]);
    chk.expect(x[14] == 1234, "straddling addi gave %u", x[14]);
    // csrr, addi, csrr at pc % 4 == 2: with same-cycle memory each is two
    // fetches (the halves are in two words) and an execute, so 6 cycles.
    chk.expect(x[16] - x[15] == 6, "mcycle advanced %u cycles over two instructions", x[16] - x[15]);
    chk.expect(x[19] == 11 && x[18] == spin - 4, "ecall: mcause %u, resumed at %08x", x[19], x[18]);
    chk.expect(x[17] == 77 && b.iss->pc == spin, "after mret: x17 %u pc %08x", x[17], b.iss->pc);
    b.p_lat0 = 0.3;
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Checker chk("cpu");
    tb::Rng rng(args.seed);
    std::printf("[cpu] seed %" PRIu64 "\n", args.seed);
    Bench b(chk, rng);
    b.inject = args.inject;

    // The firmware first: its prologues store registers it has not written,
    // and the register file is not reset (it is in its configured state, 0,
    // only before the first program).
    if (const char *elf = std::getenv("KITE_FW_ELF"); elf) {
        Prog none;
        b.load(none, 0x5eed);
        uint32_t entry = 0;
        std::string err;
        bool ok = kite::cpu::load_elf(
            elf,
            [&](uint32_t a, const uint8_t *d, size_t n) {
                b.rtl_mem.put(a, d, n);
                b.iss_mem.put(a, d, n);
            },
            entry, err);
        if (chk.expect(ok, "firmware %s: %s", elf, err.c_str())) {
            b.p_lat0 = 1.0;   // ROM and RAM in BRAM answer in the request's cycle
            b.reset(entry);
            long t0 = b.traps, r0 = b.retired;
            uint64_t cyc = b.run(args.n > 0 ? args.n : 1500000, false);
            long n = b.retired - r0;
            chk.expect(b.traps == t0, "the firmware trapped %ld times", b.traps - t0);
            chk.expect(b.iss_mem.io_reads > 100, "the firmware read its MMIO window %" PRIu64 " times",
                       b.iss_mem.io_reads);
            std::printf("[cpu] firmware: %ld instructions, %" PRIu64 " MMIO reads and %" PRIu64 " writes, %" PRIu64
                        " cycles (%.2f cycles per instruction with single-cycle memory)\n",
                        n, b.iss_mem.io_reads, b.iss_mem.io_writes, cyc, n ? double(cyc) / double(n) : 0.0);
        }
    } else {
        std::printf("[cpu] firmware run skipped: KITE_FW_ELF is not set (fpga/check.sh sets it)\n");
    }

    directed(b);

    // The random programs' own figures (the firmware's are printed above).
    b.compressed = b.traps = b.accesses = 0;
    b.causes.clear();
    long rounds = args.iters(32);
    uint64_t rcycles = 0;
    long rretired = 0;
    for (long i = 0; i < rounds && !chk.fails; i++) {
        Prog p;
        gen_random(p, rng);
        b.load(p, rng());
        b.fill_ram(rng);
        b.p_lat0 = i % 3 == 0 ? 1.0 : 0.3;
        b.lat_hi = i % 3 == 2 ? 6 : 3;
        b.reset(0);
        long r0 = b.retired;
        rcycles += b.run(80000);
        rretired += b.retired - r0;
    }
    std::printf("[cpu] random: %ld programs, %ld instructions (%ld compressed, %ld traps:", rounds, rretired,
                b.compressed, b.traps);
    for (auto &[c, n] : b.causes) std::printf(" cause %u x%ld", c, n);
    std::printf("), %ld data accesses, %" PRIu64 " cycles, %ld ended in a loop\n", b.accesses, rcycles, b.loops);

    return chk.finish();
}
