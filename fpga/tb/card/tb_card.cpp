// kite_card testbench: the whole card top with a C++ host on its PCIe
// interfaces (memory serving RQ reads with RC completions and taking RQ
// writes, MMIO requests on CQ, completions on CC; PG213 512-bit descriptors
// as in tb_pcie) and C++ MAC ports. The firmware's part is played by the
// testbench on the exposed firmware port (function table, SQ/RQ and CQ
// contexts, RSS table).
//
// The reference is the model: its TxPipeline::process_wqe and
// RxPipeline::receive (fpga/model, compiled in) run on a Hw with the same
// contexts and a copy of the host memory. Checked:
//   1. TX: a signaled ETH_TX WQE with two unaligned gather entries, rung
//      through BAR2 (SQ doorbell): the frame on MAC port 0 equals the model's
//      frame_out bytes (FCS included), and the host memory (CQ ring with the
//      ETH_TX CQE, owner bit set) equals the model's.
//   2. RX: a posted RQ WQE (RQ doorbell through BAR2) and a frame on MAC
//      port 1: buffer bytes and RX CQE in host memory equal the model's.
//   3. BAR0: MMIO reads of HW_REVISION and of the port 0 counters
//      tx_packets / tx_bytes (STATS) answer on CC with the model's values.
//   4. MAC statistics input: runts and a bad-FCS frame given to the model's
//      RxPipeline::receive, pulsed on mac_ev_i (two in one cycle on both
//      ports), give the model's rx_runt / rx_bad_fcs per port.
//   5. Firmware counter port: port 0 tx_packets with clear answers the
//      model's value, then 0; a BAR0 STATS read issued at the same time
//      still answers its own counter.
//   6. Firmware DMA port: an unaligned 300-byte write (six address-aligned
//      words) lands in host memory byte for byte and nothing else changes;
//      an unaligned 700-byte read returns host memory; a read of a faulting
//      address ends with the error flag.
//   7. TX NO_FCS: a 40-byte frame whose WQE asks for no FCS leaves as it is
//      (no padding, no FCS), as the model's frame_out; tx_bytes as the model.
//   8. Gather DMA error: a WQE whose second gather entry the host refuses,
//      with a WQE behind it on the same SQ: nothing reaches the MAC, the CQ
//      ring equals the model's (ERROR LOC_PROT_ERR CQE, then WR_FLUSH_ERR for
//      the next WQE), tx_dma_error as the model's, the SQ reported in ERR
//      (sq_err_o); a doorbell to it is dropped (db_dropped); after RST and
//      RDY a new WQE is sent byte for byte as the model sends it.
//   9. RSS contexts per port: port 0's context sends every frame to RQ 2,
//      port 1's hashes IPv4/TCP with its own key over RQ 1 and RQ 2; frames
//      on both ports (sizes that put the FCS in every place of a beat) land
//      (buffers, CQEs) as the model's.
//  10. RX_FCS with VLAN_STRIP: a tagged and an untagged frame reach the
//      buffer with their FCS (the tag removed), byte_cnt counting it, and
//      port rx_bytes without it, as the model.
//  11. RX steering on port 1: a frame to another MAC and one to a multicast
//      group not joined are filtered; after the group's entry is written one
//      is delivered (rx_multicast); with RSS pointing at a missing RQ, a flow
//      rule sends a UDP port to RQ 1 and another drops one (rx_flow_drop):
//      buffers, CQEs and the five counters as the model's.
//  12. RX counters at full rate: 64 frames back to back on port 1 (filtered,
//      or to an RQ without buffers), then 192 on both ports (delivered over
//      four RQs by RSS with good, bad and no UDP checksums; filtered): the
//      six port counters per port and the RQs' packets, bytes, csum and
//      drops as the model's.
//  13. Zero-length gather entries ({0, 70}, {60, 0}) are skipped as the
//      model skips them; a TSO WQE sends the model's three segments.
//  14. Queue counters: SQ 1's packets, bytes, drops, errors, csum and lso
//      and RQs 4-7's as the model's; doorbells as rung.
//  15. MAC verdict pulses on both ports in every cycle of 70,000 are all
//      counted (no counter starves behind another).
// Frames reach the card's MAC ports with their FCS, as the MAC passes them.
// --inject corrupts expected values (the run must fail).
#include <algorithm>
#include <array>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include <kite/rss.hpp>

#include "../../../firmware/include/kite_fw/card_ports.hpp"
#include "Vkite_card.h"
#include "card_env.hpp"
#include "kite_ref.hpp"
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
constexpr uint64_t CQ1 = 0x10000, CQ2 = 0x20000, SQB = 0x30000, RQB = 0x40000;
constexpr uint64_t TXB0 = 0x50013, TXB1 = 0x5102d, RXBUF = 0x60007;
constexpr unsigned CQ_LOG = 6;

struct Host {
    std::vector<uint8_t> mem = std::vector<uint8_t>(MEM);
};

// The CQ ring at @base (2^CQ_LOG slots) as it is now; written() counts the
// slots the card has written since.
struct CqWatch {
    const std::vector<uint8_t> &mem;
    uint64_t base;
    std::vector<uint8_t> ring;
    CqWatch(const std::vector<uint8_t> &m, uint64_t b)
        : mem(m), base(b), ring(m.begin() + long(b), m.begin() + long(b + (32u << CQ_LOG))) {}
    unsigned written() const {
        unsigned n = 0;
        for (unsigned i = 0; i < (1u << CQ_LOG); i++)
            n += !std::equal(ring.begin() + 32 * i, ring.begin() + 32 * (i + 1), mem.begin() + long(base) + 32 * i);
        return n;
    }
};

struct Model {
    Hw hw;
    QueueEngine q{hw};
    Mac mac{hw, q};
    Roce roce{hw, q, mac};
    TxPipeline tx{hw, q, mac, roce};
    RxPipeline rx{hw, q, mac, roce};
    Host host;
    std::vector<std::vector<uint8_t>> frames[2];
    std::set<unsigned> fns;   // functions of its DMA calls
    Model() {
        hw.ops.opaque = this;
        hw.ops.now_ns = [](void *) { return uint64_t(0); };
        hw.ops.dma_read = [](void *o, kite_fn_t fn, uint64_t a, void *b, size_t n) {
            static_cast<Model *>(o)->fns.insert(fn);
            Host &h = static_cast<Model *>(o)->host;
            if (a + n > MEM) return -1;
            std::memcpy(b, &h.mem[a], n);
            return 0;
        };
        hw.ops.dma_write = [](void *o, kite_fn_t fn, uint64_t a, const void *b, size_t n) {
            static_cast<Model *>(o)->fns.insert(fn);
            Host &h = static_cast<Model *>(o)->host;
            if (a + n > MEM) return -1;
            std::memcpy(&h.mem[a], b, n);
            return 0;
        };
        hw.ops.msix = [](void *, kite_fn_t, uint16_t) {};
        hw.ops.frame_out = [](void *o, unsigned port, const void *f, size_t n) {
            auto *p = static_cast<const uint8_t *>(f);
            static_cast<Model *>(o)->frames[port & 1].emplace_back(p, p + n);
        };
        for (unsigned p = 0; p < 2; p++) {
            hw.ports[p].link_up = true;
            hw.port[p].mtu = 1500;
            hw.filter[ctx::filter_index(0, p)].rx_mode = spec::rx_mode_in::FLAGS_PROMISC;
            ctx::rss_ctx &rc = hw.rss[ctx::rss_index(0, p, 0)];
            rc.valid = 1;
            rc.table_size = 1;
            rc.table[0] = 1;
        }
    }
};

struct Bench : card_tb::Env<Vkite_card, MEM> {
    tb::Rng &rng;
    Model ref;
    std::vector<uint64_t> fw_st_data;
    bool fw_st_taken = false;
    bool fw_rd_taken = false, fw_wr_taken = false, fw_wd_taken = false, fw_rd_last = false, fw_rd_err = false;
    bool fw_wr_done = false;
    std::vector<uint8_t> fw_rd_bytes;
    unsigned sq_err_n = 0, sq_err_qn = 0;

    Bench(tb::Checker &c, tb::Rng &r) : Env(c), rng(r) {
        m.fw_fn_we_i = 0;
        m.fw_wq_valid_i = 0;
        m.fw_cq_valid_i = 0;
        m.fw_rss_we_i = 0;
        m.fw_flt_we_i = 0;
        m.fw_port_we_i = 0;
        m.fw_st_valid_i = 0;
        m.fw_st_clear_i = 0;
        m.fw_rd_valid_i = 0;
        m.fw_wr_valid_i = 0;
        m.fw_wd_valid_i = 0;
        m.fw_rd_fn_i = 0;
        m.fw_wr_fn_i = 0;
        m.now_us_i = 0;
        m.tick_i = 0;
        m.fw_version_i = 0x01020003;
        m.dev_status_i = 1;
        clk.reset();
    }

    void step() {
        drive();
        m.eval();
        sample();
        if (m.fw_st_rvalid_o) fw_st_data.push_back(m.fw_st_rdata_o);
        if (m.sq_err_o) { sq_err_n++; sq_err_qn = m.sq_err_qn_o; }
        fw_st_taken = m.fw_st_valid_i && m.fw_st_ready_o;
        fw_rd_taken = m.fw_rd_valid_i && m.fw_rd_ready_o;
        fw_wr_taken = m.fw_wr_valid_i && m.fw_wr_ready_o;
        fw_wd_taken = m.fw_wd_valid_i && m.fw_wd_ready_o;
        if (m.fw_rd_rsp_valid_o) {
            uint64_t keep = uint64_t(m.fw_rd_rsp_keep_o);
            for (unsigned i = 0; i < 64; i++)
                if (keep >> i & 1) fw_rd_bytes.push_back(tb::get_byte(m.fw_rd_rsp_data_o, i));
            if (m.fw_rd_rsp_last_o) { fw_rd_last = true; fw_rd_err = m.fw_rd_rsp_err_o; }
        }
        if (m.fw_wr_done_o) fw_wr_done = true;
        clk.tick();
        m.fw_fn_we_i = 0;
        m.fw_wq_valid_i = 0;
        m.fw_cq_valid_i = 0;
        m.fw_rss_we_i = 0;
        m.fw_flt_we_i = 0;
        m.fw_port_we_i = 0;
        m.mac_ev_i = 0;
        if (fw_st_taken) m.fw_st_valid_i = 0;
        if (fw_rd_taken) m.fw_rd_valid_i = 0;
        if (fw_wr_taken) m.fw_wr_valid_i = 0;
    }

    void run(unsigned n) { for (unsigned i = 0; i < n; i++) step(); }

    // kite_rx_steer's config port: one 64-bit word of a port's tables.
    void flt(unsigned port, unsigned addr, uint64_t v) {
        m.fw_flt_we_i = 1;
        m.fw_flt_port_i = port;
        m.fw_flt_addr_i = addr;
        m.fw_flt_wdata_i = v;
        step();
    }

    // ------------------------------------------------------------ firmware
    // Returns the cycles the write drained after it was taken (with
    // @wait; without, the caller watches fw_wq_busy_o itself).
    unsigned fw_wq(bool rq, unsigned qn, const ctx::wq_ctx &w, bool wait = true) {
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
        for (int i = 0; i < 100 && !m.fw_wq_ready_o; i++) { step(); m.fw_wq_valid_i = 1; m.eval(); }
        chk.expect(m.fw_wq_ready_o, "queue context write taken");
        step();
        // As the firmware: done once the write's drain is over.
        unsigned n = 0;
        for (; wait && n < 100000 && m.fw_wq_busy_o; n++) step();
        chk.expect(!wait || !m.fw_wq_busy_o, "queue context write drained");
        return n;
    }
    // An Ethernet SQ of function 0 (doorbell page 0) written RST, then RDY,
    // as the firmware's CREATE_SQ does; the model's context is @qn's.
    ctx::wq_ctx &eth_sq(unsigned qn, uint64_t base, unsigned log_size, unsigned log_stride, unsigned cqn,
                        unsigned port) {
        ctx::wq_ctx &w = ref.hw.sq[qn];
        w = ctx::wq_ctx{};
        w.valid = 1; w.kind = ctx::WQ_ETH; w.base = base; w.log_size = uint8_t(log_size);
        w.log_stride = uint8_t(log_stride); w.cqn = cqn; w.port = uint8_t(port);
        w.state = spec::wq_state::RST;
        fw_wq(false, qn, w);
        w.state = spec::wq_state::RDY;
        fw_wq(false, qn, w);
        return w;
    }
    void fw_cq_ctx(unsigned cqn, uint64_t base, unsigned fn = 0) {
        m.fw_cq_valid_i = 1;
        m.fw_cq_op_i = 4;  // CQ_CTX
        m.fw_cq_qn_i = cqn;
        for (size_t i = 0; i < 8; i++) m.fw_cq_data_i[i] = 0;
        m.fw_cq_data_i[0] = uint32_t(base);
        m.fw_cq_data_i[1] = uint32_t(base >> 32);
        m.fw_cq_data_i[2] = fn;                    // fn [79:64]
        m.fw_cq_data_i[3] = CQ_LOG | (1u << 4);  // log_size [99:96], valid [100]
        m.eval();
        for (int i = 0; i < 100 && !m.fw_cq_ready_o; i++) { step(); m.fw_cq_valid_i = 1; m.eval(); }
        chk.expect(m.fw_cq_ready_o, "CQ context write taken");
        step();
        ctx::cq_ctx &c = ref.hw.cq[cqn];
        c.valid = 1;
        c.log_size = CQ_LOG;
        c.base = base;
        c.fn = uint16_t(fn);
    }

    void both(uint64_t a, const void *p, size_t n) {
        std::memcpy(&host.mem[a], p, n);
        std::memcpy(&ref.host.mem[a], p, n);
    }

    // Runs @f on the model and takes back the CQE(s) it wrote to CQ @cqn:
    // a WQE the card finishes after its SQ was reset completes no more.
    template <class F> void model_uncompleted(unsigned cqn, F f) {
        const ctx::cq_ctx c = ref.hw.cq[cqn];
        const size_t n = size_t(32) << c.log_size;
        const std::vector<uint8_t> ring(ref.host.mem.begin() + long(c.base), ref.host.mem.begin() + long(c.base + n));
        f();
        ref.hw.cq[cqn] = c;
        std::copy(ring.begin(), ring.end(), ref.host.mem.begin() + long(c.base));
    }

    // Steps until @n frames after the first @before have left MAC port
    // @port (at most @cycles), then 1,000 more; returns how many of them
    // equal the model's last @n on that port.
    unsigned sent_as_model(unsigned port, size_t before, unsigned n, int cycles) {
        for (int i = 0; i < cycles && tx_frames[port].size() < before + n; i++) step();
        run(1000);
        unsigned same = 0;
        for (unsigned k = 0; k < n && before + k < tx_frames[port].size() && ref.frames[port].size() >= n; k++)
            same += tx_frames[port][before + k] == ref.frames[port][ref.frames[port].size() - n + k];
        return same;
    }

    bool mem_same(const char *what) {
        size_t bad = 0, first = 0;
        for (size_t a = 0; a < MEM; a++)
            if (host.mem[a] != ref.host.mem[a] && !bad++) first = a;
        return chk.expect(bad == 0, "%s: host memory differs from the model in %zu bytes, first 0x%zx (RTL %02x model %02x)",
                          what, bad, first, host.mem[first], ref.host.mem[first]);
    }

    // A counter through the firmware port: kite_stats index i.
    uint64_t fw_stat_idx(unsigned i) {
        fw_st_data.clear();
        m.fw_st_valid_i = 1;
        m.fw_st_idx_i = uint16_t(i);
        m.fw_st_clear_i = 0;
        for (int k = 0; k < 100 && fw_st_data.empty(); k++) step();
        return chk.expect(fw_st_data.size() == 1, "counter %u answered", i) ? fw_st_data[0] : ~0ull;
    }
    // Port p's struct port_stats word w; RQ n's struct queue_stats word w.
    uint64_t fw_stat(unsigned p, unsigned w) { return fw_stat_idx(32 * p + w); }
    uint64_t fw_rq_stat(unsigned n, unsigned w) { return fw_stat_idx(64 + 8 * (512 + n) + w); }
    uint64_t fw_sq_stat(unsigned n, unsigned w) { return fw_stat_idx(64 + 8 * n + w); }

    // ETH_TX WQE in SQ 1's ring slot (index mod 16), gather entries as given.
    // The LSO fields of SQ 1's WQE @index (wqe_eth mss and hdr_len).
    void tx_lso(uint16_t index, uint16_t mss, uint16_t hdr_len) {
        const uint64_t w = SQB + 64 * (index & 15u);
        both(w + 18, &mss, 2);
        both(w + 24, &hdr_len, 2);
    }
    // A random unicast IPv4/TCP frame of @len bytes (20-byte IP and TCP
    // headers, DF, PSH ACK) for TSO WQEs.
    std::vector<uint8_t> tcp4_frame(size_t len) {
        std::vector<uint8_t> f = tb::rbytes(rng, len);
        f[0] &= 0xfe;
        f[12] = 0x08; f[13] = 0x00;
        uint8_t *ip = &f[14];
        ip[0] = 0x45; ip[2] = uint8_t((len - 14) >> 8); ip[3] = uint8_t((len - 14) & 0xff); ip[6] = 0x40;
        ip[7] = 0; ip[9] = 6;
        ip[20 + 12] = 0x50; ip[20 + 13] = 0x18;
        return f;
    }

    void tx_wqe(uint16_t index, uint8_t eth_flags, const std::vector<std::pair<uint64_t, uint32_t>> &sges,
                uint64_t ring = SQB) {
        uint8_t w[64]{};
        w[0] = uint8_t(spec::wqe_opcode::ETH_TX);
        w[1] = spec::wqe_ctrl::FLAGS_SIGNALED;
        w[2] = uint8_t(1 + sges.size());
        std::memcpy(&w[4], &index, 2);
        w[16] = eth_flags;
        for (size_t i = 0; i < sges.size(); i++) {
            std::memcpy(&w[32 + 16 * i], &sges[i].first, 8);
            std::memcpy(&w[40 + 16 * i], &sges[i].second, 4);
        }
        both(ring + 64 * (index & 15u), w, 64);
    }

    // SQ 1's WQEs first .. first + n - 1: frames of @len bytes, @step apart
    // from @buf, in two gather entries (4,000 bytes, then the rest).
    void two_entry_frames(uint16_t first, unsigned n, uint64_t buf, unsigned step, unsigned len) {
        for (unsigned k = 0; k < n; k++)
            tx_wqe(uint16_t(first + k), 0, {{buf + step * k, 4000}, {buf + step * k + 4000, len - 4000}});
    }

    void rss_write(unsigned ctx, uint32_t addr, uint32_t v) {
        m.fw_rss_we_i = 1;
        m.fw_rss_ctx_i = uint8_t(ctx);
        m.fw_rss_addr_i = uint16_t(addr);
        m.fw_rss_wdata_i = v;
        step();
    }
    // A model RSS context and the same written to kite_rss context {port, 0}.
    void rss_ctx(unsigned port, const ctx::rss_ctx &r) {
        ref.hw.rss[ctx::rss_index(0, port, 0)] = r;
        for (uint32_t a = 0; a < 10; a++) {
            uint32_t v;
            std::memcpy(&v, r.key + 4 * a, 4);
            rss_write(16 * port, a, v);
        }
        rss_write(16 * port, 16, r.hash_fields);
        rss_write(16 * port, 17, r.table_size);
        for (uint32_t i = 0; i < r.table_size; i++) rss_write(16 * port, 256 + i, r.table[i]);
    }

    uint64_t bar0_read(uint32_t off, unsigned fn = 0) {
        size_t before = cc_data.size();
        mmio(0, off, false, 0, 0xf, fn);
        for (int i = 0; i < 2000 && cc_data.size() == before; i++) step();
        if (!chk.expect(cc_data.size() > before, "BAR0 read 0x%x answered", off)) return ~0ull;
        return cc_data.back() & 0xffffffffu;
    }
};

}  // namespace

int main(int argc, char **argv) {
    tb::Args args(argc, argv);
    tb::Checker chk("card");
    tb::Rng rng(args.seed);
    std::printf("[card] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk, rng);
    b.run(9000);  // counter and context RAMs initialise after reset

    // Function 0: 256 doorbell pages, port 0.
    b.m.fw_fn_we_i = 1;
    b.m.fw_fn_sel_i = 0;
    b.m.fw_fn_db_pages_i = 256;
    b.m.fw_fn_port_i = 0;
    b.step();
    b.fw_cq_ctx(1, CQ1);
    b.fw_cq_ctx(2, CQ2);
    // RSS: each port's default context {port, 0}: hash off (fields 0 after
    // reset), one entry, RQ 1 (as the model's contexts).
    for (unsigned p = 0; p < 2; p++) {
        b.rss_write(16 * p, 17, 1);
        b.rss_write(16 * p, 256, 1);
    }
    for (unsigned p = 0; p < 2; p++) b.flt(p, 0x000, spec::rx_mode_in::FLAGS_PROMISC);  // as the model's
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

    // 1. TX: ETH_TX, signaled, two gather entries (30 + 70 bytes, unaligned).
    std::vector<uint8_t> frame = tb::rbytes(rng, 100);
    frame[12] = 0x88; frame[13] = 0xb5;
    b.both(TXB0, frame.data(), 30);
    b.both(TXB1, frame.data() + 30, 70);
    uint8_t wqe[64]{};
    wqe[0] = uint8_t(spec::wqe_opcode::ETH_TX);
    wqe[1] = spec::wqe_ctrl::FLAGS_SIGNALED;
    wqe[2] = 3;  // eth + 2 gather entries
    uint64_t a0 = TXB0, a1 = TXB1;
    uint32_t l0 = 30, l1 = 70;
    std::memcpy(&wqe[32], &a0, 8); std::memcpy(&wqe[40], &l0, 4);
    std::memcpy(&wqe[48], &a1, 8); std::memcpy(&wqe[56], &l1, 4);
    b.both(SQB, wqe, 64);
    b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | 1u);
    sq.pi = 1;
    b.ref.tx.process_wqe(1);
    for (int i = 0; i < 3000 && b.tx_frames[0].empty(); i++) b.step();
    b.run(300);
    chk.expect(b.ref.frames[0].size() == 1, "model sent one frame");
    if (chk.expect(b.tx_frames[0].size() == 1, "one frame on MAC port 0 (%zu)", b.tx_frames[0].size()) &&
        !b.ref.frames[0].empty()) {
        std::vector<uint8_t> exp = b.ref.frames[0][0];
        if (args.inject) exp[5] ^= 1;  // deliberate mismatch (--inject)
        chk.expect(b.tx_frames[0][0] == exp, "TX frame bytes (%zu vs %zu)", b.tx_frames[0][0].size(), exp.size());
    }
    b.mem_same("after TX (ETH_TX CQE)");
    chk.expect(b.host.mem[CQ1 + 31] & 1, "TX CQE owner bit set");

    // 2. RX on port 1 into the posted buffer.
    uint8_t rwqe[16]{};
    uint64_t ra = RXBUF;
    uint32_t rl = 2048;
    std::memcpy(rwqe, &ra, 8); std::memcpy(rwqe + 8, &rl, 4);
    b.both(RQB, rwqe, 16);
    b.mmio(2, uint32_t(spec::db::RQ), true, (1u << 16) | 1u);
    rq.pi = 1;
    b.run(200);
    std::vector<uint8_t> rf = tb::rbytes(rng, 200);
    rf[0] &= 0xfe;
    rf[12] = 0x88; rf[13] = 0xb5;
    std::vector<uint8_t> wire = rf;
    uint32_t fcs = kite::crc32(rf.data(), rf.size());
    for (int i = 0; i < 4; i++) wire.push_back(uint8_t(fcs >> (8 * i)));
    b.rx_q[1].push_back(wire);  // the MAC passes the FCS
    b.ref.rx.receive(1, wire.data(), wire.size());
    chk.expect(b.ref.hw.ports[1].stats.rx_packets == 1, "model delivered the RX frame");
    for (int i = 0; i < 3000 && !(b.host.mem[CQ2 + 31] & 1); i++) b.step();
    b.run(100);
    if (args.inject) b.ref.host.mem[RXBUF + 7] ^= 1;
    b.mem_same("after RX (buffer and RX CQE)");
    chk.expect(std::equal(rf.begin(), rf.end(), b.host.mem.begin() + long(RXBUF)), "RX bytes in the buffer");

    // 3. BAR0 reads.
    uint64_t rev = b.bar0_read(uint32_t(spec::reg::HW_REVISION));
    chk.expect(rev == 0x00010000, "HW_REVISION 0x%llx", (unsigned long long)rev);
    // The firmware on the board reports the datapath's features from its
    // own constant (it cannot read BAR0): it must be the card's CAPS.
    uint64_t caps = b.bar0_read(uint32_t(spec::reg::CAPS));
    chk.expect(caps == kite::fw::card::FEATURES, "CAPS 0x%llx, the firmware's kite_card features 0x%x",
               (unsigned long long)caps, kite::fw::card::FEATURES);
    uint64_t txp = b.bar0_read(uint32_t(spec::reg::STATS_BASE) + 16);
    uint64_t txb = b.bar0_read(uint32_t(spec::reg::STATS_BASE) + 24);
    chk.expect(txp == b.ref.hw.ports[0].stats.tx_packets && txb == b.ref.hw.ports[0].stats.tx_bytes,
               "port 0 tx_packets %llu tx_bytes %llu, model %llu %llu", (unsigned long long)txp,
               (unsigned long long)txb, (unsigned long long)b.ref.hw.ports[0].stats.tx_packets,
               (unsigned long long)b.ref.hw.ports[0].stats.tx_bytes);
    // 3b. A VF's register file: VF 2 on port 1, its table entry as the
    // model's Card::set_num_vfs writes it; its STATS window is its port's.
    {
        b.m.fw_fn_we_i = 1;
        b.m.fw_fn_sel_i = 2;
        b.m.fw_fn_db_pages_i = uint16_t(spec::pci::VF_DB_PAGES);
        b.m.fw_fn_port_i = 1;
        b.step();
        ctx::func_ctx &vf = b.ref.hw.func[2];
        vf.enabled = 1;
        vf.port = 1;
        vf.num_ports = 1;
        vf.msix_vectors = uint16_t(spec::pci::VF_MSIX_VECTORS);
        vf.db_pages = uint16_t(spec::pci::VF_DB_PAGES);
        namespace r = spec::reg;
        auto field = [](uint32_t mask, uint32_t v) { return v * (mask & (~mask + 1)); };  // v at mask's place
        uint32_t info = field(r::FUNC_INFO_FN, 2) | field(r::FUNC_INFO_PORT, vf.port) |
                        field(r::FUNC_INFO_NUM_PORTS, vf.num_ports) | r::FUNC_INFO_IS_VF;
        uint64_t got = b.bar0_read(uint32_t(r::FUNC_INFO), 2);
        chk.expect(got == info, "VF 2 FUNC_INFO 0x%llx, expected 0x%x", (unsigned long long)got, info);
        got = b.bar0_read(uint32_t(r::DB_PAGES), 2);
        chk.expect(got == vf.db_pages, "VF 2 DB_PAGES %llu", (unsigned long long)got);
        got = b.bar0_read(uint32_t(r::MSIX_VECTORS), 2);
        chk.expect(got == vf.msix_vectors, "VF 2 MSIX_VECTORS %llu", (unsigned long long)got);
        got = b.bar0_read(uint32_t(r::STATS_BASE), 2);
        chk.expect(got == b.ref.hw.ports[1].stats.rx_packets, "VF 2 STATS rx_packets %llu (port 1's), model %llu",
                   (unsigned long long)got, (unsigned long long)b.ref.hw.ports[1].stats.rx_packets);
        got = b.bar0_read(uint32_t(r::STATS_BASE), 0);
        chk.expect(got == b.ref.hw.ports[0].stats.rx_packets, "PF STATS rx_packets %llu (port 0's)",
                   (unsigned long long)got);
        // The ring registers of each function are its own.
        b.mmio(0, uint32_t(r::SCRATCH), true, 0x5a5a0002u, 0xf, 2);
        got = b.bar0_read(uint32_t(r::SCRATCH), 0);
        chk.expect(got != 0x5a5a0002u, "a VF's SCRATCH write leaves the PF's alone");
        got = b.bar0_read(uint32_t(r::SCRATCH), 2);
        chk.expect(got == 0x5a5a0002u, "VF 2 SCRATCH 0x%llx", (unsigned long long)got);
        // A function beyond the card's VFs has no registers.
        got = b.bar0_read(uint32_t(r::MAGIC), 20);
        chk.expect(got == 0, "function 20 MAGIC 0x%llx", (unsigned long long)got);
    }
    // 4. MAC statistics pulses: the model's MAC verdicts on the same frames.
    {
        std::vector<uint8_t> runt = tb::rbytes(rng, 40);
        std::vector<uint8_t> badf = wire;
        badf.back() ^= 0x40;
        b.ref.hw.ports[0].link_up = b.ref.hw.ports[1].link_up = true;
        b.ref.rx.receive(0, runt.data(), runt.size());
        b.ref.rx.receive(0, runt.data(), runt.size());
        b.ref.rx.receive(1, runt.data(), runt.size());
        b.ref.rx.receive(1, badf.data(), badf.size());
        b.m.mac_ev_i = 0x0101;  // a runt on each port in one cycle
        b.step();
        b.m.mac_ev_i = 0x0401;  // port 0 runt, port 1 bad FCS
        b.step();
        b.run(20);
        uint64_t r0 = b.bar0_read(uint32_t(spec::reg::STATS_BASE) + 5 * 8);
        chk.expect(r0 == b.ref.hw.ports[0].stats.rx_runt, "port 0 rx_runt %llu, model %llu", (unsigned long long)r0,
                   (unsigned long long)b.ref.hw.ports[0].stats.rx_runt);
        // Port 1 through the firmware port (BAR0 shows port 0).
        for (unsigned w : {5u, 7u}) {
            b.fw_st_data.clear();
            b.m.fw_st_valid_i = 1;
            b.m.fw_st_idx_i = uint16_t(32 + w);
            b.m.fw_st_clear_i = 0;
            for (int i = 0; i < 100 && b.fw_st_data.empty(); i++) b.step();
            uint64_t exp = w == 5 ? b.ref.hw.ports[1].stats.rx_runt : b.ref.hw.ports[1].stats.rx_bad_fcs;
            chk.expect(b.fw_st_data.size() == 1 && b.fw_st_data[0] == exp, "port 1 counter %u via the firmware port: "
                       "%llu, model %llu", w, b.fw_st_data.empty() ? ~0ull : (unsigned long long)b.fw_st_data[0],
                       (unsigned long long)exp);
        }
    }
    // 5. Firmware read with clear, racing a BAR0 read of another counter.
    {
        b.fw_st_data.clear();
        b.m.fw_st_valid_i = 1;
        b.m.fw_st_idx_i = 2;  // port 0 tx_packets
        b.m.fw_st_clear_i = 1;
        size_t before = b.cc_data.size();
        b.mmio(0, uint32_t(spec::reg::STATS_BASE) + 24, false, 0);  // tx_bytes
        for (int i = 0; i < 200 && (b.fw_st_data.empty() || b.cc_data.size() == before); i++) b.step();
        chk.expect(b.fw_st_data.size() == 1 && b.fw_st_data[0] == b.ref.hw.ports[0].stats.tx_packets,
                   "firmware read of tx_packets with clear");
        chk.expect(b.cc_data.size() > before && (b.cc_data.back() & 0xffffffffu) == b.ref.hw.ports[0].stats.tx_bytes,
                   "BAR0 tx_bytes read alongside");
        b.m.fw_st_clear_i = 0;
        uint64_t after = b.bar0_read(uint32_t(spec::reg::STATS_BASE) + 16);
        chk.expect(after == 0, "tx_packets cleared (%llu)", (unsigned long long)after);
    }
    // 6. Firmware DMA.
    {
        const uint64_t wa = 0x70023;
        std::vector<uint8_t> data = tb::rbytes(rng, 300);
        std::vector<uint8_t> expect = b.host.mem;
        std::copy(data.begin(), data.end(), expect.begin() + long(wa));
        b.fw_wr_done = false;
        b.m.fw_wr_valid_i = 1;
        b.m.fw_wr_addr_i = wa;
        b.m.fw_wr_len_i = 300;
        for (int i = 0; i < 100 && b.m.fw_wr_valid_i; i++) b.step();
        for (unsigned w = 0; w < ((wa & 63) + 300 + 63) / 64; w++) {
            uint8_t word[64]{};
            for (unsigned l = 0; l < 64; l++) {
                long k = long(w) * 64 + l - long(wa & 63);
                if (k >= 0 && k < 300) word[l] = data[size_t(k)];
            }
            tb::put_bytes(b.m.fw_wd_i, word, 64);
            b.m.fw_wd_valid_i = 1;
            b.fw_wd_taken = false;
            for (int i = 0; i < 100 && !b.fw_wd_taken; i++) b.step();
        }
        b.m.fw_wd_valid_i = 0;
        for (int i = 0; i < 500 && !b.fw_wr_done; i++) b.step();
        chk.expect(b.fw_wr_done, "firmware DMA write done");
        chk.expect(b.host.mem == expect, "firmware DMA write: 300 bytes at 0x%llx, nothing else", (unsigned long long)wa);
        std::copy_n(b.host.mem.begin() + long(wa), 300, b.ref.host.mem.begin() + long(wa));  // not the model's write
        const uint64_t ra = 0x5101d;
        b.fw_rd_bytes.clear();
        b.fw_rd_last = false;
        b.m.fw_rd_valid_i = 1;
        b.m.fw_rd_addr_i = ra;
        b.m.fw_rd_len_i = 700;
        for (int i = 0; i < 2000 && !b.fw_rd_last; i++) b.step();
        chk.expect(b.fw_rd_last && !b.fw_rd_err && b.fw_rd_bytes.size() == 700 &&
                       std::equal(b.fw_rd_bytes.begin(), b.fw_rd_bytes.end(), b.host.mem.begin() + long(ra)),
                   "firmware DMA read: 700 bytes at 0x%llx (%zu)", (unsigned long long)ra, b.fw_rd_bytes.size());
        b.fw_rd_bytes.clear();
        b.fw_rd_last = false;
        b.m.fw_rd_valid_i = 1;
        b.m.fw_rd_addr_i = MEM + 0x40;  // beyond host memory: the host answers with an error
        b.m.fw_rd_len_i = 64;
        for (int i = 0; i < 2000 && !b.fw_rd_last; i++) b.step();
        chk.expect(b.fw_rd_last && b.fw_rd_err, "firmware DMA read of a bad address ends in error");
    }
    // 7. NO_FCS: the frame leaves as posted.
    {
        std::vector<uint8_t> nf = tb::rbytes(rng, 40);
        nf[0] &= 0xfe;
        b.both(TXB0, nf.data(), nf.size());
        b.tx_wqe(1, spec::wqe_eth::FLAGS_NO_FCS, {{TXB0, uint32_t(nf.size())}});
        size_t before = b.tx_frames[0].size();
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | 2u);
        sq.pi = 2;
        b.ref.tx.process_wqe(1);
        for (int i = 0; i < 3000 && b.tx_frames[0].size() == before; i++) b.step();
        b.run(300);
        if (chk.expect(b.tx_frames[0].size() == before + 1 && b.ref.frames[0].size() == 2, "NO_FCS frame sent")) {
            std::vector<uint8_t> exp = b.ref.frames[0][1];
            if (args.inject) exp[3] ^= 1;
            chk.expect(b.tx_frames[0].back() == exp && exp.size() == nf.size(), "NO_FCS frame as posted (%zu vs %zu)",
                       b.tx_frames[0].back().size(), exp.size());
        }
        b.mem_same("after the NO_FCS frame (CQE)");
        uint64_t txb = b.bar0_read(uint32_t(spec::reg::STATS_BASE) + 24);
        chk.expect(txb == b.ref.hw.ports[0].stats.tx_bytes, "tx_bytes %llu after NO_FCS, model %llu",
                   (unsigned long long)txb, (unsigned long long)b.ref.hw.ports[0].stats.tx_bytes);
    }
    // 8. Gather DMA error on WQE 2 (its second entry lies beyond host memory),
    //    WQE 3 behind it.
    {
        std::vector<uint8_t> g = tb::rbytes(rng, 100);
        b.both(TXB0, g.data(), g.size());
        b.tx_wqe(2, 0, {{TXB0, 100}, {MEM - 16, 64}});
        b.tx_wqe(3, 0, {{TXB1, 70}});
        size_t before = b.tx_frames[0].size(), mbefore = b.ref.frames[0].size();
        uint64_t dma0 = b.fw_stat(0, 15), drop0 = b.fw_stat(0, 25);
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | 4u);
        sq.pi = 4;
        b.ref.tx.process_wqe(1);
        for (int i = 0; i < 4000 && b.sq_err_n == 0; i++) b.step();
        b.run(500);
        chk.expect(b.ref.frames[0].size() == mbefore && b.ref.hw.sq[1].state == spec::wq_state::ERR &&
                       b.ref.hw.sq[1].ci == 4, "model: no frame, SQ in ERR, flushed");
        chk.expect(b.tx_frames[0].size() == before, "no frame on the MAC after the DMA error (%zu)",
                   b.tx_frames[0].size() - before);
        chk.expect(b.sq_err_n == 1 && b.sq_err_qn == 1, "SQ 1 reported in ERR (%u)", b.sq_err_n);
        if (args.inject) b.ref.host.mem[CQ1 + 2 * 32 + 16] ^= 1;
        b.mem_same("after the DMA error (ERROR and flush CQEs)");
        uint64_t dma = b.fw_stat(0, 15);
        chk.expect(dma - dma0 == b.ref.hw.ports[0].stats.tx_dma_error, "tx_dma_error +%llu, model %llu",
                   (unsigned long long)(dma - dma0), (unsigned long long)b.ref.hw.ports[0].stats.tx_dma_error);
        // A doorbell to the SQ in ERR is dropped.
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | 5u);
        b.run(200);
        chk.expect(b.fw_stat(0, 25) == drop0 + 1 && b.tx_frames[0].size() == before, "doorbell to the SQ in ERR dropped");
        // RST then RDY: the ring restarts at 0 and sends again.
        sq.state = spec::wq_state::RST;
        b.fw_wq(false, 1, sq);
        sq.state = spec::wq_state::RDY;
        sq.pi = sq.ci = 0;
        b.fw_wq(false, 1, sq);
        std::vector<uint8_t> f2 = tb::rbytes(rng, 90);
        f2[12] = 0x88; f2[13] = 0xb5;
        b.both(TXB1, f2.data(), f2.size());
        b.tx_wqe(0, 0, {{TXB1, 90}});
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | 1u);
        sq.pi = 1;
        b.ref.tx.process_wqe(1);
        for (int i = 0; i < 3000 && b.tx_frames[0].size() == before; i++) b.step();
        b.run(300);
        chk.expect(b.tx_frames[0].size() == before + 1 && b.ref.frames[0].size() == mbefore + 1 &&
                       b.tx_frames[0].back() == b.ref.frames[0].back(), "frame after RST -> RDY as the model's");
        b.mem_same("after RST -> RDY (ETH_TX CQE)");
    }
    // 9. RSS per port: port 0's context steers everything to RQ 2, port 1's
    //    hashes IPv4/TCP with its own key over {RQ 1, RQ 2}; frames alternate
    //    between the ports, one at a time, each also given to the model.
    {
        constexpr uint64_t RQB2 = 0x48000, RXB2 = 0x80000;
        constexpr unsigned NF = 8;
        ctx::wq_ctx &rq2 = b.ref.hw.rq[2];
        rq2.valid = 1; rq2.is_rq = 1; rq2.kind = ctx::WQ_ETH; rq2.log_size = 4; rq2.log_stride = 4; rq2.cqn = 2;
        rq2.base = RQB2;
        rq2.state = spec::wq_state::RST;
        b.fw_wq(true, 2, rq2);
        rq2.state = spec::wq_state::RDY;
        b.fw_wq(true, 2, rq2);
        // RQ 1 takes at most port 1's NF frames, RQ 2 up to all 2 NF.
        for (unsigned k = 0; k < 2 * NF; k++) {
            uint8_t w[16]{};
            uint32_t len = 2048;
            uint64_t a1 = RXB2 + 0x800 * k, a2 = RXB2 + 0x8000 + 0x800 * k;
            std::memcpy(w, &a1, 8); std::memcpy(w + 8, &len, 4);
            if (k < NF) b.both(RQB + 16 * ((rq.pi + k) & 15), w, 16);
            std::memcpy(w, &a2, 8);
            b.both(RQB2 + 16 * k, w, 16);
        }
        rq.pi = uint16_t(rq.pi + NF);
        rq2.pi = 2 * NF;
        b.mmio(2, uint32_t(spec::db::RQ), true, (1u << 16) | rq.pi);
        b.mmio(2, uint32_t(spec::db::RQ), true, (2u << 16) | rq2.pi);
        ctx::rss_ctx r0{}, r1{};
        r0.valid = 1; r0.table_size = 1; r0.table[0] = 2;
        r1.valid = 1; r1.table_size = 2; r1.table[0] = 1; r1.table[1] = 2;
        r1.hash_fields = spec::rss_field::IPV4 | spec::rss_field::IPV4_TCP;
        for (auto &k : r1.key) k = uint8_t(rng());
        b.rss_ctx(0, r0);
        b.rss_ctx(1, r1);
        b.run(200);
        const uint64_t q1 = b.ref.hw.rq[1].stats.packets, q2 = b.ref.hw.rq[2].stats.packets;
        unsigned cqes = 1, got = 0;
        // Sizes whose FCS ends a beat, straddles two or fills a beat of its own.
        static const unsigned sizes[2 * NF] = {120, 62, 125, 60, 64, 127, 188, 61, 126, 63, 200, 90, 124, 65, 300, 128};
        for (unsigned i = 0; i < 2 * NF; i++) {
            unsigned port = i & 1, sz = sizes[i];
            // Ethernet / IPv4 (header checksum right) / TCP.
            auto make = [&]() {
                std::vector<uint8_t> f = tb::rbytes(rng, sz);
                f[0] &= 0xfe;
                f[12] = 0x08; f[13] = 0x00;
                uint8_t *ip = &f[14];
                ip[0] = 0x45; ip[2] = uint8_t((sz - 14) >> 8); ip[3] = uint8_t(sz - 14); ip[6] = 0; ip[7] = 0;
                ip[9] = 6;
                ip[10] = ip[11] = 0;
                uint32_t sum = 0;
                for (int k = 0; k < 20; k += 2) sum += uint32_t(ip[k] << 8 | ip[k + 1]);
                while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
                ip[10] = uint8_t(~sum >> 8); ip[11] = uint8_t(~sum);
                f[14 + 20 + 12] = 0x50;
                return f;
            };
            std::vector<uint8_t> f = make();
            // Port 1's flows are drawn so that its hash alternates between
            // the two RQs (coverage of both for every seed).
            for (int t = 0; port == 1 && t < 64; t++) {
                const kite::parsed_frame pf = kite::parse_frame(f.data(), f.size());
                const uint32_t h = kite::rss_hash(f.data(), pf, r1.hash_fields, r1.key).hash;
                if (r1.table[h % r1.table_size] == r1.table[(i / 2) & 1]) break;
                f = make();
            }
            std::vector<uint8_t> wf = f;
            uint32_t c = kite::crc32(f.data(), f.size());
            for (int k = 0; k < 4; k++) wf.push_back(uint8_t(c >> (8 * k)));
            b.rx_q[port].push_back(wf);
            b.ref.rx.receive(port, wf.data(), wf.size());
            for (int k = 0; k < 3000 && !(b.host.mem[CQ2 + 32 * cqes + 31] & 1); k++) b.step();
            got += b.host.mem[CQ2 + 32 * cqes + 31] & 1;
            cqes++;
            b.run(50);
        }
        const uint64_t d1 = b.ref.hw.rq[1].stats.packets - q1, d2 = b.ref.hw.rq[2].stats.packets - q2;
        std::printf("[card] RSS per port: %u frames, model RQ 1 +%llu RQ 2 +%llu\n", got,
                    (unsigned long long)d1, (unsigned long long)d2);
        chk.expect(got == 2 * NF && d1 + d2 == 2 * NF, "every frame delivered (%u)", got);
        chk.expect(d1 == NF / 2 && d2 == NF + NF / 2, "coverage: port 1's hash picked both RQs (RQ 1 +%llu)",
                   (unsigned long long)d1);
        if (args.inject) b.ref.host.mem[RXB2 + 0x8000 + 20] ^= 1;
        b.mem_same("after RSS per port (buffers, CQEs)");
    }
    // 10. RX_FCS with VLAN_STRIP: RQ 3 (port 0's context now steers there)
    //     gets a tagged frame without its tag and with its FCS, then an
    //     untagged one with its FCS; byte_cnt counts the FCS, rx_bytes not.
    {
        constexpr uint64_t RQB3 = 0x4c000, RXB3 = 0x98000;
        ctx::wq_ctx &rq3 = b.ref.hw.rq[3];
        rq3.valid = 1; rq3.is_rq = 1; rq3.kind = ctx::WQ_ETH; rq3.log_size = 4; rq3.log_stride = 4; rq3.cqn = 2;
        rq3.base = RQB3;
        rq3.flags = spec::create_wq_in::FLAGS_RX_FCS | spec::create_wq_in::FLAGS_VLAN_STRIP;
        rq3.state = spec::wq_state::RST;
        b.fw_wq(true, 3, rq3);
        rq3.state = spec::wq_state::RDY;
        b.fw_wq(true, 3, rq3);
        for (unsigned k = 0; k < 2; k++) {
            uint8_t w[16]{};
            uint32_t len = 2048;
            uint64_t a = RXB3 + 0x1000 * k + 3;
            std::memcpy(w, &a, 8); std::memcpy(w + 8, &len, 4);
            b.both(RQB3 + 16 * k, w, 16);
        }
        rq3.pi = 2;
        b.mmio(2, uint32_t(spec::db::RQ), true, (3u << 16) | rq3.pi);
        ctx::rss_ctx r0{};
        r0.valid = 1; r0.table_size = 1; r0.table[0] = 3;
        b.rss_ctx(0, r0);
        b.run(200);
        const uint64_t rxb0 = b.ref.hw.ports[0].stats.rx_bytes;
        const unsigned cq0 = unsigned(b.ref.hw.cq[2].pi);
        std::vector<uint8_t> sent[2];
        for (unsigned k = 0; k < 2; k++) {
            // 8100 tag, then an IPv4/UDP header; 126 + 4 bytes: the FCS straddles two beats.
            std::vector<uint8_t> f = tb::rbytes(rng, k ? 122 : 126);
            f[0] &= 0xfe;
            unsigned l3 = k ? 14 : 18;
            if (!k) { f[12] = 0x81; f[13] = 0x00; f[14] &= 0x0f; }
            f[l3 - 2] = 0x08; f[l3 - 1] = 0x00;
            uint8_t *ip = &f[l3];
            unsigned tl = unsigned(f.size()) - l3;
            ip[0] = 0x45; ip[2] = uint8_t(tl >> 8); ip[3] = uint8_t(tl); ip[6] = 0; ip[7] = 0; ip[9] = 17;
            ip[10] = ip[11] = 0;
            uint32_t sum = 0;
            for (int j = 0; j < 20; j += 2) sum += uint32_t(ip[j] << 8 | ip[j + 1]);
            while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
            ip[10] = uint8_t(~sum >> 8); ip[11] = uint8_t(~sum);
            ip[24] = uint8_t((tl - 20) >> 8); ip[25] = uint8_t(tl - 20); ip[26] = ip[27] = 0;  // UDP, no checksum
            std::vector<uint8_t> wf = f;
            uint32_t c = kite::crc32(f.data(), f.size());
            for (int j = 0; j < 4; j++) wf.push_back(uint8_t(c >> (8 * j)));
            sent[k] = wf;
            b.rx_q[0].push_back(wf);
            b.ref.rx.receive(0, wf.data(), wf.size());
            for (int j = 0; j < 3000 && !(b.host.mem[CQ2 + 32 * (cq0 + k) + 31] & 1); j++) b.step();
            b.run(50);
        }
        chk.expect(b.ref.hw.rq[3].stats.packets == 2, "model delivered both frames to RQ 3");
        for (unsigned k = 0; k < 2; k++) {
            std::vector<uint8_t> exp = sent[k];
            if (!k) exp.erase(exp.begin() + 12, exp.begin() + 16);  // tag stripped, FCS kept
            uint32_t bc;
            std::memcpy(&bc, &b.host.mem[CQ2 + 32 * (cq0 + k)], 4);
            chk.expect(bc == exp.size() && std::equal(exp.begin(), exp.end(), b.host.mem.begin() + long(RXB3 + 0x1000 * k + 3)),
                       "RX_FCS frame %u: byte_cnt %u (%zu), buffer = frame%s with its FCS", k, bc, exp.size(),
                       k ? "" : " without its tag");
        }
        if (args.inject) b.ref.host.mem[RXB3 + 3 + 122] ^= 1;  // an FCS byte
        b.mem_same("after RX_FCS (buffers, CQEs)");
        uint64_t rxb = b.bar0_read(uint32_t(spec::reg::STATS_BASE) + 8);
        chk.expect(rxb == (b.ref.hw.ports[0].stats.rx_bytes & 0xffffffffu) && b.ref.hw.ports[0].stats.rx_bytes - rxb0 == 126 + 122,
                   "port 0 rx_bytes %llu without FCS, model %llu", (unsigned long long)rxb,
                   (unsigned long long)b.ref.hw.ports[0].stats.rx_bytes);
    }
    // 11. RX steering on port 1 (kite_rx_steer): the receive filter, the RX
    //    multicast count, a flow rule to an RQ ahead of RSS and a drop rule;
    //    buffers, CQEs and counters as the model's.
    {
        const uint8_t own[6] = {0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e}, other[6] = {0x02, 1, 2, 3, 4, 5};
        const uint8_t mc[6] = {0x01, 0x00, 0x5e, 0, 0, 7};
        auto mac64 = [](const uint8_t *m) {
            uint64_t v = 0;
            for (int i = 0; i < 6; i++) v |= uint64_t(m[i]) << (8 * i);
            return v;
        };
        ctx::filter_ctx &fc = b.ref.hw.filter[ctx::filter_index(0, 1)];
        fc.rx_mode = spec::rx_mode_in::FLAGS_BROADCAST;
        std::memcpy(fc.perm_mac, own, 6);
        b.flt(1, 0x000, fc.rx_mode);
        b.flt(1, 0x001, mac64(own));
        // Port 1's RSS context: everything to RQ 1.
        ctx::rss_ctx r1c{};
        r1c.valid = 1; r1c.table_size = 1; r1c.table[0] = 1;
        b.rss_ctx(1, r1c);
        for (unsigned i = 0; i < 4; i++) {  // four more buffers on RQ 1
            uint8_t w[16]{};
            uint64_t a = RXBUF + 0x1000 * (i + 1);
            uint32_t l = 2048;
            std::memcpy(w, &a, 8);
            std::memcpy(w + 8, &l, 4);
            b.both(RQB + 16 * ((rq.pi + i) % 16), w, 16);
        }
        rq.pi = uint16_t(rq.pi + 4);
        b.mmio(2, uint32_t(spec::db::RQ), true, (1u << 16) | rq.pi);
        b.run(200);
        // 64-byte UDP/IPv4 frames 10.0.0.1:1000 -> 10.0.0.2:dport.
        auto udp = [&](const uint8_t *da, uint16_t dport) {
            std::vector<uint8_t> f(64, 0);
            std::memcpy(f.data(), da, 6);
            f[6] = 0x02; f[11] = 0x99;
            f[12] = 0x08; f[14] = 0x45; f[16] = 0; f[17] = 50; f[22] = 64; f[23] = 17;
            f[26] = 10; f[29] = 1; f[30] = 10; f[33] = 2;
            uint16_t c = kite::ipv4_hdr_csum(&f[14], 20);
            f[24] = uint8_t(c >> 8); f[25] = uint8_t(c);
            f[34] = 0x03; f[35] = 0xe8;
            f[36] = uint8_t(dport >> 8); f[37] = uint8_t(dport);
            f[39] = 30;
            return f;
        };
        auto send = [&](const std::vector<uint8_t> &f) {
            std::vector<uint8_t> w = f;
            uint32_t c = kite::crc32(f.data(), f.size());
            for (int i = 0; i < 4; i++) w.push_back(uint8_t(c >> (8 * i)));
            b.rx_q[1].push_back(w);
            b.ref.rx.receive(1, w.data(), w.size());
            b.run(1500);
        };
        const unsigned cw[] = {0, 4, 9, 10, 30};  // rx_packets, rx_no_buffer, rx_filtered, rx_multicast, rx_flow_drop
        spec::port_stats m0 = b.ref.hw.ports[1].stats;
        uint64_t c0[5];
        for (unsigned k = 0; k < 5; k++) c0[k] = b.fw_stat(1, cw[k]);
        send(udp(other, 1000));  // another unicast MAC: filtered
        send(udp(mc, 1000));     // a multicast group not joined: filtered
        fc.num_mc = 1;
        std::memcpy(fc.mc[0], mc, 6);
        b.flt(1, 0x080, mac64(mc) | 1ull << 48);
        send(udp(mc, 1000));     // joined: RSS to RQ 1, rx_multicast
        // RSS now points at RQ 5 (no such queue): rule 3 sends UDP to port
        // 2000 to RQ 1, rule 7 drops UDP to port 3000.
        r1c.table[0] = 5;
        b.rss_ctx(1, r1c);
        ctx::flow_ctx &r3 = b.ref.hw.flow[ctx::flow_index(0, 1, 3)], &r7 = b.ref.hw.flow[ctx::flow_index(0, 1, 7)];
        r3 = ctx::flow_ctx{};
        r3.valid = 1; r3.l4_proto = 17; r3.match = spec::flow_rule_in::MATCH_DST_PORT; r3.dport = 2000;
        r3.action = 0; r3.rq = 1;
        r7 = r3;
        r7.dport = 3000; r7.action = 2; r7.rq = 0;
        b.flt(1, 0x200 + 8 * 3, 1 | 1u << 5 | 0u << 6 | 17u << 8 | uint64_t(2000) << 32);
        b.flt(1, 0x200 + 8 * 3 + 1, 1);
        b.flt(1, 0x200 + 8 * 7, 1 | 1u << 5 | 2u << 6 | 17u << 8 | uint64_t(3000) << 32);
        send(udp(own, 1000));    // no rule: RSS to RQ 5, rx_no_buffer
        send(udp(own, 2000));    // rule 3: RQ 1
        send(udp(own, 3000));    // rule 7: rx_flow_drop
        if (args.inject) b.ref.hw.ports[1].stats.rx_flow_drop++;
        const spec::port_stats &m1 = b.ref.hw.ports[1].stats;
        const uint64_t md[5] = {m1.rx_packets - m0.rx_packets, m1.rx_no_buffer - m0.rx_no_buffer,
                                m1.rx_filtered - m0.rx_filtered, m1.rx_multicast - m0.rx_multicast,
                                m1.rx_flow_drop - m0.rx_flow_drop};
        chk.expect(md[0] == 2 && md[1] == 1 && md[2] == 2 && md[3] == 1 && md[4] == 1, "model steering outcomes");
        for (unsigned k = 0; k < 5; k++) {
            uint64_t d = b.fw_stat(1, cw[k]) - c0[k];
            chk.expect(d == md[k], "port 1 counter %u +%llu, model +%llu", cw[k], (unsigned long long)d,
                       (unsigned long long)md[k]);
        }
        b.mem_same("after steering (buffers and RX CQEs)");
    }
    // 12. RX counters at full rate. First 64 frames back to back on port 1,
    //     one filtered, one to RQ 8 (RSS; an RQ without buffers: rx_no_buffer
    //     and the RQ's drops), and so on; then 192 frames, port 0's (mostly
    //     64 bytes on the wire) spread by RSS over RQs 4-7 with good, bad and
    //     absent UDP checksums, port 1's filtered, the ports alternating
    //     frame by frame. Every port and RQ counter the frames move is
    //     compared with the model's.
    {
        constexpr uint64_t RXB = 0xa0000, RQR = 0xc0000, CQB = 0xc8000;
        constexpr unsigned NQ = 4, N0 = 144, N1 = 48, NA = 64;
        {
            b.fw_cq_ctx(7, CQB + 0x800 * NQ);
            ctx::wq_ctx &w = b.ref.hw.rq[8];
            w.valid = 1; w.is_rq = 1; w.kind = ctx::WQ_ETH; w.log_size = 4; w.log_stride = 4; w.cqn = 7;
            w.base = RQR + 0x400 * NQ;
            w.state = spec::wq_state::RST;
            b.fw_wq(true, 8, w);
            w.state = spec::wq_state::RDY;
            b.fw_wq(true, 8, w);
            ctx::rss_ctx r1{};
            r1.valid = 1; r1.table_size = 1; r1.table[0] = 8;
            b.rss_ctx(1, r1);
        }
        for (unsigned j = 0; j < NQ; j++) {
            const unsigned qn = 4 + j, cqn = 3 + j;
            b.fw_cq_ctx(cqn, CQB + 0x800 * j);
            ctx::wq_ctx &w = b.ref.hw.rq[qn];
            w.valid = 1; w.is_rq = 1; w.kind = ctx::WQ_ETH; w.log_size = 6; w.log_stride = 4; w.cqn = cqn;
            w.base = RQR + 0x400 * j;
            w.state = spec::wq_state::RST;
            b.fw_wq(true, qn, w);
            w.state = spec::wq_state::RDY;
            b.fw_wq(true, qn, w);
            for (unsigned k = 0; k < 64; k++) {
                uint8_t e[16]{};
                uint64_t a = RXB + 0x8000 * j + 0x200 * k;
                uint32_t len = 512;
                std::memcpy(e, &a, 8); std::memcpy(e + 8, &len, 4);
                b.both(w.base + 16 * k, e, 16);
            }
            w.pi = 64;
            b.mmio(2, uint32_t(spec::db::RQ), true, (qn << 16) | 64u);
        }
        ctx::rss_ctx r0{};
        r0.valid = 1; r0.table_size = NQ;
        for (unsigned j = 0; j < NQ; j++) r0.table[j] = uint16_t(4 + j);
        r0.hash_fields = spec::rss_field::IPV4 | spec::rss_field::IPV4_UDP;
        for (auto &k : r0.key) k = uint8_t(rng());
        b.rss_ctx(0, r0);
        b.run(300);
        // UDP/IPv4 to da (random unicast if none), sz bytes before the FCS;
        // csum: 0 correct, 1 wrong, 2 none.
        const uint8_t own1[6] = {0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e}, other[6] = {0x02, 1, 2, 3, 4, 5};
        auto frame = [&](unsigned sz, unsigned csum, const uint8_t *da) {
            std::vector<uint8_t> f = tb::rbytes(rng, sz);
            f[0] &= 0xfe;
            if (da) std::memcpy(f.data(), da, 6);
            f[12] = 0x08; f[13] = 0x00;
            uint8_t *ip = &f[14];
            const unsigned tl = sz - 14, ul = tl - 20;
            ip[0] = 0x45; ip[2] = uint8_t(tl >> 8); ip[3] = uint8_t(tl); ip[6] = 0; ip[7] = 0; ip[9] = 17;
            ip[10] = ip[11] = 0;
            uint16_t hc = kite::ipv4_hdr_csum(ip, 20);
            ip[10] = uint8_t(hc >> 8); ip[11] = uint8_t(hc);
            uint8_t *u = ip + 20;
            u[4] = uint8_t(ul >> 8); u[5] = uint8_t(ul); u[6] = u[7] = 0;
            if (da == own1) { u[2] = 0x03; u[3] = 0xe8; }  // port 1000: no flow rule of section 11
            uint32_t sum = 17 + ul;
            for (int k = 12; k < 20; k += 2) sum += uint32_t(ip[k] << 8 | ip[k + 1]);
            for (unsigned k = 0; k < ul; k += 2) sum += uint32_t(u[k] << 8 | (k + 1 < ul ? u[k + 1] : 0));
            while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
            uint16_t c = uint16_t(~sum);
            if (!c) c = 0xffff;
            if (csum == 1) c = uint16_t(c ^ 0x0100);
            if (csum == 2) c = 0;
            u[6] = uint8_t(c >> 8); u[7] = uint8_t(c);
            uint32_t fc = kite::crc32(f.data(), f.size());
            for (int k = 0; k < 4; k++) f.push_back(uint8_t(fc >> (8 * k)));
            return f;
        };
        // rx_packets, rx_bytes, rx_csum_complete, rx_bad_csum, rx_filtered, rx_no_buffer
        const unsigned pw[] = {0, 1, 29, 8, 9, 4};
        const unsigned qw[] = {0, 1, 4};           // RQ packets, bytes, csum
        constexpr unsigned NPW = 6;
        uint64_t p0[2][NPW], q0[NQ][3];
        for (unsigned p = 0; p < 2; p++)
            for (unsigned k = 0; k < NPW; k++) p0[p][k] = b.fw_stat(p, pw[k]);
        const uint64_t d80 = b.fw_rq_stat(8, 2);
        const uint64_t md80 = b.ref.hw.rq[8].stats.drops;
        for (unsigned j = 0; j < NQ; j++)
            for (unsigned k = 0; k < 3; k++) q0[j][k] = b.fw_rq_stat(4 + j, qw[k]);
        const spec::port_stats m0[2] = {b.ref.hw.ports[0].stats, b.ref.hw.ports[1].stats};
        spec::queue_stats mq0[NQ];
        for (unsigned j = 0; j < NQ; j++) mq0[j] = b.ref.hw.rq[4 + j].stats;
        // Phase A: port 1 alone.
        for (unsigned i = 0; i < NA; i++) {
            std::vector<uint8_t> f = frame(60, 0, i % 2 ? own1 : other);
            b.rx_q[1].push_back(f);
            b.ref.rx.receive(1, f.data(), f.size());
        }
        const uint64_t ta = b.clk.cycle;
        for (int k = 0; k < 5000 && !b.rx_q[1].empty(); k++) b.step();
        const uint64_t a_cycles = b.clk.cycle - ta;
        b.run(500);
        for (unsigned i = 0; i < N0; i++) {
            unsigned sz = i % 8 == 7 ? unsigned(tb::rnd(rng, 61, 300)) : 60;
            std::vector<uint8_t> f = frame(sz, i % 3, nullptr);
            b.rx_q[0].push_back(f);
            b.ref.rx.receive(0, f.data(), f.size());
        }
        for (unsigned i = 0; i < N1; i++) {
            std::vector<uint8_t> f = frame(60, 0, other);
            b.rx_q[1].push_back(f);
            b.ref.rx.receive(1, f.data(), f.size());
        }
        const uint64_t t0 = b.clk.cycle;
        for (int k = 0; k < 20000 && !(b.rx_q[0].empty() && b.rx_q[1].empty()); k++) b.step();
        const uint64_t in_cycles = b.clk.cycle - t0;
        b.run(3000);
        std::printf("[card] RX burst: %u frames on port 1 alone taken in %llu cycles, then %u + %u in %llu cycles\n",
                    NA, (unsigned long long)a_cycles, N0, N1, (unsigned long long)in_cycles);
        chk.expect(b.rx_q[0].empty() && b.rx_q[1].empty(), "every burst frame taken by the card");
        if (args.inject) b.ref.hw.rq[5].stats.bytes++;
        const spec::port_stats *m1[2] = {&b.ref.hw.ports[0].stats, &b.ref.hw.ports[1].stats};
        auto pdelta = [&](unsigned p, unsigned k) {
            uint64_t a, z;
            std::memcpy(&a, reinterpret_cast<const uint8_t *>(m1[p]) + 8 * pw[k], 8);
            std::memcpy(&z, reinterpret_cast<const uint8_t *>(&m0[p]) + 8 * pw[k], 8);
            return a - z;
        };
        chk.expect(pdelta(0, 0) == N0 && pdelta(0, 3) > 0 && pdelta(1, 4) == N1 + NA / 2 && pdelta(1, 5) == NA / 2,
                   "model: port 0 delivered %llu, %llu bad checksums; port 1 filtered %llu, no buffer %llu",
                   (unsigned long long)pdelta(0, 0), (unsigned long long)pdelta(0, 3), (unsigned long long)pdelta(1, 4),
                   (unsigned long long)pdelta(1, 5));
        unsigned bad = 0;
        for (unsigned p = 0; p < 2; p++)
            for (unsigned k = 0; k < NPW; k++) {
                uint64_t d = b.fw_stat(p, pw[k]) - p0[p][k];
                bad += !chk.expect(d == pdelta(p, k), "burst: port %u counter %u +%llu, model +%llu", p, pw[k],
                                   (unsigned long long)d, (unsigned long long)pdelta(p, k));
            }
        unsigned used = 0;
        for (unsigned j = 0; j < NQ; j++) {
            uint64_t a[8], z[8];
            std::memcpy(a, &b.ref.hw.rq[4 + j].stats, sizeof(a));
            std::memcpy(z, &mq0[j], sizeof(z));
            used += a[0] != z[0];
            for (unsigned k = 0; k < 3; k++) {
                uint64_t d = b.fw_rq_stat(4 + j, qw[k]) - q0[j][k];
                bad += !chk.expect(d == a[qw[k]] - z[qw[k]], "burst: RQ %u queue_stats word %u +%llu, model +%llu",
                                   4 + j, qw[k], (unsigned long long)d, (unsigned long long)(a[qw[k]] - z[qw[k]]));
            }
        }
        chk.expect(used == NQ, "coverage: RSS used all %u RQs (%u)", NQ, used);
        {
            const uint64_t d = b.fw_rq_stat(8, 2) - d80, md = b.ref.hw.rq[8].stats.drops - md80;
            bad += !chk.expect(d == md && md == NA / 2, "burst: RQ 8 drops +%llu, model +%llu", (unsigned long long)d,
                               (unsigned long long)md);
        }
        std::printf("[card] RX burst: %u port counters x 2 ports, 3 counters x %u RQs and RQ 8's drops as the model's "
                    "(%u differ)\n", NPW, NQ, bad);
        b.mem_same("after the RX burst (buffers, CQEs)");
    }
    // 13. Zero-length gather entries are skipped, as the model reads nothing
    //     for them: WQEs {0, 70} and {60, 0} send the model's frames and
    //     CQEs; then a TSO WQE (IPv4/TCP, 300 bytes of payload, mss 128)
    //     sends the model's three segments. One doorbell for the three.
    {
        std::vector<uint8_t> fa = tb::rbytes(rng, 70), fb = tb::rbytes(rng, 60), fl = b.tcp4_frame(354);
        fa[0] &= 0xfe;
        fb[0] &= 0xfe;
        constexpr uint64_t TXL = 0x52000;
        b.both(TXB0, fa.data(), fa.size());
        b.both(TXB1, fb.data(), fb.size());
        b.both(TXL, fl.data(), fl.size());
        const size_t before = b.tx_frames[0].size(), mbefore = b.ref.frames[0].size();
        b.tx_wqe(sq.pi, 0, {{TXB1 + 7, 0}, {TXB0, 70}});
        b.tx_wqe(uint16_t(sq.pi + 1), 0, {{TXB1, 60}, {TXB0 + 3, 0}});
        b.tx_wqe(uint16_t(sq.pi + 2), spec::wqe_eth::FLAGS_LSO | spec::wqe_eth::FLAGS_L3_CSUM |
                                          spec::wqe_eth::FLAGS_L4_CSUM, {{TXL, 354}});
        b.tx_lso(uint16_t(sq.pi + 2), 128, 54);
        const uint64_t db0 = b.fw_sq_stat(1, 6);
        sq.pi = uint16_t(sq.pi + 3);
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
        for (int k = 0; k < 3; k++) b.ref.tx.process_wqe(1);
        for (int i = 0; i < 5000 && b.tx_frames[0].size() < before + 5; i++) b.step();
        b.run(300);
        if (chk.expect(b.tx_frames[0].size() == before + 5 && b.ref.frames[0].size() == mbefore + 5,
                       "five frames from WQEs with zero-length entries and a TSO WQE (%zu, model %zu)",
                       b.tx_frames[0].size() - before, b.ref.frames[0].size() - mbefore)) {
            for (unsigned k = 0; k < 5; k++) {
                std::vector<uint8_t> exp = b.ref.frames[0][mbefore + k];
                if (args.inject && k == 1) exp[5] ^= 1;
                chk.expect(b.tx_frames[0][before + k] == exp, "frame %u as the model's (%zu vs %zu bytes)", k,
                           b.tx_frames[0][before + k].size(), exp.size());
            }
        }
        b.mem_same("after zero-length gather entries and TSO (CQEs)");
        chk.expect(b.fw_sq_stat(1, 6) - db0 == 1, "SQ 1 doorbells +1");
    }
    // 14. Queue counters (struct queue_stats in kite_stats): SQ 1's sends,
    //     its gather DMA error and its TSO WQE, RQs 4-7 of the burst, as the
    //     model counts them (the model is not rung: doorbells are the tb's).
    {
        auto words = [&](bool rq, unsigned n, const spec::queue_stats &m, const char *what) {
            uint64_t mw[8];
            std::memcpy(mw, &m, sizeof(mw));
            unsigned bad = 0;
            for (unsigned w = 0; w < 6; w++) {
                uint64_t got = rq ? b.fw_rq_stat(n, w) : b.fw_sq_stat(n, w);
                bad += !chk.expect(got == mw[w], "%s %u queue_stats word %u: %llu, model %llu", what, n, w,
                                   (unsigned long long)got, (unsigned long long)mw[w]);
            }
            return bad;
        };
        spec::queue_stats m1 = b.ref.hw.sq[1].stats;
        if (args.inject) m1.lso++;
        chk.expect(m1.packets >= 8 && m1.errors == 1 && m1.lso == 1 && m1.csum >= 1, "model: SQ 1 packets %llu "
                   "errors %llu lso %llu", (unsigned long long)m1.packets, (unsigned long long)m1.errors,
                   (unsigned long long)m1.lso);
        unsigned bad = words(false, 1, m1, "SQ");
        for (unsigned j = 4; j < 8; j++) {
            bad += words(true, j, b.ref.hw.rq[j].stats, "RQ");
            const uint64_t dbs = b.fw_rq_stat(j, 6);
            bad += !chk.expect(dbs == 1, "RQ %u doorbells %llu, rung once", j, (unsigned long long)dbs);
        }
        std::printf("[card] doorbells: SQ 0-3");
        for (unsigned j = 0; j < 4; j++) std::printf(" %llu", (unsigned long long)b.fw_sq_stat(j, 6));
        std::printf(", RQ 0-8");
        for (unsigned j = 0; j < 9; j++) std::printf(" %llu", (unsigned long long)b.fw_rq_stat(j, 6));
        std::printf("\n");
        std::printf("[card] queue counters: SQ 1 (%llu packets, %llu bytes) and RQs 4-7 as the model's (%u differ)\n",
                    (unsigned long long)m1.packets, (unsigned long long)m1.bytes, bad);
    }
    // 15. A flood of one MAC verdict does not starve another's counter: a
    //     runt on port 0 and a bad FCS on port 1 in every one of 70,000
    //     cycles (more than a 16-bit pending count holds) are all counted.
    {
        constexpr unsigned N = 70000;
        const uint64_t r0 = b.fw_stat(0, 5), f1 = b.fw_stat(1, 7);
        for (unsigned i = 0; i < N; i++) {
            b.m.mac_ev_i = 1u << 0 | 1u << 10;   // port 0 rx_runt, port 1 rx_bad_fcs
            b.step();
        }
        b.run(100);
        uint64_t dr = b.fw_stat(0, 5) - r0, df = b.fw_stat(1, 7) - f1;
        if (args.inject) dr++;
        chk.expect(dr == N && df == N, "MAC verdict flood: port 0 rx_runt +%llu, port 1 rx_bad_fcs +%llu, want %u each",
                   (unsigned long long)dr, (unsigned long long)df, N);
    }
    // 16. TSO super-frames whose headers tx_lso refuses (not IP: found by
    //     the segmenter after the gather): each completes ERROR LOC_LEN_ERR
    //     with syndrome TXE_LSO whether signaled or not, sends nothing and
    //     counts as a bad WQE (tx_bad_desc, the SQ's errors and drops, not its
    //     packets, bytes or csum); the WQE after them is sent.
    {
        constexpr uint64_t TXR = 0x74000;
        std::vector<uint8_t> fr = tb::rbytes(rng, 200), fg = tb::rbytes(rng, 80);
        fr[0] &= 0xfe;
        fg[0] &= 0xfe;
        fr[12] = 0x88; fr[13] = 0xb5;
        b.both(TXR, fr.data(), fr.size());
        b.both(TXR + 0x400, fg.data(), fg.size());
        const uint16_t i0 = sq.pi;
        const uint8_t lso = spec::wqe_eth::FLAGS_LSO | spec::wqe_eth::FLAGS_L3_CSUM | spec::wqe_eth::FLAGS_L4_CSUM;
        b.tx_wqe(i0, lso, {{TXR, 200}});
        b.tx_wqe(uint16_t(i0 + 1), lso, {{TXR, 200}});
        b.tx_wqe(uint16_t(i0 + 2), 0, {{TXR + 0x400, 80}});
        b.tx_lso(i0, 64, 54);
        b.tx_lso(uint16_t(i0 + 1), 64, 54);
        const uint8_t unsig = 0;
        b.both(SQB + 64 * ((i0 + 1) & 15u) + 1, &unsig, 1);
        const spec::port_stats m0 = b.ref.hw.ports[0].stats;
        const uint64_t bad0 = b.fw_stat(0, 14), lso0 = b.fw_stat(0, 28);
        const size_t before = b.tx_frames[0].size(), mbefore = b.ref.frames[0].size();
        sq.pi = uint16_t(i0 + 3);
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
        for (int k = 0; k < 3; k++) b.ref.tx.process_wqe(1);
        for (int i = 0; i < 5000 && b.tx_frames[0].size() < before + 1; i++) b.step();
        b.run(500);
        const spec::port_stats &m1 = b.ref.hw.ports[0].stats;
        chk.expect(m1.tx_bad_desc - m0.tx_bad_desc == 2 && b.ref.frames[0].size() == mbefore + 1,
                   "model: two bad WQEs (%llu), one frame", (unsigned long long)(m1.tx_bad_desc - m0.tx_bad_desc));
        if (chk.expect(b.tx_frames[0].size() == before + 1, "one frame after two refused TSO headers (%zu)",
                       b.tx_frames[0].size() - before) && b.ref.frames[0].size() == mbefore + 1)
            chk.expect(b.tx_frames[0][before] == b.ref.frames[0][mbefore], "the frame after them as the model's");
        if (args.inject) b.ref.host.mem[CQ1 + 32 * ((i0 + 1) % 64) + 24] ^= 1;
        b.mem_same("after refused TSO headers (TXE_LSO CQEs)");
        const uint64_t dbad = b.fw_stat(0, 14) - bad0, dlso = b.fw_stat(0, 28) - lso0;
        chk.expect(dbad == m1.tx_bad_desc - m0.tx_bad_desc && dlso == m1.tx_lso - m0.tx_lso,
                   "port 0 tx_bad_desc +%llu, tx_lso +%llu, model +%llu +%llu", (unsigned long long)dbad,
                   (unsigned long long)dlso, (unsigned long long)(m1.tx_bad_desc - m0.tx_bad_desc),
                   (unsigned long long)(m1.tx_lso - m0.tx_lso));
        uint64_t mw[8];
        std::memcpy(mw, &b.ref.hw.sq[1].stats, sizeof(mw));
        for (unsigned w = 0; w < 6; w++) {
            const uint64_t got = b.fw_sq_stat(1, w);
            chk.expect(got == mw[w], "SQ 1 queue_stats word %u: %llu, model %llu", w, (unsigned long long)got,
                       (unsigned long long)mw[w]);
        }
    }
    // 17. CQEs leave in ring order when the queue manager completes a WQE
    //     while the SQ's previous one still waits for its verdict: port 0's
    //     MAC is stalled while eight 9,000-byte frames fill kite_txp and
    //     the segmenter's buffer, so A (signaled, 14 + 4,000 bytes, its
    //     second entry answered 2,000 cycles late, after later reads) waits
    //     in the gather's ring; B has num_ds 0 (the queue manager's error
    //     CQE); C follows. The CQ must hold A's SUCCESS, B's error and C's
    //     SUCCESS, as the model writes them.
    {
        constexpr uint64_t TXA = 0x76000, TXJ = 0x78000;
        std::vector<uint8_t> fa = tb::rbytes(rng, 4014), fc = tb::rbytes(rng, 64), fj = tb::rbytes(rng, 9000);
        fa[0] &= 0xfe;
        fc[0] &= 0xfe;
        fj[0] &= 0xfe;
        fa[12] = 0x88; fa[13] = 0xb5;
        fj[12] = 0x88; fj[13] = 0xb5;
        b.both(TXA, fa.data(), fa.size());
        b.both(TXA + 0x1800, fc.data(), fc.size());
        b.both(TXJ, fj.data(), fj.size());
        constexpr unsigned NJ = 8;
        const uint16_t i0 = sq.pi;
        for (unsigned k = 0; k < NJ; k++) {
            b.tx_wqe(uint16_t(i0 + k), 0, {{TXJ, 9000}});
            const uint8_t unsig = 0;
            b.both(SQB + 64 * ((i0 + k) & 15u) + 1, &unsig, 1);
        }
        const uint16_t ia = uint16_t(i0 + NJ);
        b.tx_wqe(ia, 0, {{TXA, 14}, {TXA + 14, 4000}});
        b.tx_wqe(uint16_t(ia + 1), 0, {{TXA + 0x1800, 64}});
        b.tx_wqe(uint16_t(ia + 2), 0, {{TXA + 0x1800, 64}});
        const uint8_t nods = 0;
        b.both(SQB + 64 * ((ia + 1) & 15u) + 2, &nods, 1);
        b.slow_lo = TXA + 14;
        b.slow_hi = TXA + 4014;
        b.slow_cycles = 2000;
        const size_t before = b.tx_frames[0].size(), mbefore = b.ref.frames[0].size();
        b.m.tx_tready_i = 2;
        sq.pi = uint16_t(ia + 3);
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
        for (unsigned k = 0; k < NJ + 3; k++) b.ref.tx.process_wqe(1);
        b.run(6000);
        b.m.tx_tready_i = 3;
        for (int i = 0; i < 10000 && b.tx_frames[0].size() < before + NJ + 2; i++) b.step();
        b.run(500);
        b.slow_hi = 0;
        if (chk.expect(b.tx_frames[0].size() == before + NJ + 2 && b.ref.frames[0].size() == mbefore + NJ + 2,
                       "%u frames around a malformed WQE (%zu, model %zu)", NJ + 2, b.tx_frames[0].size() - before,
                       b.ref.frames[0].size() - mbefore))
            for (unsigned k = 0; k < NJ + 2; k++) {
                const auto &x = b.tx_frames[0][before + k], &y = b.ref.frames[0][mbefore + k];
                size_t d = 0, nd = 0;
                for (size_t q = 0; q < std::min(x.size(), y.size()); q++)
                    if (x[q] != y[q] && !nd++) d = q;
                chk.expect(x == y, "frame %u as the model's (%zu vs %zu bytes, %zu differ from byte %zu)", k,
                           x.size(), y.size(), nd, d);
            }
        b.mem_same("CQEs in ring order around the queue manager's error CQE");
    }
    // 18. DMA on behalf of a VF: VF 2 (port 1, its table entry from 3b) owns
    //     SQ 3 and CQ 9; a WQE rung through VF 2's doorbell page is fetched,
    //     gathered and completed by TLPs whose requester function is 2, as
    //     every DMA call of the model carries function 2, and the frame
    //     leaves on port 1.
    {
        constexpr uint64_t SQB3 = 0x36000, CQ9 = 0x3a000, TXV = 0x3c000;
        b.fw_cq_ctx(9, CQ9, 2);
        ctx::wq_ctx &v = b.ref.hw.sq[3];
        v.valid = 1; v.kind = ctx::WQ_ETH; v.log_size = 4; v.log_stride = 6; v.cqn = 9; v.base = SQB3;
        v.port = 1; v.fn = 2; v.db_page = 0;
        v.state = spec::wq_state::RST;
        b.fw_wq(false, 3, v);
        v.state = spec::wq_state::RDY;
        b.fw_wq(false, 3, v);
        std::vector<uint8_t> fv = tb::rbytes(rng, 100);
        fv[0] &= 0xfe;
        fv[12] = 0x88; fv[13] = 0xb5;
        b.both(TXV, fv.data(), fv.size());
        uint8_t w[64]{};
        w[0] = uint8_t(spec::wqe_opcode::ETH_TX);
        w[1] = spec::wqe_ctrl::FLAGS_SIGNALED;
        w[2] = 2;
        const uint64_t a = TXV;
        const uint32_t l = 100;
        std::memcpy(&w[32], &a, 8);
        std::memcpy(&w[40], &l, 4);
        b.both(SQB3, w, 64);
        b.run(50);
        b.rq_fns.clear();
        b.ref.fns.clear();
        const size_t before = b.tx_frames[1].size(), mbefore = b.ref.frames[1].size();
        // Function 34 has no VF behind it; its low FN_W bits are VF 2's, and
        // its doorbell must not ring VF 2's queue.
        b.mmio(2, uint32_t(spec::db::SQ), true, (3u << 16) | 1u, 0xf, 34);
        b.run(400);
        chk.expect(b.tx_frames[1].size() == before && b.rq_fns.empty(),
                   "function 34's doorbell is dropped (%zu frames, %zu requester functions)",
                   b.tx_frames[1].size() - before, b.rq_fns.size());
        b.mmio(2, uint32_t(spec::db::SQ), true, (3u << 16) | 1u, 0xf, 2);
        v.pi = 1;
        b.ref.tx.process_wqe(3);
        for (int i = 0; i < 3000 && b.tx_frames[1].size() == before; i++) b.step();
        b.run(300);
        if (chk.expect(b.tx_frames[1].size() == before + 1 && b.ref.frames[1].size() == mbefore + 1,
                       "VF 2's frame on port 1 (%zu, model %zu)", b.tx_frames[1].size() - before,
                       b.ref.frames[1].size() - mbefore))
            chk.expect(b.tx_frames[1][before] == b.ref.frames[1][mbefore], "VF 2's frame as the model's");
        b.mem_same("VF 2's CQE in CQ 9");
        std::string got;
        for (unsigned f : b.rq_fns) got += " " + std::to_string(f);
        if (args.inject) b.rq_fns.insert(0);
        chk.expect(b.rq_fns == std::set<unsigned>{2} && b.ref.fns == std::set<unsigned>{2},
                   "requester functions of VF 2's TLPs:%s (the model's DMA calls: %zu functions)", got.c_str(),
                   b.ref.fns.size());
    }
    // 19. PAUSE (kite_card_rxhold): port 0 holds frames for RQ 10, whose
    //     ring is empty, and port 1 keeps delivering to RQ 11 meanwhile. A
    //     doorbell of port 1's RQ does not release port 0; buffers posted two
    //     at a time release two frames each, in order, none lost or twice;
    //     PAUSE turned off drops a held frame as the model's rx_no_buffer.
    //     The model's port refuses the frames behind the one it holds (the
    //     platform keeps them, as QEMU would); the RTL's were already sent
    //     into the card and are sent again from kite_card_rxhold.
    {
        constexpr uint64_t CQA = 0xe0000, CQB = 0xe1000, RQA = 0xe2000, RQBB = 0xe2800, BUFA = 0xe4000,
                           BUFB = 0xe8000;
        const uint8_t own1[6] = {0x02, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e};  // port 1's filter (section 11)
        b.fw_cq_ctx(10, CQA);
        b.fw_cq_ctx(11, CQB);
        for (unsigned k = 0; k < 2; k++) {
            ctx::wq_ctx &w = b.ref.hw.rq[10 + k];
            w = ctx::wq_ctx{};
            w.valid = 1; w.is_rq = 1; w.kind = ctx::WQ_ETH; w.log_size = 4; w.log_stride = 4; w.cqn = 10 + k;
            w.base = k ? RQBB : RQA;
            w.port = uint8_t(k);
            w.state = spec::wq_state::RST;
            b.fw_wq(true, 10 + k, w);
            w.state = spec::wq_state::RDY;
            b.fw_wq(true, 10 + k, w);
        }
        ctx::rss_ctx ra{}, rb{};
        ra.valid = 1; ra.table_size = 1; ra.table[0] = 10;
        rb = ra;
        rb.table[0] = 11;
        b.rss_ctx(0, ra);
        b.rss_ctx(1, rb);
        auto post = [&](unsigned k, unsigned n) {
            ctx::wq_ctx &w = b.ref.hw.rq[10 + k];
            uint16_t pi = w.pi;
            for (unsigned i = 0; i < n; i++, pi++) {
                uint8_t e[16]{};
                const uint64_t a = (k ? BUFB : BUFA) + 0x800 * (pi % 8);
                const uint32_t l = 2048;
                std::memcpy(e, &a, 8);
                std::memcpy(e + 8, &l, 4);
                b.both(w.base + 16 * (pi & 15), e, 16);
            }
            b.mmio(2, uint32_t(spec::db::RQ), true, ((10u + k) << 16) | pi);
            b.ref.q.rq_doorbell(10 + k, pi);
        };
        auto pause = [&](bool on) {
            b.ref.hw.port[0].pause = on ? spec::port_info::PAUSE_RX : 0;
            b.ref.hw.rx_recheck(0);
            b.m.fw_port_we_i = 1;
            b.m.fw_port_sel_i = 0;
            b.m.fw_port_pause_i = on;
            b.step();
        };
        std::deque<std::vector<uint8_t>> plat;   // port 0's frames the model's port refused
        auto model_rx0 = [&]() {
            if (b.ref.hw.ports[0].rx_retry) b.ref.rx.retry(0);
            while (!plat.empty() && b.ref.rx.receive(0, plat.front().data(), plat.front().size()) == 1)
                plat.pop_front();
        };
        auto mk = [&](unsigned port, unsigned sz) {
            std::vector<uint8_t> f = tb::rbytes(rng, sz);
            if (port == 1) std::memcpy(f.data(), own1, 6);
            f[0] &= 0xfe;
            f[12] = 0x88; f[13] = 0xb5;
            const uint32_t c = kite::crc32(f.data(), f.size());
            for (int i = 0; i < 4; i++) f.push_back(uint8_t(c >> (8 * i)));
            return f;
        };
        auto cqes = [&](uint64_t cq) {
            unsigned n = 0;
            while (n < 64 && (b.host.mem[cq + 32 * n + 31] & 1)) n++;
            return n;
        };
        auto wait_cqes = [&](uint64_t cq, unsigned n) {
            for (int i = 0; i < 20000 && cqes(cq) < n; i++) b.step();
            b.run(500);
        };
        auto xoff0 = [&]() { return bool(b.m.rx_xoff_o & 1); };
        const uint64_t pz0 = b.fw_stat(0, 16), nb0 = b.fw_stat(0, 4);
        const spec::port_stats ms = b.ref.hw.ports[0].stats;
        auto d_pause = [&]() { return b.fw_stat(0, 16) - pz0; };
        auto m_pause = [&]() { return b.ref.hw.ports[0].stats.rx_pause - ms.rx_pause; };
        pause(true);
        post(1, 4);
        b.run(200);
        std::vector<std::vector<uint8_t>> fa, fb;
        static const unsigned sz[4] = {60, 200, 127, 1000};
        for (unsigned i = 0; i < 4; i++) {
            fa.push_back(mk(0, sz[i]));
            fb.push_back(mk(1, sz[3 - i]));
            b.rx_q[0].push_back(fa[i]);
            b.rx_q[1].push_back(fb[i]);
            plat.push_back(fa[i]);
            model_rx0();
            b.ref.rx.receive(1, fb[i].data(), fb[i].size());
        }
        wait_cqes(CQB, 4);
        chk.expect(cqes(CQB) == 4 && cqes(CQA) == 0 && xoff0() && !(b.m.rx_xoff_o & 2),
                   "PAUSE: port 1 delivers 4 frames (%u) while port 0 holds (CQEs %u, xoff %u)", cqes(CQB),
                   cqes(CQA), unsigned(b.m.rx_xoff_o));
        chk.expect(d_pause() == 1 && m_pause() == 1 && plat.size() == 3, "PAUSE: rx_pause +%llu, model +%llu",
                   (unsigned long long)d_pause(), (unsigned long long)m_pause());
        b.mem_same("PAUSE: port 1's frames, nothing of port 0's");
        post(1, 1);   // port 1's RQ: port 0 stays paused
        b.run(500);
        chk.expect(xoff0() && d_pause() == 1 && cqes(CQA) == 0, "PAUSE: port 1's doorbell leaves port 0 paused");
        post(0, 2);
        model_rx0();
        wait_cqes(CQA, 2);
        chk.expect(cqes(CQA) == 2 && xoff0() && d_pause() == 2 && m_pause() == 2 && plat.size() == 1,
                   "PAUSE: two buffers take two frames (%u CQEs), the third held (rx_pause +%llu, model +%llu)",
                   cqes(CQA), (unsigned long long)d_pause(), (unsigned long long)m_pause());
        post(0, 2);
        model_rx0();
        wait_cqes(CQA, 4);
        chk.expect(cqes(CQA) == 4 && !xoff0() && d_pause() == 2 && plat.empty(),
                   "PAUSE: all four delivered (%u CQEs), port 0 resumed (xoff %u)", cqes(CQA), unsigned(xoff0()));
        bool same = true;
        for (unsigned i = 0; i < 4; i++)
            same &= std::equal(fa[i].begin(), fa[i].end() - 4, b.host.mem.begin() + long(BUFA + 0x800 * i));
        if (args.inject) b.ref.host.mem[BUFA + 0x800 * 2 + 5] ^= 1;
        chk.expect(same, "PAUSE: port 0's frames in order in RQ 10's buffers");
        b.mem_same("PAUSE: port 0's frames after the buffers came");
        // A held frame with PAUSE turned off: the drop it would have been.
        const uint64_t rqd = b.fw_rq_stat(10, 2);
        const uint64_t mrqd = b.ref.hw.rq[10].stats.drops;
        std::vector<uint8_t> f5 = mk(0, 90);
        b.rx_q[0].push_back(f5);
        plat.push_back(f5);
        model_rx0();
        b.run(1000);
        chk.expect(xoff0() && d_pause() == 3 && m_pause() == 3, "PAUSE: a fifth frame held");
        pause(false);
        model_rx0();
        b.run(1000);
        const uint64_t dnb = b.fw_stat(0, 4) - nb0, mnb = b.ref.hw.ports[0].stats.rx_no_buffer - ms.rx_no_buffer;
        const uint64_t drqd = b.fw_rq_stat(10, 2) - rqd, mrq = b.ref.hw.rq[10].stats.drops - mrqd;
        chk.expect(!xoff0() && dnb == 1 && mnb == 1 && drqd == 1 && mrq == 1 && cqes(CQA) == 4,
                   "PAUSE off: the held frame dropped (rx_no_buffer +%llu, model +%llu; RQ drops +%llu, model +%llu)",
                   (unsigned long long)dnb, (unsigned long long)mnb, (unsigned long long)drqd,
                   (unsigned long long)mrq);
        std::printf("[card] PAUSE: port 1 delivered 4 frames while port 0 held; port 0's 4 frames after 2 + 2 "
                    "buffers, in order; rx_pause +%llu (model +%llu)\n", (unsigned long long)d_pause(),
                    (unsigned long long)m_pause());

        // 20. Queue destroys with DMA of the queue outstanding: the
        //     firmware's WQ port reads busy (fw_wq_busy_o) until it is over,
        //     so DESTROY_RQ/SQ complete only then (operation.rst).
        //  a. RQ 11 (port 1): a 1,000-byte frame waits for its data write
        //     (the PCIe core's RQ interface not ready) when the RQ is
        //     destroyed; the port stays busy until the write has gone out.
        {
            post(1, 1);
            b.run(300);
            const uint64_t buf = BUFB + 0x800 * (b.ref.hw.rq[11].ci % 8);   // the WQE the frame takes
            std::vector<uint8_t> f = mk(1, 1000);
            b.m.rq_tready_i = 0;
            b.rx_q[1].push_back(f);
            b.ref.rx.receive(1, f.data(), f.size());
            b.run(600);
            ctx::wq_ctx &w = b.ref.hw.rq[11];
            w = ctx::wq_ctx{};
            b.fw_wq(true, 11, w, false);
            unsigned held = 0;
            for (; held < 2000 && b.m.fw_wq_busy_o; held++) b.step();
            b.m.rq_tready_i = 1;
            unsigned after = 0;
            for (; after < 10000 && b.m.fw_wq_busy_o; after++) b.step();
            const bool there = std::equal(f.begin(), f.end() - 4, b.host.mem.begin() + long(buf));
            chk.expect(held == 2000 && !b.m.fw_wq_busy_o && there,
                       "RQ destroy: busy while the frame's write waits (%u of 2000 cycles), then %u more; frame in "
                       "its buffer when it ends: %d", held, after, int(there));
            b.run(500);
            b.mem_same("RQ destroyed with a frame being written");
            std::printf("[card] RQ destroy with a frame's write held: busy %u + %u cycles, the frame written "
                        "before it ended\n", held, after);
        }
        //  b. SQ 1 (port 0): a WQE's 300-byte buffer is answered 3,000
        //     cycles late when the SQ is reset; the port stays busy until
        //     the answer is in.
        {
            constexpr uint64_t TXS = 0x7c000;
            std::vector<uint8_t> fs = tb::rbytes(rng, 300);
            fs[0] &= 0xfe;
            fs[12] = 0x88; fs[13] = 0xb5;
            b.both(TXS, fs.data(), fs.size());
            b.tx_wqe(sq.pi, 0, {{TXS, 300}});
            b.slow_lo = TXS;
            b.slow_hi = TXS + 300;
            b.slow_cycles = 3000;
            const size_t before = b.tx_frames[0].size();
            sq.pi = uint16_t(sq.pi + 1);
            b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
            // The model completes the WQE at once; the card finishes it
            // after the reset has begun, so it sends the frame without a
            // CQE (kite_card_txg, "SQ reset").
            b.model_uncompleted(1, [&] { b.ref.tx.process_wqe(1); });
            for (int i = 0; i < 2000 && b.slow_q.empty(); i++) b.step();
            const bool parked = !b.slow_q.empty();
            const uint64_t due = parked ? b.slow_q.front().first : 0;
            sq.state = spec::wq_state::RST;
            const unsigned drained = b.fw_wq(false, 1, sq);
            chk.expect(parked && drained > 0 && b.clk.cycle >= due && b.slow_q.empty(),
                       "SQ reset: drained %u cycles, until the gather's read was answered (cycle %llu, due %llu)",
                       drained, (unsigned long long)b.clk.cycle, (unsigned long long)due);
            for (int i = 0; i < 3000 && b.tx_frames[0].size() == before; i++) b.step();
            b.run(500);
            b.slow_hi = 0;
            if (chk.expect(b.tx_frames[0].size() == before + 1, "the WQE's frame sent after the reset"))
                chk.expect(b.tx_frames[0][before] == b.ref.frames[0].back(), "the frame as the model's");
            b.mem_same("SQ reset with a gather read outstanding (no CQE)");
            std::printf("[card] SQ reset with a gather read 3000 cycles late: busy %u cycles, until it was "
                        "answered; the frame sent, no CQE\n", drained);
        }
        //  c. SQ 1 destroyed while its frames wait for port 0's MAC (held,
        //     as by the partner's PAUSE): the destroy does not wait for the
        //     MAC, the frames still leave once it runs again, and the WQEs
        //     the segmenter had not taken by then write no CQE and do not
        //     count. A new SQ 1 then completes into the same CQ where the
        //     model does.
        {
            constexpr uint64_t TXP = 0xf0000;
            // 15 frames of 7,000 bytes (windows 1,000 bytes apart in one
            // buffer): more than the segmenter's and kite_txp's buffers
            // hold (1,024 beats), less than those and the gather's ring.
            constexpr unsigned N = 15, LEN = 7000, STEP = 1000;
            sq.state = spec::wq_state::RDY;
            sq.pi = sq.ci = 0;
            b.fw_wq(false, 1, sq);
            const std::vector<uint8_t> fb = tb::rbytes(rng, STEP * (N - 1) + LEN);
            b.both(TXP, fb.data(), fb.size());
            for (unsigned k = 0; k < N; k++) b.tx_wqe(uint16_t(k), 0, {{TXP + STEP * k, LEN}});
            const CqWatch cw(b.host.mem, CQ1);
            auto rtl_cqes = [&] { return cw.written(); };
            const uint64_t pk0 = b.fw_sq_stat(1, 0);
            const size_t before = b.tx_frames[0].size();
            b.m.tx_tready_i = 2;   // port 0's MAC takes nothing
            sq.pi = N;
            b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
            b.run(8000);
            const unsigned c0 = rtl_cqes();
            for (unsigned k = 0; k < N; k++) {
                if (k < c0) b.ref.tx.process_wqe(1);
                else b.model_uncompleted(1, [&] { b.ref.tx.process_wqe(1); });
            }
            chk.expect(c0 > 0 && c0 < N, "with the MAC held, %u of %u WQEs completed (some wait in the gather)",
                       c0, N);
            sq = ctx::wq_ctx{};
            const unsigned drained = b.fw_wq(false, 1, sq);
            chk.expect(drained < 100 && b.tx_frames[0].size() == before,
                       "SQ destroy with the MAC held: done in %u cycles, no frame sent yet", drained);
            b.run(2000);
            b.m.tx_tready_i = 3;
            const unsigned same = b.sent_as_model(0, before, N, 20000);
            const unsigned c1 = rtl_cqes();
            const uint64_t pk = b.fw_sq_stat(1, 0) - pk0;
            chk.expect(b.tx_frames[0].size() == before + N && same == N,
                       "all %u frames sent once the MAC runs (%zu, %u as the model's)", N,
                       b.tx_frames[0].size() - before, same);
            chk.expect(c1 == c0 && pk == c0, "after the destroy no CQE (%u, %u before) and no SQ count (%llu)",
                       c1, c0, (unsigned long long)pk);
            b.mem_same("SQ destroyed with frames at a held MAC");
            // A new SQ 1 (ring index 0 again) completes after them.
            b.eth_sq(1, SQB, 4, 6, 1, 0);
            b.tx_wqe(0, 0, {{TXP, 200}});
            sq.pi = 1;
            b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
            b.ref.tx.process_wqe(1);
            for (int i = 0; i < 3000 && b.tx_frames[0].size() < before + N + 1; i++) b.step();
            b.run(500);
            chk.expect(b.tx_frames[0].size() == before + N + 1 && rtl_cqes() == c0 + 1,
                       "the new SQ 1's WQE 0 sent and completed");
            b.mem_same("a new SQ 1 completes into CQ 1 after the destroyed one's");
            std::printf("[card] SQ destroy with %u frames at a held MAC: done in %u cycles; %u WQEs completed "
                        "before it, the other %u sent after it without a CQE\n", N, drained, c0, N - c0);
        }
    }
    // 21. A held MAC does not hold the card's DMA reads: port 0's MAC takes
    //     nothing while SQ 1 posts 15 frames of 9,000 bytes (two gather
    //     entries each), more than the
    //     segmenter, kite_txp and the gather's ring hold (2,048 beats), so
    //     port 0's gather waits for room with WQEs left. Every DMA reader
    //     shares kite_pcie_rd's in-order response stream; the gather reads
    //     only what its ring has room for, so a firmware DMA read is still
    //     answered meanwhile (with responses held, it waits for the MAC).
    {
        constexpr uint64_t TXP = 0xf0000, RA = 0xec123;
        constexpr unsigned N = 15, LEN = 9000, STEP = 1000;
        const std::vector<uint8_t> fb = tb::rbytes(rng, STEP * (N - 1) + LEN);
        b.both(TXP, fb.data(), fb.size());
        // Two entries each (4,000 + 5,000 bytes), so reads wait for room
        // within a WQE too, and the ring's pointers wrap under them.
        b.two_entry_frames(sq.pi, N, TXP, STEP, LEN);
        const std::vector<uint8_t> rd = tb::rbytes(rng, 700);
        b.both(RA, rd.data(), rd.size());
        const size_t before = b.tx_frames[0].size();
        b.m.tx_tready_i = 2;
        sq.pi = uint16_t(sq.pi + N);
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
        for (unsigned k = 0; k < N; k++) b.ref.tx.process_wqe(1);
        b.run(12000);   // port 0's gather fills its ring and waits
        b.fw_rd_bytes.clear();
        b.fw_rd_last = false;
        b.m.fw_rd_valid_i = 1;
        b.m.fw_rd_addr_i = RA;
        b.m.fw_rd_len_i = 700;
        unsigned t = 0;
        for (; t < 3000 && !b.fw_rd_last; t++) b.step();
        const size_t held = b.tx_frames[0].size() - before;
        chk.expect(b.fw_rd_last && !b.fw_rd_err && b.fw_rd_bytes == rd && held == 0,
                   "with port 0's MAC held and its gather waiting, a firmware DMA read answered in %u cycles "
                   "(%zu bytes)", t, b.fw_rd_bytes.size());
        // Nor does it hold port 1's TX: VF 2's SQ 3 (port 1, section 18)
        // sends a frame meanwhile. Port 0's WQEs wait in their port's
        // descriptor queue and fetch tags, not in the fetch's output.
        unsigned t1 = 0;
        {
            constexpr uint64_t SQB3 = 0x36000, TXV = 0x3c000;
            std::vector<uint8_t> fv = tb::rbytes(rng, 300);
            fv[0] &= 0xfe;
            fv[12] = 0x88; fv[13] = 0xb5;
            b.both(TXV, fv.data(), fv.size());
            ctx::wq_ctx &v = b.ref.hw.sq[3];
            b.tx_wqe(v.pi, 0, {{TXV, 300}}, SQB3);
            const size_t before1 = b.tx_frames[1].size();
            v.pi = uint16_t(v.pi + 1);
            b.mmio(2, uint32_t(spec::db::SQ), true, (3u << 16) | v.pi, 0xf, 2);
            b.ref.tx.process_wqe(3);
            for (; t1 < 3000 && b.tx_frames[1].size() == before1; t1++) b.step();
            if (chk.expect(b.tx_frames[1].size() == before1 + 1 && b.tx_frames[0].size() == before,
                           "with port 0's MAC held, port 1's frame sent in %u cycles (%zu on port 1, %zu on port 0)",
                           t1, b.tx_frames[1].size() - before1, b.tx_frames[0].size() - before))
                chk.expect(b.tx_frames[1][before1] == b.ref.frames[1].back(), "port 1's frame as the model's");
            // A malformed WQE on SQ 1 (an unknown opcode: the fetch's own
            // error CQE, which must follow the 15 WQEs' CQEs) does not hold
            // port 1 either: its CQE waits in port 0's descriptor queue.
            b.tx_wqe(sq.pi, 0, {{TXV, 300}});
            const uint8_t bad_op = 0x7f;
            b.both(SQB + 64 * (sq.pi & 15u), &bad_op, 1);
            sq.pi = uint16_t(sq.pi + 1);
            b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
            b.ref.tx.process_wqe(1);
            b.run(200);
            b.tx_wqe(v.pi, 0, {{TXV, 300}}, SQB3);
            v.pi = uint16_t(v.pi + 1);
            b.mmio(2, uint32_t(spec::db::SQ), true, (3u << 16) | v.pi, 0xf, 2);
            b.ref.tx.process_wqe(3);
            unsigned t2 = 0;
            for (; t2 < 3000 && b.tx_frames[1].size() == before1 + 1; t2++) b.step();
            chk.expect(b.tx_frames[1].size() == before1 + 2 && b.tx_frames[0].size() == before,
                       "with a malformed WQE behind port 0's held frames, port 1's next frame sent in %u cycles", t2);
            t1 = std::max(t1, t2);
        }
        b.m.tx_tready_i = 3;
        unsigned same = b.sent_as_model(0, before, N, 40000);
        chk.expect(b.tx_frames[0].size() == before + N && same == N,
                   "port 0's %u frames sent once its MAC runs (%zu, %u as the model's)", N,
                   b.tx_frames[0].size() - before, same);
        // Then 15 more with the MAC running, 8,960 + 40 bytes each: 2,115
        // beats, so the ring's pointers wrap (every 2,048 beats) inside a
        // first entry, under the room check of the second.
        const size_t before2 = b.tx_frames[0].size();
        for (unsigned k = 0; k < N; k++)
            b.tx_wqe(uint16_t(sq.pi + k), 0, {{TXP + STEP * k, 8960}, {TXP + STEP * k + 8960, 40}});
        sq.pi = uint16_t(sq.pi + N);
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
        for (unsigned k = 0; k < N; k++) b.ref.tx.process_wqe(1);
        same = b.sent_as_model(0, before2, N, 40000);
        chk.expect(b.tx_frames[0].size() == before2 + N && same == N,
                   "15 more two-entry frames sent (%zu, %u as the model's)", b.tx_frames[0].size() - before2, same);
        b.mem_same("a held MAC and the DMA reads");
        std::printf("[card] port 0's MAC held with %u x %u-byte frames posted: a firmware DMA read answered in "
                    "%u cycles, port 1's frame sent in %u\n", N, LEN, t, t1);
    }
    // 22. A TSO WQE of MAX_TSO_SIZE (65,536 bytes) in one gather entry,
    //     IPv4/TCP with mss 8,000: the model's nine segments and CQE. (A DMA
    //     read request carries 16 bits of length; the gather reads such an
    //     entry as two halves.)
    {
        constexpr uint64_t TXJ = 0xf0000;
        constexpr unsigned LEN = 65536, MSS = 8000;
        const std::vector<uint8_t> fj = b.tcp4_frame(LEN);
        b.both(TXJ, fj.data(), fj.size());
        b.tx_wqe(sq.pi, spec::wqe_eth::FLAGS_LSO | spec::wqe_eth::FLAGS_L3_CSUM | spec::wqe_eth::FLAGS_L4_CSUM,
                 {{TXJ, LEN}});
        b.tx_lso(sq.pi, MSS, 54);
        const size_t before = b.tx_frames[0].size(), mbefore = b.ref.frames[0].size();
        sq.pi = uint16_t(sq.pi + 1);
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
        b.ref.tx.process_wqe(1);
        const unsigned nseg = unsigned(b.ref.frames[0].size() - mbefore);
        const unsigned same = b.sent_as_model(0, before, nseg, 20000);
        chk.expect(nseg == (LEN - 54 + MSS - 1) / MSS && b.tx_frames[0].size() == before + nseg && same == nseg,
                   "a 65,536-byte single-entry TSO WQE: %zu segments, %u as the model's %u",
                   b.tx_frames[0].size() - before, same, nseg);
        b.mem_same("a 65,536-byte gather entry");
        std::printf("[card] TSO WQE of 65,536 bytes in one entry: %u segments as the model's\n", same);
    }
    // 23. SQ 1 destroyed while port 0's MAC is held with WQEs still in the
    //     port's descriptor queue (kite_card_txq): 15 TSO WQEs of 32,768
    //     bytes, more than the gather's ring and the segmenter hold, so the
    //     last ones wait unread. Once DESTROY_SQ has returned no buffer of
    //     the SQ is read again: the queued WQEs are dropped unread and write
    //     no CQE; the ones read before it are sent as the model's once the
    //     MAC runs.
    {
        constexpr uint64_t TXT = 0xf0000;
        constexpr unsigned N = 15, LEN = 32768, MSS = 8000;
        const std::vector<uint8_t> ft = b.tcp4_frame(LEN);
        b.both(TXT, ft.data(), ft.size());
        const uint16_t pi0 = sq.pi;
        for (unsigned k = 0; k < N; k++) {
            const uint16_t i = uint16_t(pi0 + k);
            b.tx_wqe(i, spec::wqe_eth::FLAGS_LSO | spec::wqe_eth::FLAGS_L3_CSUM | spec::wqe_eth::FLAGS_L4_CSUM,
                     {{TXT, LEN}});
            b.tx_lso(i, MSS, 54);
        }
        const CqWatch cw(b.host.mem, b.ref.hw.cq[1].base);
        auto rtl_cqes = [&] { return cw.written(); };
        const size_t before = b.tx_frames[0].size(), mbefore = b.ref.frames[0].size();
        b.m.tx_tready_i = 2;
        sq.pi = uint16_t(pi0 + N);
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
        b.run(12000);
        const unsigned c0 = rtl_cqes();
        b.watch_lo = TXT;
        b.watch_hi = TXT + LEN;
        b.watch_reads = 0;
        const size_t mframes = b.ref.frames[0].size();
        std::vector<size_t> seg_end;   // the model's frames after each WQE
        for (unsigned k = 0; k < N; k++) {
            if (k < c0) b.ref.tx.process_wqe(1);
            else b.model_uncompleted(1, [&] { b.ref.tx.process_wqe(1); });
            seg_end.push_back(b.ref.frames[0].size() - mframes);
        }
        sq = ctx::wq_ctx{};
        const unsigned drained = b.fw_wq(false, 1, sq);
        const unsigned reads0 = b.watch_reads;
        b.run(2000);
        b.m.tx_tready_i = 3;
        b.run(15000);   // what was read leaves in about 3,000 cycles
        const size_t sent = b.tx_frames[0].size() - before;
        const auto wqes = unsigned(std::find(seg_end.begin(), seg_end.end(), sent) - seg_end.begin()) + 1;
        unsigned same = 0;
        for (size_t k = 0; k < sent && mbefore + k < b.ref.frames[0].size(); k++)
            same += b.tx_frames[0][before + k] == b.ref.frames[0][mbefore + k];
        chk.expect(c0 > 0 && c0 < N && drained < 100, "with the MAC held, %u of %u WQEs completed; destroy in %u "
                   "cycles", c0, N, drained);
        chk.expect(b.watch_reads == reads0, "no read of the SQ's buffer after DESTROY_SQ (%u)",
                   b.watch_reads - reads0);
        chk.expect(wqes <= N && wqes + 4 <= N && same == sent,
                   "%zu frames sent, %u WQEs' segments as the model's (%u same), %u dropped unread", sent,
                   wqes, same, N - wqes);
        chk.expect(rtl_cqes() == c0, "no CQE after the destroy (%u, %u before)", rtl_cqes(), c0);
        b.ref.frames[0].resize(mbefore + sent);
        b.mem_same("SQ destroyed with WQEs in its port's descriptor queue");
        std::printf("[card] SQ destroy with %u TSO WQEs at a held MAC: done in %u cycles; %u sent (%zu segments), "
                    "%u dropped unread from the port's queue\n", N, drained, wqes, sent, N - wqes);
    }
    // 24. A flush waiting for a held MAC holds nothing else. Port 0's MAC
    //     takes nothing: a new SQ 1 posts 15 frames of 9,000 bytes (the
    //     first few are read and complete; the rest wait), and SQ 2 (port 0,
    //     CQ 12, its 32-slot ring beyond host memory) posts 24 WQEs. WQE 0's
    //     read fails: the fetch writes its ERROR CQE through port 0's queue,
    //     the WQEs it has in flight behind it complete as flushed the same
    //     way, and the queue manager flushes the rest, whose CQEs must follow
    //     them: that flush parks until port 0 has retired what it holds. Meanwhile VF 2's SQ 3
    //     (port 1) has a gather DMA error: its ERROR and flush CQEs and its
    //     WQ_ERROR event land at once, the firmware resets it and its next
    //     frame leaves, all with port 0 still held. Once port 0 runs, SQ 1's
    //     and SQ 2's frames, CQ 12 and the events are the model's. (Both
    //     SQs complete into CQ 12: CQ 1 is full by now.)
    {
        constexpr uint64_t CQC = 0x6c000, TXP = 0xf0000, SQB2 = MEM, SQB3 = 0x36000, TXV = 0x3c000;
        constexpr unsigned N = 15, LEN = 9000, STEP = 1000;
        const std::vector<uint8_t> fb = tb::rbytes(rng, STEP * (N - 1) + LEN);
        b.both(TXP, fb.data(), fb.size());
        b.eth_sq(1, SQB, 4, 6, 12, 0);
        b.two_entry_frames(0, N, TXP, STEP, LEN);
        ctx::wq_ctx &s2 = b.eth_sq(2, SQB2, 5, 6, 12, 0);
        b.fw_cq_ctx(12, CQC);
        const CqWatch cw1(b.host.mem, CQC), cw9(b.host.mem, b.ref.hw.cq[9].base);
        const unsigned e0 = b.sq_err_n;
        const size_t before = b.tx_frames[0].size(), before1 = b.tx_frames[1].size();
        b.m.tx_tready_i = 2;
        sq.pi = N;
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
        b.run(12000);   // port 0's gather fills its ring and waits
        s2.pi = 24;
        b.mmio(2, uint32_t(spec::db::SQ), true, (2u << 16) | s2.pi);
        b.run(1000);
        // The WQEs port 0's gather has read complete (their frames wait at the MAC).
        const unsigned c0 = cw1.written();
        for (unsigned k = 0; k < c0; k++) b.ref.tx.process_wqe(1);
        const bool held0 = c0 > 0 && c0 < N && b.sq_err_n == e0 && b.tx_frames[0].size() == before;

        // SQ 3 on port 1: WQE a's second entry lies beyond host memory, b behind it.
        ctx::wq_ctx &v = b.ref.hw.sq[3];
        std::vector<uint8_t> fv = tb::rbytes(rng, 300);
        fv[0] &= 0xfe;
        fv[12] = 0x88; fv[13] = 0xb5;
        b.both(TXV, fv.data(), fv.size());
        b.tx_wqe(v.pi, 0, {{TXV, 100}, {MEM - 16, 64}}, SQB3);
        b.tx_wqe(uint16_t(v.pi + 1), 0, {{TXV, 300}}, SQB3);
        v.pi = uint16_t(v.pi + 2);
        b.mmio(2, uint32_t(spec::db::SQ), true, (3u << 16) | v.pi, 0xf, 2);
        b.ref.tx.process_wqe(3);
        unsigned t3 = 0;
        for (; t3 < 3000 && b.sq_err_n == e0; t3++) b.step();
        b.run(300);
        chk.expect(held0 && b.sq_err_n == e0 + 1 && b.sq_err_qn == 3 && b.ref.hw.sq[3].state == spec::wq_state::ERR,
                   "with port 0 held and SQ 2's flush waiting for it, SQ 3's DMA error reported in %u cycles (%u "
                   "events, last SQ %u; before it, %u of SQ 1's WQEs complete and nothing of SQ 2: %d)", t3,
                   b.sq_err_n - e0, b.sq_err_qn, c0, int(held0));
        chk.expect(cw9.written() == 2 && cw1.written() == c0, "SQ 3's ERROR and flush CQEs written (%u), no more "
                   "in CQ 12 (%u)", cw9.written(), cw1.written() - c0);
        b.mem_same("SQ 3's DMA error with port 0 held (CQ 9, the events)");
        // The firmware resets SQ 3 (RST, then RDY) and it sends again.
        v.state = spec::wq_state::RST;
        const unsigned d_rst = b.fw_wq(false, 3, v);
        v.state = spec::wq_state::RDY;
        v.pi = v.ci = 0;
        b.fw_wq(false, 3, v);
        b.tx_wqe(0, 0, {{TXV, 300}}, SQB3);
        v.pi = 1;
        b.mmio(2, uint32_t(spec::db::SQ), true, (3u << 16) | v.pi, 0xf, 2);
        b.ref.tx.process_wqe(3);
        unsigned t4 = 0;
        for (; t4 < 3000 && b.tx_frames[1].size() == before1; t4++) b.step();
        b.run(300);
        if (chk.expect(b.tx_frames[1].size() == before1 + 1 && b.tx_frames[0].size() == before && d_rst < 100,
                       "SQ 3 reset in %u cycles and its frame sent in %u with port 0 held (%zu on port 0)", d_rst,
                       t4, b.tx_frames[0].size() - before))
            chk.expect(b.tx_frames[1].back() == b.ref.frames[1].back(), "SQ 3's frame as the model's");
        chk.expect(cw1.written() == c0 && b.sq_err_n == e0 + 1, "port 0 held: no more of SQ 1 or 2 in CQ 12 (%u), "
                   "SQ 2's flush not ended (%u events)", cw1.written() - c0, b.sq_err_n - e0);

        // Port 0 runs: SQ 1's 15 frames and CQEs, then SQ 2's ERROR and 23 WR_FLUSH_ERR.
        b.m.tx_tready_i = 3;
        for (unsigned k = c0; k < N; k++) b.ref.tx.process_wqe(1);
        b.ref.tx.process_wqe(2);
        const unsigned same = b.sent_as_model(0, before, N, 40000);
        b.run(2000);
        chk.expect(b.tx_frames[0].size() == before + N && same == N && b.ref.hw.sq[2].state ==
                   spec::wq_state::ERR && b.ref.hw.sq[2].ci == 24,
                   "port 0 runs: %zu frames, %u as the model's (%u)", b.tx_frames[0].size() - before, same, N);
        chk.expect(cw1.written() == N + 24 && b.sq_err_n == e0 + 2 && b.sq_err_qn == 2,
                   "CQ 12: %u CQEs (%u expected); SQ 2's flush ended (%u events, last SQ %u)", cw1.written(), N + 24,
                   b.sq_err_n - e0, b.sq_err_qn);
        if (args.inject) b.ref.host.mem[CQC + 32 * (N + 23) + 16] ^= 1;   // the last flush CQE's index
        b.mem_same("SQ 2's flush after port 0's WQEs (CQ 12 and the events as the model's)");
        std::printf("[card] port 0 held with SQ 2's flush parked behind it: SQ 3's DMA error on port 1 reported "
                    "in %u cycles, SQ 3 reset in %u and its frame sent in %u; CQ 12 (%u CQEs) as the model's once "
                    "port 0 runs\n", t3, d_rst, t4, cw1.written());
    }
    // 25. An SQ whose WQEs wait in fetch tags for a held port is destroyed
    //     at once. Port 0's MAC takes nothing: SQ 1 posts 15 more frames of
    //     9,000 bytes (the gather's ring fills), then SQ 4 (port 0, CQ 12, a
    //     512-byte stride) posts 8 WQEs of 30 gather entries: port 0's
    //     descriptor queue takes two, and the rest wait in fetch tags for
    //     room. DESTROY_SQ of SQ 4 gives those back to the ring (the queue
    //     manager's rewind) and returns at once, and the two queued ones are
    //     dropped unread. Then SQ 1 is destroyed while port 0's gather waits
    //     for room in the middle of one of its WQEs (its second entry):
    //     the rest of that WQE is not read, and the destroy returns at once.
    //     Once port 0 runs, the frames SQ 1 had read leave as the model's
    //     (no CQE after the destroy), SQ 4 has sent nothing and written no
    //     CQE, and no byte of either SQ's buffers is read after its destroy.
    {
        constexpr uint64_t TXP = 0xf0000, SQB4 = 0x6e000, TX4 = 0x5c000;
        constexpr unsigned N = 15, LEN = 9000, STEP = 1000, N4 = 8, NS = 30, SL = 300;
        const std::vector<uint8_t> fb = tb::rbytes(rng, STEP * (N - 1) + LEN);
        b.both(TXP, fb.data(), fb.size());
        const std::vector<uint8_t> f4 = tb::rbytes(rng, NS * SL);
        b.both(TX4, f4.data(), f4.size());
        b.two_entry_frames(sq.pi, N, TXP, STEP, LEN);
        ctx::wq_ctx &s4 = b.eth_sq(4, SQB4, 3, 9, 12, 0);
        for (unsigned k = 0; k < N4; k++) {
            uint8_t w[512]{};
            w[0] = uint8_t(spec::wqe_opcode::ETH_TX);
            w[1] = spec::wqe_ctrl::FLAGS_SIGNALED;
            w[2] = uint8_t(1 + NS);
            const uint16_t idx = uint16_t(k);
            std::memcpy(&w[4], &idx, 2);
            for (unsigned j = 0; j < NS; j++) {
                const uint64_t a = TX4 + SL * j;
                const uint32_t l = SL;
                std::memcpy(&w[32 + 16 * j], &a, 8);
                std::memcpy(&w[40 + 16 * j], &l, 4);
            }
            b.both(SQB4 + 512 * k, w, sizeof w);
        }
        const CqWatch cw(b.host.mem, b.ref.hw.cq[12].base);
        const size_t before = b.tx_frames[0].size(), mbefore = b.ref.frames[0].size();
        b.m.tx_tready_i = 2;
        sq.pi = uint16_t(sq.pi + N);
        b.mmio(2, uint32_t(spec::db::SQ), true, (1u << 16) | sq.pi);
        b.run(12000);   // port 0's gather fills its ring and waits
        const unsigned c0 = cw.written();
        for (unsigned k = 0; k < c0; k++) b.ref.tx.process_wqe(1);
        b.watch_lo = TX4;
        b.watch_hi = TX4 + NS * SL;
        b.watch_reads = 0;
        s4.pi = N4;
        b.mmio(2, uint32_t(spec::db::SQ), true, (4u << 16) | s4.pi);
        b.run(2000);
        s4 = ctx::wq_ctx{};
        const unsigned drained = b.fw_wq(false, 4, s4);
        const unsigned reads4 = b.watch_reads;
        b.run(2000);
        const bool held = b.tx_frames[0].size() == before && cw.written() == c0;
        // SQ 1, its gather waiting for room inside a WQE.
        b.watch_lo = TXP;
        b.watch_hi = TXP + fb.size();
        b.watch_reads = 0;
        // The model sends them all; the card what it had read (no CQE).
        for (unsigned k = c0; k < N; k++) b.model_uncompleted(12, [&] { b.ref.tx.process_wqe(1); });
        sq = ctx::wq_ctx{};
        const unsigned drained1 = b.fw_wq(false, 1, sq);
        b.run(2000);
        const unsigned reads1 = b.watch_reads;
        b.m.tx_tready_i = 3;
        b.run(30000);
        const size_t sent = b.tx_frames[0].size() - before;
        unsigned same = 0;
        for (size_t k = 0; k < sent && mbefore + k < b.ref.frames[0].size(); k++)
            same += b.tx_frames[0][before + k] == b.ref.frames[0][mbefore + k];
        chk.expect(c0 > 0 && c0 < N && held && drained < 100 && reads4 == 0,
                   "SQ 4 destroyed with port 0 held and its WQEs in the fetch: done in %u cycles, %u reads of its "
                   "buffers (%u of SQ 1's %u WQEs complete, nothing more while held: %d)", drained, reads4, c0, N,
                   int(held));
        chk.expect(drained1 < 100 && reads1 == 0 && sent >= c0 && sent < N && same == sent,
                   "SQ 1 destroyed with its gather inside a WQE: done in %u cycles, %u reads after it; %zu frames "
                   "sent once port 0 runs, %u as the model's", drained1, reads1, sent, same);
        chk.expect(cw.written() == c0, "CQ 12: %u CQEs, the %u written before the destroys", cw.written(), c0);
        b.ref.frames[0].resize(mbefore + sent);
        b.mem_same("SQ 4 and SQ 1 destroyed with port 0 held (no CQE after)");
        std::printf("[card] SQ destroys with port 0 held: SQ 4 (WQEs in fetch tags) in %u cycles, SQ 1 (its "
                    "gather inside a WQE) in %u, no read of their buffers after; %zu of SQ 1's %u frames sent as the "
                    "model's\n", drained, drained1, sent, N);
    }
    std::printf("[card] TX frame %zu bytes on port 0, RX frame %zu bytes delivered, %llu cycles\n",
                b.tx_frames[0].empty() ? size_t(0) : b.tx_frames[0][0].size(), rf.size(),
                (unsigned long long)b.clk.cycle);
    return chk.finish();
}
