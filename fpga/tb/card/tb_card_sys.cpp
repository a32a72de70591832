// kite_card_sys testbench: the board firmware (KITE_FW_ELF, firmware/rv32,
// built by fpga/check.sh) on the soft CPU against kite_card, driven as the
// kernel driver drives a card: BAR0 registers over PCIe CQ/CC, the command
// ring, rings and doorbells in host memory (card_env.hpp). Nothing plays the
// firmware here: every context and port write comes from the CPU through
// kite_cpu_io.
//
// The reference is the model card (fpga/model/card, with the same firmware
// built natively, as libkite_model.so runs it): it gets the same MMIO
// writes, commands and frames over a copy of the host memory. Checked:
//   1. Boot: DEV_STATUS.READY within 4 M cycles; MAGIC, SPEC_VERSION,
//      FW_VERSION, SERIAL, FUNC_INFO, DEV_STATUS, HEALTH_SYNDROME, DB_PAGES
//      and MSIX_VECTORS as the model's; CAPS is the firmware's
//      fw::card::FEATURES; HEARTBEAT counts the milliseconds of simulated
//      time (checked at the end).
//   2. DEV_CTRL.RESET is served (the bit clears) and the command ring set up.
//   3. Commands (CREATE_EQ, CREATE_CQ, CREATE_SQ, CREATE_RQ, MODIFY_SQ/RQ to
//      RDY, SET_RSS, SET_PORT, QUERY_HEALTH, QUERY_SQ, QUERY_RQ) and bad ones
//      (an unknown opcode, a CQ on a missing EQ, an SQ of 2^20 entries, a
//      MODIFY_SQ of a missing SQ, a version the firmware does not know): the
//      completed entry (status, syndrome, output) and CMDQ_CI as the model's,
//      and all of host memory equal after each.
//   4. TX: a UDP frame in three gather entries on the SQ: the frame on MAC
//      port 0 (FCS included) and the CQE as the model's.
//   5. RX: two posted buffers and a frame on port 0: buffer, CQE as the
//      model's; the port counters (BAR0 STATS) as the model's.
//   6. DEV_CTRL.RESET with the queues open: a doorbell to the old SQ sends
//      nothing; the ring set up again, CREATE_EQ and CREATE_CQ answer as
//      the model.
//   5b. MSI-X through the card's table (kite_msix): vector 0's entry
//      written and read back over BAR4; with the CQ and EQ armed, a TX
//      completion raises vector 0 on the model and hands the PCIe core one
//      message with that entry's address and data for function 0; masked,
//      no message and the PBA bit set; unmasked, the message leaves and the
//      PBA clears.
//   7. A VF (NumVFs 1): its FUNC_INFO, DB_PAGES, MSIX_VECTORS and
//      DEV_STATUS as the model's once the firmware has enabled it; its
//      reset, command ring, CREATE_EQ and CREATE_CQ as the model's; an SQ
//      on the PF's CQ refused as on the model.
//   8. An FLR of the VF (flr_i, as the board top gives the PCIe core's):
//      its registers read their reset values at once (SCRATCH included),
//      the PF's command ring is untouched, DEV_CTRL.RESET reads 1 until the
//      firmware has reset the VF, flr_done_o pulses once for it and never
//      for the PF, and its driver starts again (no DEV_CTRL.RESET) with
//      CREATE_EQ and CREATE_CQ answered as the model's after Card::flr.
//   9. A firmware update into the board's flash (kite_flash's pins drive
//      spi_nor.hpp's MT25QU01G, as tb_flash's): FLASH_BEGIN, FLASH_WRITE
//      of a 700-byte image, FLASH_COMMIT with the wrong CRC refused, then
//      the right one, each entry as the model's; then the flash holds the
//      model flash's control block and bank byte for byte at
//      FLASH_WIN_BASE, and its pin timing checks report nothing.
// QUERY_HEALTH's uptime is checked against the simulated time, not the
// model's (its clock stands still). The RTL card's link is the board's
// (link_i); the model's PHY comes up on its partner's ordered set. --inject corrupts the expected
// FW_VERSION and stops after the boot (the run must fail).
#include <cinttypes>
#include <string>

#include "Vkite_card_sys.h"
#include "card_env.hpp"
#include "../flash/spi_nor.hpp"
#include "../../../firmware/include/kite_fw/cpu_io.hpp"
#include "kite/crc32.hpp"
#include "cpu/elf.hpp"
#include "kite/ordered_set.hpp"
#include "../../../firmware/include/kite_fw/card_ports.hpp"

#include "../../model/card/card.cpp"
#include "../../model/doorbell/doorbell.cpp"
#include "../../model/mac/mac.cpp"
#include "../../model/pcie/pcie.cpp"
#include "../../model/queue/queue.cpp"
#include "../../model/regs/regs.cpp"
#include "../../model/roce/roce.cpp"
#include "../../model/rss/rss.cpp"
#include "../../model/rxp/parser.cpp"
#include "../../model/rxp/rxp.cpp"
#include "../../model/txp/txoffload.cpp"
#include "../../model/txp/txp.cpp"
#include "../../../firmware/src/fw.cpp"

namespace {

namespace spec = kite::spec;
using namespace kite::spec;

constexpr size_t MEM = 0x100000;
constexpr uint32_t ROM_WORDS = 128 * 256;
constexpr uint64_t MHZ = 250;
const uint8_t PF_MAC[6] = {0x02, 0x4b, 0x49, 0x00, 0x00, 0x10};

// The model card and its host (memory, wire).
struct Ref {
    std::vector<uint8_t> mem = std::vector<uint8_t>(MEM);
    std::vector<std::pair<kite_fn_t, uint16_t>> irqs;  // MSI-X (function, vector)
    std::vector<std::vector<uint8_t>> frames[2];
    std::unique_ptr<kite::model::Card> card;
    static Ref *R(void *o) { return static_cast<Ref *>(o); }
    Ref() {
        kite_host_ops ops{};
        ops.opaque = this;
        ops.dma_read = [](void *o, kite_fn_t, uint64_t a, void *b, size_t n) {
            if (a + n > MEM) return -1;
            std::memcpy(b, &R(o)->mem[a], n);
            return 0;
        };
        ops.dma_write = [](void *o, kite_fn_t, uint64_t a, const void *b, size_t n) {
            if (a + n > MEM) return -1;
            std::memcpy(&R(o)->mem[a], b, n);
            return 0;
        };
        ops.msix = [](void *o, kite_fn_t fn, uint16_t v) { R(o)->irqs.emplace_back(fn, v); };
        ops.frame_out = [](void *o, unsigned port, const void *f, size_t n) {
            auto *p = static_cast<const uint8_t *>(f);
            // Ordered sets are the model's PHY traffic, not frames.
            if (!(n == 16 && std::memcmp(p, "KITEOS", 6) == 0)) R(o)->frames[port & 1].emplace_back(p, p + n);
        };
        ops.now_ns = [](void *) { return uint64_t(1'000'000'000); };
        ops.timer_arm = [](void *, uint64_t) {};
        ops.log = [](void *, int, const char *) {};
        kite_card_config cfg{};
        cfg.abi_version = KITE_CARD_ABI_VERSION;
        cfg.num_ports = 2;
        cfg.max_vfs = 16;
        cfg.serial = 0x1234;
        std::memcpy(cfg.mac, PF_MAC, 6);
        card = std::make_unique<kite::model::Card>(cfg, ops);
    }
};

struct Bench : card_tb::Env<Vkite_card_sys, MEM> {
    Ref ref;
    std::string uart;
    unsigned flr_done[32] = {};  // flr_done_o pulses per function
    // The PCIe core's side of MSI-X: the messages the card handed it; each
    // is answered "sent" a few cycles later.
    struct Msg {
        uint64_t addr;
        uint32_t data;
        unsigned fn;
    };
    std::vector<Msg> msgs;
    uint64_t sent_at = ~0ULL;
    // The board's configuration flash behind STARTUPE3 (spi_nor.hpp, as
    // tb_flash has it), for kite_flash.
    spi_nor::Flash flash;
    spi_nor::Link link;
    uint64_t brk = 0x1000;

    explicit Bench(tb::Checker &c) : Env(c) {
        m.serial_i = 0x1234;
        uint64_t mac = 0;
        for (int i = 0; i < 6; i++) mac = mac << 8 | PF_MAC[i];
        m.mac_base_i = mac;
        m.num_vfs_i = 0;
        m.link_i = 3;
        m.ld_we_i = 0;
        m.flr_i = 0;
        m.cfg_interrupt_msix_enable_i = 1;  // the PF's driver enabled MSI-X
        m.cfg_interrupt_msix_mask_i = 0;
        m.cfg_interrupt_msi_sent_i = 0;
        m.cfg_interrupt_msi_fail_i = 0;
    }

    // The ROM through the loader port with the card and CPU in reset.
    void load(const std::vector<uint32_t> &rom) {
        m.rst_ni = 0;
        for (uint32_t w = 0; w < ROM_WORDS; w++) {
            m.ld_we_i = 1;
            m.ld_word_i = w;
            m.ld_data_i = w < rom.size() ? rom[w] : 0;
            clk.tick();
        }
        m.ld_we_i = 0;
        clk.tick();
        m.rst_ni = 1;
    }

    void step() {
        drive();
        m.cfg_interrupt_msi_sent_i = clk.cycle == sent_at;
        m.eval();
        if (m.cfg_interrupt_msix_int_o) {
            chk.expect(sent_at == ~0ULL || sent_at < clk.cycle, "one MSI-X message in flight");
            msgs.push_back({m.cfg_interrupt_msix_address_o, m.cfg_interrupt_msix_data_o,
                            unsigned(m.cfg_interrupt_msi_function_number_o)});
            sent_at = clk.cycle + 4;
        }
        sample();
        const spi_nor::Pins fp{bool(m.flash_sck_o), bool(m.flash_cs_no), uint8_t(m.flash_dq_o),
                               uint8_t(m.flash_dq_oe_o)};
        m.flash_dq_i = link.cycle(flash, fp) ? 2 : 0;
        if (m.uart_valid_o) uart += char(m.uart_data_o);
        for (unsigned f = 0; f < 32; f++) flr_done[f] += m.flr_done_o >> f & 1;
        clk.tick();
    }
    void run(uint64_t n) { for (uint64_t i = 0; i < n; i++) step(); }

    uint32_t bar_read(unsigned bar, uint32_t off, uint16_t fn = 0) {
        size_t before = cc_data.size();
        mmio(bar, off, false, 0, 0xf, fn);
        for (int i = 0; i < 5000 && cc_data.size() == before; i++) step();
        if (!chk.expect(cc_data.size() > before, "BAR%u read 0x%x answered", bar, off)) return ~0u;
        return uint32_t(cc_data.back());
    }
    uint32_t bar0_read(uint32_t off, uint16_t fn = 0) { return bar_read(0, off, fn); }
    // BAR4 (the MSI-X table) is the RTL card's alone: a host keeps the
    // model card's table itself.
    void bar4_write(uint32_t off, uint32_t v, uint16_t fn = 0) {
        mmio(4, off, true, v, 0xf, fn);
        run(20);
    }
    // A register write or doorbell to both cards.
    void write(unsigned bar, uint32_t off, uint32_t v, uint16_t fn = 0) {
        mmio(bar, off, true, v, 0xf, fn);
        ref.card->mmio_write(fn, bar, off, v, 4);
        run(20);
    }

    uint64_t alloc(size_t n, size_t align = 64) {
        brk = (brk + align - 1) & ~(align - 1);
        uint64_t a = brk;
        brk += n;
        chk.expect(brk <= MEM, "host memory");
        return a;
    }
    void both(uint64_t a, const void *p, size_t n) {
        std::memcpy(&host.mem[a], p, n);
        std::memcpy(&ref.mem[a], p, n);
    }
    template <class T> void both(uint64_t a, const T &v) { both(a, &v, sizeof(T)); }
    template <class T> T rd(uint64_t a) {
        T v;
        std::memcpy(&v, &host.mem[a], sizeof(T));
        return v;
    }

    bool mem_same(const std::string &what) {
        size_t bad = 0, first = 0;
        for (size_t a = 0; a < MEM; a++)
            if (host.mem[a] != ref.mem[a] && !bad++) first = a;
        return chk.expect(bad == 0, "%s: host memory differs from the model's in %zu bytes, first 0x%zx (RTL %02x model %02x)",
                          what.c_str(), bad, first, host.mem[first], ref.mem[first]);
    }
};

// The driver's side: the command ring and one set of queues.
struct Queue {
    uint32_t id = 0, log_size = 0, stride = 0, pi = 0, ci = 0;
    uint64_t base = 0;
};

struct Driver {
    Bench &b;
    tb::Checker &chk;
    uint16_t fn = 0;
    uint64_t cmdq = 0;
    uint16_t cmd_pi = 0;
    static constexpr uint32_t CMD_LOG = 3;
    uint32_t token = 0;
    uint64_t max_cycles = 0;  // the longest command
    uint64_t reset_cycles = 0;  // the longest function reset
    Queue eq, cq, sq, rq;

    void reset_and_init() {
        const uint64_t c0 = b.clk.cycle;
        b.write(0, reg::DEV_CTRL, reg::DEV_CTRL_RESET, fn);
        uint32_t ctrl = 0;
        for (int i = 0; i < 1000; i++) {
            ctrl = b.bar0_read(reg::DEV_CTRL, fn);
            if (!(ctrl & reg::DEV_CTRL_RESET)) break;
            b.run(4000);
        }
        chk.expect(!(ctrl & reg::DEV_CTRL_RESET), "DEV_CTRL.RESET served (0x%x)", ctrl);
        reset_cycles = std::max(reset_cycles, b.clk.cycle - c0);
        chk.expect(b.bar0_read(reg::DEV_STATUS, fn) == uint32_t(b.ref.card->mmio_read(fn, 0, reg::DEV_STATUS, 4)),
                   "function %u: DEV_STATUS after the reset as the model's", fn);
        init_ring();
    }
    void init_ring() {
        if (!cmdq) cmdq = b.alloc(256u << CMD_LOG, 4096);
        b.write(0, reg::CMDQ_BASE_LO, uint32_t(cmdq), fn);
        b.write(0, reg::CMDQ_BASE_HI, uint32_t(cmdq >> 32), fn);
        b.write(0, reg::CMDQ_LOG_SIZE, CMD_LOG, fn);
        cmd_pi = 0;
    }

    // One command on both cards; the completed entries must be equal.
    cmd_entry cmd(const char *what, uint32_t opcode, const void *in = nullptr, size_t in_len = 0, uint8_t version = 1) {
        uint64_t a = cmdq + uint64_t(cmd_pi & ((1u << CMD_LOG) - 1)) * 256;
        cmd_entry e{};
        e.opcode = uint16_t(opcode);
        e.version = version;
        e.token = ++token;
        if (in_len) std::memcpy(e.in, in, in_len);
        b.both(a, e);
        cmd_pi++;
        b.write(0, reg::CMDQ_PI, cmd_pi, fn);
        uint64_t c0 = b.clk.cycle;
        for (int i = 0; i < 4000 && !b.host.mem[a + offsetof(cmd_entry, done)]; i++) b.run(500);
        max_cycles = std::max(max_cycles, b.clk.cycle - c0);
        cmd_entry r = b.rd<cmd_entry>(a), x;
        if (opcode == cmd_opcode::QUERY_HEALTH && r.status == cmd_status::OK) {
            // The one field that may differ: the model's clock stands still.
            const size_t up = offsetof(cmd_entry, out) + offsetof(health_out, uptime_ms);
            uint64_t ms;
            std::memcpy(&ms, &b.host.mem[a + up], 8);
            chk.expect(ms <= b.clk.cycle / (MHZ * 1000), "%s: uptime %" PRIu64 " ms", what, ms);
            std::memcpy(&b.ref.mem[a + up], &ms, 8);
        }
        std::memcpy(&x, &b.ref.mem[a], sizeof(x));
        chk.expect(r.done == 1, "%s: completed", what);
        chk.expect(x.done == 1, "%s: completed on the model", what);
        chk.expect(std::memcmp(&r, &x, sizeof(r)) == 0,
                   "%s: entry differs from the model's (status %u/%u, syndrome 0x%x/0x%x, out_len %u/%u)", what,
                   r.status, x.status, r.syndrome, x.syndrome, r.out_len, x.out_len);
        b.run(200);
        chk.expect(b.bar0_read(reg::CMDQ_CI, fn) == cmd_pi, "%s: CMDQ_CI", what);
        b.mem_same(what);
        return r;
    }
    template <class T> cmd_entry cmd(const char *what, uint32_t opcode, const T &in) {
        return cmd(what, opcode, &in, sizeof(T));
    }
    uint32_t id(const cmd_entry &r) {
        obj_out o;
        std::memcpy(&o, r.out, sizeof(o));
        return r.status == cmd_status::OK ? o.id : 0;
    }

    void create_eq(uint32_t log) {
        eq = Queue{0, log, 16, 0, 0, b.alloc(16u << log, 4096)};
        create_eq_in in{};
        in.base = eq.base;
        in.log_size = uint8_t(log);
        eq.id = id(cmd("CREATE_EQ", cmd_opcode::CREATE_EQ, in));
    }
    void create_cq(uint32_t log) {
        cq = Queue{0, log, 32, 0, 0, b.alloc(32u << log, 4096)};
        create_cq_in in{};
        in.base = cq.base;
        in.log_size = uint8_t(log);
        in.eqn = uint16_t(eq.id);
        cq.id = id(cmd("CREATE_CQ", cmd_opcode::CREATE_CQ, in));
    }
    void create_wq(bool is_rq, Queue &q, uint32_t log, uint32_t log_stride) {
        q = Queue{0, log, 1u << log_stride, 0, 0, b.alloc(size_t(1) << (log + log_stride), 4096)};
        create_wq_in in{};
        in.base = q.base;
        in.log_size = uint8_t(log);
        in.log_stride = uint8_t(log_stride);
        in.cqn = cq.id;
        q.id = id(cmd(is_rq ? "CREATE_RQ" : "CREATE_SQ", is_rq ? cmd_opcode::CREATE_RQ : cmd_opcode::CREATE_SQ, in));
    }
    cmd_entry modify_wq(const char *what, bool is_rq, uint32_t qid, uint8_t state) {
        modify_wq_in in{};
        in.id = qid;
        in.state = state;
        in.mask = modify_wq_in::MASK_STATE;
        return cmd(what, is_rq ? cmd_opcode::MODIFY_RQ : cmd_opcode::MODIFY_SQ, in);
    }

    // An ETH_TX WQE gathering the frame in pieces of @chunk bytes.
    void post_tx(const std::vector<uint8_t> &frame, size_t chunk) {
        uint64_t buf = b.alloc(frame.size() + 64);
        b.both(buf, frame.data(), frame.size());
        uint64_t w = sq.base + uint64_t(sq.pi & ((1u << sq.log_size) - 1)) * sq.stride;
        std::vector<uint8_t> wqe(sq.stride);
        wqe_ctrl c{};
        c.opcode = wqe_opcode::ETH_TX;
        c.flags = wqe_ctrl::FLAGS_SIGNALED;
        c.num_ds = uint8_t(1 + (frame.size() + chunk - 1) / chunk);
        c.wqe_index = uint16_t(sq.pi);
        std::memcpy(wqe.data(), &c, sizeof(c));
        for (size_t off = 0, i = 0; off < frame.size(); off += chunk, i++) {
            wqe_sge s{};
            s.addr = buf + off;
            s.len = uint32_t(std::min(chunk, frame.size() - off));
            s.lkey = limits::LKEY_PHYS;
            std::memcpy(&wqe[32 + 16 * i], &s, sizeof(s));
        }
        b.both(w, wqe.data(), wqe.size());
        sq.pi++;
    }
    std::vector<uint64_t> post_rx(unsigned n, uint32_t len) {
        std::vector<uint64_t> bufs;
        for (unsigned i = 0; i < n; i++) {
            uint64_t buf = b.alloc(len);
            std::vector<uint8_t> wqe(rq.stride);
            wqe_sge s{};
            s.addr = buf;
            s.len = len;
            s.lkey = limits::LKEY_PHYS;
            std::memcpy(wqe.data(), &s, sizeof(s));
            b.both(rq.base + uint64_t(rq.pi & ((1u << rq.log_size) - 1)) * rq.stride, wqe.data(), wqe.size());
            rq.pi++;
            bufs.push_back(buf);
        }
        b.write(2, db::RQ, rq.id << 16 | (rq.pi & 0xffff));
        return bufs;
    }
    bool cqe_ready(const Queue &q) {
        uint64_t a = q.base + uint64_t(q.ci & ((1u << q.log_size) - 1)) * 32;
        return (b.host.mem[a + offsetof(cqe, owner)] & 1) == (((q.ci >> q.log_size) & 1) ^ 1);
    }
};

std::vector<uint8_t> udp_frame(tb::Rng &rng, const uint8_t dst[6], size_t payload) {
    std::vector<uint8_t> f(dst, dst + 6);
    const uint8_t src[6] = {0x02, 0x4b, 0x49, 0x00, 0x00, 0x99};
    f.insert(f.end(), src, src + 6);
    f.push_back(0x08);
    f.push_back(0x00);
    const size_t ip_len = 20 + 8 + payload;
    const uint8_t ip[20] = {0x45, 0, uint8_t(ip_len >> 8), uint8_t(ip_len), 0, 1, 0x40, 0, 64, 17, 0, 0,
                            10, 0, 0, 1, 10, 0, 0, 2};
    f.insert(f.end(), ip, ip + 20);
    uint32_t s = 0;
    for (int i = 0; i < 20; i += 2) s += uint32_t(ip[i]) << 8 | ip[i + 1];
    while (s >> 16) s = (s & 0xffff) + (s >> 16);
    f[14 + 10] = uint8_t(~s >> 8);
    f[14 + 11] = uint8_t(~s);
    const uint8_t udp[8] = {0x03, 0xe8, 0x07, 0xd0, uint8_t((8 + payload) >> 8), uint8_t(8 + payload), 0, 0};
    f.insert(f.end(), udp, udp + 8);
    std::vector<uint8_t> p = tb::rbytes(rng, payload);
    f.insert(f.end(), p.begin(), p.end());
    return f;
}

}  // namespace

int main(int argc, char **argv) {
    tb::Args args(argc, argv);
    tb::Checker chk("card_sys");
    tb::Rng rng(args.seed);
    std::printf("[card_sys] seed %" PRIu64 "\n", args.seed);
    const char *elf = std::getenv("KITE_FW_ELF");
    if (!chk.expect(elf != nullptr, "KITE_FW_ELF is set (fpga/check.sh builds the firmware and sets it)"))
        return chk.finish();
    std::vector<uint32_t> rom(ROM_WORDS);
    uint32_t entry = 0;
    std::string err;
    bool ok = kite::cpu::load_elf(
        elf,
        [&](uint32_t a, const uint8_t *d, size_t n) {
            for (size_t i = 0; i < n; i++)
                if (a + i < 4 * ROM_WORDS) rom[(a + i) / 4] |= uint32_t(d[i]) << (8 * ((a + i) % 4));
        },
        entry, err);
    if (!chk.expect(ok && entry == 0, "firmware %s: %s (entry 0x%x)", elf, err.c_str(), entry)) return chk.finish();

    auto b = std::make_unique<Bench>(chk);
    Bench &B = *b;
    B.load(rom);

    // 1. Boot.
    const uint64_t c0 = B.clk.cycle;
    uint32_t status = 0;
    while (B.clk.cycle - c0 < 4'000'000) {
        B.run(20000);
        status = B.bar0_read(reg::DEV_STATUS);
        if (status & reg::DEV_STATUS_READY) break;
    }
    const uint64_t boot = B.clk.cycle - c0;
    chk.expect(status == reg::DEV_STATUS_READY, "DEV_STATUS READY after boot (0x%x)", status);
    std::printf("[card_sys] firmware ready after %" PRIu64 " cycles (%.2f ms at %" PRIu64 " MHz; polled every 20k)\n",
                boot, double(boot) / double(MHZ * 1000), MHZ);
    kite::model::Card &ref = *B.ref.card;
    const struct { const char *name; uint32_t off; } regs[] = {
        {"MAGIC", reg::MAGIC}, {"SPEC_VERSION", reg::SPEC_VERSION}, {"FW_VERSION", reg::FW_VERSION},
        {"SERIAL_LO", reg::SERIAL_LO}, {"SERIAL_HI", reg::SERIAL_HI}, {"FUNC_INFO", reg::FUNC_INFO},
        {"DEV_STATUS", reg::DEV_STATUS}, {"HEALTH_SYNDROME", reg::HEALTH_SYNDROME}, {"DB_PAGES", reg::DB_PAGES},
        {"MSIX_VECTORS", reg::MSIX_VECTORS}};
    for (const auto &r : regs) {
        uint32_t v = B.bar0_read(r.off), x = uint32_t(ref.mmio_read(0, 0, r.off, 4));
        chk.expect(v == x, "BAR0 %s 0x%x, the model's 0x%x", r.name, v, x);
    }
    chk.expect(B.bar0_read(reg::CAPS) == kite::fw::card::FEATURES, "CAPS is the firmware's kite_card features");
    const uint64_t hb_cycle = B.clk.cycle;
    const uint32_t hb = B.bar0_read(reg::HEARTBEAT);
    if (args.inject) {
        // A quick run that must fail: the expected FW_VERSION corrupted.
        chk.expect(B.bar0_read(reg::FW_VERSION) == (uint32_t(ref.mmio_read(0, 0, reg::FW_VERSION, 4)) ^ 1),
                   "FW_VERSION (--inject)");
        return chk.finish();
    }

    // 2. The driver's reset and command ring.
    Driver d{B, chk};
    d.reset_and_init();

    // 3. Commands.
    d.cmd("QUERY_HEALTH", cmd_opcode::QUERY_HEALTH);
    d.create_eq(6);
    d.create_cq(6);
    d.create_wq(false, d.sq, 4, 7);
    d.create_wq(true, d.rq, 4, 6);
    d.modify_wq("MODIFY_SQ RDY", false, d.sq.id, wq_state::RDY);
    d.modify_wq("MODIFY_RQ RDY", true, d.rq.id, wq_state::RDY);
    {
        uint64_t t = B.alloc(2);
        uint16_t q = uint16_t(d.rq.id);
        B.both(t, q);
        set_rss_in in{};
        in.ctx = 0;
        in.table_size = 1;
        in.table_addr = t;
        d.cmd("SET_RSS", cmd_opcode::SET_RSS, in);
    }
    {
        port_info in{};
        in.port = 0;
        in.admin_up = 1;
        in.mtu = 1500;
        in.mask = port_info::MASK_ADMIN | port_info::MASK_MTU;
        d.cmd("SET_PORT up", cmd_opcode::SET_PORT, in);
        // The model's PHY comes up when its partner's ordered set says so;
        // the RTL card's link is the board's (link_i).
        uint8_t os[kite::OS_LEN];
        kite::os_build(os, kite::OS_STATE_UP);
        ref.frame_in(0, os, sizeof(os));
        B.ref.frames[0].clear();
    }
    {
        obj_out q{};
        q.id = d.sq.id;
        d.cmd("QUERY_SQ", cmd_opcode::QUERY_SQ, q);
        q.id = d.rq.id;
        d.cmd("QUERY_RQ", cmd_opcode::QUERY_RQ, q);
    }
    chk.expect(d.eq.id && d.cq.id && d.sq.id && d.rq.id, "queues created (EQ %u CQ %u SQ %u RQ %u)", d.eq.id,
               d.cq.id, d.sq.id, d.rq.id);
    // Bad commands: the statuses and syndromes are the model's.
    const cmd_entry bad = d.cmd("unknown opcode", 0x7ff);
    chk.expect(bad.status != cmd_status::OK, "an unknown opcode fails (status %u)", bad.status);
    {
        create_cq_in in{};
        in.base = d.cq.base;
        in.log_size = 6;
        in.eqn = 999;
        chk.expect(d.cmd("CREATE_CQ on a missing EQ", cmd_opcode::CREATE_CQ, in).status != cmd_status::OK,
                   "a CQ on a missing EQ fails");
        create_wq_in w{};
        w.base = d.sq.base;
        w.log_size = 20;
        w.log_stride = 6;
        w.cqn = d.cq.id;
        chk.expect(d.cmd("CREATE_SQ of 2^20", cmd_opcode::CREATE_SQ, w).status != cmd_status::OK,
                   "an SQ of 2^20 entries fails");
    }
    chk.expect(d.modify_wq("MODIFY_SQ of a missing SQ", false, 400, wq_state::RDY).status != cmd_status::OK,
               "MODIFY_SQ of a missing SQ fails");
    chk.expect(d.cmd("QUERY_HEALTH version 9", cmd_opcode::QUERY_HEALTH, nullptr, 0, 9).status != cmd_status::OK,
               "an unknown command version fails");
    std::printf("[card_sys] %u commands, the longest %" PRIu64 " cycles (doorbell to completion)\n", d.token,
                d.max_cycles);

    // 4. TX.
    {
        const uint8_t peer[6] = {0x02, 0x4b, 0x49, 0x00, 0x00, 0x99};
        std::vector<uint8_t> f = udp_frame(rng, peer, 300);
        d.post_tx(f, 120);
        uint64_t t0 = B.clk.cycle;
        B.write(2, db::SQ, d.sq.id << 16 | (d.sq.pi & 0xffff));
        for (int i = 0; i < 20000 && !(B.tx_frames[0].size() == 1 && d.cqe_ready(d.cq)); i++) B.step();
        const uint64_t lat = B.clk.cycle - t0;
        B.run(200);
        auto &exp = B.ref.frames[0];
        if (chk.expect(B.tx_frames[0].size() == 1 && exp.size() == 1, "one frame sent (RTL %zu, model %zu)",
                       B.tx_frames[0].size(), exp.size())) {
            chk.expect(B.tx_frames[0][0] == exp[0], "TX frame as the model's (%zu and %zu bytes)",
                       B.tx_frames[0][0].size(), exp[0].size());
            chk.expect(std::equal(f.begin(), f.end(), B.tx_frames[0][0].begin()), "TX frame carries the posted bytes");
        }
        chk.expect(d.cqe_ready(d.cq), "TX CQE written");
        d.cq.ci++;
        B.mem_same("after TX");
        std::printf("[card_sys] TX: doorbell write to CQE in %" PRIu64 " cycles\n", lat);
    }

    // 5. RX.
    {
        std::vector<uint64_t> bufs = d.post_rx(2, 2048);
        B.run(300);
        std::vector<uint8_t> f = udp_frame(rng, PF_MAC, 500), wire = f;
        uint32_t fcs = kite::crc32(f.data(), f.size());
        for (int i = 0; i < 4; i++) wire.push_back(uint8_t(fcs >> (8 * i)));
        B.rx_q[0].push_back(wire);
        ref.frame_in(0, wire.data(), wire.size());
        for (int i = 0; i < 20000 && !d.cqe_ready(d.cq); i++) B.step();
        B.run(200);
        chk.expect(d.cqe_ready(d.cq), "RX CQE written");
        chk.expect(std::equal(f.begin(), f.end(), B.host.mem.begin() + long(bufs[0])), "RX bytes in the buffer");
        B.mem_same("after RX");
        for (uint32_t w = 0; w < 4; w++) {
            uint32_t lo = B.bar0_read(reg::STATS_BASE + 8 * w), hi = B.bar0_read(reg::STATS_BASE + 8 * w + 4);
            uint64_t v = uint64_t(hi) << 32 | lo, x = ref.mmio_read(0, 0, reg::STATS_BASE + 8 * w, 8);
            chk.expect(v == x && x > 0, "port 0 counter %u: %" PRIu64 ", the model's %" PRIu64, w, v, x);
        }
    }

    // 5b. Interrupts through the card's MSI-X table (kite_msix): the PF's
    // driver writes vector 0's entry over BAR4 and arms its CQ and EQ; a TX
    // completion raises the model's vector and hands the PCIe core a
    // message with that entry's address and data. Masked, the message waits
    // in the PBA and leaves when the driver unmasks the vector.
    {
        d.cq.ci++;  // the RX CQE
        const uint8_t peer[6] = {0x02, 0x4b, 0x49, 0x00, 0x00, 0x99};
        const uint64_t addr = 0xfee0'1000;
        const uint32_t data = 0x4021;
        B.bar4_write(0, uint32_t(addr));
        B.bar4_write(4, uint32_t(addr >> 32));
        B.bar4_write(8, data);
        B.bar4_write(12, 0);  // unmasked
        chk.expect(B.bar_read(4, 0) == uint32_t(addr) && B.bar_read(4, 8) == data && B.bar_read(4, 12) == 0,
                   "BAR4: vector 0's entry reads back");
        chk.expect(B.bar_read(4, 16 + 12) == 1, "BAR4: vector 1 is masked after reset");
        auto tx_event = [&]() {
            B.write(2, db::CQ_ARM, d.cq.id << 16 | (d.cq.ci & 0xffff));
            B.write(2, db::EQ_ARM, d.eq.id << 16 | (d.eq.ci & 0xffff));
            d.post_tx(udp_frame(rng, peer, 80), 256);
            B.write(2, db::SQ, d.sq.id << 16 | (d.sq.pi & 0xffff));
            for (int i = 0; i < 20000 && !d.cqe_ready(d.cq); i++) B.step();
            B.run(2000);
            chk.expect(d.cqe_ready(d.cq), "TX CQE written (interrupt round)");
            d.cq.ci++;
            d.eq.ci++;
            B.mem_same("after an interrupt round");
        };
        tx_event();
        chk.expect(B.ref.irqs.size() == 1 && B.ref.irqs[0] == std::make_pair(kite_fn_t(0), uint16_t(0)),
                   "the model raised vector 0 of the PF (%zu interrupts)", B.ref.irqs.size());
        chk.expect(B.msgs.size() == 1 && B.msgs[0].addr == addr && B.msgs[0].data == data && B.msgs[0].fn == 0,
                   "one MSI-X message with vector 0's address and data for function 0 (%zu messages)",
                   B.msgs.size());
        B.bar4_write(12, 1);  // masked
        tx_event();
        chk.expect(B.ref.irqs.size() == 2 && B.msgs.size() == 1, "masked: no message (model interrupts %zu)",
                   B.ref.irqs.size());
        chk.expect(B.bar_read(4, 0x2000) == 1, "masked: vector 0 pending in the PBA");
        B.bar4_write(12, 0);
        B.run(200);
        chk.expect(B.msgs.size() == 2 && B.msgs[1].addr == addr && B.msgs[1].data == data,
                   "unmasked: the pending message leaves (%zu messages)", B.msgs.size());
        chk.expect(B.bar_read(4, 0x2000) == 0, "unmasked: the PBA is clear");
    }

    // 6. A function reset with the queues open.
    {
        d.reset_and_init();
        B.mem_same("after DEV_CTRL.RESET");
        const uint8_t peer[6] = {0x02, 0x4b, 0x49, 0x00, 0x00, 0x99};
        const size_t sent = B.tx_frames[0].size(), sent_ref = B.ref.frames[0].size();
        d.post_tx(udp_frame(rng, peer, 60), 128);
        B.write(2, db::SQ, d.sq.id << 16 | (d.sq.pi & 0xffff));
        B.run(20000);
        chk.expect(B.tx_frames[0].size() == sent && B.ref.frames[0].size() == sent_ref,
                   "a doorbell to an SQ destroyed by the reset sends nothing (RTL %zu frames, model %zu)",
                   B.tx_frames[0].size() - sent, B.ref.frames[0].size() - sent_ref);
        d.create_eq(4);
        d.create_cq(4);
        chk.expect(d.eq.id && d.cq.id, "CREATE_EQ and CREATE_CQ after the reset");
    }

    // 7. A VF: the host sets NumVFs to 1 (a strap from the PCIe core); the
    // firmware gives the VF its function context; the VF's driver resets
    // it and creates objects of its own; a PF object is not the VF's.
    {
        B.m.num_vfs_i = 1;
        B.m.cfg_interrupt_msix_vf_enable_i[0] = 1;
        ref.set_num_vfs(1);
        uint32_t pages = 0;
        for (int i = 0; i < 1000 && !pages; i++) {
            B.run(2000);
            pages = B.bar0_read(reg::DB_PAGES, 1);
        }
        const struct { const char *name; uint32_t off; } vregs[] = {
            {"FUNC_INFO", reg::FUNC_INFO}, {"DB_PAGES", reg::DB_PAGES}, {"MSIX_VECTORS", reg::MSIX_VECTORS},
            {"DEV_STATUS", reg::DEV_STATUS}};
        for (const auto &r : vregs) {
            uint32_t v = B.bar0_read(r.off, 1), x = uint32_t(ref.mmio_read(1, 0, r.off, 4));
            chk.expect(v == x, "VF BAR0 %s 0x%x, the model's 0x%x", r.name, v, x);
        }
        Driver vf{B, chk, 1};
        vf.reset_and_init();
        vf.create_eq(4);
        vf.create_cq(4);
        chk.expect(vf.eq.id && vf.cq.id, "the VF's EQ %u and CQ %u", vf.eq.id, vf.cq.id);
        Queue q;
        vf.cq.id = d.cq.id;   // the PF's CQ
        vf.create_wq(false, q, 4, 6);
        chk.expect(q.id == 0, "an SQ of the VF on the PF's CQ is refused");

        // 8. An FLR of the VF with its EQ and CQ open (the board top turns
        // the PCIe core's FLR into flr_i): its registers read their reset
        // values at once, the PF's are untouched; the firmware resets the
        // VF; flr_done_o pulses once; the VF's driver starts again without
        // a DEV_CTRL.RESET and gets the model's objects (the old ones gone).
        B.write(0, reg::SCRATCH, 0x5a5a5a5a, 1);
        B.m.flr_i = 1u << 1;
        B.step();
        B.m.flr_i = 0;
        ref.flr(1);
        const uint64_t f0 = B.clk.cycle;
        chk.expect(B.bar0_read(reg::DEV_CTRL, 1) == reg::DEV_CTRL_RESET, "DEV_CTRL.RESET reads 1 during the FLR");
        for (uint32_t off : {reg::CMDQ_BASE_LO, reg::CMDQ_LOG_SIZE, reg::CMDQ_PI, reg::SCRATCH})
            chk.expect(B.bar0_read(off, 1) == uint32_t(ref.mmio_read(1, 0, off, 4)) && !B.bar0_read(off, 1),
                       "VF BAR0 0x%x is 0 after the FLR, as the model's", off);
        chk.expect(B.bar0_read(reg::CMDQ_BASE_LO, 0) == uint32_t(d.cmdq) && B.bar0_read(reg::CMDQ_LOG_SIZE, 0),
                   "the PF's command ring is untouched by the VF's FLR");
        for (int i = 0; i < 400 && !B.flr_done[1]; i++) B.run(2000);
        const uint64_t flr_cycles = B.clk.cycle - f0;
        B.run(100);
        chk.expect(B.flr_done[1] == 1 && B.flr_done[0] == 0, "flr_done_o: %u pulse(s) for the VF, %u for the PF",
                   B.flr_done[1], B.flr_done[0]);
        chk.expect(B.bar0_read(reg::DEV_CTRL, 1) == 0, "DEV_CTRL.RESET clear when the FLR is done");
        std::printf("[card_sys] VF FLR to flr_done_o: %" PRIu64 " cycles\n", flr_cycles);
        vf.init_ring();
        vf.create_eq(4);
        vf.create_cq(4);
        chk.expect(vf.eq.id && vf.cq.id, "the VF's EQ %u and CQ %u after the FLR", vf.eq.id, vf.cq.id);
    }

    // 9. A firmware update (FLASH_BEGIN / WRITE / COMMIT, as devlink flash
    // sends it) into the board's flash through kite_flash: a commit with
    // the wrong CRC refused, then the right one; each entry as the
    // model's, and the flash then holds the model flash's bytes (control
    // block and bank) at FLASH_WIN_BASE, none of it outside the window.
    {
        const uint32_t len = 700;
        std::vector<uint8_t> img(len);
        for (auto &x : img) x = uint8_t(rng());
        spec::fw_image_header h{};
        h.magic = uint32_t(spec::flash::FW_IMAGE_MAGIC);
        h.header_version = 1;
        h.image_len = len;
        h.fw_version = 0x00020001;
        h.build = 77;
        std::memcpy(img.data(), &h, sizeof(h));
        const uint64_t a = B.alloc(len);
        B.both(a, img.data(), len);
        // An older image in bank 0 on both flashes, so the update must
        // erase before it programs.
        std::vector<uint8_t> old(len);
        for (auto &x : old) x = uint8_t(rng());
        for (uint32_t i = 0; i < len; i++)
            B.flash.poke(uint32_t(kite::fw::cpu_io::FLASH_WIN_BASE) + kite::fw::FLASH_BANK0 + i, old[i]);
        chk.expect(ref.flash_write(kite::fw::FLASH_BANK0, old.data(), len), "an older image in the model's flash");
        const uint64_t e0 = B.flash.n.erases, p0 = B.flash.n.programs;
        spec::flash_in in{};
        in.len = len;
        chk.expect(d.cmd("FLASH_BEGIN", spec::cmd_opcode::FLASH_BEGIN, in).status == cmd_status::OK, "FLASH_BEGIN");
        in = {};
        in.addr = a;
        in.len = len;
        chk.expect(d.cmd("FLASH_WRITE", spec::cmd_opcode::FLASH_WRITE, in).status == cmd_status::OK, "FLASH_WRITE");
        in = {};
        in.crc32 = kite::crc32(img.data(), len) ^ 1;
        chk.expect(d.cmd("FLASH_COMMIT, wrong CRC", spec::cmd_opcode::FLASH_COMMIT, in).status != cmd_status::OK,
                   "FLASH_COMMIT with the wrong CRC refused");
        in.crc32 ^= 1;
        chk.expect(d.cmd("FLASH_COMMIT", spec::cmd_opcode::FLASH_COMMIT, in).status == cmd_status::OK,
                   "FLASH_COMMIT");
        const uint32_t span = kite::fw::FLASH_BANK0 + len;
        std::vector<uint8_t> want(span);
        chk.expect(ref.flash_read(0, want.data(), span), "the model's flash read");
        uint32_t diff = 0, first = 0;
        for (uint32_t i = 0; i < span; i++)
            if (B.flash.peek(uint32_t(kite::fw::cpu_io::FLASH_WIN_BASE) + i) != want[i] && !diff++) first = i;
        chk.expect(diff == 0, "the flash holds the model's control block and bank (%u bytes differ, first at %u)", diff,
                   first);
        chk.expect(std::equal(img.begin(), img.end(), want.begin() + kite::fw::FLASH_BANK0),
                   "the image is in the model's bank 0");
        chk.expect(B.flash.n.erases > e0 && B.flash.n.programs > p0,
                   "the update erased (%" PRIu64 ") and programmed (%" PRIu64 ") the flash", B.flash.n.erases - e0,
                   B.flash.n.programs - p0);
        chk.expect(B.flash.errors_total() == 0, "the flash's pin timing and protocol checks: %" PRIu64 " (%s)",
                   B.flash.errors_total(), B.flash.errors().empty() ? "" : B.flash.errors()[0].c_str());
        std::printf("[card_sys] flash update of %u bytes: %" PRIu64 " erases, %" PRIu64 " page programs, %" PRIu64
                    " flash commands in all\n",
                    len, B.flash.n.erases - e0, B.flash.n.programs - p0, B.flash.n.cmds);
    }

    // HEARTBEAT counts the firmware's milliseconds.
    const uint32_t hb2 = B.bar0_read(reg::HEARTBEAT), ms = uint32_t((B.clk.cycle - hb_cycle) / (MHZ * 1000));
    chk.expect(hb2 - hb + 1 >= ms && hb2 - hb <= ms + 1, "HEARTBEAT advanced %u in %u ms of simulated time", hb2 - hb,
               ms);
    if (!B.uart.empty()) std::printf("[card_sys] UART: %s\n", B.uart.c_str());
    std::printf("[card_sys] function reset (DEV_CTRL.RESET to the bit clear): %" PRIu64 " cycles at most\n",
                d.reset_cycles);
    std::printf("[card_sys] %" PRIu64 " cycles\n", B.clk.cycle);
    return chk.finish();
}
