// kite_flash testbench. The bench plays the control CPU on the register
// side (the accesses kite_cpu_io forwards: one every other cycle at most,
// answered the cycle after) and the board on the pin side: STARTUPE3 and
// the pads (spi_nor::Link: a cycle each way, the first three SCK cycles
// after startup swallowed, an undriven DQ1 reading as noise) and the
// Alveo U250's MT25QU01G (spi_nor::Flash: the command set and NOR
// semantics, two stacked dies, its pin timing checked every cycle).
//
// The expected contents are the bench's own shadow of the flash, updated
// with NOR rules from the operations it asked for (program: old & data;
// erase: 0xff), and compared with the flash's array and with every byte a
// READ brings back. Checked:
//   0. The flash model itself, bit-banged without the RTL: page program
//      wrapping at the page's end and keeping the last 256 of more bytes,
//      programs only clearing bits, WEL needed and cleared, a program cut
//      off inside a byte not executed, an erase to 0xff once its busy time
//      is over, commands other than the status reads ignored while busy,
//      the stacked part's flag status answering die by die.
//   1. After reset (the warm-up clock pulses): READ ID gives 20 bb 21.
//   2. Registers read back; bad accesses are access faults and change
//      nothing (offsets that are no register, FLASH_STATUS written, a
//      register written with less than a word, FLASH_CMD with anything
//      but ABORT while busy, FLASH_BUF while busy); an unknown operation
//      and every range rule (length 0 and 257, the device's end, the
//      window's two ends, a program across a page, an erase not aligned)
//      answer FLASH_ERR_OP / FLASH_ERR_RANGE with nothing sent to the flash,
//      and their neighbours inside the rules succeed.
//   3. Busy and abort: FLASH_STATUS busy until the flash's program or
//      erase is over (never earlier); ABORT during an erase's wait (busy
//      clears at once, CS# rises within an SCK period, never while
//      SCK is high) and during a READ's data; the next
//      operation waits for the flash and returns the right bytes.
//   4. Timeouts: a flash stuck busy gives FLASH_ERR_TIMEOUT within
//      FLASH_TIMEOUT and a poll; an operation on the still busy flash times
//      out too; error bits a timed-out operation left are cleared before
//      the next one, which succeeds.
//   5. Failures: the flash ignoring WRITE ENABLE (FLASH_ERR_WEL, nothing
//      programmed), a protected subsector and an injected program / erase
//      failure (FLASH_ERR_FAIL with the flag status in FLASH_STATUS 15:8,
//      contents unchanged, the flags cleared afterwards).
//   6. Random operations (--n, 600 by default) on a few subsectors of the
//      window (its first, last and a protected one), the bitstream region
//      and the device's end: READs of 1..256 bytes at any offset, PROGRAMs
//      of random data within a page (buffer written by words and by bytes),
//      ERASEs, READ ID, injected failures, stuck flashes and aborts; every
//      byte read compared, the flash's whole touched array compared with
//      the shadow at the end.
// The flash model's timing checks must report nothing. --inject corrupts
// the expected READ ID and must fail.
#include <cinttypes>
#include <map>
#include <memory>

#include "Vkite_flash.h"
#include "spi_nor.hpp"
#include "tb.hpp"
#include "../../../firmware/include/kite_fw/cpu_io.hpp"

namespace {

namespace io = kite::fw::cpu_io;
constexpr uint32_t WIN = io::FLASH_WIN_BASE, WEND = io::FLASH_WIN_BASE + io::FLASH_WIN_SIZE;
constexpr uint32_t DEV = io::FLASH_DEV_SIZE;
constexpr uint32_t CLK_MHZ = 250;
constexpr uint32_t PROT = WIN + 0x3000;  // a protected subsector of the window (in the model)
constexpr uint32_t BITS = 0x01002000;    // where the U250's user bitstream starts

uint32_t st_err(uint32_t s) { return s >> 4 & 15; }


struct Bench {
    Vkite_flash m;
    tb::Clock<Vkite_flash> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    spi_nor::Flash fl;
    spi_nor::Link link;
    spi_nor::Array sh;   // the bench's copy of what the flash must hold
    long ops = 0, faults = 0, bytes_read = 0, bytes_prog = 0, erases = 0, ids = 0, aborts = 0, timeouts = 0,
         fails = 0, wels = 0, ranges = 0, stale = 0, polls_busy = 0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        fl.config().prot_lo = PROT;
        fl.config().prot_hi = PROT + 4096;
        m.req_i = 0;
        m.we_i = 0;
        m.addr_i = 0;
        m.be_i = 0;
        m.wdata_i = 0;
        m.dq_i = 0;
        clk.reset();
    }

    void step() {
        m.eval();
        const bool d1 = link.cycle(fl, spi_nor::Pins{bool(m.sck_o), bool(m.cs_no), uint8_t(m.dq_o), uint8_t(m.dq_oe_o)});
        m.dq_i = uint8_t((d1 ? 2 : 0) | (rng() & 0xd));  // DQ0, 2, 3: whatever the pads read
        clk.tick();
    }
    void run(uint64_t n) {
        for (uint64_t i = 0; i < n; i++) step();
    }

    struct Ans {
        uint32_t data;
        bool err;
    };
    // One access as kite_cpu_io forwards it; the answer comes the next cycle.
    Ans access(bool we, uint32_t off, uint32_t wdata = 0, uint8_t be = 0xf) {
        m.req_i = 1;
        m.we_i = we;
        m.addr_i = uint16_t(off);
        m.be_i = be;
        m.wdata_i = wdata;
        step();
        m.req_i = 0;
        m.wdata_i = uint32_t(rng());
        m.addr_i = uint16_t(rng());
        m.be_i = uint8_t(rng());
        m.we_i = rng() & 1;
        Ans a{m.rdata_o, bool(m.err_o)};
        step();
        return a;
    }
    void wr(uint32_t off, uint32_t v, const char *what = "write") {
        chk.expect(!access(true, off, v).err, "%s: register 0x%x written without a fault", what, off);
    }
    uint32_t rd(uint32_t off) {
        Ans a = access(false, off);
        chk.expect(!a.err, "register 0x%x read without a fault", off);
        return a.data;
    }
    uint32_t status() { return rd(io::FLASH_STATUS); }
    // After an ABORT: SCK's high half runs out, CS# rises half an SCK
    // period after it fell: within 2 x SCK_DIV (4) + 2 cycles of the
    // FLASH_CMD write.
    bool cs_up_after_abort(uint64_t abort_cycle) {
        while (!m.cs_no && clk.cycle - abort_cycle < 10) step();
        return m.cs_no;
    }

    // Starts an operation; returns the cycle of the FLASH_CMD write.
    uint64_t start(uint32_t op, uint32_t addr, uint32_t len, uint32_t tmo_us) {
        wr(io::FLASH_ADDR, addr);
        wr(io::FLASH_LEN, len);
        wr(io::FLASH_TIMEOUT, tmo_us);
        const uint64_t c = clk.cycle;
        wr(io::FLASH_CMD, op, "FLASH_CMD");
        return c;
    }
    // Waits for busy to clear (a watchdog: a controller that never ends fails).
    uint32_t wait(uint64_t limit = 40'000'000) {
        const uint64_t c0 = clk.cycle;
        uint32_t s = status();
        while ((s & 1) && clk.cycle - c0 < limit) {
            run(tb::rnd(rng, 0, 40));
            s = status();
            polls_busy++;
        }
        chk.expect(!(s & 1), "the operation ended (status 0x%x after %" PRIu64 " cycles)", s, clk.cycle - c0);
        if (s & 1) {
            access(true, io::FLASH_CMD, io::FLASH_OP_ABORT);
            s = status();
        }
        return s;
    }
    uint32_t op(uint32_t opc, uint32_t addr, uint32_t len, uint32_t tmo_us = 2000) {
        start(opc, addr, len, tmo_us);
        ops++;
        return wait();
    }

    // The buffer, by words (and sometimes by bytes).
    void buf_write(const std::vector<uint8_t> &d) {
        const bool bytes = tb::chance(rng, 0.3);
        for (size_t i = 0; i < d.size(); i += 4) {
            uint32_t w = 0;
            for (size_t k = 0; k < 4 && i + k < d.size(); k++) w |= uint32_t(d[i + k]) << (8 * k);
            if (!bytes) {
                chk.expect(!access(true, io::FLASH_BUF + uint32_t(i), w).err, "FLASH_BUF word %zu written", i / 4);
            } else {
                for (unsigned k = 0; k < 4; k++) {
                    // Byte lanes one at a time, the others carrying junk.
                    uint32_t junk = uint32_t(rng()) & ~(0xffu << (8 * k));
                    chk.expect(!access(true, io::FLASH_BUF + uint32_t(i), (w & (0xffu << (8 * k))) | junk,
                                       uint8_t(1u << k)).err,
                               "FLASH_BUF byte %zu written", i + k);
                }
            }
        }
    }
    std::vector<uint8_t> buf_read(uint32_t n) {
        std::vector<uint8_t> d;
        for (uint32_t i = 0; i < n; i += 4) {
            uint32_t w = rd(io::FLASH_BUF + i);
            for (uint32_t k = 0; k < 4 && i + k < n; k++) d.push_back(uint8_t(w >> (8 * k)));
        }
        return d;
    }

    // A READ compared byte for byte with the shadow.
    bool read_check(uint32_t a, uint32_t n, const char *what) {
        const uint32_t s = op(io::FLASH_OP_READ, a, n);
        if (!chk.expect(st_err(s) == io::FLASH_ERR_NONE, "%s: READ 0x%x+%u status 0x%x", what, a, n, s)) return false;
        std::vector<uint8_t> d = buf_read(n);
        size_t bad = 0, first = 0;
        for (uint32_t i = 0; i < n; i++)
            if (d[i] != sh.get(a + i) && !bad++) first = i;
        bytes_read += n;
        return chk.expect(bad == 0, "%s: READ 0x%x+%u: %zu bytes differ, first at +%zu (0x%02x, expected 0x%02x)", what,
                          a, n, bad, first, d[first], sh.get(a + uint32_t(first)));
    }
    // A PROGRAM of random data; the shadow follows when it must succeed.
    uint32_t program(uint32_t a, uint32_t n, bool expect_ok = true) {
        std::vector<uint8_t> d = tb::rbytes(rng, n);
        if (tb::chance(rng, 0.3))
            for (auto &b : d) b |= uint8_t(rng());  // fewer bits cleared
        buf_write(d);
        const uint64_t progs = fl.n.programs;
        const uint64_t c0 = start(io::FLASH_OP_PROGRAM, a, n, 2000);
        ops++;
        const uint32_t s = wait();
        if (expect_ok && st_err(s) == io::FLASH_ERR_NONE) {
            for (uint32_t i = 0; i < n; i++) sh.set(a + i, sh.get(a + i) & d[i]);
            bytes_prog += n;
            // Busy until the flash was done, never before.
            chk.expect(fl.n.programs == progs + 1 && fl.last_done() > c0 && !fl.busy(),
                       "PROGRAM 0x%x+%u: one page program, over before busy cleared", a, n);
        }
        return s;
    }
    uint32_t erase(uint32_t a, bool expect_ok = true) {
        const uint64_t c0 = start(io::FLASH_OP_ERASE, a, 0, 20000);
        ops++;
        const uint32_t s = wait();
        if (expect_ok && st_err(s) == io::FLASH_ERR_NONE) {
            for (uint32_t i = 0; i < 4096; i++) sh.set(a + i, 0xff);
            erases++;
            chk.expect(fl.last_done() > c0 && !fl.busy(), "ERASE 0x%x over before busy cleared", a);
        }
        return s;
    }
    // An operation that must be refused with nothing sent to the flash.
    void refused(uint32_t opc, uint32_t a, uint32_t n, uint32_t err, const char *what) {
        const uint64_t cmds = fl.n.cmds;
        wr(io::FLASH_ADDR, a);
        wr(io::FLASH_LEN, n);
        wr(io::FLASH_CMD, opc, what);
        const uint32_t s = status();
        chk.expect(!(s & 1) && st_err(s) == err, "%s: refused at once with error %u (status 0x%x)", what, err, s);
        run(200);
        chk.expect(fl.n.cmds == cmds, "%s: nothing sent to the flash", what);
        ranges++;
    }

    void compare_all(const char *what) {
        size_t bad = 0;
        uint32_t first = 0;
        for (auto &[k, v] : sh.sub)
            for (uint32_t i = 0; i < 4096; i++)
                if (fl.peek(k << 12 | i) != v[i] && !bad++) first = k << 12 | i;
        chk.expect(bad == 0, "%s: the flash holds the expected bytes (%zu differ, first 0x%x: 0x%02x, expected 0x%02x)",
                   what, bad, first, fl.peek(first), bad ? sh.get(first) : 0);
    }
};

// ------------------------------------------------------------ 0. the model alone
// Bit-bangs the flash with legal timing (4 cycles a half period).
struct BitBang {
    spi_nor::Flash &f;
    spi_nor::Pins p;
    explicit BitBang(spi_nor::Flash &fl) : f(fl) { p.oe = 0xd; p.dq = 0xc; }
    bool dq1 = false;
    void cyc(unsigned n = 1) {
        for (unsigned i = 0; i < n; i++) {
            f.step(p);
            dq1 = f.dq1_driven() ? f.dq1() : false;
        }
    }
    void begin() { p.cs_n = false; cyc(4); }
    uint8_t byte(uint8_t v, unsigned bits = 8) {
        uint8_t r = 0;
        for (unsigned i = 0; i < bits; i++) {
            p.dq = uint8_t(0xc | (v >> (7 - i) & 1));
            cyc(4);
            p.sck = true;
            cyc(3);
            r = uint8_t(r << 1 | dq1);
            cyc(1);
            p.sck = false;
        }
        cyc(1);
        return r;
    }
    void end() { cyc(3); p.cs_n = true; cyc(16); }
    void cmd(std::initializer_list<uint8_t> b) {
        begin();
        for (uint8_t v : b) byte(v);
        end();
    }
    void addr4(uint8_t op, uint32_t a) {
        byte(op);
        for (int s = 24; s >= 0; s -= 8) byte(uint8_t(a >> s));
    }
    std::vector<uint8_t> read(uint32_t a, unsigned n) {
        begin();
        addr4(0x13, a);
        std::vector<uint8_t> d;
        for (unsigned i = 0; i < n; i++) d.push_back(byte(0));
        end();
        return d;
    }
    uint8_t status(uint8_t op) {
        begin();
        byte(op);
        uint8_t v = byte(0);
        end();
        return v;
    }
    void program(uint32_t a, const std::vector<uint8_t> &d, unsigned last_bits = 8) {
        begin();
        addr4(0x12, a);
        for (size_t i = 0; i < d.size(); i++) byte(d[i], i + 1 == d.size() ? last_bits : 8);
        end();
    }
    void wait_ready() {
        for (int i = 0; i < 100000 && (status(0x05) & 1); i++) {
        }
    }
};

void model_selftest(tb::Checker &chk) {
    spi_nor::Flash f;
    f.config().tclqv = 1;
    BitBang bb(f);
    const uint32_t page = 0x07800100;
    // Page program wraps at the page's end.
    bb.cmd({0x06});
    chk.expect(bb.status(0x05) == 0x02, "model: WEL after WRITE ENABLE");
    std::vector<uint8_t> d(10);
    for (unsigned i = 0; i < 10; i++) d[i] = uint8_t(0xa0 + i);
    bb.program(page + 250, d);
    chk.expect(bb.status(0x05) & 1, "model: busy after a page program");
    bb.wait_ready();
    chk.expect(bb.status(0x05) == 0, "model: WEL cleared after the program");
    bool wrap = true;
    for (unsigned i = 0; i < 6; i++) wrap = wrap && f.peek(page + 250 + i) == 0xa0 + i;
    for (unsigned i = 0; i < 4; i++) wrap = wrap && f.peek(page + i) == 0xa6 + i;
    chk.expect(wrap && f.peek(page + 256) == 0xff && f.peek(page + 4) == 0xff,
               "model: a page program past the page's end wraps to its start");
    // Programming only clears bits.
    bb.cmd({0x06});
    bb.program(page + 250, {0x0f});
    bb.wait_ready();
    chk.expect(f.peek(page + 250) == (0xa0 & 0x0f), "model: program ANDs (0x%02x)", f.peek(page + 250));
    // More than 256 bytes: the last 256.
    std::vector<uint8_t> big(300);
    for (unsigned i = 0; i < 300; i++) big[i] = uint8_t(i * 7 + 1);
    const uint32_t p2 = 0x07800400;
    bb.cmd({0x06});
    bb.program(p2 + 16, big);
    bb.wait_ready();
    bool last = true;
    for (unsigned i = 44; i < 300; i++) last = last && f.peek(p2 + ((16 + i) & 255)) == big[i];
    chk.expect(last, "model: of 300 bytes the last 256 are programmed");
    // No WEL: ignored; a program cut off inside a byte: not executed.
    bb.program(0x07800800, {0x00});
    chk.expect(f.peek(0x07800800) == 0xff && f.n.ignored_wel == 1, "model: a program without WEL is ignored");
    bb.cmd({0x06});
    bb.program(0x07800800, {0x00, 0x00}, 5);
    chk.expect(f.peek(0x07800800) == 0xff && f.n.aborted == 1 && !f.busy(),
               "model: a program whose CS# rises inside a byte is not executed");
    bb.cmd({0x04});
    // Erase: busy, ignoring reads, die-by-die flag status, then 0xff.
    bb.cmd({0x06});
    bb.begin();
    bb.addr4(0x21, page);
    bb.end();
    chk.expect(f.busy(), "model: busy erasing");
    const uint64_t ign = f.n.ignored_busy;
    bb.read(page, 4);
    chk.expect(f.n.ignored_busy == ign + 1, "model: a READ while busy is ignored");
    const uint8_t a = bb.status(0x70), b = bb.status(0x70);
    chk.expect((a ^ b) == 0x80, "model: flag status answers die by die while one die erases (0x%02x, 0x%02x)", a, b);
    bb.wait_ready();
    chk.expect(f.peek(page + 250) == 0xff && f.peek(page) == 0xff && bb.read(page + 250, 2) == std::vector<uint8_t>{0xff, 0xff},
               "model: the subsector reads 0xff after the erase");
    chk.expect((bb.status(0x70) & 0x80) && (bb.status(0x70) & 0x80), "model: both dies ready after the erase");
    chk.expect(f.errors().empty(), "model: the bit-banged timing is legal (%s)",
               f.errors().empty() ? "" : f.errors()[0].c_str());
}

}  // namespace

int main(int argc, char **argv) {
    tb::Args args(argc, argv);
    tb::Checker chk("flash");
    tb::Rng rng(args.seed);
    std::printf("[flash] seed %" PRIu64 "\n", args.seed);

    model_selftest(chk);

    auto bp = std::make_unique<Bench>(chk, rng);
    Bench &b = *bp;
    spi_nor::Flash &fl = b.fl;
    // Contents before: the bitstream region and part of the window.
    for (uint32_t base : {BITS, WIN, WIN + 0x1000, WEND - 0x1000, DEV - 0x1000})
        for (uint32_t i = 0; i < 4096; i++) {
            const uint8_t v = uint8_t(rng());
            fl.poke(base + i, v);
            b.sh.set(base + i, v);
        }

    // 1. READ ID after the warm-up.
    {
        const uint32_t s = b.op(io::FLASH_OP_ID, 0, 20);
        const uint32_t w = b.rd(io::FLASH_BUF);
        const uint32_t want = io::FLASH_JEDEC_ID ^ (args.inject ? 1u : 0u);
        chk.expect(st_err(s) == 0 && (w & 0xffffff) == want, "READ ID after reset: 0x%06x (status 0x%x), expected 0x%06x",
                   w & 0xffffff, s, want);
        chk.expect(fl.n.sck_idle >= 2 * 3, "warm-up: SCK pulses with CS# high before the first command (%" PRIu64 " edges)",
                   fl.n.sck_idle);
        b.ids++;
    }

    // 2. Registers and bad accesses.
    {
        b.wr(io::FLASH_ADDR, 0x12345678);
        b.wr(io::FLASH_LEN, 0x9abcdef0);
        b.wr(io::FLASH_TIMEOUT, 0x0badcafe);
        chk.expect(b.rd(io::FLASH_ADDR) == 0x12345678 && b.rd(io::FLASH_LEN) == 0x9abcdef0 &&
                       b.rd(io::FLASH_TIMEOUT) == 0x0badcafe,
                   "FLASH_ADDR, FLASH_LEN, FLASH_TIMEOUT read back");
        chk.expect(b.rd(io::FLASH_CMD) == io::FLASH_OP_ID, "FLASH_CMD reads the last operation");
        for (uint32_t off : {0x414u, 0x418u, 0x43cu, 0x4fcu, 0x480u})
            for (bool we : {false, true}) {
                chk.expect(b.access(we, off, 0).err, "offset 0x%x (%s) faults", off, we ? "write" : "read");
                b.faults++;
            }
        const uint32_t s0 = b.status();
        chk.expect(b.access(true, io::FLASH_STATUS, 0xffffffff).err && b.status() == s0,
                   "a write to FLASH_STATUS faults and changes nothing");
        for (uint8_t be : {0x1, 0x3, 0xc, 0x7}) {
            chk.expect(b.access(true, io::FLASH_ADDR, 0, be).err && b.rd(io::FLASH_ADDR) == 0x12345678,
                       "a write of byte enables 0x%x to FLASH_ADDR faults and changes nothing", be);
            chk.expect(b.access(true, io::FLASH_CMD, io::FLASH_OP_READ, be).err && b.status() == s0,
                       "a write of byte enables 0x%x to FLASH_CMD faults and starts nothing", be);
            b.faults += 2;
        }
        b.faults++;
        // Unknown operations and the range rules: refused, nothing sent.
        for (uint32_t opc : {0u, 5u, 14u, 0x11u, 0x80000001u})
            b.refused(opc, WIN, 16, io::FLASH_ERR_OP, "an unknown operation");
        b.refused(io::FLASH_OP_READ, WIN, 0, io::FLASH_ERR_RANGE, "READ of 0 bytes");
        b.refused(io::FLASH_OP_READ, WIN, 257, io::FLASH_ERR_RANGE, "READ of 257 bytes");
        b.refused(io::FLASH_OP_ID, 0, 0, io::FLASH_ERR_RANGE, "ID of 0 bytes");
        b.refused(io::FLASH_OP_READ, DEV - 255, 256, io::FLASH_ERR_RANGE, "READ past the device's end");
        b.refused(io::FLASH_OP_READ, 0xfffffff0u, 32, io::FLASH_ERR_RANGE, "READ at 2^32 - 16");
        b.refused(io::FLASH_OP_PROGRAM, WIN - 1, 1, io::FLASH_ERR_RANGE, "PROGRAM below the window");
        b.refused(io::FLASH_OP_PROGRAM, WEND - 1, 2, io::FLASH_ERR_RANGE, "PROGRAM past the window");
        b.refused(io::FLASH_OP_PROGRAM, BITS, 16, io::FLASH_ERR_RANGE, "PROGRAM of the bitstream");
        b.refused(io::FLASH_OP_PROGRAM, WIN + 200, 57, io::FLASH_ERR_RANGE, "PROGRAM across a page");
        b.refused(io::FLASH_OP_PROGRAM, WIN, 0, io::FLASH_ERR_RANGE, "PROGRAM of 0 bytes");
        b.refused(io::FLASH_OP_PROGRAM, WIN, 257, io::FLASH_ERR_RANGE, "PROGRAM of 257 bytes");
        b.refused(io::FLASH_OP_ERASE, WIN + 0x800, 0, io::FLASH_ERR_RANGE, "ERASE not 4 KiB aligned");
        b.refused(io::FLASH_OP_ERASE, WIN - 4096, 0, io::FLASH_ERR_RANGE, "ERASE below the window");
        b.refused(io::FLASH_OP_ERASE, WEND, 0, io::FLASH_ERR_RANGE, "ERASE past the window");
        b.refused(io::FLASH_OP_ERASE, 0, 0, io::FLASH_ERR_RANGE, "ERASE of the golden image");
        // Their neighbours inside the rules.
        b.read_check(DEV - 256, 256, "READ of the device's last 256 bytes");
        b.read_check(BITS + 5, 100, "READ of the bitstream region");
        { uint32_t s = b.program(WIN + 200, 56); chk.expect(st_err(s) == 0, "PROGRAM up to the page's end (0x%x)", s); }
        chk.expect(st_err(b.program(WEND - 1, 1)) == 0, "PROGRAM of the window's last byte");
        chk.expect(st_err(b.program(WIN, 256)) == 0, "PROGRAM of a whole page");
        chk.expect(st_err(b.erase(WEND - 4096)) == 0, "ERASE of the window's last subsector");
        b.read_check(WIN, 256, "READ back");
        b.read_check(WIN + 130, 200, "READ back across a page");
        b.read_check(WEND - 256, 256, "READ of the window's end");
        b.compare_all("after the directed programs");
    }

    // 3. Busy and abort.
    {
        fl.config().erase_cycles = 300'000;
        const uint64_t c0 = b.start(io::FLASH_OP_ERASE, WIN + 0x1000, 0, 100000);
        b.run(3000);
        chk.expect(fl.busy() && (b.status() & 1), "busy while the flash erases");
        chk.expect(b.access(true, io::FLASH_CMD, io::FLASH_OP_READ).err, "FLASH_CMD READ while busy faults");
        chk.expect(b.access(false, io::FLASH_BUF + 8).err, "a FLASH_BUF read while busy faults");
        chk.expect(b.access(true, io::FLASH_BUF + 8, 0x55aa55aa).err, "a FLASH_BUF write while busy faults");
        b.faults += 3;
        b.run(5000);
        chk.expect(fl.busy() && (b.status() & 1), "still busy: the fault did not disturb the erase");
        const uint64_t ca = b.clk.cycle;
        b.wr(io::FLASH_CMD, io::FLASH_OP_ABORT, "ABORT");
        const uint32_t s = b.status();
        chk.expect(!(s & 1) && st_err(s) == io::FLASH_ERR_ABORT, "ABORT: idle at once (0x%x)", s);
        chk.expect(b.cs_up_after_abort(ca), "ABORT: CS# high within an SCK period");
        b.aborts++;
        for (uint32_t i = 0; i < 4096; i++) b.sh.set(WIN + 0x1000 + i, 0xff);   // the flash goes on erasing
        chk.expect(fl.busy(), "the flash still erases after the abort");
        // The next READ waits for it.
        const uint64_t ready_at = fl.busy_until();
        b.read_check(WIN + 0x1000 + 17, 64, "READ after an aborted erase");
        chk.expect(b.clk.cycle > ready_at && fl.last_done() >= c0, "that READ waited for the erase to end");
        fl.config().erase_cycles = 8000;
        // ABORT in a READ's data.
        const uint64_t reads = fl.n.reads;
        b.start(io::FLASH_OP_READ, BITS, 256, 2000);
        for (int i = 0; i < 100000 && fl.n.reads == reads; i++) b.step();
        b.run(700);
        const uint64_t cr = b.clk.cycle;
        b.wr(io::FLASH_CMD, io::FLASH_OP_ABORT, "ABORT");
        chk.expect(st_err(b.status()) == io::FLASH_ERR_ABORT && b.cs_up_after_abort(cr), "ABORT in a READ's data");
        b.aborts++;
        b.read_check(BITS, 256, "READ after an aborted READ");
        // ABORT when idle: nothing.
        const uint64_t cmds = fl.n.cmds;
        b.wr(io::FLASH_CMD, io::FLASH_OP_ABORT, "ABORT");
        const uint32_t sw = b.status();
        chk.expect(!(sw & 1) && st_err(sw) == io::FLASH_ERR_NONE && fl.n.cmds == cmds,
                   "ABORT when idle does nothing (0x%x)", sw);
    }

    // 4. Timeouts.
    {
        fl.stuck = true;
        fl.config().erase_cycles = 100;
        const uint64_t c0 = b.start(io::FLASH_OP_ERASE, WIN + 0x1000, 0, 60);
        const uint32_t s = b.wait();
        const uint64_t us = (b.clk.cycle - c0) / CLK_MHZ;
        chk.expect(st_err(s) == io::FLASH_ERR_TIMEOUT && us >= 60 && us <= 64,
                   "a flash stuck erasing: FLASH_ERR_TIMEOUT after %" PRIu64 " us (FLASH_TIMEOUT 60)", us);
        const uint32_t s2 = b.op(io::FLASH_OP_READ, WIN, 16, 25);
        chk.expect(st_err(s2) == io::FLASH_ERR_TIMEOUT, "a READ of the still busy flash times out (0x%x)", s2);
        const uint32_t s3 = b.op(io::FLASH_OP_READ, WIN, 16, 0);
        chk.expect(st_err(s3) == io::FLASH_ERR_TIMEOUT, "FLASH_TIMEOUT 0: no wait (0x%x)", s3);
        b.timeouts += 3;
        fl.stuck = false;
        for (uint32_t i = 0; i < 4096; i++) b.sh.set(WIN + 0x1000 + i, 0xff);
        // Error bits an operation that timed out left behind.
        fl.set_fsr_errors(0x30);
        const uint64_t cl = fl.n.clfsr;
        chk.expect(st_err(b.program(WIN + 0x1000, 64)) == 0 && fl.n.clfsr == cl + 1 && fl.fsr_errors() == 0,
                   "stale flag status errors cleared first, the PROGRAM succeeds");
        b.stale++;
        b.read_check(WIN + 0x1000, 128, "READ after the timeouts");
        fl.config().erase_cycles = 8000;
    }

    // 5. Failures.
    {
        fl.ignore_wren = true;
        const uint64_t progs = fl.n.programs, ign = fl.n.ignored_wel;
        uint32_t s = b.program(WIN + 0x1100, 32, false);
        chk.expect(st_err(s) == io::FLASH_ERR_WEL && fl.n.programs == progs && fl.n.ignored_wel == ign,
                   "no WEL: FLASH_ERR_WEL and no program sent (0x%x)", s);
        s = b.erase(WIN + 0x1000, false);
        chk.expect(st_err(s) == io::FLASH_ERR_WEL, "no WEL: an ERASE fails too (0x%x)", s);
        b.wels += 2;
        fl.ignore_wren = false;
        s = b.program(PROT + 0x40, 16, false);
        chk.expect(st_err(s) == io::FLASH_ERR_FAIL && (s >> 8 & 0xff) == 0x92 && fl.fsr_errors() == 0,
                   "a protected subsector: PROGRAM fails, flag status 0x%02x (0x92), flags cleared", s >> 8 & 0xff);
        s = b.erase(PROT, false);
        chk.expect(st_err(s) == io::FLASH_ERR_FAIL && (s >> 8 & 0xff) == 0xa2, "a protected subsector: ERASE fails (0x%x)", s);
        fl.fail_next = true;
        s = b.program(WIN + 0x1200, 8, false);
        chk.expect(st_err(s) == io::FLASH_ERR_FAIL && (s >> 8 & 0xff) == 0x90, "an injected program failure (0x%x)", s);
        b.fails += 3;
        b.read_check(PROT, 256, "the protected subsector unchanged");
        b.read_check(WIN + 0x1100, 256, "nothing programmed by the failed operations");
        b.compare_all("after the failures");
    }

    // 6. Random operations.
    {
        const uint32_t subs[] = {WIN, WIN + 0x1000, WIN + 0x2000, PROT, WEND - 0x1000};
        const long n = args.iters(600);
        for (long i = 0; i < n; i++) {
            b.run(tb::rnd(rng, 0, 50));
            const uint32_t base = subs[tb::rnd(rng, 0, 4)];
            const bool prot = base == PROT;
            const unsigned k = tb::rnd(rng, 0, 99);
            if (k < 35) {
                uint32_t a = base + tb::rnd(rng, 0, 4095), len = tb::rnd(rng, 1, 256);
                if (tb::chance(rng, 0.2)) a = tb::chance(rng, 0.5) ? BITS + tb::rnd(rng, 0, 3000) : DEV - tb::rnd(rng, 1, 256);
                if (tb::chance(rng, 0.1)) len = 256;
                if (a + len > DEV) len = DEV - a;   // READs beyond the device: section 2
                b.read_check(a, len, "random READ");
            } else if (k < 70) {
                const uint32_t a = base + tb::rnd(rng, 0, 4095);
                const uint32_t room = 256 - (a & 255);
                const uint32_t len = tb::chance(rng, 0.2) ? room : tb::rnd(rng, 1, room);
                const bool fail = !prot && tb::chance(rng, 0.05);
                fl.fail_next = fail;
                const uint32_t s = b.program(a, len, !prot && !fail);
                const uint32_t want = prot || fail ? io::FLASH_ERR_FAIL : io::FLASH_ERR_NONE;
                chk.expect(st_err(s) == want, "random PROGRAM 0x%x+%u: status 0x%x (error %u)", a, len, s, want);
                if (want) b.fails++;
            } else if (k < 80) {
                const bool fail = !prot && tb::chance(rng, 0.1);
                fl.fail_next = fail;
                const uint32_t s = b.erase(base, !prot && !fail);
                chk.expect(st_err(s) == (prot || fail ? io::FLASH_ERR_FAIL : io::FLASH_ERR_NONE),
                           "random ERASE 0x%x: status 0x%x", base, s);
                if (prot || fail) b.fails++;
            } else if (k < 85) {
                const uint32_t len = tb::rnd(rng, 1, 24);
                const uint32_t s = b.op(io::FLASH_OP_ID, 0, len);
                const std::vector<uint8_t> d = b.buf_read(len);
                const uint8_t id[3] = {0x20, 0xbb, 0x21};
                bool ok = st_err(s) == 0;
                for (uint32_t j = 0; j < len && j < 3; j++) ok = ok && d[j] == id[j];
                chk.expect(ok, "random READ ID of %u bytes", len);
                b.ids++;
            } else if (k < 90) {
                // A range error or an unknown operation.
                switch (tb::rnd(rng, 0, 3)) {
                case 0: b.refused(io::FLASH_OP_PROGRAM, base + 255, 2, io::FLASH_ERR_RANGE, "random PROGRAM across a page"); break;
                case 1: b.refused(io::FLASH_OP_ERASE, base + 4 * tb::rnd(rng, 1, 1023), 0, io::FLASH_ERR_RANGE, "random unaligned ERASE"); break;
                case 2: b.refused(io::FLASH_OP_PROGRAM, tb::rnd(rng, 0, WIN - 1), 1, io::FLASH_ERR_RANGE, "random PROGRAM below the window"); break;
                default: b.refused(tb::rnd(rng, 5, 14), base, 4, io::FLASH_ERR_OP, "random unknown operation"); break;
                }
            } else if (k < 95) {
                // Abort an erase while the flash works on it (the erase goes on).
                if (prot) continue;
                fl.config().erase_cycles = tb::rnd(rng, 5000, 40000);
                const uint64_t er = fl.n.erases;
                b.start(io::FLASH_OP_ERASE, base, 0, 20000);
                for (int j = 0; j < 20000 && fl.n.erases == er; j++) b.step();
                b.run(tb::rnd(rng, 0, 3000));
                const uint64_t ca = b.clk.cycle;
                b.wr(io::FLASH_CMD, io::FLASH_OP_ABORT, "ABORT");
                const uint32_t s = b.status();
                chk.expect(!(s & 1) && (st_err(s) == io::FLASH_ERR_ABORT || st_err(s) == io::FLASH_ERR_NONE),
                           "random ABORT of an erase: idle (0x%x)", s);
                chk.expect(b.cs_up_after_abort(ca), "random ABORT of an erase: CS# high");
                // Still waiting for an earlier aborted erase, it may not
                // have sent its own: the flash erases only what it got.
                if (fl.n.erases != er)
                    for (uint32_t j = 0; j < 4096; j++) b.sh.set(base + j, 0xff);
                b.aborts++;
                fl.config().erase_cycles = 8000;
            } else {
                // A flash stuck in an erase: the timeout, then it recovers.
                if (prot) continue;
                fl.stuck = true;
                const uint64_t er = fl.n.erases;
                const uint32_t tmo = tb::rnd(rng, 10, 80);
                const uint64_t c0 = b.start(io::FLASH_OP_ERASE, base, 0, tmo);
                const uint32_t s = b.wait();
                const uint64_t us = (b.clk.cycle - c0) / CLK_MHZ;
                chk.expect(st_err(s) == io::FLASH_ERR_TIMEOUT && us >= tmo && us <= tmo + 4,
                           "random stuck erase: timeout after %" PRIu64 " us (%u)", us, tmo);
                fl.stuck = false;
                // It times out before its erase is sent when an aborted
                // erase still runs (stuck now too).
                if (fl.n.erases != er)
                    for (uint32_t j = 0; j < 4096; j++) b.sh.set(base + j, 0xff);
                b.timeouts++;
            }
        }
        for (uint32_t s : subs)
            for (uint32_t a = s; a < s + 4096; a += 256) b.read_check(a, 256, "final READ");
        b.compare_all("at the end");
    }

    chk.expect(fl.errors_total() == 0, "the flash's pin timing and protocol checks: %" PRIu64 " violations (%s)",
               fl.errors_total(), fl.errors().empty() ? "" : fl.errors()[0].c_str());
    chk.expect(fl.n.unknown == 0 && fl.n.ignored_busy == 0,
               "no unknown command and none sent to a busy flash (%" PRIu64 ", %" PRIu64 ")", fl.n.unknown,
               fl.n.ignored_busy);
    // A READ of a page: cycles from FLASH_CMD to idle.
    {
        const uint64_t c0 = b.start(io::FLASH_OP_READ, WIN, 256, 2000);
        b.wait(1'000'000);
        const uint64_t c = b.clk.cycle - c0;
        std::printf("[flash] throughput: a 256-byte READ takes %" PRIu64 " cycles (%.1f MB/s at %u MHz; SCK %u MHz)\n", c,
                    256.0 * CLK_MHZ / double(c), CLK_MHZ, CLK_MHZ / 8);
    }
    std::printf("[flash] %ld operations: %ld bytes read, %ld programmed, %ld erases, %ld READ ID, %ld refused, %ld faults, "
                "%ld aborts, %ld timeouts, %ld failures, %ld WEL, %ld stale; the flash saw %" PRIu64 " commands (%" PRIu64
                " flag status reads, %" PRIu64 " aborted)\n",
                b.ops, b.bytes_read, b.bytes_prog, b.erases, b.ids, b.ranges, b.faults, b.aborts, b.timeouts, b.fails,
                b.wels, b.stale, fl.n.cmds, fl.n.rdfsr, fl.n.aborted);
    std::printf("[flash] %" PRIu64 " cycles\n", b.clk.cycle);
    return chk.finish();
}
