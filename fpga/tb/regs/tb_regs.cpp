// kite_regs testbench: random register traffic (every defined offset,
// reserved offsets, the counter window) against a reference register model
// built from the generated C++ spec header (kite/spec.hpp) and the rules in
// operation.rst; status inputs and counters change randomly underneath.
#include <array>
#include <optional>

#include "Vkite_regs.h"
#include "kite/spec.hpp"
#include "tb.hpp"

namespace {

namespace reg = kite::spec::reg;

// Reference model of BAR0 as operation.rst describes it.
struct RefRegs {
    uint32_t hw_revision = 0x00010000, caps = 0xd9, db_pages = 256, msix = 64;
    bool resetting = false, flr = false;
    uint32_t base_lo = 0, base_hi = 0, log_size = 0, pi = 0, scratch = 0;

    struct Inputs {
        uint32_t fw_version, func_info, health, heartbeat, ci, status;
        uint64_t serial;
    };

    uint32_t read(uint32_t a, const Inputs &in, const std::array<uint64_t, 32> &stats) const {
        if (a >= reg::STATS_BASE && a < reg::STATS_BASE + 8 * stats.size()) {
            uint64_t v = stats[(a - reg::STATS_BASE) / 8];
            return (a & 4) ? uint32_t(v >> 32) : uint32_t(v);
        }
        switch (a) {
        case reg::MAGIC: return kite::spec::MAGIC;
        case reg::SPEC_VERSION: return kite::spec::SPEC_MAJOR << 16 | kite::spec::SPEC_MINOR;
        case reg::HW_REVISION: return hw_revision;
        case reg::FW_VERSION: return in.fw_version;
        case reg::SERIAL_LO: return uint32_t(in.serial);
        case reg::SERIAL_HI: return uint32_t(in.serial >> 32);
        case reg::FUNC_INFO: return in.func_info;
        case reg::CAPS: return caps;
        case reg::DEV_CTRL: return resetting ? reg::DEV_CTRL_RESET : 0;
        case reg::DEV_STATUS: return in.status;
        case reg::HEALTH_SYNDROME: return in.health;
        case reg::HEARTBEAT: return in.heartbeat;
        case reg::CMDQ_BASE_LO: return base_lo;
        case reg::CMDQ_BASE_HI: return base_hi;
        case reg::CMDQ_LOG_SIZE: return log_size;
        case reg::CMDQ_PI: return pi;
        case reg::CMDQ_CI: return in.ci;
        case reg::DB_PAGES: return db_pages;
        case reg::MSIX_VECTORS: return msix;
        case reg::SCRATCH: return scratch;
        default: return 0;
        }
    }

    // Returns the pulses the write must produce: reset, enable, doorbell.
    std::array<bool, 3> write(uint32_t a, uint32_t v) {
        std::array<bool, 3> p{};
        switch (a) {
        case reg::DEV_CTRL:
            if (v & reg::DEV_CTRL_RESET) {
                resetting = true;
                p[0] = true;
                log_size = pi = base_lo = base_hi = 0;
            }
            break;
        case reg::CMDQ_BASE_LO: if (!log_size) base_lo = v; break;
        case reg::CMDQ_BASE_HI: if (!log_size) base_hi = v; break;
        case reg::CMDQ_LOG_SIZE:
            if (v <= 8 && (v == 0 || (base_lo & 0xfff) == 0)) { log_size = v; pi = 0; p[1] = v != 0; }
            break;
        case reg::CMDQ_PI: if (log_size) { pi = v & 0xffff; p[2] = true; } break;
        case reg::SCRATCH: scratch = v; break;
        default: break;
        }
        return p;
    }

    // A function level reset: every register to its reset value, a reset
    // request; whatever the write of the same cycle did is overridden.
    void function_level_reset(std::array<bool, 3> &p) {
        resetting = flr = true;
        base_lo = base_hi = log_size = pi = scratch = 0;
        p = {true, false, false};
    }
};

uint32_t pick_addr(tb::Rng &r) {
    switch (tb::rnd(r, 0, 5)) {
    case 0: return reg::STATS_BASE + 4 * tb::rnd(r, 0, 2 * 32 + 3);  // incl. past the end
    case 1: return 4 * tb::rnd(r, 0, 0x3fff);                        // anywhere in BAR0
    case 2: return tb::chance(r, 0.5) ? reg::CMDQ_LOG_SIZE : tb::chance(r, 0.5) ? reg::CMDQ_PI : reg::CMDQ_BASE_LO;
    default: return 4 * tb::rnd(r, 0, 0x50 / 4);                      // defined registers
    }
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("regs");
    std::printf("[regs] seed %llu\n", (unsigned long long)args.seed);

    Vkite_regs m;
    tb::Clock<Vkite_regs> clk(m);
    RefRegs ref;
    RefRegs::Inputs in{};
    std::array<uint64_t, 32> stats{};
    for (auto &s : stats) s = rng();
    m.req_valid_i = 0;
    m.reset_done_i = 0;
    m.flr_i = 0;
    clk.reset();

    std::optional<uint32_t> pending;  // expected read data for the response this cycle
    long reads = 0, writes = 0, flrs = 0, flr_dones = 0;
    const long iters = args.iters(40000);
    for (long i = 0; i < iters; i++) {
        // Inputs that change underneath; counters change between requests.
        if (tb::chance(rng, 0.1)) {
            in = {uint32_t(rng()), uint32_t(rng()), uint32_t(rng()), uint32_t(rng()), uint32_t(rng() & 0xffff),
                  uint32_t(rng() & 7), rng()};
        }
        m.fw_version_i = in.fw_version;
        m.serial_i = in.serial;
        m.func_info_i = in.func_info;
        m.dev_status_i = in.status;
        m.health_syndrome_i = in.health;
        m.heartbeat_i = in.heartbeat;
        m.cmdq_ci_i = in.ci;
        bool done = tb::chance(rng, 0.05), flr = tb::chance(rng, 0.01);
        m.reset_done_i = done;
        m.flr_i = flr;

        bool req = tb::chance(rng, 0.8), write = tb::chance(rng, 0.4);
        uint32_t a = pick_addr(rng);
        uint32_t v = tb::chance(rng, 0.3) ? tb::rnd(rng, 0, 10) : uint32_t(rng());
        if (a == reg::CMDQ_BASE_LO && tb::chance(rng, 0.7)) v &= ~0xfffu;  // mostly aligned rings
        if (a == reg::DEV_CTRL && write && tb::chance(rng, 0.7)) v &= ~reg::DEV_CTRL_RESET;
        m.req_valid_i = req;
        m.req_write_i = write;
        m.req_addr_i = uint16_t(a);
        m.req_wdata_i = v;
        clk.eval();
        // Response of last cycle's read (counter RAM answers with the address of that request).
        if (pending) {
            uint32_t want = *pending;
            if (args.inject && reads == 11) want ^= 1;  // deliberate mismatch (--inject)
            chk.expect(m.rsp_valid_o && m.rsp_rdata_o == want, "read %ld: got %08x want %08x", reads,
                       m.rsp_rdata_o, want);
            reads++;
        } else {
            chk.expect(!m.rsp_valid_o, "response without read");
        }
        pending.reset();
        std::array<bool, 3> pulses{};
        if (req && !write) pending = ref.read(a, in, stats);
        if (req && write) { pulses = ref.write(a, v); writes++; }
        // An FLR ends with the first reset_done after it, not one in its cycle.
        const bool flr_done = ref.flr && done && !flr;
        if (flr_done) ref.flr = false;
        if (flr) { ref.function_level_reset(pulses); flrs++; }
        // Stats RAM: synchronous read of the address presented this cycle.
        uint32_t sa = m.stats_addr_o;
        clk.tick();
        m.stats_data_i = stats[sa % 32];
        if (ref.resetting && done && !pulses[0]) ref.resetting = false;
        chk.expect(bool(m.flr_done_o) == flr_done, "FLR done %d/%d", m.flr_done_o, flr_done);
        flr_dones += flr_done;
        chk.expect(bool(m.reset_req_o) == pulses[0] && bool(m.cmdq_enable_o) == pulses[1] &&
                       bool(m.cmdq_db_o) == pulses[2],
                   "pulses reset %d/%d enable %d/%d db %d/%d at %04x", m.reset_req_o, pulses[0],
                   m.cmdq_enable_o, pulses[1], m.cmdq_db_o, pulses[2], a);
        chk.expect(m.cmdq_base_o == (uint64_t(ref.base_hi) << 32 | ref.base_lo) &&
                       m.cmdq_log_size_o == ref.log_size && m.cmdq_pi_o == ref.pi,
                   "command ring state");
        if (tb::chance(rng, 0.02)) for (auto &s : stats) s = rng();
    }
    std::printf("[regs] %ld reads, %ld writes, %ld FLRs (%ld ended) compared\n", reads, writes, flrs, flr_dones);
    return chk.finish();
}
