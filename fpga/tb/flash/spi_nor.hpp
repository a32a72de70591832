// A SPI NOR flash at its pins, for the testbenches of kite_flash and of the
// card with its CPU: the Micron MT25Q (the Alveo U250's MT25QU01G, 1 Gb) in
// extended SPI (single-bit) mode, evaluated once per clock cycle of the
// design that drives it. C++20.
//
// Commands: WRITE ENABLE 06h, WRITE DISABLE 04h, READ STATUS 05h (bit 0
// WIP, bit 1 WEL), READ FLAG STATUS 70h (bit 7 ready, 5 erase error, 4
// program error, 1 protection error; the bits stay until CLEAR FLAG
// STATUS 50h), READ ID 9Fh (20 bytes), READ 03h / 4-BYTE READ 13h, PAGE
// PROGRAM 02h / 4-BYTE PAGE PROGRAM 12h, SUBSECTOR ERASE 20h / 4-BYTE 4KB
// SUBSECTOR ERASE 21h (03h, 02h, 20h take 3 address bytes, as the part in
// its default 3-byte mode with the extended address register at 0).
// Semantics as the datasheet has them:
//   * programming only clears bits (new = old & data); an erase sets its
//     4 KiB subsector to 0xff;
//   * a program or erase needs WEL, which WRITE ENABLE sets and every
//     program or erase clears (WRITE DISABLE too); without it the command
//     is ignored;
//   * a program or erase is executed when CS# rises, and only if it rises
//     on a byte boundary (and, for an erase, after exactly its address);
//   * page program: bytes past the end of the 256-byte page wrap to its
//     start; of more than 256 data bytes only the last 256 are programmed;
//   * while a program or erase runs (busy for a set number of cycles)
//     only READ STATUS and READ FLAG STATUS are answered, every other
//     command is ignored (DQ1 is not driven);
//   * READ FLAG STATUS of a stacked part (dies > 1) answers die by die:
//     successive bytes (and commands) report the next die, and only the
//     die that programs or erases reports busy;
//   * a program or erase in a protected range sets the protection error
//     and the program or erase error, changes nothing, and clears WEL.
// Outputs change on SCK's falling edge and are valid tclqv cycles later
// (the old bit holds until then). Checked on every cycle and recorded in
// errors(): SCK's high and low times (its frequency), CS# high time between
// commands (tSHSL), DQ0 stable from the cycle before SCK rises until it
// falls, CS# moving only while SCK is low, W# and HOLD# driven high while
// CS# is low, DQ1 never driven by the controller.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace spi_nor {

// NOR contents, 4 KiB subsectors made when first written; a byte never
// written reads 0xff (erased). The flash's array, and a bench's shadow.
struct Array {
    std::map<uint32_t, std::array<uint8_t, 4096>> sub;   // by address >> 12
    uint8_t get(uint32_t a) const {
        auto it = sub.find(a >> 12);
        return it == sub.end() ? 0xff : it->second[a & 4095];
    }
    void set(uint32_t a, uint8_t v) { at(a >> 12)[a & 4095] = v; }
    std::array<uint8_t, 4096> &at(uint32_t n) {
        auto it = sub.find(n);
        if (it == sub.end()) {
            std::array<uint8_t, 4096> e;
            e.fill(0xff);
            it = sub.emplace(n, e).first;
        }
        return it->second;
    }
};

struct Config {
    uint32_t size = 128u << 20;   // bytes (1 Gb)
    unsigned dies = 2;            // MT25QU01G: two 512 Mb dies
    uint64_t prog_cycles = 2000;  // busy time of a page program (clock cycles)
    uint64_t erase_cycles = 8000; // of a 4 KiB subsector erase
    unsigned tclqv = 3;           // SCK falling to DQ1 valid (cycles)
    unsigned tshsl = 13;          // CS# high at least (cycles: 50 ns at 4 ns)
    unsigned min_half = 2;        // SCK high and low at least (cycles)
    uint32_t prot_lo = 0, prot_hi = 0;  // protected bytes [lo, hi)
};

// The pins as the flash sees them in one cycle.
struct Pins {
    bool sck = false, cs_n = true;
    uint8_t dq = 0xf, oe = 0;     // the controller's DQ3..0 and their enables
};

class Flash {
public:
    explicit Flash(Config c = {}) : cfg_(c) {}
    Config &config() { return cfg_; }

    // Backdoor (no timing).
    uint8_t peek(uint32_t a) const { return mem_.get(a); }
    void poke(uint32_t a, uint8_t v) { mem_.set(a, v); }

    // Faults a test can ask for.
    bool stuck = false;           // the running program/erase never ends (until cleared)
    bool fail_next = false;       // the next program/erase fails (error bits, nothing changed)
    bool ignore_wren = false;     // WRITE ENABLE does nothing

    // What the flash saw.
    struct Counts {
        uint64_t cmds = 0, reads = 0, programs = 0, erases = 0, wren = 0, rdsr = 0, rdfsr = 0, clfsr = 0, rdid = 0;
        uint64_t ignored_busy = 0, ignored_wel = 0, aborted = 0, unknown = 0, prog_bytes = 0, sck_idle = 0;
    } n;
    const std::vector<std::string> &errors() const { return errors_; }
    uint64_t errors_total() const { return nerr_; }
    bool busy() const { return busy_; }
    uint64_t busy_until() const { return busy_until_; }
    uint8_t fsr_errors() const { return ferr_; }
    bool wel() const { return wel_; }
    uint64_t now() const { return t_; }
    // When the last program or erase ended (the cycle its busy time ran out).
    uint64_t last_done() const { return last_done_; }

    // DQ1 as the flash drives it (meaningful when dq1_driven()).
    bool dq1() const { return out_bit_; }
    bool dq1_driven() const { return out_en_; }
    // Error bits as an earlier operation (or the bitstream's loader) may leave them.
    void set_fsr_errors(uint8_t bits) { ferr_ = bits & 0x32; }

    // One clock cycle with these pins.
    void step(const Pins &p) {
        t_++;
        if (busy_ && !stuck && t_ >= busy_until_) finish();
        // A scheduled output bit becomes valid.
        while (!pend_.empty() && pend_.front().first <= t_) {
            out_bit_ = pend_.front().second;
            pend_.pop_front();
        }
        check_pins(p);
        if (p.cs_n) {
            if (!last_.cs_n) cs_rise();
            if (p.sck != last_.sck) n.sck_idle++;
            hi_cycles_++;
        } else {
            if (last_.cs_n) cs_fall();
            if (p.sck && !last_.sck) rise(p);
            if (!p.sck && last_.sck) fall();
        }
        if (p.sck == last_.sck) sck_run_++;
        else sck_run_ = 1;
        last_ = p;
    }

private:
    enum class Ph { NONE, CMD, ADDR, DIN, DOUT, IGNORE };
    Config cfg_;
    Array mem_;
    std::vector<std::string> errors_;
    uint64_t nerr_ = 0;
    uint64_t t_ = 0;
    Pins last_;
    uint64_t hi_cycles_ = 1000, sck_run_ = 1000;
    bool mosi_prev_ = false;      // DQ0 a cycle ago

    // Device state.
    bool wel_ = false, busy_ = false;
    uint64_t busy_until_ = 0, last_done_ = 0;
    unsigned busy_die_ = 0, rot_ = 0;
    uint8_t ferr_ = 0;
    bool pend_erase_ = false;
    uint32_t pend_addr_ = 0;

    // The command in progress.
    Ph ph_ = Ph::NONE;
    uint8_t op_ = 0, in_byte_ = 0;
    unsigned in_bits_ = 0, total_bits_ = 0, abytes_ = 0, anum_ = 0;
    uint32_t addr_ = 0;
    std::vector<uint8_t> din_;
    uint8_t out_byte_ = 0;
    unsigned out_bits_ = 8;
    unsigned out_idx_ = 0;
    bool out_bit_ = true, out_en_ = false;
    std::deque<std::pair<uint64_t, bool>> pend_;

    std::array<uint8_t, 4096> &sub(uint32_t a) { return mem_.at(a >> 12); }
    template <class... A>
    void err(const char *fmt, A... a) {
        nerr_++;
        if (errors_.size() < 20) {
            char b[256];
            std::snprintf(b, sizeof(b), fmt, a...);
            errors_.push_back("cycle " + std::to_string(t_) + ": " + b);
        }
    }
    bool prot(uint32_t a) const { return a >= cfg_.prot_lo && a < cfg_.prot_hi; }
    unsigned die_of(uint32_t a) const { return unsigned(uint64_t(a) * cfg_.dies / cfg_.size); }

    void check_pins(const Pins &p) {
        if ((p.oe & 2) && out_en_) err("DQ1 driven by both sides");
        if (!p.cs_n) {
            if ((p.oe & 0xc) != 0xc || (p.dq & 0xc) != 0xc) err("W# / HOLD# not driven high (dq %x oe %x)", p.dq, p.oe);
            if (!(p.oe & 1)) err("DQ0 not driven while CS# is low");
        }
        if (p.cs_n != last_.cs_n && (p.sck || last_.sck)) err("CS# moved while SCK was high");
        if (!p.cs_n && p.sck != last_.sck && sck_run_ < cfg_.min_half)
            err("SCK %s for %llu cycles (at least %u)", last_.sck ? "high" : "low", (unsigned long long)sck_run_,
                cfg_.min_half);
        if (!p.cs_n && last_.cs_n && hi_cycles_ < cfg_.tshsl)
            err("CS# high for %llu cycles (tSHSL: %u)", (unsigned long long)hi_cycles_, cfg_.tshsl);
        const bool mosi = p.dq & 1;
        if (!p.cs_n && !last_.cs_n) {
            if (p.sck && !last_.sck && mosi != mosi_prev_) err("DQ0 changed in the cycle SCK rose (setup)");
            if (p.sck && last_.sck && mosi != mosi_prev_) err("DQ0 changed while SCK was high (hold)");
        }
        mosi_prev_ = mosi;
    }

    void cs_fall() {
        n.cmds++;
        ph_ = Ph::CMD;
        in_bits_ = total_bits_ = 0;
        din_.clear();
        out_en_ = false;
        pend_.clear();
    }
    void cs_rise() {
        hi_cycles_ = 0;
        out_en_ = false;
        pend_.clear();
        const bool boundary = total_bits_ % 8 == 0;
        const bool prog = op_ == 0x12 || op_ == 0x02, era = op_ == 0x21 || op_ == 0x20;
        if (ph_ == Ph::CMD || ph_ == Ph::NONE || ph_ == Ph::IGNORE || ph_ == Ph::DOUT) {
            // fewer than 8 bits, ignored, or a read: nothing to do
        } else if (prog) {
            if (ph_ == Ph::DIN && boundary && !din_.empty()) program();
            else n.aborted++;
        } else if (era) {
            if (ph_ == Ph::ADDR && boundary && anum_ == abytes_) erase();
            else n.aborted++;
        } else if (ph_ == Ph::DIN) {
            // One-byte commands act at CS# high, after exactly their byte.
            if (total_bits_ != 8) n.aborted++;
            else if (op_ == 0x06) { n.wren++; if (!ignore_wren) wel_ = true; }
            else if (op_ == 0x04) wel_ = false;
            else if (op_ == 0x50) { n.clfsr++; ferr_ = 0; }
        } else {
            n.aborted++;  // a read cut in its address
        }
        ph_ = Ph::NONE;
    }

    void rise(const Pins &p) {
        if (ph_ == Ph::NONE || ph_ == Ph::IGNORE) { total_bits_++; return; }
        in_byte_ = uint8_t(in_byte_ << 1 | (p.dq & 1));
        in_bits_++;
        total_bits_++;
        if (in_bits_ < 8) return;
        in_bits_ = 0;
        const uint8_t b = in_byte_;
        switch (ph_) {
        case Ph::CMD: command(b); break;
        case Ph::ADDR:
            addr_ = addr_ << 8 | b;
            if (++anum_ == abytes_) after_addr();
            break;
        case Ph::DIN: din_.push_back(b); break;
        case Ph::DOUT:
            // What the controller sends meanwhile is ignored; a flag status
            // byte clocked out in full moves on to the next die.
            if (op_ == 0x70) rot_++;
            break;
        default: break;
        }
    }
    // Output bits leave on the falling edge after the last input bit.
    void fall() {
        if (ph_ != Ph::DOUT) return;
        if (out_bits_ == 8) {
            out_byte_ = next_out();
            out_bits_ = 0;
        }
        const bool bit = out_byte_ >> (7 - out_bits_) & 1;
        out_bits_++;
        out_en_ = true;
        pend_.emplace_back(t_ + cfg_.tclqv, bit);
    }

    void command(uint8_t b) {
        op_ = b;
        anum_ = 0;
        addr_ = 0;
        out_bits_ = 8;
        out_idx_ = 0;
        const bool status = b == 0x05 || b == 0x70;
        if (busy_ && !status) {
            n.ignored_busy++;
            ph_ = Ph::IGNORE;
            return;
        }
        switch (b) {
        case 0x06: case 0x04: case 0x50: ph_ = Ph::DIN; break;   // acted on at CS# high
        case 0x05: n.rdsr++; ph_ = Ph::DOUT; break;
        case 0x70: n.rdfsr++; ph_ = Ph::DOUT; break;
        case 0x9f: n.rdid++; ph_ = Ph::DOUT; break;
        case 0x03: case 0x02: case 0x20: abytes_ = 3; ph_ = Ph::ADDR; break;
        case 0x13: case 0x12: case 0x21: abytes_ = 4; ph_ = Ph::ADDR; break;
        default: n.unknown++; ph_ = Ph::IGNORE; break;
        }
    }
    void after_addr() {
        addr_ &= cfg_.size - 1;
        if (op_ == 0x03 || op_ == 0x13) { n.reads++; ph_ = Ph::DOUT; }
        else if (op_ == 0x02 || op_ == 0x12) ph_ = Ph::DIN;
        // erase: waits for CS# high in ADDR
    }
    uint8_t next_out() {
        switch (op_) {
        case 0x05: return uint8_t((wel_ ? 2 : 0) | (busy_ ? 1 : 0));
        case 0x70: {
            const unsigned die = rot_ % cfg_.dies;
            const bool ready = !(busy_ && die == busy_die_);
            return uint8_t((ready ? 0x80 : 0) | ferr_);
        }
        case 0x9f: {
            static const uint8_t id[20] = {0x20, 0xbb, 0x21, 0x10, 0x40, 0x00, 0x4b, 0x49, 0x54, 0x45,
                                           0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a};
            const unsigned i = out_idx_++;
            return i < 20 ? id[i] : 0x00;
        }
        default: {  // READ
            const uint8_t v = peek(addr_);
            addr_ = (addr_ + 1) & (cfg_.size - 1);
            return v;
        }
        }
    }

    void program() {
        if (!wel_) { n.ignored_wel++; return; }
        wel_ = false;
        n.programs++;
        const uint32_t page = addr_ & ~255u;
        // More than a page: the last 256 bytes; past the page's end: wrap.
        const size_t skip = din_.size() > 256 ? din_.size() - 256 : 0;
        const uint32_t start = uint32_t((addr_ & 255) + skip) & 255;
        if (prot(page) || fail_next) {
            ferr_ |= prot(page) ? 0x12 : 0x10;
            fail_next = false;
            return;
        }
        pend_erase_ = false;
        for (size_t i = skip; i < din_.size(); i++) {
            const uint32_t a = page | ((start + uint32_t(i - skip)) & 255);
            sub(a)[a & 4095] &= din_[i];
            n.prog_bytes++;
        }
        begin_busy(cfg_.prog_cycles, page);
    }
    void erase() {
        if (!wel_) { n.ignored_wel++; return; }
        wel_ = false;
        n.erases++;
        const uint32_t s = addr_ & ~4095u;
        if (prot(s) || fail_next) {
            ferr_ |= prot(s) ? 0x22 : 0x20;
            fail_next = false;
            return;
        }
        pend_erase_ = true;
        pend_addr_ = s;
        begin_busy(cfg_.erase_cycles, s);
    }
    void begin_busy(uint64_t cycles, uint32_t a) {
        busy_ = true;
        busy_die_ = die_of(a);
        busy_until_ = t_ + cycles;
    }
    void finish() {
        busy_ = false;
        last_done_ = t_;
        if (pend_erase_) sub(pend_addr_).fill(0xff);
        pend_erase_ = false;
    }
};

// What lies between a controller and the flash on UltraScale+: STARTUPE3
// and the pads. The controller's pins reach the flash dly_out cycles later,
// DQ1 comes back dly_in cycles later, and the first three SCK cycles after
// the end of startup are not output (UG570). An undriven DQ1 reads as noise.
struct Link {
    unsigned dly_out = 1, dly_in = 1;
    unsigned swallow = 3;
    std::deque<Pins> out;
    std::deque<bool> in;
    uint64_t noise = 0x9e3779b97f4a7c15ULL;
    bool held_low = false;

    // The controller's pins this cycle; returns the pins the flash sees.
    Pins to_flash(Pins p) {
        // STARTUPE3: while it swallows, CCLK stays low.
        if (swallow) {
            if (p.sck) held_low = true;
            else if (held_low) { held_low = false; swallow--; }
            p.sck = false;
        }
        out.push_back(p);
        while (out.size() > dly_out + 1) out.pop_front();
        return out.front();
    }
    // The flash's DQ1 this cycle; returns what the controller's DI sees.
    bool to_ctrl(const Flash &f) {
        noise = noise * 6364136223846793005ULL + 1442695040888963407ULL;
        in.push_back(f.dq1_driven() ? f.dq1() : bool(noise >> 63));
        while (in.size() > dly_in + 1) in.pop_front();
        return in.front();
    }
    // One cycle: the controller's pins through to the flash; returns DQ1
    // as the controller reads it.
    bool cycle(Flash &f, const Pins &p) {
        f.step(to_flash(p));
        return to_ctrl(f);
    }
};

}  // namespace spi_nor
