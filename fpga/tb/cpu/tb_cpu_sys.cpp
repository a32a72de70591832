// kite_cpu_sys testbench: the core with its block RAMs and the MMIO window,
// against the ISS (kite::cpu::Rv32) on the memory map the RTL decodes (the
// same map tb_cpu gives the core alone: ROM read-only, RAM not executable,
// the 64 KiB window at 0x2000_0000, access faults elsewhere). Every retired
// instruction is compared (pc, raw bits, trap, register written, next pc),
// and every access through the window (address, byte enables, data). The
// ROM is loaded through ld_* with the CPU in reset; the RAM keeps its
// contents across programs on both sides. Programs:
//   - the firmware (KITE_FW_ELF, built by fpga/check.sh), 400,000
//     instructions with the window answering after 0-3 cycles; its ROM_HEX
//     image (KITE_FW_HEX) checked against the ELF;
//   - a map program: ROM constant, RAM byte/halfword/word, the context
//     store's last words, a store to ROM, loads outside the map and past
//     each region, window accesses, fetches from RAM, the window and the
//     context store, each fault's cause checked;
//   - random programs (cpu_tb.hpp), for the block RAMs' timing under the core.
#include <algorithm>
#include <cinttypes>
#include <optional>

#include "Vkite_cpu_sys.h"
#include "cpu/elf.hpp"
#include "cpu_tb.hpp"
#include "tb.hpp"

namespace {

using namespace cputb;

struct Bench {
    Vkite_cpu_sys m;
    tb::Clock<Vkite_cpu_sys> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    bool inject = false;
    Memory io_mem, iss_mem;   // io_mem: the window as the RTL side sees it
    IssBus iss_bus{iss_mem};
    std::optional<kite::cpu::Rv32> iss;
    AckDelay ack;
    long retired = 0, traps = 0, io_accesses = 0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {}

    // A new ROM image through the loader port (every word, so nothing of
    // the previous program stays), then reset.
    void load_rom(const std::vector<uint8_t> &rom, uint64_t io_seed, uint32_t pc) {
        m.rst_ni = 0;
        m.io_ack_i = 0;
        for (uint32_t w = 0; w < MEM_SIZE / 4; w++) {
            uint32_t v = 0;
            for (int i = 0; i < 4; i++) v |= uint32_t(rom[4 * w + i]) << (8 * i);
            m.ld_we_i = 1;
            m.ld_word_i = w;
            m.ld_data_i = v;
            clk.tick();
        }
        m.ld_we_i = 0;
        iss_mem.rom = rom;
        io_mem.io_seed = iss_mem.io_seed = io_seed;
        io_mem.io_reads = iss_mem.io_reads = 0;
        io_mem.log.clear();
        iss_mem.log.clear();
        clk.reset();
        iss.emplace(iss_bus, pc);
        ack = AckDelay{};
    }

    void cycle() {
        m.io_ack_i = 0;
        m.io_err_i = 0;
        m.io_rdata_i = 0;
        if (m.io_req_o && ack.due(rng, 0.4, 3)) {
            uint32_t data = m.io_wdata_o;
            io_mem.word(IO + m.io_addr_o, m.io_we_o, uint8_t(m.io_be_o), data, false);
            m.io_ack_i = 1;
            m.io_rdata_i = m.io_we_o ? 0xdeadbeef : data;
        }
        clk.tick();
    }

    bool compare() {
        kite::cpu::Retire e = iss->step();
        bool ok = compare_retire(chk, m, *iss, e, retired, inject && retired == 1000);
        // The window's accesses; ROM, RAM and context store ones stay inside the RTL.
        std::vector<Access> iss_io;
        for (const Access &a : iss_mem.log)
            if (a.addr - IO < IO_SIZE) iss_io.push_back(a);
        ok &= chk.expect(io_mem.log == iss_io, "#%ld pc %08x: %zu window accesses, ISS %zu", retired, e.pc,
                         io_mem.log.size(), iss_io.size());
        io_accesses += long(iss_io.size());
        io_mem.log.clear();
        iss_mem.log.clear();
        retired++;
        traps += e.trap;
        return ok;
    }

    uint64_t run(long n) {
        uint64_t c0 = clk.cycle, idle = 0;
        for (long target = retired + n; retired < target;) {
            cycle();
            if (m.rt_valid_o) {
                idle = 0;
                if (!compare()) break;
            } else if (++idle > 200) {
                chk.expect(false, "no instruction retired for 200 cycles at pc %08x", iss->pc);
                break;
            }
        }
        return clk.cycle - c0;
    }
};

std::vector<uint8_t> image(const Prog &p) {
    std::vector<uint8_t> rom(MEM_SIZE);
    std::copy(p.b.begin(), p.b.end(), rom.begin() + p.base);
    return rom;
}

// The map: each access class once, the trap handler logging mcause to RAM
// and resuming at mepc + 4 (all instructions here are 32-bit).
void map_program(Bench &b) {
    tb::Checker &chk = b.chk;
    constexpr uint32_t LOG = RAM + 0x800, K = 0x3f0;
    Prog p;
    p.li(5, 0x200);
    p.w32(csrrw(0, 0x305, 5));                       // mtvec
    p.li(30, LOG);                                    // cause log pointer
    p.li(6, K);
    p.w32(enc_i(0, 6, 2, 7, LOAD));                  // lw x7, 0(x6): the ROM constant
    p.li(8, RAM + 0x100);
    p.li(9, 0x12345678);
    p.w32(enc_s(0, 9, 8, 2));                        // sw x9, 0(x8)
    p.w32(enc_s(4, 0, 8, 2));                        // sw x0, 4(x8)
    p.w32(enc_s(5, 9, 8, 0));                        // sb x9, 5(x8)
    p.w32(enc_i(0, 8, 2, 10, LOAD));                 // lw x10, 0(x8)
    p.w32(enc_i(4, 8, 5, 11, LOAD));                 // lhu x11, 4(x8)
    p.w32(enc_s(0, 9, 6, 2));                        // sw x9, 0(x6): ROM store -> 7
    p.li(12, 0x40000000);
    p.w32(enc_i(0, 12, 2, 13, LOAD));                // -> 5, outside the map
    p.li(15, CTX + CTX_SIZE - 4);
    p.w32(enc_s(0, 9, 15, 2));                       // sw x9 at the context store's last word
    p.w32(enc_s(-4, 9, 15, 1));                      // sh x9 below it
    p.w32(enc_i(0, 15, 2, 16, LOAD));                // lw x16
    p.w32(enc_i(-4, 15, 2, 17, LOAD));               // lw x17
    p.w32(enc_i(4, 15, 2, 13, LOAD));                // -> 5, past the context store
    p.li(12, MEM_SIZE);
    p.w32(enc_i(0, 12, 2, 13, LOAD));                // -> 5, past the ROM
    p.li(12, IO + 0x10);
    p.w32(enc_s(0, 9, 12, 2));                       // window write
    p.w32(enc_i(4, 12, 2, 14, LOAD));                // window read
    p.w32(enc_s(2, 9, 12, 1));                       // window halfword write
    p.li(12, IO + IO_SIZE);
    p.w32(enc_i(0, 12, 2, 13, LOAD));                // -> 5, past the window
    p.li(12, RAM + 0x200);
    p.w32(enc_i(0, 12, 0, 1, 0x67));                 // jalr ra, 0(x12): fetch from RAM -> 1
    p.li(12, IO);
    p.w32(enc_i(0, 12, 0, 1, 0x67));                 // fetch from the window -> 1
    p.li(12, CTX);
    p.w32(enc_i(0, 12, 0, 1, 0x67));                 // fetch from the context store -> 1
    uint32_t done = p.pc();
    p.w32(enc_j(0, 0));                              // j .
    while (p.pc() < 0x200) p.w32(addi(0, 0, 0));
    p.w32(csrrs(31, 0x342, 0));                      // handler: log mcause
    p.w32(enc_s(0, 31, 30, 2));
    p.w32(addi(30, 30, 4));
    p.w32(csrrs(31, 0x341, 0));                      // resume after the instruction, or
    p.w32(addi(31, 31, 4));                          // after the jalr that led to a fetch fault
    p.w32(csrrs(29, 0x342, 0));
    p.w32(addi(29, 29, -1));
    p.w32(enc_b(8, 0, 29, 1));                       // bne x29, x0, +8
    p.w32(addi(31, 1, 0));                           // mepc = ra
    p.w32(csrrw(0, 0x341, 31));
    p.w32(MRET);
    std::vector<uint8_t> rom = image(p);
    for (int i = 0; i < 4; i++) rom[K + i] = uint8_t(0xcafef00d >> (8 * i));
    b.load_rom(rom, 7, 0);
    b.run(160);
    auto &x = b.iss->x;
    chk.expect(x[7] == 0xcafef00d, "ROM constant %08x", x[7]);
    chk.expect(x[10] == 0x12345678 && x[11] == 0x7800, "RAM word %08x halfword %04x", x[10], x[11]);
    chk.expect(x[16] == 0x12345678 && (x[17] & 0xffff) == 0x5678, "context store word %08x, halfword %08x", x[16],
               x[17]);
    static const uint32_t want[] = {7, 5, 5, 5, 5, 1, 1, 1};
    for (unsigned i = 0; i < 8; i++) {
        uint32_t v = 0;
        b.iss_bus.load(LOG + 4 * i, 4, v);
        chk.expect(v == want[i], "fault %u: mcause %u, expected %u", i, v, want[i]);
    }
    chk.expect(b.iss->pc == done, "map program ended at %08x, expected %08x", b.iss->pc, done);
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Checker chk("cpu_sys");
    tb::Rng rng(args.seed);
    std::printf("[cpu_sys] seed %" PRIu64 "\n", args.seed);
    Bench b(chk, rng);
    b.inject = args.inject;

    // The firmware first: the register file holds its configured zeros.
    if (const char *elf = std::getenv("KITE_FW_ELF")) {
        std::vector<uint8_t> rom(MEM_SIZE);
        uint32_t entry = 0;
        std::string err;
        bool ok = kite::cpu::load_elf(
            elf,
            [&](uint32_t a, const uint8_t *d, size_t n) {
                for (size_t i = 0; i < n; i++)
                    if (a + i < MEM_SIZE) rom[a + i] = d[i];
            },
            entry, err);
        // The ROM_HEX image the bitstream would carry (kite-fw.hex) must be
        // the ELF's load image, word for word.
        if (const char *hex = std::getenv("KITE_FW_HEX")) {
            FILE *f = std::fopen(hex, "r");
            unsigned w = 0, v = 0, bad = 0;
            while (f && std::fscanf(f, "%x", &v) == 1) {
                uint32_t e = 0;
                for (int i = 0; i < 4; i++) e |= uint32_t(rom[4 * w + i]) << (8 * i);
                bad += v != e;
                w++;
            }
            if (f) std::fclose(f);
            bool rest_zero = std::all_of(rom.begin() + 4 * w, rom.end(), [](uint8_t c) { return c == 0; });
            chk.expect(f && w > 1000 && !bad && rest_zero, "%s: %u words, %u differ from the ELF's image%s", hex, w,
                       bad, rest_zero ? "" : ", and the image continues past it");
        }
        if (chk.expect(ok, "firmware %s: %s", elf, err.c_str())) {
            b.load_rom(rom, 0x5eed, entry);
            long r0 = b.retired, t0 = b.traps;
            uint64_t cyc = b.run(args.n > 0 ? args.n : 1500000);
            long n = b.retired - r0;
            chk.expect(b.traps == t0, "the firmware trapped %ld times", b.traps - t0);
            chk.expect(b.iss_mem.io_reads > 100, "the firmware read the window %" PRIu64 " times", b.iss_mem.io_reads);
            std::printf("[cpu_sys] firmware: %ld instructions, %ld window accesses (%" PRIu64 " writes), %" PRIu64
                        " cycles (%.2f per instruction, block RAM and a window answering after 0-3 cycles)\n",
                        n, b.io_accesses, b.iss_mem.io_writes, cyc, n ? double(cyc) / double(n) : 0.0);
        }
    } else {
        std::printf("[cpu_sys] firmware run skipped: KITE_FW_ELF is not set (fpga/check.sh sets it)\n");
    }

    map_program(b);

    long rounds = args.iters(4);
    long r0 = b.retired;
    for (long i = 0; i < rounds && !chk.fails; i++) {
        Prog p;
        gen_random(p, rng);
        b.load_rom(image(p), rng(), 0);
        b.run(50000);
    }
    std::printf("[cpu_sys] random: %ld programs, %ld instructions, %ld traps, %ld window accesses in all\n", rounds,
                b.retired - r0, b.traps, b.io_accesses);
    return chk.finish();
}
