// kite_rx_dma testbench. The reference is the model's own RX pipeline:
// kite::model::RxPipeline::receive (fpga/model/rxp/rxp.cpp, compiled in with
// the QueueEngine, Mac and Roce it needs) on a Hw with the same RQ/CQ
// contexts, RSS table and host memory image as the RTL's. Each frame goes to
// both; the RTL gets the per-frame record kite_rxp and kite_rss would give
// (kite::parse_frame, kite::l4_csum_check, the csum_syndrome sum,
// kite::rss_hash and the model's table lookup), and a host model that serves
// its DMA reads and writes (address-aligned words as kite_pcie) with random
// latency, gaps and back-pressure, and at most TAGS read tags in flight as
// kite_pcie_rd (a request takes one tag per MRRS-aligned piece; the random
// rounds renegotiate the MRRS, 128..4096, and every WQE read must be one
// piece of it). Compared:
//   * host memory (receive buffers, WQEs) byte for byte after every round;
//   * every CQE (all 31 bytes below the owner byte) in order, against the
//     entries the model wrote into its CQ rings (flush CQEs of an RQ that
//     went to ERR are the queue manager's, not this block's: counted apart);
//   * the per-frame event against the model's counter deltas (port
//     rx_packets / rx_bytes / rx_no_buffer / rx_oversize / rx_malformed /
//     rx_bad_csum / rx_csum_complete, RQ packets / bytes / drops / errors /
//     csum) and RQ state (ERR) and consumer index.
// Rounds: post random WQEs (1..32 scatter entries, unaligned addresses and
// lengths, zero-length terminators, bad lkeys, faulting addresses), ring the
// doorbells, send a batch of random frames (tb_rxp's generator: tags, IPv4
// options, IPv6 extension headers, TCP/UDP/RoCE, breakage; VLAN frames of
// zeros after the tag, whose CHECKSUM_COMPLETE is 0 only if the FCS is left
// out), each with its FCS as the MAC passes it, to RQs with VLAN_STRIP
// and/or RX_FCS, drain, compare;
// RQs that went to ERR are restarted (RST, RDY). In rounds of their own
// many rings lie in the faulting region (several failed reads answered
// before a frame takes the first failed WQE), and the writes cannot fail
// with wr_wait_i 0 (the card's posted writes): the outcomes stay the model's.
// Then directed rounds: a line taken from another RQ in the cycle the
// prefetch reads for it (evict_race), protection errors in a row on one RQ
// (prot_err_run), and frames that find their ring empty
// dispatched behind a write that fails (spec_behind_wr_err), then with the
// RQ reset before they retire (rst_behind_wr_err), or behind a frame being
// written when a context write puts the RQ in ERR (ctx_err_behind_write).
// Then throughput, with and without wr_wait_i.
#include <algorithm>
#include <deque>
#include <map>
#include <tuple>
#include <vector>

#include "Vkite_rx_dma.h"
#include "kite_ref.hpp"
#include "frames.hpp"
#include "tb.hpp"

#include "../../model/queue/queue.cpp"
#include "../../model/mac/mac.cpp"
#include "../../model/roce/roce.cpp"
#include "../../model/rss/rss.cpp"
#include "../../model/rxp/rxp.cpp"

namespace {

using Frame = std::vector<uint8_t>;
using namespace kite::model;
using kite::spec::create_wq_in;
namespace ctx = kite::ctx;

constexpr size_t MEM = 0x400000;
constexpr uint64_t FAULT = 0x300000;         // DMA at or above fails
constexpr uint64_t BUF_LO = 0x100000, BUF_HI = 0x2ff000;
// RQs 1..12 in the random rounds (0 never, 7 not ready; more RQs than the
// RTL's 8 WQE cache lines), 1..8 in the bench.
constexpr unsigned NRQ = 13;
constexpr unsigned NRQ_RAND = 13;
constexpr unsigned NCQ_USED = 2;             // CQs 1, 2
constexpr unsigned CQ_LOG = 12;
// kite_pcie_rd: 32 tags, a request split at MRRS boundaries (the MRRS the
// host set, at most 512, the card's).
constexpr unsigned TAGS = 32, MRRS = 512;

unsigned tags_of(uint64_t a, unsigned len, unsigned mrrs) {
    return len ? unsigned(((a + len - 1) / mrrs) - (a / mrrs) + 1) : 1;
}

using tb::fix_l4_csum;
using tb::make_frame;
using tb::put16;

struct Host {
    std::vector<uint8_t> mem = std::vector<uint8_t>(MEM);
    bool ok(uint64_t a, size_t n) const { return a < FAULT && a + n <= FAULT; }
};

// The reference.
struct Model {
    Hw hw;
    QueueEngine q{hw};
    Mac mac{hw, q};
    Roce roce{hw, q, mac};
    RxPipeline rx{hw, q, mac, roce};
    Host host;
    uint64_t now = 0;
    Model() {
        hw.ops.opaque = this;
        hw.ops.now_ns = [](void *o) { return static_cast<Model *>(o)->now; };
        hw.ops.dma_read = [](void *o, kite_fn_t, uint64_t a, void *b, size_t n) {
            Host &h = static_cast<Model *>(o)->host;
            if (!h.ok(a, n)) return -1;
            std::memcpy(b, &h.mem[a], n);
            return 0;
        };
        hw.ops.dma_write = [](void *o, kite_fn_t, uint64_t a, const void *b, size_t n) {
            Host &h = static_cast<Model *>(o)->host;
            if (!h.ok(a, n)) return -1;
            std::memcpy(&h.mem[a], b, n);
            return 0;
        };
        hw.ops.msix = [](void *, kite_fn_t, uint16_t) {};
        hw.ports[0].link_up = true;
        hw.port[0].mtu = 9000;
        hw.filter[ctx::filter_index(0, 0)].rx_mode = kite::spec::rx_mode_in::FLAGS_PROMISC;
        for (unsigned c = 1; c <= NCQ_USED; c++) {
            ctx::cq_ctx &cq = hw.cq[c];
            cq.valid = 1;
            cq.log_size = CQ_LOG;
            cq.base = uint64_t(c - 1) << 17;
            cq.fn = 0;
            cq.eqn = 0;
        }
    }
};

struct Cqe {
    uint16_t cqn;
    std::array<uint8_t, 31> b;
};

struct Ev {
    unsigned kind, qn, len;
    bool csum_ok, bad_csum;
};

const char *kind_name(unsigned k) {
    static const char *n[] = {"OK",       "NO_BUF",  "NO_BUF_Q", "MALFORMED", "OVERSIZE",
                              "RD_ERR",   "PROT_ERR", "WR_ERR",  "FILTERED",  "FLOW_DROP"};
    return k < 10 ? n[k] : "?";
}

struct RdJob { uint64_t addr; unsigned len; uint64_t at; unsigned tags; uint64_t seq; uint32_t rqs; };
struct WrJob { uint64_t addr; unsigned len; unsigned words, got; };

struct Bench {
    Vkite_rx_dma m;
    tb::Clock<Vkite_rx_dma> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    Model ref;
    Host rtl;                                  // the RTL's host memory
    bool inject = false;
    bool posted = false;   // wr_wait_i 0, and no buffer in the faulting region (writes cannot fail)
    bool all_bad_keys = false;  // post(): every WQE with a bad lkey (prot_err_run)
    double p_gap = 0.2, p_ready = 0.8;
    // The random rounds' WQE read latency. From 1: an answer can start the
    // cycle after its request is taken (kite_rx_dma registers the head
    // request's entry from the queue's write).
    static constexpr unsigned RD_LAT_LO = 1, RD_LAT_HI = 40;
    unsigned rd_lat_lo = RD_LAT_LO, rd_lat_hi = RD_LAT_HI;
    unsigned tag_limit = TAGS, tags_used = 0;
    unsigned mrrs_code = 2;                     // Max_Read_Request_Size: 128 << code bytes
    unsigned mrrs() const { return std::min(128u << mrrs_code, MRRS); }
    std::map<unsigned, long> reads_by_mrrs;
    long rd_reqs = 0, rd_bytes = 0;            // read requests, bytes
    unsigned wr_lat_lo = 1, wr_lat_hi = 8;     // last word to wr_done

    // RQ state mirrored by the test (model holds the truth).
    unsigned log_size[NRQ]{}, log_stride[NRQ]{};
    std::deque<Frame> tx;                      // frames to stream (with FCS)
    struct Meta { unsigned rqn; uint32_t hash; uint8_t htype; kite_ref::Rx rx; unsigned kind; bool pause; };
    std::deque<Meta> metas;
    std::deque<Ev> exp_ev;
    std::deque<Cqe> exp_cqe, got_cqe;
    uint32_t cq_rd[NCQ_USED + 1]{};
    long flush_cqes = 0, frames = 0, events = 0, cqes_checked = 0, stripped = 0;
    long fcs_kept = 0, fcs_kept_stripped = 0, zero_csum = 0;
    long kinds[10]{};
    // PAUSE: half the frames carry meta_pause_i (their port holds frames
    // for an empty ring): the outcomes stay the model's, and park_o pulses
    // exactly for those of them whose ring is empty (NO_BUF_Q).
    bool pause_mix = false;
    double p_empty = 0.03;                      // an RQ's ring emptied before a round
    // Read-error rounds: rings in the faulting region this often (else
    // 5 %), RQ 5's across its start (good WQEs, then failed ones) more often.
    double p_fault = 0.05, p_straddle = 0.3;
    long parks = 0, parks_exp = 0;
    // Steering drops (kite_rx_steer's verdict on the meta port), in rounds
    // of their own after the others (so the figures stay as they were).
    bool steer_drops = false;
    uint64_t cqe_hold_until = 0;                // no CQE taken before this cycle
    long spec_behind_err = 0;
    std::deque<RdJob> rd_jobs;
    std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> rd_beats;  // current response
    std::deque<std::pair<std::array<uint8_t, 64>, uint64_t>> rd_out;            // data, keep
    std::deque<bool> rd_out_last, rd_out_err;
    std::deque<WrJob> wr_jobs;
    std::deque<std::pair<uint64_t, bool>> wr_done_at;  // cycle, err
    bool wr_err_pending = false;
    uint16_t rqci[NRQ]{};
    bool rq_err_seen[NRQ]{};
    uint64_t words = 0;

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        m.s_valid_i = 0;
        m.meta_valid_i = 0;
        m.cfg_valid_i = 0;
        m.acc_valid_i = 0;
        m.rd_req_ready_i = 0;
        m.rd_rsp_valid_i = 0;
        m.wr_req_ready_i = 0;
        m.wr_data_ready_i = 0;
        m.wr_done_i = 0;
        m.cqe_ready_i = 0;
        m.wr_wait_i = 1;
        m.rqci_ready_i = 0;
        clk.reset();
        // RSS context 0 of function 0, port 0.
        ctx::rss_ctx &rc = ref.hw.rss[ctx::rss_index(0, 0, 0)];
        rc.valid = 1;
        rc.hash_fields = uint8_t(tb::rnd(rng, 0, 0x3f));
        rc.table_size = 64;
        for (auto &k : rc.key) k = uint8_t(rng());
        for (unsigned i = 0; i < 64; i++) {
            unsigned x = tb::rnd(rng, 0, 20);
            // 600 and 513-524 are past the RQs; the latter's low 9 bits name
            // RQs that hold lines, which such a frame must not take.
            rc.table[i] = uint16_t(x < 16 ? 1 + x % 12 : (x < 18 ? 7 : (x < 19 ? 0 : (x < 20 ? 600 : 513 + i % 12))));
        }
        rc.table[0] = 1;  // malformed frames are not hashed: table[0]
        for (unsigned q = 1; q < NRQ_RAND; q++) configure(q, true);
        rq_err_seen[0] = true;  // marks the initial configuration done
    }

    void cfg(unsigned q, unsigned state) {
        const ctx::wq_ctx &w = ref.hw.rq[q];
        m.cfg_valid_i = 1;
        m.cfg_qn_i = q;
        m.cfg_en_i = w.valid;
        m.cfg_state_i = state;
        m.cfg_fn_i = w.fn;
        m.cfg_log_size_i = w.log_size;
        m.cfg_log_stride_i = w.log_stride;
        m.cfg_cqn_i = w.cqn;
        m.cfg_base_i = w.base;
        m.cfg_flags_i = w.flags;
        const long sent0 = meta_sent;
        step();
        m.cfg_valid_i = 0;
        cfg_same_cycle = meta_sent != sent0 && last_disp[q] == sent0;
        old_live = false;
        // Drain: what of the previous context may still reach the host --
        // the RQ's frames dispatched up to the write (their data writes;
        // they retire in order, one ev record each) and the WQE reads of
        // its old ring -- must be over when cfg_drain_o falls, and the
        // block must say so: the firmware completes the command then.
        long ev_need = last_disp[q] >= 0 ? last_disp[q] + 1 : 0;
        uint64_t rd_need = 0;
        for (const RdJob &j : rd_jobs)
            if (j.rqs == 1u << q) rd_need = j.seq + 1;
        ring_base[q] = w.base;
        ring_bytes[q] = w.valid ? uint64_t(1) << (w.log_size + w.log_stride) : 0;
        m.eval();
        chk.expect(m.cfg_drain_o, "RQ %u: cfg_drain_o set after its context write", q);
        const uint64_t t0 = clk.cycle;
        const bool frames_out = ev_need > events, reads_out = rd_need > rd_done;
        while (m.cfg_drain_o && clk.cycle - t0 < 200000) {
            step();
            m.eval();
        }
        chk.expect(!m.cfg_drain_o, "RQ %u: drain over within 200000 cycles", q);
        chk.expect(events >= ev_need, "RQ %u drained with %ld of its old frames not retired", q, ev_need - events);
        chk.expect(rd_done >= rd_need, "RQ %u drained with %llu reads of its old ring unanswered", q,
                   (unsigned long long)(rd_need - rd_done));
        drains_frames += frames_out;
        drains_reads += reads_out;
        drain_max = std::max(drain_max, clk.cycle - t0);
    }
    // Per RQ: the ring as the RTL was last told it (base, bytes; 0: none),
    // and the index (in dispatch order) of its last dispatched frame.
    uint64_t ring_base[NRQ]{}, ring_bytes[NRQ]{};
    std::vector<long> last_disp = std::vector<long>(NRQ, -1);
    uint64_t rd_seq = 0, rd_done = 0;          // WQE reads taken, answered
    long drains_frames = 0, drains_reads = 0;
    uint64_t drain_max = 0;
    bool cfg_same_cycle = false;                // the last write's cycle dispatched a frame of its RQ

    // The ring a fresh context replaces: a read taken in the cycle of the
    // context write (not after it) may still be of that ring.
    // The fresh context may put its ring at the same base with another
    // stride, so such a read is checked against the old ring's geometry.
    ctx::wq_ctx old_w{};
    bool old_live = false;
    void replacing(const ctx::wq_ctx &w) {
        old_live = w.valid;
        old_w = w;
    }
    long reads_at_cfg = 0;

    // RQ q's reference context as a plain Ethernet ring (flags 0, its CQ by
    // parity); configure() then tells the RTL.
    ctx::wq_ctx &eth_ring(unsigned q, unsigned log_size, unsigned log_stride, uint64_t base) {
        ctx::wq_ctx &w = ref.hw.rq[q];
        w = ctx::wq_ctx{};
        w.valid = 1;
        w.is_rq = 1;
        w.kind = ctx::WQ_ETH;
        w.log_size = uint8_t(log_size);
        w.log_stride = uint8_t(log_stride);
        w.cqn = 1 + q % NCQ_USED;
        w.base = base;
        return w;
    }

    // (Re)creates RQ q: RST then RDY (q 7 stays in RST: not ready, unless @all_ready).
    // (lsz, lstr: the ring's log2 size and stride when non-zero, else random.)
    void configure(unsigned q, bool fresh, bool all_ready = false, unsigned lsz = 0, unsigned lstr = 0) {
        ctx::wq_ctx &w = ref.hw.rq[q];
        if (fresh) {
            replacing(w);
            const unsigned rsz = tb::rnd(rng, 1, 6), rstr = tb::rnd(rng, 4, 9);
            eth_ring(q, lsz ? lsz : rsz, lstr ? lstr : rstr, 0x40000 + uint64_t(q) * 0x8000);
            w.flags = uint8_t((tb::chance(rng, 0.7) ? create_wq_in::FLAGS_VLAN_STRIP : 0) |
                              (q % 2 ? create_wq_in::FLAGS_RX_FCS : 0));  // odd RQs keep the FCS
            if (tb::chance(rng, p_fault) || (q == 6 && !rq_err_seen[0])) w.base = FAULT + uint64_t(q) * 0x8000;  // WQE reads fail
            // RQ 5's ring may straddle the fault: WQEs from 1 KiB on fail to read.
            if (q == 5 && tb::chance(rng, p_straddle)) w.base = FAULT - 0x400;
        }
        w.pi = w.ci = 0;
        w.state = kite::spec::wq_state::RST;
        cfg(q, w.state);
        if (q != 7 || all_ready) {
            w.state = kite::spec::wq_state::RDY;
            cfg(q, w.state);
        }
        rq_err_seen[q] = false;
        rqci[q] = 0;
    }

    void both_write(uint64_t a, const void *p, size_t n) {
        std::memcpy(&ref.host.mem[a], p, n);
        std::memcpy(&rtl.mem[a], p, n);
    }

    // Buffers of posted, not yet consumed WQEs.
    struct Live { unsigned q; uint16_t idx; uint64_t a; uint32_t l; };
    std::vector<Live> live;
    bool shared(unsigned q, uint64_t a, uint32_t l) const {
        for (const Live &x : live)
            if (x.q != q && a < x.a + x.l && x.a < a + l) return true;
        return false;
    }

    // Posts up to @max WQEs on RQ q and rings its doorbell.
    void post(unsigned q, unsigned max) {
        ctx::wq_ctx &w = ref.hw.rq[q];
        if (w.state != kite::spec::wq_state::RDY) return;
        unsigned size = 1u << w.log_size, stride = 1u << w.log_stride, slots = stride / 16;
        unsigned n = std::min<unsigned>(max, size - uint16_t(w.pi - w.ci));
        std::erase_if(live, [&](const Live &x) {
            const ctx::wq_ctx &r = ref.hw.rq[x.q];
            return uint16_t(x.idx - r.ci) >= uint16_t(r.pi - r.ci);
        });
        for (unsigned k = 0; k < n; k++) {
            std::vector<uint8_t> wqe = tb::rbytes(rng, stride);
            unsigned nsge = tb::chance(rng, 0.6) ? 1 : tb::rnd(rng, 1, slots);
            for (unsigned i = 0; i < slots; i++) {
                uint8_t *e = &wqe[16 * i];
                uint32_t len = 0, lkey = 0;
                uint64_t addr = 0;
                if (i < nsge) {
                    int d = int(tb::rnd(rng, 0, 9));
                    len = d < 1 ? tb::rnd(rng, 1, 64) : (d < 4 ? tb::rnd(rng, 64, 2048) : tb::rnd(rng, 1400, 9100));
                    if (nsge == 1 && tb::chance(rng, 0.9)) len = tb::rnd(rng, 1600, 9100);
                    if (nsge > 1 && i == 0 && tb::chance(rng, 0.25)) len = tb::rnd(rng, 1, 100);
                    if (nsge > 1 && i == nsge - 1 && tb::chance(rng, 0.7)) len = tb::rnd(rng, 1600, 9100);
                    // A host never posts one buffer on two RQs: frames of
                    // different RQs may be written in any order.
                    // (Shorter buffers when the region is crowded.)
                    for (int t = 0; t < 256; t++) {
                        if (t >= 64 && len > 64) len = tb::rnd(rng, 1, 64);
                        addr = tb::rnd(rng, uint32_t(BUF_LO), uint32_t(BUF_HI - len - 1));
                        if (tb::chance(rng, 0.3)) addr &= ~uint64_t(63);
                        if (!shared(q, addr, len)) break;
                    }
                    chk.expect(!shared(q, addr, len), "a buffer not posted on another RQ");
                    live.push_back({q, w.pi, addr, len});
                    if (all_bad_keys || tb::chance(rng, 0.02)) lkey = tb::rnd(rng, 1, 0xffffffff);
                    if (i == nsge - 1 && tb::chance(rng, 0.02) && !posted) addr = FAULT + tb::rnd(rng, 0, 0x1000);
                } else if (i > nsge) {
                    continue;  // beyond the terminator: junk
                }
                std::memcpy(e, &addr, 8);
                std::memcpy(e + 8, &len, 4);
                std::memcpy(e + 12, &lkey, 4);
            }
            uint64_t a = w.base + (uint64_t(w.pi & (size - 1)) << w.log_stride);
            both_write(a, wqe.data(), stride);
            w.pi++;
        }
        doorbell(q);
    }

    // RQ q's doorbell: its pi to the RTL's access port.
    void doorbell(unsigned q) {
        m.acc_valid_i = 1;
        m.acc_qn_i = q;
        m.acc_pi_i = ref.hw.rq[q].pi;
        step();
        m.acc_valid_i = 0;
    }

    // Runs frame f through the model and records what the RTL must do.
    // steer 1: the model's receive filter rejects it (rx_mode 0, another
    // permanent MAC); 2: a drop rule for its L4 protocol (taken only by
    // TCP/UDP frames, as flow_match).
    void offer(const Frame &f, int steer = 0) {
        ctx::filter_ctx &fc = ref.hw.filter[ctx::filter_index(0, 0)];
        ctx::flow_ctx &rule = ref.hw.flow[ctx::flow_index(0, 0, 0)];
        if (steer == 1) {
            fc.rx_mode = 0;
            std::memcpy(fc.perm_mac, f.data(), 6);
            fc.perm_mac[5] ^= 1;
        } else if (steer == 2) {
            const kite::parsed_frame p = kite::parse_frame(f.data(), f.size());
            rule = ctx::flow_ctx{};
            rule.valid = 1;
            rule.l4_proto = p.l4_proto;
            rule.match = p.l3 == kite::l3_type::IPV6 ? kite::spec::flow_rule_in::MATCH_IPV6 : 0;
            rule.action = 2;
        }
        PortState &ps = ref.hw.ports[0];
        kite::spec::port_stats before = ps.stats;
        const kite_ref::Rx rx = kite_ref::parse(f.data(), f.size(), f.size());
        const ctx::rss_ctx &rc = ref.hw.rss[ctx::rss_index(0, 0, 0)];
        kite::rss_result h;
        if (rc.hash_fields && !rx.p.malformed) h = kite::rss_hash(f.data(), rx.p, rc.hash_fields, rc.key);
        unsigned rqn = rc.table[rc.hash_fields ? h.hash % rc.table_size : 0];
        const bool pause = pause_mix && tb::chance(rng, 0.5);
        kite::spec::queue_stats qb{};
        bool was_err = false;
        if (rqn < NRQ) {
            qb = ref.hw.rq[rqn].stats;
            was_err = ref.hw.rq[rqn].state == kite::spec::wq_state::ERR;
        }
        Frame w = f;
        uint32_t fcs = kite::crc32(f.data(), f.size());
        for (int i = 0; i < 4; i++) w.push_back(uint8_t(fcs >> (8 * i)));
        int taken = ref.rx.receive(0, w.data(), w.size());
        chk.expect(taken == 1, "model took the frame");
        fc.rx_mode = kite::spec::rx_mode_in::FLAGS_PROMISC;
        rule.valid = 0;
        const kite::spec::port_stats &a = ps.stats;
        kite::spec::queue_stats qa{};
        bool now_err = false;
        if (rqn < NRQ) {
            qa = ref.hw.rq[rqn].stats;
            now_err = ref.hw.rq[rqn].state == kite::spec::wq_state::ERR;
        }
        Ev e{};
        e.qn = rqn;
        e.len = unsigned(f.size());
        if (a.rx_filtered != before.rx_filtered) e.kind = 8;
        else if (a.rx_flow_drop != before.rx_flow_drop) e.kind = 9;
        else if (a.rx_packets != before.rx_packets) e.kind = 0;
        else if (a.rx_malformed != before.rx_malformed) e.kind = 3;
        else if (a.rx_oversize != before.rx_oversize) e.kind = 4;
        else if (a.rx_no_buffer != before.rx_no_buffer)
            e.kind = qa.drops != qb.drops ? 2 : (qa.errors != qb.errors ? 5 : 1);
        else if (qa.errors != qb.errors) e.kind = (now_err && !was_err) ? 7 : 6;
        else { chk.expect(false, "model outcome not classified (frame %ld)", frames); e.kind = 9; }
        if (e.kind == 0 && (ref.hw.rq[rqn].flags & create_wq_in::FLAGS_RX_FCS)) {
            fcs_kept++;
            fcs_kept_stripped += (ref.hw.rq[rqn].flags & create_wq_in::FLAGS_VLAN_STRIP) && rx.p.num_vlans > 0;
        }
        if (e.kind == 0) {
            e.csum_ok = qa.csum != qb.csum;
            e.bad_csum = a.rx_bad_csum != before.rx_bad_csum;
            chk.expect(a.rx_bytes - before.rx_bytes == f.size() && qa.bytes - qb.bytes == f.size() &&
                           a.rx_csum_complete - before.rx_csum_complete == 1,
                       "model byte counters");
        }
        exp_ev.push_back(e);
        // New CQEs in the model's rings.
        for (unsigned c = 1; c <= NCQ_USED; c++) {
            ctx::cq_ctx &cq = ref.hw.cq[c];
            while (cq_rd[c] != cq.pi) {
                uint64_t at = cq.base + uint64_t(cq_rd[c] & ((1u << CQ_LOG) - 1)) * 32;
                Cqe x{uint16_t(c), {}};
                std::memcpy(x.b.data(), &ref.host.mem[at], 31);
                cq_rd[c]++;
                cq.ci = cq_rd[c];
                if (x.b[19] == kite::spec::cqe_status::WR_FLUSH_ERR) { flush_cqes++; continue; }
                exp_cqe.push_back(x);
            }
        }
        metas.push_back({rqn, h.hash, h.hash_type, rx, e.kind, pause});
        parks_exp += pause && e.kind == 2;
        tx.push_back(w);
        frames++;
        kinds[std::min(e.kind, 9u)]++;
    }

    // ---------------------------------------------------------- RTL side
    size_t tx_off = 0;
    void drive_inputs() {
        // Frame beats.
        if (!tx.empty() && !tb::chance(rng, p_gap)) {
            const Frame &f = tx.front();
            size_t n = std::min<size_t>(64, f.size() - tx_off);
            m.s_valid_i = 1;
            tb::put_bytes(m.s_data_i, f.data() + tx_off, n);
            m.s_keep_i = tb::keep_mask(n);
            m.s_last_i = tx_off + n == f.size();
        } else {
            m.s_valid_i = 0;
        }
        // Meta: offered as soon as its frame has been sent (the parse and RSS
        // latencies are the blocks' own business).
        if (!metas.empty() && sent_frames > meta_sent) {
            const Meta &x = metas.front();
            const kite::parsed_frame &p = x.rx.p;
            m.meta_valid_i = 1;
            m.meta_rqn_i = x.rqn;
            m.meta_hash_i = x.hash;
            m.meta_hash_type_i = x.htype;
            m.meta_num_vlans_i = p.num_vlans;
            m.meta_tci_i = p.outer_tci;
            m.meta_ipv4_i = p.l3 == kite::l3_type::IPV4;
            m.meta_ipv4_hdr_ok_i = p.ipv4_hdr_ok;
            m.meta_l4_ok_i = x.rx.l4_check == 1;
            m.meta_l4_bad_i = x.rx.l4_check == 0;
            m.meta_malformed_i = p.malformed;
            m.meta_csum_i = x.rx.csum_complete;
            m.meta_drop_i = x.kind == 8 || x.kind == 9;
            m.meta_drop_flow_i = x.kind == 9;
            m.meta_pause_i = x.pause;
        } else {
            m.meta_valid_i = 0;
        }
        // DMA read responses.
        // The request is a registered output: its tags are known here.
        // A request of more pieces than the pool holds (one WQE larger than
        // the MRRS) goes when the pool is free: kite_pcie_rd sends its TLPs
        // as tags come back.
        const unsigned rd_t = tags_of(m.rd_req_addr_o, m.rd_req_len_o, mrrs());
        m.rd_req_ready_i = tb::chance(rng, p_ready) && tags_used + rd_t <= std::max(tag_limit, rd_t);
        m.cfg_max_read_req_i = mrrs_code;
        if (!rd_out.empty() && !rd_jobs.empty() && clk.cycle >= rd_jobs.front().at &&
            !tb::chance(rng, p_gap)) {
            m.rd_rsp_valid_i = 1;
            tb::put_bytes(m.rd_rsp_data_i, rd_out.front().first.data(), 64);
            m.rd_rsp_keep_i = rd_out.front().second;
            m.rd_rsp_last_i = rd_out_last.front();
            m.rd_rsp_err_i = rd_out_err.front();
        } else {
            m.rd_rsp_valid_i = 0;
        }
        m.wr_req_ready_i = tb::chance(rng, p_ready);
        m.wr_data_ready_i = !wr_jobs.empty() && tb::chance(rng, p_ready);
        m.wr_done_i = 0;
        if (!wr_done_at.empty() && clk.cycle >= wr_done_at.front().first) {
            m.wr_done_i = 1;
            m.wr_done_id_i = 0;
            m.wr_done_err_i = wr_done_at.front().second;
        }
        m.wr_wait_i = !posted;
        const bool cqe_ready = tb::chance(rng, p_ready);
        m.cqe_ready_i = cqe_ready && clk.cycle >= cqe_hold_until;
        m.rqci_ready_i = tb::chance(rng, p_ready);
    }

    long sent_frames = 0, meta_sent = 0;
    uint64_t first_ev = 0, last_ev = 0;
    long ev_from = 0;                           // bench: events before first_ev

    void sample() {
        m.eval();
        if (m.s_valid_i && m.s_ready_o) {
            size_t n = std::min<size_t>(64, tx.front().size() - tx_off);
            tx_off += n;
            if (tx_off == tx.front().size()) { tx.pop_front(); tx_off = 0; sent_frames++; }
        }
        parks += m.park_o;
        if (m.meta_valid_i && m.meta_ready_o) {
            if (metas.front().rqn < NRQ) last_disp[metas.front().rqn] = meta_sent;
            metas.pop_front();
            meta_sent++;
        }
        if (m.rd_req_valid_o && m.rd_req_ready_i) {
            uint64_t a = m.rd_req_addr_o;
            unsigned len = m.rd_req_len_o;
            unsigned t = tags_of(a, len, mrrs());
            // The RQs whose ring, as the RTL was told, holds it (one,
            // unless rings overlay: the throughput runs).
            uint32_t rqs = 0;
            for (unsigned q = 1; q < NRQ; q++)
                if (ring_bytes[q] && a >= ring_base[q] && a < ring_base[q] + ring_bytes[q]) rqs |= 1u << q;
            rd_jobs.push_back({a, len, clk.cycle + tb::rnd(rng, rd_lat_lo, rd_lat_hi), t, rd_seq++, rqs});
            tags_used += t;
            rd_reqs++;
            rd_bytes += len;
            check_read(a, len);
            bool err = !rtl.ok(a, len);
            for (uint64_t b = a & ~63ull; b < a + len; b += 64) {
                std::array<uint8_t, 64> d{};
                uint64_t keep = 0;
                for (unsigned i = 0; i < 64; i++) {
                    uint64_t x = b + i;
                    if (x >= a && x < a + len) {
                        keep |= 1ull << i;
                        d[i] = x < MEM ? rtl.mem[x] : 0;
                    }
                }
                rd_out.push_back({d, keep});
                rd_out_last.push_back(b + 64 >= a + len);
                rd_out_err.push_back(err && b + 64 >= a + len);
            }
        }
        if (m.rd_rsp_valid_i && m.rd_rsp_ready_o) {
            bool last = rd_out_last.front();
            rd_out.pop_front(); rd_out_last.pop_front(); rd_out_err.pop_front();
            if (last) {
                tags_used -= rd_jobs.front().tags;
                rd_jobs.pop_front();
                rd_done++;
            }
        }
        if (m.wr_req_valid_o && m.wr_req_ready_i) {
            uint64_t a = m.wr_req_addr_o;
            unsigned len = m.wr_req_len_o;
            // An entry is written only for the bytes it takes: a frame that
            // fills one exactly ends there, with no empty request after it.
            chk.expect(len != 0, "write request of 0 bytes at 0x%llx", (unsigned long long)a);
            wr_jobs.push_back({a, len, unsigned(((a & 63) + len + 63) / 64), 0});
        }
        if (m.wr_data_valid_o && m.wr_data_ready_i) {
            WrJob &j = wr_jobs.front();
            uint64_t b = (j.addr & ~63ull) + 64ull * j.got;
            bool ok = rtl.ok(j.addr, j.len);
            for (unsigned i = 0; i < 64; i++) {
                uint64_t x = b + i;
                if (ok && x >= j.addr && x < j.addr + j.len) rtl.mem[x] = tb::get_byte(m.wr_data_o, i);
            }
            words++;
            if (++j.got == j.words) {
                wr_done_at.push_back({clk.cycle + tb::rnd(rng, wr_lat_lo, wr_lat_hi), !ok});
                wr_jobs.pop_front();
            }
        }
        if (m.wr_done_i) wr_done_at.pop_front();
        if (m.cqe_valid_o && m.cqe_ready_i) {
            Cqe x{uint16_t(m.cqe_cqn_o), {}};
            for (unsigned i = 0; i < 31; i++) x.b[i] = tb::get_byte(m.cqe_data_o, i);
            got_cqe.push_back(x);
            check_cqe();
        }
        if (m.rqci_valid_o && m.rqci_ready_i && m.rqci_qn_o < NRQ) rqci[m.rqci_qn_o] = uint16_t(m.rqci_ci_o);
        if (m.rqerr_valid_o && m.rqerr_qn_o < NRQ) rq_err_seen[m.rqerr_qn_o] = true;
        if (m.ev_valid_o) check_ev();
    }

    // A WQE read covers whole WQEs of one RQ's ring, not across its end nor
    // an MRRS boundary (one PCIe request).
    long multi_reads = 0, ring_end_reads = 0;
    unsigned bench_nrq = 0;                     // throughput(): RQs set up so far (rings overlay the others')
    bool whole_wqes(const ctx::wq_ctx &w, uint64_t a, unsigned len) const {
        uint64_t stride = uint64_t(1) << w.log_stride, end = w.base + (stride << w.log_size);
        return a >= w.base && len >= stride && len % stride == 0 && (a - w.base) % stride == 0 && a + len <= end &&
               (tags_of(a, len, mrrs()) == 1 || len == stride);
    }
    void check_read(uint64_t a, unsigned len) {
        unsigned q = 0;
        for (unsigned i = 1; i < (bench_nrq ? bench_nrq + 1 : NRQ); i++) {
            const ctx::wq_ctx &w = ref.hw.rq[i];
            if (w.valid && a >= w.base && a < w.base + (uint64_t(1) << (w.log_size + w.log_stride))) q = i;
        }
        if (old_live && whole_wqes(old_w, a, len)) {
            reads_at_cfg++;
            return;
        }
        if (!chk.expect(q != 0, "WQE read at 0x%llx in no ring", (unsigned long long)a)) return;
        const ctx::wq_ctx &w = ref.hw.rq[q];
        uint64_t stride = uint64_t(1) << w.log_stride, end = w.base + (stride << w.log_size);
        chk.expect(whole_wqes(w, a, len), "WQE read 0x%llx+%u: whole WQEs of RQ %u's ring within %u bytes",
                   (unsigned long long)a, len, q, mrrs());
        reads_by_mrrs[mrrs()]++;
        if (len > stride) multi_reads++;
        if (a + len == end) ring_end_reads++;
    }

    void check_cqe() {
        Cqe g = got_cqe.front();
        got_cqe.pop_front();
        if (!chk.expect(!exp_cqe.empty(), "CQE without a model CQE")) return;
        Cqe e = exp_cqe.front();
        exp_cqe.pop_front();
        if (inject && ++cqes_checked == 4) e.b[0] ^= 1;  // deliberate mismatch (--inject)
        if (g.b[20] & 0x08) stripped++;
        bool same = g.cqn == e.cqn && g.b == e.b;
        if (!chk.expect(same, "CQE %ld: cqn %u vs %u, mismatch", events, g.cqn, e.cqn) && chk.fails <= 3) {
            for (unsigned i = 0; i < 31; i++) std::fprintf(stderr, "%02x%s", g.b[i], i == 30 ? "\n" : " ");
            for (unsigned i = 0; i < 31; i++) std::fprintf(stderr, "%02x%s", e.b[i], i == 30 ? "\n" : " ");
        }
    }

    void check_ev() {
        if (!chk.expect(!exp_ev.empty(), "event without a frame")) return;
        Ev e = exp_ev.front();
        exp_ev.pop_front();
        if (e.kind == 7) {
            // Frames of the same RQ the RTL had already dispatched behind the
            // failing one (speculatively): the model drops them (RQ in ERR).
            long behind = meta_sent - events - 1;
            for (long i = 0; i < behind && i < long(exp_ev.size()); i++)
                if (exp_ev[size_t(i)].qn == e.qn) spec_behind_err++;
        }
        if (!first_ev && events >= ev_from) first_ev = clk.cycle;
        last_ev = clk.cycle;
        unsigned k = m.ev_kind_o;
        bool ok = k == e.kind && m.ev_qn_o == e.qn && m.ev_len_o == e.len;
        if (ok && e.kind == 0) ok = bool(m.ev_csum_ok_o) == e.csum_ok && bool(m.ev_bad_csum_o) == e.bad_csum;
        chk.expect(ok, "frame %ld: event %s q %u len %u csum %d/%d, model %s q %u len %u csum %d/%d", events,
                   kind_name(k), unsigned(m.ev_qn_o), unsigned(m.ev_len_o), int(m.ev_csum_ok_o),
                   int(m.ev_bad_csum_o), kind_name(e.kind), e.qn, e.len, int(e.csum_ok), int(e.bad_csum));
        events++;
    }

    void step() {
        drive_inputs();
        sample();
        clk.tick();
        m.acc_valid_i = 0;
    }

    bool busy() const {
        return !tx.empty() || !metas.empty() || !exp_ev.empty() || !wr_jobs.empty() || !wr_done_at.empty() ||
               !rd_out.empty();
    }

    void drain(uint64_t limit = 400000) {
        uint64_t start = clk.cycle;
        while (busy() && clk.cycle - start < limit) step();
        for (int i = 0; i < 20; i++) step();
        // WQE prefetch reads may start as late as the last frame's retire.
        for (int i = 0; i < 2000 && !rd_out.empty(); i++) step();
        if (!chk.expect(!busy(), "drained (%zu frames, %zu events left)", tx.size(), exp_ev.size()))
            std::fprintf(stderr, "  next %s q %u; rd_req %d rd_out %zu wr_req %d wr_jobs %zu data %d cqe %d rqci %d meta %zu\n",
                         kind_name(exp_ev.front().kind), exp_ev.front().qn, int(m.rd_req_valid_o), rd_out.size(),
                         int(m.wr_req_valid_o), wr_jobs.size(), int(m.wr_data_valid_o), int(m.cqe_valid_o),
                         int(m.rqci_valid_o), metas.size());
        if (!rd_out.empty())
            std::fprintf(stderr, "  rd_jobs %zu at %llu now %llu last %d rsp_ready %d\n", rd_jobs.size(),
                         rd_jobs.empty() ? 0ull : (unsigned long long)rd_jobs.front().at,
                         (unsigned long long)clk.cycle, int(rd_out_last.front()), int(m.rd_rsp_ready_o));
    }

    void compare_round() {
        size_t bad = 0, first = 0;
        for (size_t a = BUF_LO; a < MEM; a++)
            if (ref.host.mem[a] != rtl.mem[a] && !bad++) first = a;
        chk.expect(bad == 0, "host memory: %zu bytes differ, first at 0x%zx", bad, first);
        chk.expect(exp_cqe.empty(), "%zu model CQEs not produced", exp_cqe.size());
        exp_cqe.clear();
        for (unsigned q = 1; q < NRQ; q++) {
            const ctx::wq_ctx &w = ref.hw.rq[q];
            bool err = w.state == kite::spec::wq_state::ERR;
            chk.expect(err == rq_err_seen[q], "RQ %u ERR: RTL %d model %d", q, int(rq_err_seen[q]), int(err));
            if (!err) chk.expect(rqci[q] == w.ci, "RQ %u ci: RTL %u model %u", q, rqci[q], w.ci);
        }
    }

    // Back-to-back IPv4/UDP frames of one size, RSS over @nrq RQs (RQs
    // 1..nrq, rings of 2^lstride-byte WQEs posted full of single-entry
    // buffers of the frame size, 64-byte aligned), no back-pressure, fixed
    // WQE read latency, TAGS read tags, wr_done 3 cycles after a write's
    // last word (kite_pcie_wr hands a TLP to the core once its words are
    // in): cycles per frame in steady state, counted once more frames have
    // been received than the WQE cache held when they started (a full cache
    // would otherwise hide the prefetch's rate).
    double throughput(unsigned size, unsigned lat, unsigned nrq, unsigned lstride) {
        p_gap = 0.0;
        p_ready = 1.0;
        rd_lat_lo = rd_lat_hi = lat;
        wr_lat_lo = wr_lat_hi = 3;
        ctx::rss_ctx &rc = ref.hw.rss[ctx::rss_index(0, 0, 0)];
        rc.hash_fields = nrq > 1 ? uint8_t(kite::spec::rss_field::IPV4 | kite::spec::rss_field::IPV4_UDP) : 0;
        rc.table_size = 64;
        for (unsigned i = 0; i < 64; i++) rc.table[i] = uint16_t(1 + i % nrq);
        // Each RQ's WQEs get distinct buffers (writes of different RQs
        // may be issued out of frame order; the host never shares a buffer).
        const uint32_t bsz = (size + 63) & ~63u;
        const unsigned per = std::min(256u, unsigned((BUF_HI - BUF_LO) / bsz) / nrq);
        for (unsigned q = 1; q <= nrq; q++) {
            const unsigned lsz = nrq == 1 ? 12 : 10;
            ctx::wq_ctx &w = eth_ring(q, lsz, lstride, 0x40000 + uint64_t(q - 1) * (uint64_t(1) << (lsz + lstride)));
            bench_nrq = q;                      // reads from here on are of RQs 1..q
            configure(q, false, true);
            unsigned size_q = 1u << w.log_size;
            for (unsigned k = 0; k < size_q; k++) {
                uint8_t e[16]{};
                uint64_t addr = BUF_LO + uint64_t((q - 1) * per + k % per) * bsz;
                uint32_t len = bsz;
                std::memcpy(e, &addr, 8);
                std::memcpy(e + 8, &len, 4);
                both_write(w.base + (uint64_t(k) << lstride), e, 16);
            }
            w.pi = uint16_t(size_q);
            m.acc_valid_i = 1;
            m.acc_qn_i = q;
            m.acc_pi_i = w.pi;
            step();
        }
        // The prefetch fills (8 x 256 WQEs take up to eight round trips of 32 tags).
        for (unsigned i = 0; i < 300 + 9 * lat; i++) step();
        rd_reqs = rd_bytes = 0;
        // Rings of 4096 WQEs for one RQ, 1024 for eight (RSS spreads the
        // frames unevenly: half a ring each on average); the first frames,
        // up to what the cache holds (8 lines of 256), are not counted.
        const unsigned n = nrq == 1 ? 2000 : 4000, warm = nrq == 1 ? 600 : 2400;
        for (unsigned i = 0; i < n; i++) offer(udp_frame(size));
        first_ev = last_ev = 0;
        ev_from = events + warm;
        drain(uint64_t(n) * (size / 32 + 8) + 10000);   // twice a beat per 64 bytes
        compare_round();
        chk.expect(kinds[0] == long(n), "throughput run: all %u frames delivered (%ld)", n, kinds[0]);
        return double(last_ev - first_ev) / double(events - ev_from - 1);
    }

    // An IPv4/UDP frame of @size bytes (no FCS), random payload.
    Frame udp_frame(unsigned size) {
        Frame f = tb::rbytes(rng, size);
        put16(f, 12, 0x0800);
        f[14] = 0x45;
        f[15] = 0;
        put16(f, 16, size - 14);
        put16(f, 18, 0);
        put16(f, 20, 0);
        f[22] = 64;
        f[23] = 17;
        put16(f, 24, 0);
        put16(f, 24, kite::ipv4_hdr_csum(&f[14], 20));
        put16(f, 38, size - 34);
        tb::fix_l4_csum(f);
        return f;
    }

    // Every frame to RQ q (no hash: table[0]) while in scope; the random
    // rounds' route is put back after.
    struct Route {
        ctx::rss_ctx &rc;
        const uint8_t fields;
        const uint16_t t0;
        Route(ctx::rss_ctx &c, unsigned q) : rc(c), fields(c.hash_fields), t0(c.table[0]) {
            rc.hash_fields = 0;
            rc.table[0] = uint16_t(q);
        }
        Route(const Route &) = delete;
        Route &operator=(const Route &) = delete;
        ~Route() {
            rc.hash_fields = fields;
            rc.table[0] = t0;
        }
    };
    Route route(unsigned q) { return Route(ref.hw.rss[ctx::rss_index(0, 0, 0)], q); }

    // DESTROY_RQ under traffic: frames of one RQ are dispatched (their
    // writes slowed by back-pressure) when its context is cleared; cfg()
    // checks that the drain lasts until they have retired, and the host
    // memory compare that they were delivered whole. A frame after the
    // destroy is dropped (NO_BUF), as the model's. The RQ is re-created
    // after.
    long destroys = 0, destroy_frames_out = 0;
    // A frame for an RQ without a WQE cache line, whose line must be taken
    // from another RQ, in the cycle the prefetch takes a read for that line:
    // the victim must be another line (or none, and the frame waits), else
    // the read's WQEs would land in the frame's RQ. Set up so that one line
    // only is evictable (RQ 1's: its read answered; the seven others' reads
    // are held) and RQ 10 has WQEs but no line; then RQ 1's doorbell (the
    // prefetch reads for its line a few cycles later) and a frame to RQ 10,
    // @lead cycles apart (frame first when positive). The lead that makes
    // them meet depends on the block's latencies, so the caller sweeps it.
    long races = 0;
    void evict_race(int lead) {
        static const unsigned rqs[] = {1, 2, 3, 4, 5, 6, 8, 9, 10};
        p_gap = 0.0;
        p_ready = 1.0;
        tag_limit = TAGS;
        for (unsigned q : rqs) {
            replacing(ref.hw.rq[q]);
            eth_ring(q, 6, 4, 0x40000 + uint64_t(q) * 0x8000);
            configure(q, false);                // drops its line
        }
        rd_lat_lo = rd_lat_hi = 20;
        post(1, 4);
        for (int i = 0; i < 80; i++) step();    // RQ 1's read answered: its line is evictable
        rd_lat_lo = rd_lat_hi = 3000;
        for (unsigned q : {2u, 3u, 4u, 5u, 6u, 8u, 9u}) post(q, 4);
        for (int i = 0; i < 20; i++) step();    // their reads taken: not evictable
        post(10, 4);                            // no free line: none taken
        // One read tag beyond the seven held: a read the prefetch takes for
        // a line given to RQ 10 in the race waits until the held reads are
        // answered, after the race's own read, so that a wrong victim shows
        // (the line's WQEs counted as answered are RQ 1's).
        tag_limit = 8;
        const Route to10 = route(10);
        if (lead < 0) {
            post(1, 4);
            for (int i = 0; i < -lead; i++) step();
            offer(udp_frame(60));
        } else {
            offer(udp_frame(60));
            for (int i = 0; i < lead; i++) step();
            post(1, 4);
        }
        drain();
        compare_round();
        rd_lat_lo = RD_LAT_LO;
        rd_lat_hi = RD_LAT_HI;
        tag_limit = TAGS;
        races++;
    }

    void destroy_under_traffic() {
        const double gap = p_gap, ready = p_ready, fault = p_fault;
        const unsigned q = tb::rnd(rng, 1, 6);  // not 7: it stays in RST
        p_fault = 0.0;
        configure(q, true);
        post(q, 40);
        const Route to_q = route(q);
        p_gap = 0.0;
        p_ready = 0.15;
        const unsigned n = tb::rnd(rng, 1, 8);
        for (unsigned i = 0; i < n; i++) offer(udp_frame(tb::rnd(rng, 60, 9018)));
        for (unsigned k = 0; k < 100000 && !metas.empty(); k++) step();
        chk.expect(metas.empty(), "destroy: the RQ's frames dispatched");
        const long out = long(exp_ev.size());
        ctx::wq_ctx &w = ref.hw.rq[q];
        replacing(w);                           // a read taken in the write's cycle is of this ring
        w = ctx::wq_ctx{};
        cfg(q, kite::spec::wq_state::RST);
        destroys++;
        destroy_frames_out += out;
        offer(udp_frame(tb::rnd(rng, 60, 200)));   // after the destroy: NO_BUF
        chk.expect(exp_ev.back().kind == 1, "the model drops a frame to a destroyed RQ (NO_BUF)");
        p_ready = ready;
        drain();
        configure(q, true);
        compare_round();
        p_gap = gap;
        p_fault = fault;
    }

    // A fresh ring in good memory (its WQE reads cannot fail) on a random
    // RQ, 1..6; lsz, lstr as configure().
    unsigned good_ring(unsigned lsz = 0, unsigned lstr = 0) {
        const double fault = p_fault, straddle = p_straddle;
        const unsigned q = tb::rnd(rng, 1, 6);
        p_fault = p_straddle = 0.0;
        configure(q, true, false, lsz, lstr);
        p_fault = fault;
        p_straddle = straddle;
        return q;
    }

    // Protection errors in a row on one RQ, several rings' worth, the
    // others' rings empty (its line is never taken): a PROT_ERR WQE is
    // consumed at dispatch, and unless the line's lci moves with it the
    // prefetch stops once the line's window (32 WQEs of 512 bytes) is full
    // of consumed WQEs (the drain check fails).
    long prot_frames = 0;
    void prot_err_run(unsigned batches) {
        const unsigned q = good_ring(6, 9);  // 64 WQEs of 512 bytes
        const Route to_q = route(q);
        ctx::wq_ctx &w = ref.hw.rq[q];
        all_bad_keys = true;
        for (unsigned b = 0; b < batches; b++) {
            post(q, 1u << w.log_size);
            for (unsigned i = uint16_t(w.pi - w.ci); i; i--) {
                offer(udp_frame(60));
                prot_frames += exp_ev.back().kind == 6;  // else OVERSIZE: a WQE's entries under 60 bytes
            }
            drain();
            compare_round();
        }
        all_bad_keys = false;
    }

    // A fresh ring in good memory on a random RQ (1..6) holding one WQE of
    // one 9100-byte entry, its buffer in the faulting region or not, and
    // that WQE read: frames after the first find the ring empty.
    unsigned one_wqe_ring(bool faulting) {
        const unsigned q = good_ring();
        ctx::wq_ctx &w = ref.hw.rq[q];
        std::vector<uint8_t> wqe(size_t(1) << w.log_stride, 0);
        const uint32_t len = 9100;
        const uint64_t addr = faulting ? FAULT + tb::rnd(rng, 0, 0x1000)
                                       : tb::rnd(rng, uint32_t(BUF_LO), uint32_t(BUF_HI - len));
        std::memcpy(&wqe[0], &addr, 8);
        std::memcpy(&wqe[8], &len, 4);
        both_write(w.base + (uint64_t(w.pi & ((1u << w.log_size) - 1)) << w.log_stride), wqe.data(), wqe.size());
        w.pi++;
        doorbell(q);
        for (int i = 0; i < 400; i++) step();   // its read answered
        return q;
    }

    // A write that fails with frames that take no WQE dispatched behind it:
    // the ring holds only the failing frame's WQE, so the next frames find
    // it empty and go out while that frame is written, speculatively (the
    // RQ may yet go to ERR). The model counts them NO_BUF, as the failed
    // write put the RQ in ERR before they came; the RTL converts them when
    // they retire (r_conv).
    long spec_rounds = 0, spec_conv = 0;
    void spec_behind_wr_err(unsigned n) {
        const unsigned q = one_wqe_ring(true);
        const Route to_q = route(q);
        offer(udp_frame(tb::rnd(rng, 1000, 9000)));
        chk.expect(exp_ev.back().kind == 7, "spec round: the model fails the first frame's write (WR_ERR)");
        for (unsigned i = 0; i < n; i++) {
            offer(udp_frame(tb::rnd(rng, 60, 200)));
            if (chk.expect(exp_ev.back().kind == 1, "spec round: the model drops a frame to the RQ in ERR (NO_BUF)"))
                spec_conv++;
        }
        drain();
        compare_round();
        spec_rounds++;
    }

    // A context write out of ERR (RST: the firmware resets the RQ) after a
    // failed write put it in ERR, while the frames dispatched behind the
    // failing one have not retired (its error CQE held back): they came to
    // an RQ in ERR, and each stays the model's NO_BUF under the new state.
    long rst_rounds = 0, rst_behind = 0;
    void rst_behind_wr_err(unsigned n) {
        const unsigned q = one_wqe_ring(true);
        ctx::wq_ctx &w = ref.hw.rq[q];
        const Route to_q = route(q);
        cqe_hold_until = ~uint64_t(0);
        offer(udp_frame(tb::rnd(rng, 1000, 9000)));
        chk.expect(exp_ev.back().kind == 7, "RST round: the model fails the first frame's write (WR_ERR)");
        for (unsigned i = 0; i < n; i++) {
            offer(udp_frame(tb::rnd(rng, 60, 200)));
            chk.expect(exp_ev.back().kind == 1, "RST round: the model drops a frame to the RQ in ERR (NO_BUF)");
        }
        const long first = meta_sent, ev0 = events;
        for (unsigned k = 0; k < 100000 && !rq_err_seen[q]; k++) step();
        chk.expect(rq_err_seen[q] && events == ev0, "RST round: the RQ in ERR, the failed frame not retired");
        rst_behind += std::max(0L, meta_sent - first - 1);  // dispatched before the ERR phase
        w.state = kite::spec::wq_state::RST;
        w.pi = w.ci = 0;
        cqe_hold_until = clk.cycle + 30;        // the failed frame retires after the write
        cfg(q, w.state);
        drain();
        configure(q, true);
        compare_round();
        rst_rounds++;
    }

    // A context write of ERR (the firmware's MODIFY_RQ) while frames to a
    // ring they found empty are dispatched behind one being written,
    // speculatively. A speculative frame's outcome is decided when it
    // retires, after the write: each is NO_BUF, as the model's frames that
    // come after the RQ went to ERR; the frame being written keeps its WQE
    // and its CQE (it was not speculative). The write lands @lead cycles
    // after that frame's dispatch, so that over the sweep the others are
    // dispatched before it, in its cycle and after it.
    long ctx_rounds = 0, ctx_behind = 0, ctx_same_cycle = 0;
    void ctx_err_behind_write(unsigned lead) {
        const double gap = p_gap, ready = p_ready;
        const unsigned n = 6, q = one_wqe_ring(false);
        ctx::wq_ctx &w = ref.hw.rq[q];
        const Route to_q = route(q);
        p_gap = 0.0;
        p_ready = 0.15;                         // the first frame's writes take a while
        offer(udp_frame(tb::rnd(rng, 1000, 9000)));
        chk.expect(exp_ev.back().kind == 0, "ctx round: the model delivers the first frame");
        w.state = kite::spec::wq_state::ERR;    // the model: the write before the others
        for (unsigned i = 0; i < n; i++) {
            offer(udp_frame(tb::rnd(rng, 60, 200)));
            chk.expect(exp_ev.back().kind == 1, "ctx round: the model drops a frame to the RQ in ERR (NO_BUF)");
        }
        const long first = meta_sent, ev0 = events;
        for (unsigned k = 0; k < 100000 && meta_sent == first; k++) step();
        for (unsigned i = 0; i < lead; i++) step();
        chk.expect(events == ev0, "ctx round: the first frame not retired before the context write");
        const long behind = meta_sent - first - 1;
        cfg(q, w.state);
        ctx_behind += behind;
        ctx_same_cycle += cfg_same_cycle;
        p_gap = gap;
        p_ready = ready;
        drain();
        configure(q, true);                     // out of ERR, as the host would
        compare_round();
        ctx_rounds++;
    }

    // A host sets the MRRS while the function is quiet (kite_pcie_rd takes
    // it only then): no WQE read offered or in flight.
    void set_mrrs(unsigned code) {
        for (unsigned k = 0; k < 100000 && (m.rd_req_valid_o || !rd_jobs.empty()); k++) step();
        chk.expect(!m.rd_req_valid_o && rd_jobs.empty(), "WQE reads quiet before the MRRS changes");
        mrrs_code = code;
    }

    void round(unsigned nframes) {
        for (unsigned q = 1; q < NRQ_RAND; q++) {
            if (ref.hw.rq[q].state == kite::spec::wq_state::ERR) configure(q, tb::chance(rng, 0.5));
            else if (tb::chance(rng, p_empty)) { configure(q, false); continue; }  // an empty ring: NO_BUF_Q
            else if (tb::chance(rng, 0.05)) {
                // Restarted with its WQE reads in flight: their answers must not count.
                post(q, tb::rnd(rng, 1, 40));
                for (unsigned i = tb::rnd(rng, 0, 30); i; i--) step();
                configure(q, false);
            }
            if (!tb::chance(rng, 0.15)) post(q, tb::rnd(rng, 0, 40));
        }
        for (unsigned i = 0; i < nframes; i++) {
            Frame f = make_frame(rng);
            if (f.size() < 60) f.resize(60, 0);
            if (f.size() > 9018) f.resize(9018);
            if (tb::chance(rng, 0.08)) {
                // 802.1Q, then zeros; sizes whose FCS straddles two beats too.
                static const unsigned sz[] = {60, 61, 62, 63, 64, 124, 125, 126, 127, 128};
                f.assign(tb::chance(rng, 0.7) ? sz[tb::rnd(rng, 0, 9)] : tb::rnd(rng, 60, 300), 0);
                for (int k = 0; k < 12; k++) f[size_t(k)] = uint8_t(rng());
                put16(f, 12, 0x8100);
                put16(f, 14, uint16_t(rng()));
                put16(f, 16, 0x88b5);
                zero_csum++;
            }
            uint32_t d = steer_drops ? tb::rnd(rng, 0, 9) : 9;
            offer(f, d == 0 ? 1 : d == 1 ? 2 : 0);
        }
        drain();
        compare_round();
    }
};

}  // namespace

int main(int argc, char **argv) {
    tb::Args args(argc, argv);
    tb::Checker chk("rx_dma");
    tb::Rng rng(args.seed);
    std::printf("[rx_dma] seed %llu\n", (unsigned long long)args.seed);
    {
        Bench b(chk, rng);
        b.inject = args.inject;
        long rounds = args.iters(200);
        // The MRRS as the host may set it (0..5: 128..4096; 6, 7 reserved),
        // drawn apart so that the other draws stay as they were.
        tb::Rng mrng(args.seed * 7919 + 1);
        for (long r = 0; r < rounds; r++) {
            b.p_gap = tb::chance(rng, 0.5) ? 0.0 : 0.3;
            b.p_ready = tb::chance(rng, 0.5) ? 1.0 : 0.6;
            b.tag_limit = tb::chance(rng, 0.7) ? TAGS : tb::rnd(rng, 1, 4);
            b.set_mrrs(tb::chance(mrng, 0.4) ? 2 : tb::rnd(mrng, 0, 7));
            b.round(tb::rnd(rng, 1, 40));
        }
        // The draws above give some seeds few reads under the small MRRS:
        // rounds at 128 and 256 bytes until each has its share (a bounded
        // number; none for seeds that have it, so their later draws are as
        // they were).
        // (Looked up with find: operator[] would add a zero entry.)
        auto reads_at = [&b](unsigned mrrs) {
            auto it = b.reads_by_mrrs.find(mrrs);
            return it == b.reads_by_mrrs.end() ? 0L : it->second;
        };
        for (long r = 0; r < rounds && (reads_at(128) <= 30 || reads_at(256) <= 30); r++) {
            b.set_mrrs(unsigned(r & 1));
            b.round(tb::rnd(rng, 1, 40));
        }
        b.set_mrrs(2);
        std::printf("[rx_dma] WQE reads by MRRS:");
        for (auto &[k, v] : b.reads_by_mrrs) std::printf(" %u B x %ld", k, v);
        std::printf("\n");
        chk.expect(b.reads_by_mrrs.size() == 3 && reads_at(128) > 30 && reads_at(256) > 30,
                   "reads under MRRS 128 and 256");
        // Steering drops mixed in: the generator's state is put back after,
        // so the throughput runs below see the draws they always saw.
        const tb::Rng saved = rng;
        b.steer_drops = true;
        for (long r = 0; r < rounds / 5; r++) {
            b.p_gap = tb::chance(rng, 0.5) ? 0.0 : 0.3;
            b.p_ready = tb::chance(rng, 0.5) ? 1.0 : 0.6;
            b.round(tb::rnd(rng, 1, 40));
        }
        // Failed WQE reads, several answered before a frame takes the first
        // (only that one counts), likewise: fresh rings, many of them faulting.
        // Here and for posted writes below, more rounds (bounded) where a
        // seed's draws give too few of the frames the round is for.
        b.steer_drops = false;
        b.p_fault = 0.4;
        b.p_straddle = 0.9;
        const long rd0 = b.kinds[5];
        for (long r = 0; r < rounds / 5 || (b.kinds[5] - rd0 <= 10 && r < rounds); r++) {
            for (unsigned q = 1; q < NRQ_RAND; q++)
                if (tb::chance(rng, 0.3)) b.configure(q, true);
            b.p_gap = tb::chance(rng, 0.5) ? 0.0 : 0.3;
            b.p_ready = tb::chance(rng, 0.5) ? 1.0 : 0.6;
            b.round(tb::rnd(rng, 1, 40));
        }
        std::printf("[rx_dma] read-error rounds: %ld frames found their WQE failed to read\n", b.kinds[5] - rd0);
        chk.expect(b.kinds[5] - rd0 > 10, "read-error rounds: frames on failed WQE reads");
        b.p_fault = 0.05;
        b.p_straddle = 0.3;
        // PAUSE mixed in, likewise, with more empty rings (what a frame
        // with meta_pause_i parks on).
        b.pause_mix = true;
        b.p_empty = 0.15;
        for (long r = 0; r < rounds / 5; r++) {
            b.p_gap = tb::chance(rng, 0.5) ? 0.0 : 0.3;
            b.p_ready = tb::chance(rng, 0.5) ? 1.0 : 0.6;
            b.round(tb::rnd(rng, 1, 40));
        }
        // Posted writes (the card's wr_wait_i = 0), likewise.
        b.pause_mix = false;
        b.p_empty = 0.03;
        b.posted = true;
        // Rings emptied first: a WQE posted before may point into the
        // faulting region, and a write that fails is what wr_wait_i is for.
        for (unsigned q = 1; q < NRQ_RAND; q++) b.configure(q, false);
        const long ok0 = b.kinds[0], wr0 = b.kinds[7];
        for (long r = 0; r < rounds / 5 || (b.kinds[0] - ok0 <= 30 && r < rounds); r++) {
            b.p_gap = tb::chance(rng, 0.5) ? 0.0 : 0.3;
            b.p_ready = tb::chance(rng, 0.5) ? 1.0 : 0.6;
            b.round(tb::rnd(rng, 1, 40));
        }
        std::printf("[rx_dma] posted-write rounds (wr_wait_i 0): %ld frames delivered as the model's\n",
                    b.kinds[0] - ok0);
        chk.expect(b.kinds[0] - ok0 > 30 && b.kinds[7] == wr0, "posted-write rounds delivered frames, no write failed");
        // DESTROY_RQ with the RQ's frames still being written (posted
        // writes, as the card).
        for (long r = 0; r < rounds / 5; r++) b.destroy_under_traffic();
        std::printf("[rx_dma] destroys under traffic: %ld, %ld frames of the RQ not yet retired at the context "
                    "write, all delivered whole before its drain ended\n", b.destroys, b.destroy_frames_out);
        chk.expect(b.destroy_frames_out > b.destroys, "destroys with frames in flight");
        b.posted = false;
        rng = saved;
        std::printf("[rx_dma] PAUSE rounds: %ld park_o pulses, %ld frames with meta_pause_i found their ring empty\n",
                    b.parks, b.parks_exp);
        chk.expect(b.parks_exp > 10 && b.parks == b.parks_exp,
                   "park_o once per frame with meta_pause_i and an empty ring");
        std::printf("[rx_dma] %ld frames: OK %ld, NO_BUF %ld, NO_BUF_Q %ld, MALFORMED %ld, OVERSIZE %ld, RD_ERR %ld, "
                    "PROT_ERR %ld, WR_ERR %ld, FILTERED %ld, FLOW_DROP %ld; %ld VLAN-stripped; %ld flush CQEs left to the queue manager; %ld frames "
                    "already dispatched behind a failed write to their RQ\n",
                    b.frames, b.kinds[0], b.kinds[1], b.kinds[2], b.kinds[3], b.kinds[4], b.kinds[5], b.kinds[6],
                    b.kinds[7], b.kinds[8], b.kinds[9], b.stripped, b.flush_cqes, b.spec_behind_err);
        std::printf("[rx_dma] %ld delivered with their FCS (RX_FCS), %ld of them VLAN-stripped; %ld VLAN frames of "
                    "zeros\n", b.fcs_kept, b.fcs_kept_stripped, b.zero_csum);
        chk.expect(b.fcs_kept > 20 && b.fcs_kept_stripped > 3 && b.zero_csum > 50,
                   "RX_FCS, RX_FCS with VLAN_STRIP and zero-sum frames exercised");
        std::printf("[rx_dma] %ld WQE read requests, %ld of several WQEs, %ld ending at the ring's end; %ld reads "
                    "of a replaced ring taken in the cycle of its context write\n",
                    b.rd_reqs, b.multi_reads, b.ring_end_reads, b.reads_at_cfg);
        std::printf("[rx_dma] context writes drained with reads of the old ring in flight: %ld, with frames of the "
                    "old context not retired: %ld; longest drain %llu cycles\n",
                    b.drains_reads, b.drains_frames, (unsigned long long)b.drain_max);
        chk.expect(b.multi_reads > 50 && b.ring_end_reads > 50 && b.drains_reads > 5 && b.drains_frames > 20,
                   "multi-WQE reads, ring wraps, context writes with reads and frames in flight exercised");
        chk.expect(b.kinds[0] > 150 && b.kinds[1] > 0 && b.kinds[2] > 0 && b.kinds[3] > 0 && b.kinds[4] > 0 &&
                       b.kinds[5] > 0 && b.kinds[6] > 0 && b.kinds[7] > 0 && b.kinds[8] > 0 && b.kinds[9] > 0 &&
                       b.stripped > 5,
                   "every outcome exercised");
    }
    // The directed sections, each on a fresh bench with its own generator:
    // the sections above see the draws they saw.
    auto directed = [&](uint64_t salt, auto &&body) {
        tb::Rng vrng(args.seed * 31 + salt);
        Bench b(chk, vrng);
        b.inject = args.inject;
        body(b);
    };
    directed(7, [](Bench &b) {
        const long ok0 = b.kinds[0];
        for (int lead = -6; lead <= 12; lead++) b.evict_race(lead);
        std::printf("[rx_dma] victim against the prefetch: %ld frames to an RQ without a line, at 19 offsets "
                    "against the prefetch's read for the one evictable line; %ld delivered as the model's\n",
                    b.races, b.kinds[0] - ok0);
    });
    directed(19, [&chk](Bench &b) {
        for (int r = 0; r < 4; r++) b.prot_err_run(3);
        std::printf("[rx_dma] protection errors in a row on one RQ (64 WQEs of 512 bytes), its ring refilled 3 "
                    "times, 4 rounds: %ld PROT_ERR frames as the model's\n",
                    b.prot_frames);
        chk.expect(b.prot_frames >= 4 * 40, "protection errors in a row, more than a line's window each time");
    });
    directed(11, [&chk](Bench &b) {
        for (unsigned n = 1; n <= 8; n++) b.spec_behind_wr_err(n);
        std::printf("[rx_dma] frames behind a write that fails, to a ring they find empty: %ld in %ld rounds, "
                    "%ld dispatched before it retired; each NO_BUF as the model's\n",
                    b.spec_conv, b.spec_rounds, b.spec_behind_err);
        chk.expect(b.spec_behind_err > b.spec_rounds, "frames dispatched behind a failing write (speculatively)");
    });
    directed(13, [&chk](Bench &b) {
        for (unsigned lead = 0; lead < 24; lead++) b.ctx_err_behind_write(lead);
        std::printf("[rx_dma] context writes of ERR with frames dispatched behind one being written: %ld rounds, "
                    "%ld frames dispatched before the write, %ld rounds with one in its cycle; each NO_BUF as the "
                    "model's\n",
                    b.ctx_rounds, b.ctx_behind, b.ctx_same_cycle);
        chk.expect(b.ctx_behind > b.ctx_rounds && b.ctx_same_cycle > 0,
                   "frames dispatched before and in the cycle of the context write");
    });
    directed(17, [&chk](Bench &b) {
        for (unsigned n = 1; n <= 8; n++) b.rst_behind_wr_err(n);
        std::printf("[rx_dma] RQ reset after a failed write, its error CQE held: %ld rounds, %ld frames dispatched "
                    "behind the failing one before it failed; each NO_BUF as the model's\n",
                    b.rst_rounds, b.rst_behind);
        chk.expect(b.rst_behind > b.rst_rounds, "frames dispatched behind the failing write before the reset");
    });
    // Line rate at 250 MHz: (frame + FCS + preamble and gap) * 8 bits at
    // 100 Gb/s = (size + 24) * 0.02 cycles per frame.
    // 16-byte WQEs (32 per 512-byte read) and the driver's 64-byte stride
    // (8 per read; 8 RQs at 1 us only).
    // Then with posted writes (wr_wait_i 0, as in the card): one RQ's frames
    // no longer wait for each other's write outcome.
    struct Run { unsigned nrq, lat, lstride; bool posted; };
    std::map<std::tuple<unsigned, unsigned, unsigned>, double> posted_cpf;  // (RQs, latency, size)
    for (Run r : {Run{1, 4, 4, false}, Run{1, 250, 4, false}, Run{8, 4, 4, false}, Run{8, 250, 4, false},
                  Run{8, 250, 6, false}, Run{1, 4, 4, true}, Run{1, 250, 6, true}, Run{8, 250, 6, true}}) {
        for (unsigned size : {60u, 61u, 64u, 65u, 128u, 1514u, 9018u}) {
            if (r.lstride != 4 && size == 61) continue;
            Bench b(chk, rng);
            b.inject = args.inject;
            b.posted = r.posted;
            double cpf = b.throughput(size, r.lat, r.nrq, r.lstride);
            double line = (size + 24) * 0.02;
            if (r.posted) posted_cpf[{r.nrq, r.lat, size}] = cpf;
            std::printf("[rx_dma] throughput %u-byte frames, %u RQ%s, %u-byte WQEs, WQE read latency %u cycles, "
                        "%u tags%s: %.2f cycles/frame (line rate %.2f), %.1f Gb/s at 250 MHz, %.0f%% of line rate; "
                        "%.1f WQEs per read\n",
                        size, r.nrq, r.nrq > 1 ? "s" : "", 1u << r.lstride, r.lat, TAGS,
                        r.posted ? ", posted writes" : "", cpf, line,
                        size * 8 * 0.25 / cpf, std::min(100.0, 100.0 * line / cpf),
                        b.rd_reqs ? double(b.rd_bytes >> r.lstride) / double(b.rd_reqs) : 0.0);
        }
    }
    // With posted writes, one RQ alone or eight, quick WQE reads or a 1 us
    // host: line rate for every size one 512-bit word per 64 bytes carries
    // at 250 MHz (the write-outcome rule held one RQ's 60-byte frames to 9
    // cycles each; with a 1 us read one RQ needs about 150 WQEs ahead, its
    // line holds 256).
    for (auto [key, cpf] : posted_cpf) {
        auto [nrq, lat, size] = key;
        if (size == 60 || size >= 128)
            chk.expect(cpf <= (size + 24) * 0.02 * 1.02,
                       "%u RQ(s), %u-cycle WQE reads, posted writes, %u-byte frames: %.2f cycles/frame", nrq, lat,
                       size, cpf);
    }
    return chk.finish();
}
