// Latency of the whole card (kite_card) by cycle counts, the PCIe round trip
// excluded: the host answers every DMA read in the cycle after its request
// leaves on RQ (a zero-latency host), the MAC always takes TX beats.
//   TX: SQ doorbell (the BAR2 write on CQ) -> first beat on the MAC TX port,
//       -> last beat, -> ETH_TX CQE written (its TLP on RQ).
//   RX: first / last beat on the MAC RX port (frames with FCS, as the MAC
//       passes them) -> buffer written -> ETH_RX CQE written.
// Everything runs on the card's one clock (250 MHz host clock; the 322 MHz
// MAC domain is not split off yet). Each measured transfer is also checked
// against the model (TxPipeline::process_wqe, RxPipeline::receive on a copy
// of host memory): the TX frame bytes and the host memory after RX.
// Not in fpga/rtl/blocks.list (a second whole-card build would double
// make test's longest step); tools/bench/bench.py builds and runs it
// (make bench, BENCH_ONLY=rtl). --inject corrupts one expected byte.
#include <algorithm>
#include <array>
#include <deque>
#include <vector>

#include "Vkite_card.h"
#include "kite_ref.hpp"
#include "pcie_host.hpp"
#include "tb.hpp"

#include "../../model/queue/queue.cpp"
#include "../../model/mac/mac.cpp"
#include "../../model/roce/roce.cpp"
#include "../../model/rss/rss.cpp"
#include "../../model/rxp/rxp.cpp"
#include "../../model/txp/txp.cpp"

namespace {

using namespace kite::model;
namespace ctx = kite::ctx;
namespace spec = kite::spec;

constexpr size_t MEM = 0x100000;
constexpr uint64_t CQ1 = 0x10000, CQ2 = 0x20000, SQB = 0x30000, RQB = 0x40000, TXB = 0x50000, RXB = 0x80000;
constexpr unsigned CQ_LOG = 6;

struct Model {
    Hw hw;
    QueueEngine q{hw};
    Mac mac{hw, q};
    Roce roce{hw, q, mac};
    TxPipeline tx{hw, q, mac, roce};
    RxPipeline rx{hw, q, mac, roce};
    std::vector<uint8_t> mem = std::vector<uint8_t>(MEM);
    std::vector<std::vector<uint8_t>> frames;
    Model() {
        hw.ops.opaque = this;
        hw.ops.now_ns = [](void *) { return uint64_t(0); };
        hw.ops.dma_read = [](void *o, kite_fn_t, uint64_t a, void *b, size_t n) {
            auto *m = static_cast<Model *>(o);
            if (a + n > MEM) return -1;
            std::memcpy(b, &m->mem[a], n);
            return 0;
        };
        hw.ops.dma_write = [](void *o, kite_fn_t, uint64_t a, const void *b, size_t n) {
            auto *m = static_cast<Model *>(o);
            if (a + n > MEM) return -1;
            std::memcpy(&m->mem[a], b, n);
            return 0;
        };
        hw.ops.msix = [](void *, kite_fn_t, uint16_t) {};
        hw.ops.frame_out = [](void *o, unsigned, const void *f, size_t n) {
            auto *p = static_cast<const uint8_t *>(f);
            static_cast<Model *>(o)->frames.emplace_back(p, p + n);
        };
        for (unsigned p = 0; p < 2; p++) {
            hw.ports[p].link_up = true;
            hw.port[p].mtu = 9000;
            hw.filter[ctx::filter_index(0, p)].rx_mode = spec::rx_mode_in::FLAGS_PROMISC;
            ctx::rss_ctx &rc = hw.rss[ctx::rss_index(0, p, 0)];
            rc.valid = 1;
            rc.table_size = 1;
            rc.table[0] = 1;
        }
    }
};

struct Beat {
    std::array<uint8_t, 64> d{};
    uint16_t keep = 0;
    bool last = false;
    std::array<uint32_t, 6> user{};
};

// PG213 descriptor fields.
uint64_t bits(const uint8_t *p, unsigned lo, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= uint64_t((p[(lo + i) / 8] >> ((lo + i) % 8)) & 1) << i;
    return v;
}
void setbits(uint8_t *p, unsigned lo, unsigned n, uint64_t v) {
    for (unsigned i = 0; i < n; i++) {
        uint8_t m = uint8_t(1u << ((lo + i) % 8));
        if ((v >> i) & 1) p[(lo + i) / 8] |= m;
        else p[(lo + i) / 8] &= uint8_t(~m);
    }
}
unsigned tz4(unsigned be) { return be & 1 ? 0 : be & 2 ? 1 : be & 4 ? 2 : be & 8 ? 3 : 0; }
unsigned lz4(unsigned be) { return be & 8 ? 0 : be & 4 ? 1 : be & 2 ? 2 : be & 1 ? 3 : 0; }

struct Bench {
    Vkite_card m;
    tb::Clock<Vkite_card> clk{m};
    tb::Checker &chk;
    std::vector<uint8_t> mem = std::vector<uint8_t>(MEM);
    Model ref;
    std::deque<Beat> cq_beats, rx_beats;
    tb::pcie::RcStream rc;     // the card's core straddles up to 4 TLPs per beat
    tb::pcie::RqStream rqs;    // RQ beats (a read may ride on a write's last beat)
    std::vector<uint8_t> tx_cur;
    std::vector<std::vector<uint8_t>> tx_frames;
    uint8_t mmio_tag = 0;
    // Cycle stamps of the last events of each kind.
    uint64_t t_db = 0, t_tx_first = 0, t_tx_last = 0, t_rx_first = 0, t_rx_last = 0;
    uint64_t t_cq1 = 0, t_cq2 = 0, t_rxbuf = 0;

    explicit Bench(tb::Checker &c) : chk(c) {
        m.rq_tready_i = 1;
        m.rc_tvalid_i = 0;
        m.cq_tvalid_i = 0;
        m.cc_tready_i = 1;
        m.cfg_max_payload_i = 1;   // 256
        m.cfg_max_read_req_i = 2;  // 512
        m.cfg_ext_tag_i = 1;       // Extended Tag Field Enable, as Linux sets it: 256 read tags
        m.msix_ready_i = 1;
        m.tx_tready_i = 3;
        m.rx_tvalid_i = 0;
        m.fw_fn_we_i = 0;
        m.fw_wq_valid_i = 0;
        m.fw_cq_valid_i = 0;
        m.fw_rss_we_i = 0;
        m.fw_flt_we_i = 0;
        m.now_us_i = 0;
        m.tick_i = 0;
        m.dev_status_i = 1;
        rc.straddle = 4;
        clk.reset();
    }

    // A request TLP from the card: reads are answered at once (one completion
    // with all the data, as a host with a 512-byte RCB would for a read
    // within its boundary), writes land in memory.
    void host_rq_tlp(const tb::pcie::RqTlp &t) {
        const uint8_t *d0 = t.bytes.data();
        uint64_t addr = bits(d0, 2, 62) << 2;
        unsigned dw = unsigned(bits(d0, 64, 11)), type = unsigned(bits(d0, 75, 4)), tag = unsigned(bits(d0, 96, 8));
        unsigned fbe = t.fbe, lbe = t.lbe;
        if (type == 0) {
            uint64_t first = addr + tz4(fbe);
            uint32_t len = dw == 1 ? 4 - tz4(fbe) - lz4(fbe) : 4 * dw - tz4(fbe) - lz4(lbe);
            for (const auto &t : tb::pcie::read_completions(first, len, tag, true, 0,
                                                            [&](uint64_t a) { return a < MEM ? mem[a] : 0; }))
                rc.push(t);
        } else if (type == 1) {
            for (unsigned j = 0; j < dw; j++) {
                unsigned be = j == 0 ? fbe : (j == dw - 1 ? lbe : 0xf);
                size_t s = 16 + 4 * size_t(j);
                for (unsigned b = 0; b < 4; b++)
                    if ((be >> b & 1) && addr + 4 * j + b < MEM) mem[addr + 4 * j + b] = t.bytes[s + b];
            }
            if (addr >= CQ1 && addr < CQ1 + (32u << CQ_LOG)) t_cq1 = clk.cycle;
            if (addr >= CQ2 && addr < CQ2 + (32u << CQ_LOG)) t_cq2 = clk.cycle;
            if (addr >= RXB && addr < RXB + 0x10000) t_rxbuf = clk.cycle;
        } else {
            chk.expect(false, "RQ request type %u", type);
        }
    }

    void bar2_write(uint32_t off, uint32_t data) {
        uint64_t addr = 0x00003c0000000000ULL + 2 * 0x10000000ULL + off;
        std::vector<uint8_t> b(20);
        setbits(b.data(), 2, 62, addr >> 2);
        setbits(b.data(), 64, 11, 1);
        setbits(b.data(), 75, 4, 1);
        setbits(b.data(), 96, 8, mmio_tag++);
        setbits(b.data(), 112, 3, 2);
        setbits(b.data(), 115, 6, 20);
        std::memcpy(&b[16], &data, 4);
        Beat bt;
        std::copy(b.begin(), b.end(), bt.d.begin());
        bt.keep = uint16_t(0xffffu >> (16 - b.size() / 4));
        bt.last = true;
        bt.user[0] = 0xf;
        cq_beats.push_back(bt);
    }

    void step() {
        auto drive = [](auto &data, auto &keep, auto &last, auto &user, const Beat &b) {
            tb::put_bytes(data, b.d.data(), 64);
            keep = b.keep;
            last = b.last;
            for (size_t i = 0; i < 6; i++) user[i] = b.user[i];
        };
        m.cq_tvalid_i = !cq_beats.empty();
        if (m.cq_tvalid_i) drive(m.cq_tdata_i, m.cq_tkeep_i, m.cq_tlast_i, m.cq_tuser_i, cq_beats.front());
        m.rc_tvalid_i = !rc.beats.empty();
        if (m.rc_tvalid_i) {
            tb::pcie::RcBeat &b = rc.beats.front();
            b.shown = true;
            tb::put_bytes(m.rc_tdata_i, b.d.data(), 64);
            m.rc_tkeep_i = b.keep;
            m.rc_tlast_i = b.last;
            for (size_t i = 0; i < 6; i++) m.rc_tuser_i[i] = b.user[i];
        }
        // MAC RX port 1.
        m.rx_tvalid_i = rx_beats.empty() ? 0 : 2;
        if (!rx_beats.empty()) {
            const Beat &b = rx_beats.front();
            for (size_t i = 0; i < 64; i++) {
                size_t bit = 512 + 8 * i;
                m.rx_tdata_i[bit / 32] = (m.rx_tdata_i[bit / 32] & ~(0xffu << (bit % 32))) | (uint32_t(b.d[i]) << (bit % 32));
            }
            uint64_t keep = b.user[0] | uint64_t(b.user[1]) << 32;
            m.rx_tkeep_i[2] = uint32_t(keep);
            m.rx_tkeep_i[3] = uint32_t(keep >> 32);
            m.rx_tlast_i = b.last ? 2 : 0;
        }
        m.eval();
        if (m.cq_tvalid_i && m.cq_tready_o) {
            cq_beats.pop_front();
            t_db = clk.cycle;
        }
        if (m.rc_tvalid_i && m.rc_tready_o) rc.beats.pop_front();
        if ((m.rx_tvalid_i & 2) && (m.rx_tready_o & 2)) {
            if (t_rx_first == 0) t_rx_first = clk.cycle;
            if (rx_beats.front().last) t_rx_last = clk.cycle;
            rx_beats.pop_front();
        }
        if ((m.tx_tvalid_o & 1) && (m.tx_tready_i & 1)) {
            if (tx_cur.empty()) t_tx_first = clk.cycle;
            uint64_t keep = uint64_t(m.tx_tkeep_o[0]) | uint64_t(m.tx_tkeep_o[1]) << 32;
            for (unsigned i = 0; i < 64; i++)
                if (keep >> i & 1) tx_cur.push_back(uint8_t(m.tx_tdata_o[i / 4] >> (8 * (i % 4))));
            if (m.tx_tlast_o & 1) {
                tx_frames.push_back(tx_cur);
                tx_cur.clear();
                t_tx_last = clk.cycle;
            }
        }
        if (m.rq_tvalid_o && m.rq_tready_i) {
            Beat b;
            for (unsigned i = 0; i < 64; i++) b.d[i] = tb::get_byte(m.rq_tdata_o, i);
            for (size_t i = 0; i < 5; i++) b.user[i] = m.rq_tuser_o[i];
            for (const auto &t : rqs.push(b.d, b.user)) host_rq_tlp(t);
            chk.expect(rqs.error.empty(), "%s", rqs.error.c_str());
        }
        clk.tick();
        m.fw_fn_we_i = 0;
        m.fw_wq_valid_i = 0;
        m.fw_cq_valid_i = 0;
        m.fw_rss_we_i = 0;
        m.fw_flt_we_i = 0;
    }

    void run(unsigned n) {
        for (unsigned i = 0; i < n; i++) step();
    }

    // Firmware's part, on the exposed port.
    void fw_wq(bool rq, unsigned qn, const ctx::wq_ctx &w) {
        m.fw_wq_valid_i = 1;
        m.fw_wq_rq_i = rq;
        m.fw_wq_qn_i = qn;
        m.fw_wq_en_i = w.valid;
        m.fw_wq_state_i = w.state;
        m.fw_wq_fn_i = w.fn;
        m.fw_wq_page_i = uint8_t(w.db_page);
        m.fw_wq_log_size_i = w.log_size;
        m.fw_wq_log_stride_i = w.log_stride;
        m.fw_wq_cqn_i = uint16_t(w.cqn);
        m.fw_wq_port_i = w.port;
        m.fw_wq_base_i = w.base;
        m.fw_wq_flags_i = w.flags;
        m.eval();
        for (int i = 0; i < 100 && !m.fw_wq_ready_o; i++) {
            clk.tick();
            m.fw_wq_valid_i = 1;
            m.eval();
        }
        chk.expect(m.fw_wq_ready_o, "queue context write taken");
        step();
        // As the firmware: done once an RQ write's drain is over.
        for (int i = 0; i < 100000 && m.fw_wq_busy_o; i++) step();
        chk.expect(!m.fw_wq_busy_o, "queue context write drained");
    }
    void fw_cq_ctx(unsigned cqn, uint64_t base) {
        m.fw_cq_valid_i = 1;
        m.fw_cq_op_i = 4;  // CQ_CTX
        m.fw_cq_qn_i = cqn;
        for (size_t i = 0; i < 8; i++) m.fw_cq_data_i[i] = 0;
        m.fw_cq_data_i[0] = uint32_t(base);
        m.fw_cq_data_i[1] = uint32_t(base >> 32);
        m.fw_cq_data_i[3] = CQ_LOG | (1u << 4);  // log_size [99:96], valid [100]
        m.eval();
        for (int i = 0; i < 100 && !m.fw_cq_ready_o; i++) {
            clk.tick();
            m.fw_cq_valid_i = 1;
            m.eval();
        }
        chk.expect(m.fw_cq_ready_o, "CQ context write taken");
        step();
        ctx::cq_ctx &c = ref.hw.cq[cqn];
        c.valid = 1;
        c.log_size = CQ_LOG;
        c.base = base;
    }

    void both(uint64_t a, const void *p, size_t n) {
        std::memcpy(&mem[a], p, n);
        std::memcpy(&ref.mem[a], p, n);
    }

    bool mem_same(const char *what) {
        size_t bad = 0, first = 0;
        for (size_t a = 0; a < MEM; a++)
            if (mem[a] != ref.mem[a] && !bad++) first = a;
        if (bad) {  // the 32 bytes around the first difference, RTL / model
            size_t a = first & ~size_t(31);
            std::fprintf(stderr, "[latency] at 0x%zx RTL  :", a);
            for (size_t i = 0; i < 32; i++) std::fprintf(stderr, " %02x", mem[a + i]);
            std::fprintf(stderr, "\n[latency] at 0x%zx model:", a);
            for (size_t i = 0; i < 32; i++) std::fprintf(stderr, " %02x", ref.mem[a + i]);
            std::fprintf(stderr, "\n");
        }
        return chk.expect(bad == 0, "%s: host memory differs from the model in %zu bytes, first 0x%zx", what, bad,
                          first);
    }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Checker chk("latency");
    tb::Rng rng(args.seed);
    std::printf("[latency] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk);
    b.run(9000);  // counter and context RAMs initialise after reset

    b.m.fw_fn_we_i = 1;
    b.m.fw_fn_sel_i = 0;
    b.m.fw_fn_db_pages_i = 256;
    b.m.fw_fn_port_i = 0;
    b.step();
    b.fw_cq_ctx(1, CQ1);
    b.fw_cq_ctx(2, CQ2);
    for (unsigned p = 0; p < 2; p++) {  // RSS, each port's context 0: hash off, one entry, RQ 1
        for (uint32_t a : {17u, 256u}) {
            b.m.fw_rss_we_i = 1;
            b.m.fw_rss_ctx_i = uint8_t(16 * p);
            b.m.fw_rss_addr_i = uint16_t(a);
            b.m.fw_rss_wdata_i = 1;
            b.step();
        }
    }
    for (unsigned p = 0; p < 2; p++) {  // receive filter: PROMISC, as the model's
        b.m.fw_flt_we_i = 1;
        b.m.fw_flt_port_i = p;
        b.m.fw_flt_addr_i = 0;
        b.m.fw_flt_wdata_i = spec::rx_mode_in::FLAGS_PROMISC;
        b.step();
    }
    ctx::wq_ctx &sq = b.ref.hw.sq[1];
    sq.valid = 1; sq.kind = ctx::WQ_ETH; sq.log_size = 4; sq.log_stride = 6; sq.cqn = 1; sq.base = SQB; sq.port = 0;
    sq.state = spec::wq_state::RST;
    b.fw_wq(false, 1, sq);
    sq.state = spec::wq_state::RDY;
    b.fw_wq(false, 1, sq);
    ctx::wq_ctx &rq = b.ref.hw.rq[1];
    rq.valid = 1; rq.is_rq = 1; rq.kind = ctx::WQ_ETH; rq.log_size = 4; rq.log_stride = 4; rq.cqn = 2; rq.base = RQB;
    rq.state = spec::wq_state::RST;
    b.fw_wq(true, 1, rq);
    rq.state = spec::wq_state::RDY;
    b.fw_wq(true, 1, rq);
    b.run(50);

    // TX: one signaled ETH_TX WQE at a time, one gather entry, the card idle.
    struct TxCase { uint32_t len; unsigned entries; };
    const TxCase tx_cases[] = {{60, 1}, {1514, 1}, {9014, 1}, {60, 2}, {1514, 2}};
    uint16_t pi = 0;
    for (const TxCase &c : tx_cases) {
        std::vector<uint8_t> frame = tb::rbytes(rng, c.len);
        frame[12] = 0x88;
        frame[13] = 0xb5;
        b.both(TXB, frame.data(), c.len);
        uint8_t wqe[64]{};
        wqe[0] = uint8_t(spec::wqe_opcode::ETH_TX);
        wqe[1] = spec::wqe_ctrl::FLAGS_SIGNALED;
        wqe[2] = uint8_t(1 + c.entries);
        std::memcpy(&wqe[4], &pi, 2);
        uint32_t first = c.entries == 1 ? c.len : 14;
        uint64_t a0 = TXB, a1 = TXB + first;
        uint32_t l1 = c.len - first;
        std::memcpy(&wqe[32], &a0, 8);
        std::memcpy(&wqe[40], &first, 4);
        if (c.entries == 2) {
            std::memcpy(&wqe[48], &a1, 8);
            std::memcpy(&wqe[56], &l1, 4);
        }
        b.both(SQB + uint64_t(pi % 16) * 64, wqe, 64);
        pi++;
        size_t nframes = b.tx_frames.size();
        b.t_cq1 = 0;
        b.bar2_write(uint32_t(spec::db::SQ), (1u << 16) | pi);
        sq.pi = pi;
        b.ref.frames.clear();
        b.ref.tx.process_wqe(1);
        for (int i = 0; i < 5000 && (b.tx_frames.size() == nframes || b.t_cq1 == 0); i++) b.step();
        b.run(50);
        if (chk.expect(b.tx_frames.size() == nframes + 1 && b.ref.frames.size() == 1, "TX %u B: one frame",
                       c.len)) {
            std::vector<uint8_t> exp = b.ref.frames[0];
            if (args.inject && c.len == 60) exp[5] ^= 1;  // deliberate mismatch (--inject)
            chk.expect(b.tx_frames.back() == exp, "TX %u B: frame bytes (%zu vs %zu)", c.len,
                       b.tx_frames.back().size(), exp.size());
        }
        b.mem_same("after TX (ETH_TX CQE)");
        chk.expect(b.t_cq1 > b.t_db && b.t_tx_first > b.t_db, "TX %u B: events after the doorbell", c.len);
        std::printf("[latency] TX %4u B, %u gather entr%s: doorbell -> first MAC byte %llu cycles, -> last MAC "
                    "byte %llu, -> CQE written %llu\n",
                    c.len, c.entries, c.entries == 1 ? "y  " : "ies",
                    (unsigned long long)(b.t_tx_first - b.t_db), (unsigned long long)(b.t_tx_last - b.t_db),
                    (unsigned long long)(b.t_cq1 - b.t_db));
    }

    // RX on port 1 into posted buffers, the card idle, the RQ WQE posted.
    const uint32_t rx_sizes[] = {60, 1514, 9014};
    uint16_t rpi = 0;
    for (uint32_t len : rx_sizes) {
        uint8_t rwqe[16]{};
        uint64_t ra = RXB;
        uint32_t rl = 0x10000;
        std::memcpy(rwqe, &ra, 8);
        std::memcpy(rwqe + 8, &rl, 4);
        b.both(RQB + uint64_t(rpi % 16) * 16, rwqe, 16);
        rpi++;
        b.bar2_write(uint32_t(spec::db::RQ), (1u << 16) | rpi);
        rq.pi = rpi;
        b.run(100);
        std::vector<uint8_t> rf = tb::rbytes(rng, len);
        rf[0] &= 0xfe;
        rf[12] = 0x88;
        rf[13] = 0xb5;
        std::vector<uint8_t> wire = rf;
        uint32_t fcs = kite::crc32(rf.data(), rf.size());
        for (int i = 0; i < 4; i++) wire.push_back(uint8_t(fcs >> (8 * i)));
        // The MAC (CMAC, ctl_rx_delete_fcs = 0) checks the FCS and passes it.
        for (size_t o = 0; o < wire.size(); o += 64) {
            Beat bt;
            size_t n = std::min<size_t>(64, wire.size() - o);
            std::copy_n(wire.begin() + long(o), n, bt.d.begin());
            uint64_t keep = tb::keep_mask(n);
            bt.user[0] = uint32_t(keep);
            bt.user[1] = uint32_t(keep >> 32);
            bt.last = o + n == wire.size();
            b.rx_beats.push_back(bt);
        }
        b.ref.rx.receive(1, wire.data(), wire.size());
        b.t_rx_first = b.t_cq2 = 0;
        uint64_t t0 = b.clk.cycle;
        for (int i = 0; i < 5000 && b.t_cq2 == 0; i++) b.step();
        b.run(50);
        if (args.inject && len == 60) b.ref.mem[RXB + 7] ^= 1;
        b.mem_same("after RX (buffer and RX CQE)");
        chk.expect(b.t_cq2 > b.t_rx_last && b.t_rx_first >= t0, "RX %u B: CQE after the frame", len);
        std::printf("[latency] RX %4u B: first MAC byte -> CQE written %llu cycles; last MAC byte -> buffer "
                    "written %llu, -> CQE written %llu\n",
                    len, (unsigned long long)(b.t_cq2 - b.t_rx_first), (unsigned long long)(b.t_rxbuf - b.t_rx_last),
                    (unsigned long long)(b.t_cq2 - b.t_rx_last));
    }
    return chk.finish();
}
