// kite_cpu_io testbench: the control CPU's window onto kite_card's
// firmware ports. The bench plays the CPU (accesses through io_*, each
// waiting for its answer) and the card (ports that take requests after
// random delays, a host memory behind the DMA ports, counters). Expected
// port values come from the firmware's own formats (kite_fw/card_ports.hpp:
// the WQ fields of a random wq_ctx, the command bytes of random CQ / EQ
// contexts, RSS / filter / flow words) written through the register map of
// fpga/spec (kite::fw::cpu_io), so the bench checks what the board's HAL
// will rely on:
//   - each context port request carries exactly the programmed fields, is
//     held until the card takes it, once, and *_GO reads busy until then;
//   - strobes (function table, PAUSE, RSS, filter, CI, reset done, UART)
//     pulse once with their fields; identity registers reach their outputs;
//   - a function reset request (a one-cycle pulse from kite_regs) stays in
//     RESET_REQ until RESET_DONE clears its bit, and one that comes in the
//     cycle of that write stays;
//   - counter reads return the card's value for the index (clear passed);
//   - DMA reads and writes of random address, length (1..4096) and
//     function move the host bytes through the staging buffer in address
//     lanes, with byte, halfword and word accesses, and report the card's
//     error, while the CPU keeps using another buffer line; a bad length or
//     op is refused with an error and no request;
//   - WQ errors (RQ and SQ, one of each a cycle at random) come out of
//     WQ_ERR once each, none lost, also in the cycle of the read;
//   - FLASH_REGS (0x400..0x5ff) goes to the flash port as it came (one
//     request per access, offset, write, byte enables, data) and the
//     port's answer the next cycle, data or error, is the window's;
//     nothing else reaches the port;
//   - unmapped offsets answer with an error; TIME runs at 4 ns a cycle;
//     TIME_HI is the high word as it was when TIME_LO was read, across a
//     carry between the two reads (the counter is set just below the
//     carry through the Verilated model's state: 4.3 s of cycles first
//     reach it); the microsecond tick comes every CLK_MHZ cycles.
#include <algorithm>
#include <cinttypes>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "../../../firmware/include/kite_fw/card_ports.hpp"
#include "../../../firmware/include/kite_fw/cpu_io.hpp"
#include "Vkite_cpu_io.h"
#include "Vkite_cpu_io___024root.h"
#include "tb.hpp"

namespace {

namespace io = kite::fw::cpu_io;
namespace card = kite::fw::card;
using kite::ctx::wq_ctx;

struct Bench {
    Vkite_cpu_io m;
    tb::Clock<Vkite_cpu_io> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    bool inject = false;

    // Card side.
    double p_ready = 0.5;
    std::map<uint64_t, uint8_t> host;        // host memory (bytes not written read as a hash)
    struct Wq {
        bool rq, en;
        unsigned qn, state, fn, page, log_size, log_stride, cqn, port, flags;
        uint64_t base;
    };
    std::deque<Wq> wq_taken;
    unsigned wq_drain = 0;                      // cycles of fw_wq_busy_i left
    long wq_drains = 0;
    struct Cmd { unsigned op, qn; std::vector<uint8_t> data; };
    std::deque<Cmd> cmd_taken;
    struct Strobe { unsigned kind; uint64_t a, b, c; };  // what pulsed
    std::deque<Strobe> strobes;
    // Counter port: the index taken, the answer owed after a delay.
    std::optional<std::pair<unsigned, bool>> st_req;
    int st_delay = -1;
    unsigned st_idx = 0;
    // DMA: the request taken, beats to send, words received.
    struct Dma { bool write; unsigned fn; uint64_t addr; unsigned len; };
    std::optional<Dma> dma_req;
    std::deque<std::pair<std::vector<uint8_t>, uint64_t>> rd_beats;  // data, keep
    bool rd_err = false;
    unsigned wr_words_left = 0;
    uint64_t wr_line = 0;
    int wr_done_delay = -1;
    bool wr_err = false;
    long dma_reads = 0, dma_writes = 0, dma_errs = 0, wq_n = 0, cmd_n = 0, st_n = 0, strobe_n = 0;
    long ticks = 0;
    uint64_t last_tick_cycle = 0;
    // WQ errors to pulse (RQ?, qn), in order, one or two a cycle at random.
    std::vector<std::pair<bool, unsigned>> err_plan;
    size_t err_next = 0;
    double p_err = 0;
    struct Pulse { uint64_t cycle; bool rq; unsigned qn; };
    std::vector<Pulse> pulses;       // the pulses given, with their cycle
    uint64_t capture_cycle = 0;      // the cycle the last access was taken in
    // The flash port: requests seen, and the answer owed for the next cycle.
    struct FlashReq { bool we; unsigned addr, be; uint32_t wdata; };
    std::vector<FlashReq> flash_reqs;
    static uint32_t flash_answer(const FlashReq &r) { return 0xf1a50000u ^ (r.addr * 0x10001u) ^ (r.we ? 0x80u : 0); }
    static bool flash_refuses(unsigned addr) { return (addr & 0xc) == 0xc; }  // the bench's rule

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {}

    static uint8_t hash_byte(uint64_t a) { return uint8_t((a * 0x9e3779b97f4a7c15ULL) >> 56); }
    uint8_t host_byte(uint64_t a) {
        auto it = host.find(a);
        return it == host.end() ? hash_byte(a) : it->second;
    }

    void reset() {
        m.io_req_i = 0;
        m.fw_wq_ready_i = m.fw_cq_ready_i = m.fw_st_ready_i = 0;
        m.fw_wq_busy_i = 0;
        m.fw_rd_ready_i = m.fw_wr_ready_i = m.fw_wd_ready_i = 0;
        m.fw_rd_rsp_valid_i = m.fw_wr_done_i = m.fw_st_rvalid_i = 0;
        m.rq_err_i = m.sq_err_i = 0;
        m.serial_i = 0x0123456789abcdefULL;
        m.mac_base_i = 0x02aabbccdd00ULL;
        m.num_vfs_i = 3;
        m.link_i = 2;
        clk.reset();
    }

    // The card's side of one cycle: inputs before the edge, strobes after.
    void cycle() {
        // An RQ write drains for a while after it is taken (kite_rx_dma);
        // the card takes no other meanwhile.
        m.fw_wq_busy_i = wq_drain > 0;
        if (wq_drain) wq_drain--;
        m.fw_wq_ready_i = m.fw_wq_valid_o && !m.fw_wq_busy_i && tb::chance(rng, p_ready);
        m.fw_cq_ready_i = m.fw_cq_valid_o && tb::chance(rng, p_ready);
        if (m.fw_wq_ready_i) {
            wq_drain = tb::chance(rng, 0.5) ? tb::rnd(rng, 1, 30) : 0;
            wq_drains += wq_drain > 0;
            wq_taken.push_back({bool(m.fw_wq_rq_o), bool(m.fw_wq_en_o), m.fw_wq_qn_o, m.fw_wq_state_o, m.fw_wq_fn_o,
                                m.fw_wq_page_o, m.fw_wq_log_size_o, m.fw_wq_log_stride_o, m.fw_wq_cqn_o,
                                m.fw_wq_port_o, m.fw_wq_flags_o, m.fw_wq_base_o});
        }
        if (m.fw_cq_ready_i) {
            Cmd c{m.fw_cq_op_o, m.fw_cq_qn_o, std::vector<uint8_t>(32)};
            for (int i = 0; i < 32; i++) c.data[i] = tb::get_byte(m.fw_cq_data_o, i);
            cmd_taken.push_back(c);
        }
        // Counters: take, answer 0-3 cycles later (0: in the same cycle).
        m.fw_st_ready_i = 0;
        m.fw_st_rvalid_i = 0;
        if (st_delay == 0) {
            m.fw_st_rvalid_i = 1;
            m.fw_st_rdata_i = 0x5a5a000000000000ULL ^ (uint64_t(st_idx) << 8) ^ (st_req->second ? 1 : 0);
            st_delay = -1;
        } else if (st_delay > 0) {
            st_delay--;
        }
        if (m.fw_st_valid_o && st_delay < 0 && !m.fw_st_rvalid_i && tb::chance(rng, p_ready)) {
            m.fw_st_ready_i = 1;
            st_idx = m.fw_st_idx_o;
            st_req = {st_idx, bool(m.fw_st_clear_o)};
            st_delay = int(tb::rnd(rng, 0, 3));
            if (st_delay == 0) {
                m.fw_st_rvalid_i = 1;
                m.fw_st_rdata_i = 0x5a5a000000000000ULL ^ (uint64_t(st_idx) << 8) ^ (st_req->second ? 1 : 0);
                st_delay = -1;
            }
        }
        // DMA read: take, then beats in address lanes with gaps.
        m.fw_rd_ready_i = 0;
        m.fw_rd_rsp_valid_i = 0;
        if (m.fw_rd_valid_o && !dma_req && tb::chance(rng, p_ready)) {
            m.fw_rd_ready_i = 1;
            dma_req = Dma{false, m.fw_rd_fn_o, m.fw_rd_addr_o, m.fw_rd_len_o};
            uint64_t a = dma_req->addr, end = a + dma_req->len;
            for (uint64_t line = a & ~63ULL; line < end; line += 64) {
                std::vector<uint8_t> d(64);
                uint64_t keep = 0;
                for (int i = 0; i < 64; i++) {
                    d[i] = uint8_t(rng());
                    if (line + i >= a && line + i < end) {
                        d[i] = host_byte(line + i);
                        keep |= 1ULL << i;
                    }
                }
                rd_beats.push_back({d, keep});
            }
            rd_err = tb::chance(rng, 0.1);
        } else if (dma_req && !dma_req->write && !rd_beats.empty() && tb::chance(rng, 0.7)) {
            m.fw_rd_rsp_valid_i = 1;
            tb::put_bytes(m.fw_rd_rsp_data_i, rd_beats.front().first.data(), 64);
            m.fw_rd_rsp_keep_i = rd_beats.front().second;
            rd_beats.pop_front();
            m.fw_rd_rsp_last_i = rd_beats.empty();
            m.fw_rd_rsp_err_i = rd_beats.empty() && rd_err;
            if (rd_beats.empty()) dma_req.reset();
        }
        // DMA write: take, words, done.
        chk.expect(!(m.fw_wd_valid_o && (!dma_req || !dma_req->write || !wr_words_left)),
                   "a write word offered outside a write's data phase");
        m.rq_err_i = m.sq_err_i = 0;
        for (int k = 0; k < 2 && err_next < err_plan.size() && tb::chance(rng, p_err); k++) {
            auto [rq, qn] = err_plan[err_next];
            if (rq ? m.rq_err_i : m.sq_err_i) break;   // one of each kind a cycle
            (rq ? m.rq_err_i : m.sq_err_i) = 1;
            (rq ? m.rq_err_qn_i : m.sq_err_qn_i) = qn;
            pulses.push_back({clk.cycle, rq, qn});
            err_next++;
        }
        m.fw_wr_ready_i = 0;
        m.fw_wd_ready_i = 0;
        m.fw_wr_done_i = 0;
        if (m.fw_wr_valid_o && !dma_req && tb::chance(rng, p_ready)) {
            m.fw_wr_ready_i = 1;
            dma_req = Dma{true, m.fw_wr_fn_o, m.fw_wr_addr_o, m.fw_wr_len_o};
            wr_line = dma_req->addr & ~63ULL;
            wr_words_left = unsigned((dma_req->addr + dma_req->len - wr_line + 63) / 64);
            wr_err = tb::chance(rng, 0.1);
            wr_done_delay = -1;
        } else if (dma_req && dma_req->write && wr_words_left && m.fw_wd_valid_o && tb::chance(rng, p_ready)) {
            m.fw_wd_ready_i = 1;
            for (int i = 0; i < 64; i++) {
                uint64_t ha = wr_line + i;
                if (ha >= dma_req->addr && ha < dma_req->addr + dma_req->len && !wr_err)
                    host[ha] = tb::get_byte(m.fw_wd_o, i);
            }
            wr_line += 64;
            if (--wr_words_left == 0) wr_done_delay = int(tb::rnd(rng, 0, 4));
        } else if (dma_req && dma_req->write && !wr_words_left && wr_done_delay >= 0) {
            if (wr_done_delay-- == 0) {
                m.fw_wr_done_i = 1;
                m.fw_wr_err_i = wr_err;
                dma_req.reset();
            }
        }

        const bool fl_req = m.flash_req_o;
        const FlashReq fr{bool(m.flash_we_o), unsigned(m.flash_addr_o), unsigned(m.flash_be_o), m.flash_wdata_o};
        if (fl_req) flash_reqs.push_back(fr);

        clk.tick();

        // kite_flash answers the cycle after a request; otherwise its
        // outputs are whatever they were (noise here): unused.
        m.flash_rdata_i = fl_req ? flash_answer(fr) : uint32_t(rng());
        m.flash_err_i = fl_req ? flash_refuses(fr.addr) : rng() & 1;
        m.eval();

        if (m.fw_fn_we_o) strobes.push_back({0, m.fw_fn_sel_o, m.fw_fn_db_pages_o, m.fw_fn_port_o});
        if (m.fw_port_we_o) strobes.push_back({1, m.fw_port_sel_o, m.fw_port_pause_o, 0});
        if (m.fw_rss_we_o) strobes.push_back({2, m.fw_rss_ctx_o, m.fw_rss_addr_o, m.fw_rss_wdata_o});
        if (m.fw_flt_we_o) strobes.push_back({3, m.fw_flt_port_o, m.fw_flt_addr_o, m.fw_flt_wdata_o});
        if (m.cmdq_ci_we_o) strobes.push_back({4, m.cmdq_ci_o, 0, 0});
        if (m.reset_done_o) strobes.push_back({5, m.reset_done_o, 0, 0});
        if (m.uart_valid_o) strobes.push_back({6, m.uart_data_o, 0, 0});
        if (m.tick_o) {
            if (ticks++)
                chk.expect(clk.cycle - last_tick_cycle == 250, "tick after %" PRIu64 " cycles",
                           clk.cycle - last_tick_cycle);
            last_tick_cycle = clk.cycle;
        }
    }

    // One CPU access; returns the data read, or nullopt on an error answer.
    std::optional<uint32_t> access(uint32_t off, bool we, uint32_t wdata = 0, unsigned size = 4) {
        uint8_t be = uint8_t(((1u << size) - 1) << (off & 3));
        m.io_req_i = 1;
        m.io_we_i = we;
        m.io_addr_i = off & ~3u;
        m.io_be_i = be;
        m.io_wdata_i = wdata << (8 * (off & 3));
        capture_cycle = clk.cycle;   // the window takes an access in its first cycle
        m.reset_req_i = req_pulse;   // a function reset request in that cycle only
        req_pulse = 0;
        for (int n = 0; n < 400; n++) {
            m.eval();
            if (m.io_ack_o) {
                bool err = m.io_err_o;
                uint32_t d = m.io_rdata_o;
                cycle();
                m.reset_req_i = 0;
                m.io_req_i = 0;
                if (err) return std::nullopt;
                return (d >> (8 * (off & 3))) & (size == 4 ? ~0u : (1u << (8 * size)) - 1);
            }
            cycle();
            m.reset_req_i = 0;
        }
        chk.expect(false, "access to 0x%04x not answered", off);
        m.io_req_i = 0;
        return std::nullopt;
    }
    uint32_t req_pulse = 0;  // kite_regs' reset_req pulse, given with the next access
    uint32_t rd(uint64_t off) { return access(uint32_t(off), false).value_or(0xdeadbeef); }
    void wr(uint64_t off, uint32_t v) { chk.expect(access(uint32_t(off), true, v).has_value(), "write 0x%04x refused", unsigned(off)); }
    void idle(int n) { for (int i = 0; i < n; i++) cycle(); }
    // Polls a *_GO / status register until bit 0 clears.
    bool wait_idle(uint64_t off, int limit = 20000) {
        for (int i = 0; i < limit; i++)
            if (!(rd(off) & 1)) return true;
        return chk.expect(false, "0x%04x stays busy", unsigned(off));
    }
};

void check_wq(Bench &b) {
    wq_ctx w{};
    w.valid = tb::chance(b.rng, 0.8);
    w.kind = tb::chance(b.rng, 0.8) ? kite::ctx::WQ_ETH : 1;
    w.state = uint8_t(tb::rnd(b.rng, 0, 3));
    w.fn = uint16_t(tb::rnd(b.rng, 0, 16));
    w.db_page = uint16_t(tb::rnd(b.rng, 0, 255));
    w.log_size = uint8_t(tb::rnd(b.rng, 2, 15));
    w.log_stride = uint8_t(tb::rnd(b.rng, 6, 9));
    w.cqn = tb::rnd(b.rng, 0, 511);
    w.port = uint8_t(tb::rnd(b.rng, 0, 1));
    w.base = b.rng() & ~63ULL;
    w.flags = uint8_t(b.rng());
    bool rq = tb::chance(b.rng, 0.5);
    unsigned qn = tb::rnd(b.rng, 0, 511);
    const card::wq_port p = card::wq_fields(w);
    b.wr(io::WQ_BASE_LO, uint32_t(p.base));
    b.wr(io::WQ_BASE_HI, uint32_t(p.base >> 32));
    b.wr(io::WQ_A, qn | uint32_t(rq) << 16 | uint32_t(p.en) << 17 | uint32_t(p.state) << 18 | uint32_t(p.fn) << 24);
    b.wr(io::WQ_B, p.page | uint32_t(p.log_size) << 8 | uint32_t(p.log_stride) << 12 | uint32_t(p.port) << 16 |
                       uint32_t(p.flags) << 24);
    b.wr(io::WQ_CQN, p.cqn);
    size_t before = b.wq_taken.size();
    b.wr(io::WQ_GO, 1);
    b.wait_idle(io::WQ_GO);
    // Idle only once the card's drain is over: the firmware completes the
    // command (and the host frees the ring) after this.
    b.chk.expect(b.wq_drain == 0, "WQ_GO read idle with %u cycles of the drain left", b.wq_drain);
    b.idle(3);
    if (!b.chk.expect(b.wq_taken.size() == before + 1, "WQ: %zu requests taken, expected 1", b.wq_taken.size() - before))
        return;
    const Bench::Wq &t = b.wq_taken.back();
    bool ok = t.rq == rq && t.qn == qn && t.en == p.en && t.state == p.state && t.fn == p.fn && t.page == p.page &&
              t.log_size == p.log_size && t.log_stride == p.log_stride && t.cqn == p.cqn && t.port == p.port &&
              t.flags == p.flags && t.base == p.base;
    if (b.inject && b.wq_n == 3) ok = !ok;
    b.chk.expect(ok, "WQ %s %u: fields taken differ from the programmed ones", rq ? "RQ" : "SQ", qn);
    b.wq_n++;
}

void check_cmd(Bench &b) {
    // A CQ or EQ context's command bytes, or an event, as the HAL sends them.
    uint8_t d[32]{};
    unsigned op;
    size_t n;
    unsigned k = tb::rnd(b.rng, 0, 2);
    if (k == 0) {
        kite::ctx::cq_ctx c{};
        c.base = b.rng() & ~63ULL;
        c.fn = uint16_t(tb::rnd(b.rng, 0, 16));
        c.eqn = uint16_t(tb::rnd(b.rng, 0, 127));
        c.log_size = uint8_t(tb::rnd(b.rng, 2, 15));
        c.valid = 1;
        c.mod_usec = uint16_t(b.rng());
        c.mod_count = uint16_t(b.rng());
        card::cq_cmd(c, d);
        op = card::OP_CQ_CTX;
        n = 18;
    } else if (k == 1) {
        kite::ctx::eq_ctx e{};
        e.base = b.rng() & ~63ULL;
        e.fn = uint16_t(tb::rnd(b.rng, 0, 16));
        e.vector = uint16_t(tb::rnd(b.rng, 0, 63));
        e.log_size = uint8_t(tb::rnd(b.rng, 2, 15));
        e.valid = 1;
        e.armed = uint8_t(tb::rnd(b.rng, 0, 1));
        card::eq_cmd(e, d);
        op = card::OP_EQ_CTX;
        n = 16;
    } else {
        for (int i = 0; i < 16; i++) d[i] = uint8_t(b.rng());
        op = card::OP_EVENT;
        n = 16;
    }
    unsigned qn = tb::rnd(b.rng, 0, 0xffff);
    b.wr(io::CMD_OP, op | qn << 16);
    for (unsigned i = 0; i < 8; i++) {
        uint32_t v;
        std::memcpy(&v, d + 4 * i, 4);
        b.wr(io::CMD_DATA + 4 * i, v);
    }
    size_t before = b.cmd_taken.size();
    b.wr(io::CMD_GO, 1);
    b.wait_idle(io::CMD_GO);
    b.idle(3);
    if (!b.chk.expect(b.cmd_taken.size() == before + 1, "command: %zu taken, expected 1", b.cmd_taken.size() - before))
        return;
    const Bench::Cmd &c = b.cmd_taken.back();
    b.chk.expect(c.op == op && c.qn == qn && std::equal(d, d + n, c.data.begin()), "command op %u qn %u: taken op %u qn %u%s",
                 op, qn, c.op, c.qn, std::equal(d, d + n, c.data.begin()) ? "" : ", data differs");
    b.cmd_n++;
}

void check_strobes(Bench &b) {
    b.strobes.clear();
    // Function table entry, PAUSE.
    kite::ctx::func_ctx f{};
    f.enabled = uint8_t(tb::rnd(b.rng, 0, 1));
    f.db_pages = uint16_t(tb::rnd(b.rng, 1, 256));
    f.port = uint8_t(tb::rnd(b.rng, 0, 1));
    unsigned fn = tb::rnd(b.rng, 0, 16);
    b.wr(io::FN_CTL, fn | uint32_t(f.port) << 8 | uint32_t(card::fn_db_pages(f)) << 16);
    unsigned port = tb::rnd(b.rng, 0, 1), pause = tb::rnd(b.rng, 0, 1);
    b.wr(io::PORT_CTL, port | pause << 8);
    // RSS words of a random context, filter words, a flow rule.
    kite::ctx::rss_ctx r{};
    r.valid = 1;
    r.table_size = uint16_t(1u << tb::rnd(b.rng, 0, 3));
    r.hash_fields = uint8_t(b.rng());
    for (auto &k : r.key) k = uint8_t(b.rng());
    for (unsigned i = 0; i < r.table_size; i++) r.table[i] = uint16_t(b.rng());
    unsigned rctx = tb::rnd(b.rng, 0, 31);
    std::vector<std::pair<unsigned, uint32_t>> rss_exp;
    card::rss_words(r, [&](unsigned a, uint32_t v) {
        rss_exp.push_back({a, v});
        b.wr(io::RSS_SEL, a | rctx << 16);
        b.wr(io::RSS_DATA, v);
    });
    kite::ctx::flow_ctx fl{};
    fl.valid = 1;
    fl.match = uint8_t(b.rng());
    fl.rq = tb::rnd(b.rng, 0, 600);
    for (auto &x : fl.src_ip) x = uint8_t(b.rng());
    unsigned rule = tb::rnd(b.rng, 0, 63), fport = tb::rnd(b.rng, 0, 1);
    std::vector<std::pair<unsigned, uint64_t>> flt_exp;
    card::flow_words(fl, rule, [&](unsigned a, uint64_t v) {
        flt_exp.push_back({a, v});
        b.wr(io::FLT_SEL, a | fport << 16);
        b.wr(io::FLT_LO, uint32_t(v));
        b.wr(io::FLT_HI, uint32_t(v >> 32));
    });
    unsigned ci = tb::rnd(b.rng, 0, 0xffff), done = tb::rnd(b.rng, 1, 0x1ffff);
    b.wr(io::CMDQ_CI, ci);
    b.wr(io::RESET_DONE, done);
    b.wr(io::UART, 'K');
    b.idle(2);
    // In order, each once.
    std::vector<Bench::Strobe> exp = {{0, fn, card::fn_db_pages(f), f.port}, {1, port, pause, 0}};
    for (auto &[a, v] : rss_exp) exp.push_back({2, rctx, a, v});
    for (auto &[a, v] : flt_exp) exp.push_back({3, fport, a, v});
    exp.push_back({4, ci, 0, 0});
    exp.push_back({5, done, 0, 0});
    exp.push_back({6, 'K', 0, 0});
    bool same = b.strobes.size() == exp.size();
    for (size_t i = 0; same && i < exp.size(); i++)
        same = b.strobes[i].kind == exp[i].kind && b.strobes[i].a == exp[i].a && b.strobes[i].b == exp[i].b &&
               b.strobes[i].c == exp[i].c;
    b.chk.expect(same, "strobes: %zu seen, %zu expected (or fields differ)", b.strobes.size(), exp.size());
    b.strobe_n += long(exp.size());
}

void check_regs(Bench &b) {
    uint32_t v = uint32_t(b.rng());
    b.wr(io::FW_VERSION, v);
    b.wr(io::HEALTH, v ^ 1);
    b.wr(io::HEARTBEAT, v ^ 2);
    b.wr(io::DEV_STATUS, v);
    b.wr(io::FUNC_INFO, v ^ 3);
    b.chk.expect(b.m.fw_version_o == v && b.m.health_syndrome_o == (v ^ 1) && b.m.heartbeat_o == (v ^ 2) &&
                     b.m.dev_status_o == (v & 7) && b.m.func_info_o == (v ^ 3),
                 "identity outputs differ from the registers");
    b.chk.expect(b.rd(io::FW_VERSION) == v && b.rd(io::DEV_STATUS) == (v & 7), "identity read back");
    b.chk.expect(b.rd(io::SERIAL_LO) == 0x89abcdef && b.rd(io::SERIAL_HI) == 0x01234567, "serial");
    b.chk.expect(b.rd(io::MAC_HI) == 0x02aa && b.rd(io::MAC_LO) == 0xbbccdd00, "MAC straps");
    b.chk.expect(b.rd(io::NUM_FN) == 4 && b.rd(io::NUM_PORTS) == 2 && b.rd(io::LINK) == 2, "NUM_FN / NUM_PORTS / LINK");
    // Command queue registers: select, then the card's outputs read back.
    unsigned sel = tb::rnd(b.rng, 0, 16);
    b.wr(io::CMDQ_SEL, sel);
    b.m.cmdq_base_i = b.rng();
    b.m.cmdq_log_size_i = 7;
    b.m.cmdq_pi_i = 0x1234;
    b.m.cmdq_ci_i = 0x1200;
    b.m.cmdq_enable_i = 0x0fff;
    b.m.cmdq_db_i = 0x00f0;
    b.chk.expect(b.m.cmdq_sel_o == sel && b.rd(io::CMDQ_SEL) == sel, "CMDQ_SEL");
    b.chk.expect(b.rd(io::CMDQ_BASE_LO) == uint32_t(b.m.cmdq_base_i) && b.rd(io::CMDQ_BASE_HI) == uint32_t(b.m.cmdq_base_i >> 32) &&
                     b.rd(io::CMDQ_LOG_SIZE) == 7 && b.rd(io::CMDQ_PI) == 0x1234 && b.rd(io::CMDQ_CI) == 0x1200 &&
                     b.rd(io::CMDQ_ENABLE) == 0x0fff && b.rd(io::CMDQ_DB) == 0xf0,
                 "command queue registers read back the card's outputs");
    // DEV_CTRL.RESET requests: kite_regs pulses them for a cycle; RESET_REQ
    // keeps each until RESET_DONE's bit, and one arriving in the cycle of
    // that write stays.
    b.wr(io::RESET_DONE, 0x1ffff);
    b.m.reset_req_i = 0x10001;
    b.idle(1);
    b.m.reset_req_i = 0;
    b.idle(3);
    const uint32_t r0 = b.rd(io::RESET_REQ);
    b.wr(io::RESET_DONE, 0x00001);
    const uint32_t r1 = b.rd(io::RESET_REQ);
    b.req_pulse = 0x4;
    b.wr(io::RESET_DONE, 0x10004);   // the request comes in the write's cycle
    const uint32_t r2 = b.rd(io::RESET_REQ);
    b.wr(io::RESET_DONE, 0x4);
    const uint32_t r3 = b.rd(io::RESET_REQ);
    b.chk.expect(r0 == 0x10001 && r1 == 0x10000 && r2 == 0x4 && r3 == 0,
                 "RESET_REQ after a pulse 0x%x (0x10001), after done 1 0x%x (0x10000), with a request in the "
                 "done's cycle 0x%x (0x4), after its done 0x%x (0)", r0, r1, r2, r3);
    // Unmapped offsets answer with an error; mapped ones do not.
    for (uint32_t off : {0x01cu, 0x0fcu, 0x150u, 0x1fcu, 0x1d8u, 0x4000u, 0xfffcu})
        b.chk.expect(!b.access(off, false).has_value() && !b.access(off, true, 1).has_value(),
                     "offset 0x%04x is unmapped but answered", off);
    // FLASH_REGS: forwarded as they came, answered by the flash port.
    {
        b.flash_reqs.clear();
        long fwd_ok = 0;
        for (int i = 0; i < 200; i++) {
            const uint32_t off = uint32_t(io::FLASH_REGS + 4 * tb::rnd(b.rng, 0, io::FLASH_REGS_SIZE / 4 - 1));
            const bool we = b.rng() & 1;
            const unsigned size = tb::chance(b.rng, 0.3) ? 1 : 4;
            const uint32_t byte = size == 1 ? uint32_t(tb::rnd(b.rng, 0, 3)) : 0;
            const uint32_t v = uint32_t(b.rng());
            const size_t n0 = b.flash_reqs.size();
            const auto r = b.access(off + byte, we, size == 1 ? v & 0xff : v, size);
            const Bench::FlashReq want{we, off, size == 1 ? 1u << byte : 0xfu, 0};
            bool ok = b.flash_reqs.size() == n0 + 1;
            if (ok) {
                const auto &g = b.flash_reqs.back();
                ok = g.we == want.we && g.addr == want.addr && g.be == want.be &&
                     (!we || (size == 4 ? g.wdata == v : ((g.wdata >> (8 * byte)) & 0xff) == (v & 0xff)));
            }
            b.chk.expect(ok, "FLASH_REGS access 0x%04x (%s, %u bytes) forwarded once, as it came", off + byte,
                         we ? "write" : "read", size);
            Bench::FlashReq fr{we, off, 0, 0};
            if (Bench::flash_refuses(off)) {
                b.chk.expect(!r.has_value(), "the flash port's error at 0x%04x is the window's", off);
            } else {
                const uint32_t a = Bench::flash_answer(fr);
                const uint32_t e = size == 1 ? (a >> (8 * byte)) & 0xff : a;
                b.chk.expect(r.has_value() && (we || *r == e), "the flash port's answer at 0x%04x (0x%x, 0x%x)",
                             off + byte, r.value_or(0), e);
            }
            fwd_ok += ok;
        }
        const size_t n1 = b.flash_reqs.size();
        for (uint32_t off : {0x3fcu, 0x600u, 0x1e0u, 0x2000u}) b.access(off, false);
        b.chk.expect(b.flash_reqs.size() == n1, "offsets outside FLASH_REGS do not reach the flash port");
        b.chk.expect(fwd_ok == 200, "%ld of 200 FLASH_REGS accesses forwarded", fwd_ok);
    }
    // TIME: nanoseconds, 4 per cycle; TIME_HI is latched by TIME_LO.
    uint32_t t0 = b.rd(io::TIME_LO);
    b.idle(100);
    uint32_t t1 = b.rd(io::TIME_LO);
    b.chk.expect(t1 - t0 >= 400 && t1 - t0 < 500, "TIME advanced %u ns in about 100 cycles", t1 - t0);
    b.chk.expect(b.rd(io::TIME_HI) == 0, "TIME_HI");
    // A carry into the high word between TIME_LO and TIME_HI: the pair
    // still reads as one time. The counter is set between clock edges.
    b.m.rootp->kite_cpu_io__DOT__ns_q = 0x1fffffe00ULL;
    uint32_t lo = b.rd(io::TIME_LO);
    b.idle(200);
    uint32_t hi = b.rd(io::TIME_HI);
    b.chk.expect(lo >= 0xfffffe00u && hi == 1, "TIME before the carry: 0x%x_%08x, expected 0x1_fffffexx", hi, lo);
    lo = b.rd(io::TIME_LO);
    hi = b.rd(io::TIME_HI);
    b.chk.expect(hi == 2 && lo < 0x1000, "TIME after the carry: 0x%x_%08x, expected 0x2_00000xxx", hi, lo);
}

void check_stats(Bench &b) {
    unsigned idx = tb::rnd(b.rng, 0, 0x3fff), clr = tb::rnd(b.rng, 0, 1);
    b.wr(io::ST_IDX, idx | clr << 16);
    b.wr(io::ST_GO, 1);
    b.wait_idle(io::ST_GO);
    uint64_t v = b.rd(io::ST_LO) | uint64_t(b.rd(io::ST_HI)) << 32;
    uint64_t exp = 0x5a5a000000000000ULL ^ (uint64_t(idx) << 8) ^ clr;
    b.chk.expect(v == exp, "counter %u: 0x%016" PRIx64 ", expected 0x%016" PRIx64, idx, v, exp);
    b.st_n++;
}

// Bytes i of a transfer at buffer offset (addr & 63) + i, with mixed sizes.
void buf_copy(Bench &b, uint64_t addr, unsigned len, std::vector<uint8_t> &data, bool write) {
    unsigned off = unsigned(addr & 63);
    for (unsigned i = 0; i < len;) {
        unsigned o = off + i, size = 1;
        if (o % 4 == 0 && len - i >= 4 && tb::chance(b.rng, 0.7)) size = 4;
        else if (o % 2 == 0 && len - i >= 2 && tb::chance(b.rng, 0.5)) size = 2;
        uint32_t bufoff = uint32_t(io::DMA_BUF) + o;
        if (write) {
            uint32_t v = 0;
            for (unsigned k = 0; k < size; k++) v |= uint32_t(data[i + k]) << (8 * k);
            b.chk.expect(b.access(bufoff, true, v, size).has_value(), "buffer write at %u refused", o);
        } else {
            auto v = b.access(bufoff, false, 0, size);
            b.chk.expect(v.has_value(), "buffer read at %u refused", o);
            for (unsigned k = 0; k < size; k++) data[i + k] = uint8_t(v.value_or(0) >> (8 * k));
        }
        i += size;
    }
}

void check_dma(Bench &b) {
    bool write = tb::chance(b.rng, 0.5);
    unsigned len = tb::chance(b.rng, 0.2) ? tb::rnd(b.rng, 4000, 4096) : tb::rnd(b.rng, 1, 600);
    uint64_t addr = (b.rng() & 0xffffffffff00ULL) | tb::rnd(b.rng, 0, 255);
    unsigned fn = tb::rnd(b.rng, 0, 16);
    b.wr(io::DMA_ADDR_LO, uint32_t(addr));
    b.wr(io::DMA_ADDR_HI, uint32_t(addr >> 32));
    b.wr(io::DMA_LEN, len);
    b.wr(io::DMA_FN, fn);
    std::vector<uint8_t> data(len);
    if (write) {
        for (auto &x : data) x = uint8_t(b.rng());
        buf_copy(b, addr, len, data, true);
    }
    b.wr(io::DMA_CTRL, write ? 2 : 1);
    // The request as the card saw it.
    bool took = false;
    for (int i = 0; i < 200 && !took; i++) {
        took = b.dma_req && b.dma_req->write == write;
        if (!took) b.cycle();
    }
    if (b.chk.expect(took, "no DMA %s request", write ? "write" : "read"))
        b.chk.expect(b.dma_req->addr == addr && b.dma_req->len == len && b.dma_req->fn == fn,
                     "DMA request 0x%" PRIx64 "+%u fn %u, programmed 0x%" PRIx64 "+%u fn %u", b.dma_req->addr,
                     b.dma_req->len, b.dma_req->fn, addr, len, fn);
    bool err_exp = write ? b.wr_err : b.rd_err;
    // While the engine works, the CPU uses a line no transfer reaches (the
    // last): the engine has the buffer's port first, the CPU's access waits.
    const uint32_t mark = uint32_t(io::DMA_BUF) + 127 * 64 + 4 * tb::rnd(b.rng, 0, 15);
    uint32_t mv = uint32_t(b.rng());
    b.wr(mark, mv);
    for (int i = 0; i < 100000 && (b.rd(io::DMA_STATUS) & 1); i++) {
        b.chk.expect(b.rd(mark) == mv, "buffer word 0x%04x changed during a DMA", mark);
        mv = uint32_t(b.rng());
        b.wr(mark, mv);
    }
    uint32_t st = b.rd(io::DMA_STATUS);
    if (b.inject && b.dma_reads + b.dma_writes == 5) err_exp = !err_exp;
    b.chk.expect(((st >> 1) & 1) == err_exp, "DMA %s error bit %u, the card said %d", write ? "write" : "read",
                 (st >> 1) & 1, err_exp);
    if (err_exp) b.dma_errs++;
    if (write) {
        b.dma_writes++;
        if (!err_exp) {
            bool same = true;
            for (unsigned i = 0; i < len; i++) same = same && b.host_byte(addr + i) == data[i];
            b.chk.expect(same, "DMA write of %u bytes at 0x%" PRIx64 ": host bytes differ", len, addr);
        }
    } else {
        b.dma_reads++;
        buf_copy(b, addr, len, data, false);
        bool same = true;
        for (unsigned i = 0; i < len; i++) same = same && b.host_byte(addr + i) == data[i];
        b.chk.expect(same, "DMA read of %u bytes at 0x%" PRIx64 ": buffer bytes differ", len, addr);
    }
}

// WQ errors pulsed while the CPU reads them. A read returns the errors of
// its word that came before the cycle it was taken in and were not returned
// yet (several of one queue merge); one in the read's own cycle comes with
// the next read. Queues error up to three times, one RQ and one SQ a cycle.
void check_wq_err(Bench &b) {
    std::vector<std::pair<bool, unsigned>> plan;
    for (unsigned q = 0; q < 512; q++)     // mostly in a few words: errors often hit the word being read
        if (q < 64 || tb::chance(b.rng, 0.1))
            for (unsigned n = tb::rnd(b.rng, 1, 3); n; n--) plan.push_back({true, q}), plan.push_back({false, q});
    std::shuffle(plan.begin(), plan.end(), b.rng);
    b.err_plan = plan;
    b.err_next = 0;
    b.pulses.clear();
    b.p_err = 0.3;
    size_t used = 0;                       // pulses[0, used) are accounted for
    std::vector<std::vector<uint64_t>> pending(1024);   // per queue (RQ q, SQ 512 + q): pulse cycles
    long reads = 0, merged = 0, same_cycle = 0, bad = 0;
    auto idx = [](bool rq, unsigned qn) { return (rq ? 0u : 512u) + qn; };
    for (int it = 0; it < 100000; it++) {
        uint32_t sum = b.rd(io::WQ_ERR_SUM);
        const uint64_t c_sum = b.capture_cycle;
        for (unsigned w = 0; w < io::WQ_ERR_WORDS; w++) {
            if (!(sum >> w & 1)) continue;
            uint32_t v = b.rd(io::WQ_ERR + 4 * w);
            const uint64_t c = b.capture_cycle;
            for (; used < b.pulses.size(); used++)
                pending[idx(b.pulses[used].rq, b.pulses[used].qn)].push_back(b.pulses[used].cycle);
            reads++;
            for (unsigned k = 0; k < 32; k++) {
                auto &p = pending[(w < 16 ? 0u : 512u) + 32 * (w % 16) + k];
                size_t before = 0;
                for (uint64_t t : p) before += t < c;
                bool want = before > 0;
                if (b.inject && reads == 50 && want) want = false;
                bad += want != bool(v >> k & 1);
                merged += before > 1 ? long(before) - 1 : 0;
                same_cycle += long(p.size() - before);
                std::erase_if(p, [&](uint64_t t) { return t < c; });
            }
        }
        // Done when the plan is out and an empty sum was read after its
        // last pulse (one in the sum read's own cycle shows in the next).
        if (!sum && b.err_next == b.err_plan.size() && b.pulses.back().cycle < c_sum) break;
    }
    b.p_err = 0;
    for (; used < b.pulses.size(); used++) pending[idx(b.pulses[used].rq, b.pulses[used].qn)].push_back(0);
    size_t left = 0;
    for (auto &p : pending) left += p.size();
    b.chk.expect(!bad && !left && b.err_next == plan.size(),
                 "WQ errors: %zu pulsed, %ld reads, %ld bits wrong, %zu never read", plan.size(), reads, bad, left);
    b.chk.expect(b.rd(io::WQ_ERR_SUM) == 0 && b.rd(io::WQ_ERR) == 0, "WQ_ERR not empty after the reads");
    std::printf("[cpu_io] WQ errors: %zu pulsed, %ld word reads, %ld merged, %ld in a read's cycle of their word\n",
                plan.size(), reads, merged, same_cycle);
}

void check_dma_refused(Bench &b) {
    for (auto [len, op] : {std::pair<uint32_t, uint32_t>{0, 1}, {4097, 2}, {64, 3}, {64, 0}}) {
        b.wr(io::DMA_LEN, len);
        b.wr(io::DMA_CTRL, op);
        b.idle(20);
        b.chk.expect(!b.m.fw_rd_valid_o && !b.m.fw_wr_valid_o && b.rd(io::DMA_STATUS) == 2,
                     "DMA len %u op %u: a request, or no error", len, op);
    }
}

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Checker chk("cpu_io");
    tb::Rng rng(args.seed);
    std::printf("[cpu_io] seed %" PRIu64 "\n", args.seed);
    Bench b(chk, rng);
    b.inject = args.inject;
    b.reset();
    check_regs(b);
    check_dma_refused(b);
    check_wq_err(b);
    long n = args.iters(300);
    for (long i = 0; i < n && chk.fails < 10; i++) {
        b.p_ready = i % 3 == 0 ? 1.0 : i % 3 == 1 ? 0.5 : 0.1;
        switch (tb::rnd(rng, 0, 4)) {
        case 0: check_wq(b); break;
        case 1: check_cmd(b); break;
        case 2: check_strobes(b); break;
        case 3: check_stats(b); break;
        default: check_dma(b); break;
        }
    }
    chk.expect(b.ticks > 10, "microsecond ticks: %ld", b.ticks);
    chk.expect(b.wq_drains > 10, "WQ writes with a drain: %ld", b.wq_drains);
    std::printf("[cpu_io] %ld WQ writes (%ld with a drain), %ld commands, %ld strobes, %ld counter reads, %ld DMA "
                "reads and %ld writes (%ld with the card's error), %ld us ticks, %" PRIu64 " cycles\n",
                b.wq_n, b.wq_drains, b.cmd_n, b.strobe_n, b.st_n, b.dma_reads, b.dma_writes, b.dma_errs, b.ticks, b.clk.cycle);
    return chk.finish();
}
