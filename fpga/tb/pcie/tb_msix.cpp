// kite_msix testbench: the MSI-X tables and PBAs of the PF and NVF VFs
// against a reference model of the MSI-X rules (PCIe 6.1.4, 6.8.2) with the
// block's documented timing, written here from its header comment:
//   * host BAR4 reads (answered the next cycle) and writes, one dword each:
//     every entry field, Vector Control, the PBA (read only), offsets past
//     the function's vectors and functions past NVF (read 0, writes ignored),
//     random byte enables;
//   * card requests (valid-ready): dropped (drop_o the next cycle) for a
//     disabled function, fn > NVF or a vector beyond the function's count,
//     else the vector's pending bit is set (coalescing with a pending one);
//   * the send: with no message in flight, the first deliverable vector
//     (pending, Mask clear, function enabled and not function-masked) from
//     the one after the last sent, round robin over all entries; its pending
//     bit is cleared and its entry read then (host accesses wait that cycle,
//     req_ready_o = 0); cfg_interrupt_msix_int_o pulses 2 cycles later with
//     the entry's address/data of the issue cycle and the core's function
//     number; the next waits for sent/fail. A fail sets the pending bit again
//     unless the function had an FLR since issue;
//   * FLR: the function's entries to 0 and masked, its pending bits cleared;
//   * the core's Enable and Function Mask bits (PF0 and VFs 0..NVF-1; PF1-3
//     and VFs >= NVF toggle too and must be ignored) act one cycle late.
// The core model answers each message with sent (mostly) or fail after a
// random delay and checks one message in flight. Spec-level checks besides the
// cycle-exact comparison: no vector waits deliverable longer than NENT
// messages (fairness between requests and retries), every request is
// dropped, newly pending or coalesced, and after a final phase that enables
// and unmasks everything no pending bit remains (read back from every PBA).
// Directed first: N requests of a masked vector give one message after the
// Mask bit is cleared, and the same with the Function Mask. Then a
// throughput run.
#include <array>
#include <deque>
#include <optional>

#include "Vkite_msix.h"
#include "kite/spec.hpp"
#include "tb.hpp"

namespace {

constexpr int NVF = 16, NFN = NVF + 1;
constexpr int PF_VEC = int(kite::spec::pci::PF_MSIX_VECTORS), VF_VEC = int(kite::spec::pci::VF_MSIX_VECTORS);
constexpr int NENT = PF_VEC + NVF * VF_VEC;
constexpr int ISSUE_TO_INT = 2;    // issue at c, cfg_interrupt_msix_int_o at c + 2
constexpr uint32_t PBA_OFF = 0x2000;

int nvec(int fn) { return fn == 0 ? PF_VEC : VF_VEC; }
int ent(int fn, int v) { return fn == 0 ? v : PF_VEC + (fn - 1) * VF_VEC + v; }
int ent_fn(int e) { return e < PF_VEC ? 0 : 1 + (e - PF_VEC) / VF_VEC; }
int ent_vec(int e) { return e < PF_VEC ? e : (e - PF_VEC) % VF_VEC; }
uint8_t fn_num(int fn) { return uint8_t(tb::core_fn(unsigned(fn))); }

struct HostReq {
    bool write;
    int fn;
    uint32_t addr, wdata;
    uint8_t be;
};
struct CardReq {
    int fn;
    uint32_t vec;
};
struct Msg {
    uint8_t fn_num;
    uint64_t addr;
    uint32_t data;
    int entry;
    long due;
};

// Reference: the tables, PBAs and masks, and the send as documented.
struct Ref {
    struct Entry {
        uint32_t lo = 0, hi = 0, data = 0;
        bool mask = true, pend = false;
    };
    std::array<Entry, NENT> e{};
    std::array<bool, NFN> en{}, ok{};  // registered core bits: Enable, Enable && !Function Mask
    bool busy = false, stale = false;
    int infl = 0, rr = 0;
    long issued_at = 0;
    // figures
    long reqs = 0, dropped = 0, new_pend = 0, coalesced = 0, issued = 0, sent = 0, failed = 0, repend = 0,
         flr_cleared = 0, flrs = 0;
    long same_cycle = 0, fail_stale = 0, fail_merged = 0, wr_in_flight = 0;  // corner cases reached
    long fail_stale_issue = 0;     // of fail_stale, the FLR in the issue cycle
    bool stale_issue = false;
    std::array<long, NENT> msgs{};
    std::array<long, NENT> dlv_since{};
    long max_wait = 0;

    Ref() { dlv_since.fill(-1); }

    bool deliverable(int i) const { return e[i].pend && !e[i].mask && ok[ent_fn(i)]; }
    std::optional<int> pick() const {
        if (busy) return std::nullopt;
        for (int k = 0; k < NENT; k++) {
            int i = (rr + k) % NENT;
            if (deliverable(i)) return i;
        }
        return std::nullopt;
    }
    int pending() const {
        int n = 0;
        for (auto &x : e) n += x.pend;
        return n;
    }

    uint32_t read(const HostReq &r) const {
        if (r.fn > NVF) return 0;
        if (r.addr < PBA_OFF) {
            int n = int(r.addr >> 4);
            if (n >= nvec(r.fn)) return 0;
            const Entry &x = e[ent(r.fn, n)];
            switch ((r.addr >> 2) & 3) {
            case 0: return x.lo;
            case 1: return x.hi;
            case 2: return x.data;
            default: return x.mask ? 1 : 0;
            }
        }
        uint32_t w = (r.addr - PBA_OFF) >> 2, v = 0;
        for (int b = 0; b < 32; b++) {
            long vec = 32L * w + b;
            if (vec < nvec(r.fn) && e[ent(r.fn, int(vec))].pend) v |= 1u << b;
        }
        return v;
    }

    static uint32_t merge(uint32_t old, uint32_t v, uint8_t be) {
        for (int j = 0; j < 4; j++)
            if (be >> j & 1) old = (old & ~(0xffu << 8 * j)) | (v & 0xffu << 8 * j);
        return old;
    }
    void write(const HostReq &r) {
        if (r.fn > NVF || r.addr >= PBA_OFF) return;  // PBA read only
        int n = int(r.addr >> 4);
        if (n >= nvec(r.fn)) return;
        Entry &x = e[ent(r.fn, n)];
        switch ((r.addr >> 2) & 3) {
        case 0: x.lo = merge(x.lo, r.wdata, r.be) & ~3u; break;
        case 1: x.hi = merge(x.hi, r.wdata, r.be); break;
        case 2: x.data = merge(x.data, r.wdata, r.be); break;
        default:
            if (r.be & 1) x.mask = r.wdata & 1;
            break;
        }
    }

    // What one cycle's inputs must produce.
    struct Out {
        std::optional<Msg> msg;        // issued this cycle
        std::optional<uint32_t> rsp;   // the read's answer, next cycle
        bool drop = false;             // next cycle
    };

    // One cycle, c: the send and host read see the state at the start; then
    // the host write, the request, sent/fail, FLR; the core bits last.
    Out step(long c, const std::optional<HostReq> &host, const std::optional<CardReq> &card, uint32_t flr,
             bool sent_in, bool fail_in, const std::array<bool, NFN> &en_in, const std::array<bool, NFN> &ok_in) {
        Out o;
        for (int i = 0; i < NENT; i++) {  // fairness: how long a vector stays deliverable
            if (deliverable(i)) {
                if (dlv_since[i] < 0) dlv_since[i] = c;
                max_wait = std::max(max_wait, c - dlv_since[i]);
            } else {
                dlv_since[i] = -1;
            }
        }
        std::optional<int> sel = pick();
        if (sel) {
            Entry &x = e[*sel];
            o.msg = Msg{fn_num(ent_fn(*sel)), uint64_t(x.hi) << 32 | x.lo, x.data, *sel, c + ISSUE_TO_INT};
            x.pend = false;
            busy = true;
            infl = *sel;
            stale = stale_issue = flr >> ent_fn(*sel) & 1;
            issued_at = c;
            rr = (*sel + 1) % NENT;
            issued++;
            msgs[*sel]++;
        }
        if (host) {
            if (host->write && busy && host->fn <= NVF && host->addr < PBA_OFF && (host->addr & 0xc) != 0xc &&
                int(host->addr >> 4) < nvec(host->fn) && ent(host->fn, int(host->addr >> 4)) == infl)
                wr_in_flight++;  // the message must keep the values of its issue
            if (host->write) write(*host);
            else o.rsp = read(*host);
        }
        if (card) {
            reqs++;
            if (card->fn > NVF || !en[card->fn] || card->vec >= uint32_t(nvec(card->fn))) {
                o.drop = true;
                dropped++;
            } else {
                int i = ent(card->fn, int(card->vec));
                if ((sel && *sel == i) || e[i].pend) {
                    same_cycle += sel && *sel == i;
                    coalesced++;  // into the pending bit, or the message issued this cycle
                } else {
                    e[i].pend = true;
                    new_pend++;
                }
            }
        }
        if (busy && c >= issued_at + ISSUE_TO_INT + 1 && (sent_in || fail_in)) {
            busy = false;
            if (sent_in) {
                sent++;
            } else {
                failed++;
                if (stale) {
                    fail_stale++;
                    fail_stale_issue += stale_issue;
                } else if (e[infl].pend) {
                    fail_merged++;
                } else {
                    e[infl].pend = true;
                    repend++;
                }
            }
        }
        if (busy && c > issued_at && (flr >> ent_fn(infl) & 1)) stale = true;
        for (int f = 0; f < NFN; f++) {
            if (!(flr >> f & 1)) continue;
            flrs++;
            for (int v = 0; v < nvec(f); v++) {
                Entry &x = e[ent(f, v)];
                flr_cleared += x.pend;
                x = Entry{};
            }
        }
        en = en_in;
        ok = ok_in;
        return o;
    }
};

struct Bench {
    Vkite_msix m;
    tb::Clock<Vkite_msix> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    bool inject;
    Ref ref;
    long cyc = 0;

    // Stimulus: queued (directed) or random, each held until taken.
    std::deque<HostReq> host_q;
    std::deque<CardReq> card_q;
    std::optional<HostReq> host_cur;
    std::optional<CardReq> card_cur;
    bool rnd_traffic = false, rnd_core = false, rnd_flr = false;
    double p_host = 0.4, p_card = 0.15, p_fail = 0.1;
    int max_delay = 24;

    // The core's per-function bits as driven.
    std::array<bool, 4> pf_en{}, pf_mask{};
    std::array<bool, 252> vf_en{}, vf_mask{};

    // Expectations and the core model.
    std::optional<uint32_t> exp_rsp;
    bool exp_drop = false;
    std::deque<Msg> exp_msg;
    long answer_at = -1;        // cycle of sent/fail for the message in flight
    bool answer_fail = false;
    long reads = 0, writes = 0, dut_msgs = 0, dut_drops = 0, host_stalls = 0;

    Bench(tb::Checker &c, tb::Rng &r, bool inj) : chk(c), rng(r), inject(inj) {
        m.req_valid_i = 0;
        m.msix_valid_i = 0;
        m.flr_i = 0;
        m.cfg_interrupt_msi_sent_i = 0;
        m.cfg_interrupt_msi_fail_i = 0;
        drive_core();
        clk.reset();
    }

    std::array<bool, NFN> fn_en() const {
        std::array<bool, NFN> a{};
        a[0] = pf_en[0];
        for (int v = 0; v < NVF; v++) a[v + 1] = vf_en[v];
        return a;
    }
    std::array<bool, NFN> fn_ok() const {
        std::array<bool, NFN> a{};
        a[0] = pf_en[0] && !pf_mask[0];
        for (int v = 0; v < NVF; v++) a[v + 1] = vf_en[v] && !vf_mask[v];
        return a;
    }
    void drive_core() {
        uint8_t e = 0, k = 0;
        for (int i = 0; i < 4; i++) e |= uint8_t(pf_en[i]) << i, k |= uint8_t(pf_mask[i]) << i;
        m.cfg_interrupt_msix_enable_i = e;
        m.cfg_interrupt_msix_mask_i = k;
        for (int w = 0; w < 8; w++) {
            uint32_t a = 0, b = 0;
            for (int i = 0; i < 32 && 32 * w + i < 252; i++) {
                a |= uint32_t(vf_en[32 * w + i]) << i;
                b |= uint32_t(vf_mask[32 * w + i]) << i;
            }
            m.cfg_interrupt_msix_vf_enable_i[w] = a;
            m.cfg_interrupt_msix_vf_mask_i[w] = b;
        }
    }
    void set_fn(int fn, bool en, bool mask) {
        if (fn == 0) pf_en[0] = en, pf_mask[0] = mask;
        else vf_en[fn - 1] = en, vf_mask[fn - 1] = mask;
    }
    void noise_ignored() {  // PF1-3 and VFs >= NVF: must not matter
        for (int i = 1; i < 4; i++) pf_en[i] = tb::chance(rng, 0.5), pf_mask[i] = tb::chance(rng, 0.5);
        for (int i = NVF; i < 252; i++) vf_en[i] = tb::chance(rng, 0.5), vf_mask[i] = tb::chance(rng, 0.5);
    }

    HostReq gen_host() {
        HostReq r{};
        r.write = tb::chance(rng, 0.5);
        r.fn = tb::chance(rng, 0.05) ? int(tb::rnd(rng, NFN, 31)) : int(tb::rnd(rng, 0, NVF));
        int nv = r.fn <= NVF ? nvec(r.fn) : VF_VEC;
        switch (tb::rnd(rng, 0, 9)) {
        case 0: r.addr = 16 * tb::rnd(rng, nv, 511) + 4 * tb::rnd(rng, 0, 3); break;  // past the vectors
        case 1: case 2: r.addr = PBA_OFF + 4 * tb::rnd(rng, 0, 4); break;               // PBA and past it
        case 3: r.addr = 4 * tb::rnd(rng, 0, 0xfff); break;                               // anywhere
        case 4: case 5: r.addr = 16 * tb::rnd(rng, 0, nv - 1) + 12; break;              // Vector Control
        default: r.addr = 16 * tb::rnd(rng, 0, nv - 1) + 4 * tb::rnd(rng, 0, 3); break;
        }
        r.be = tb::chance(rng, 0.7) ? 0xf : uint8_t(tb::rnd(rng, 0, 15));
        r.wdata = uint32_t(rng());
        if ((r.addr & 0xc) == 0xc && r.addr < PBA_OFF) r.wdata = (r.wdata & ~1u) | tb::chance(rng, 0.35);
        return r;
    }
    CardReq gen_card() {
        CardReq r{};
        r.fn = tb::chance(rng, 0.04) ? int(tb::rnd(rng, NFN, 31)) : int(tb::rnd(rng, 0, NVF));
        int nv = r.fn <= NVF ? nvec(r.fn) : VF_VEC;
        if (tb::chance(rng, 0.9)) r.vec = tb::rnd(rng, 0, nv - 1);
        else r.vec = tb::chance(rng, 0.5) ? tb::rnd(rng, nv, nv + 8) : tb::rnd(rng, 0, 0xffff);
        return r;
    }

    void cycle() {
        // Stimulus for this cycle.
        if (!host_cur) {
            if (!host_q.empty()) {
                host_cur = host_q.front();
                host_q.pop_front();
            } else if (rnd_traffic && tb::chance(rng, p_host)) {
                host_cur = gen_host();
            }
        }
        if (!card_cur) {
            if (!card_q.empty()) {
                card_cur = card_q.front();
                card_q.pop_front();
            } else if (rnd_traffic && tb::chance(rng, p_card)) {
                card_cur = gen_card();
            }
        }
        uint32_t flr = 0;
        if (rnd_flr && tb::chance(rng, 0.0006)) {
            flr = 1u << tb::rnd(rng, 0, NVF);
            if (tb::chance(rng, 0.2)) flr |= 1u << tb::rnd(rng, 0, NVF);
        }
        if (rnd_flr && ref.busy && tb::chance(rng, 0.002)) flr |= 1u << ent_fn(ref.infl);  // under a message
        if (rnd_flr && !ref.busy && tb::chance(rng, 0.02))  // in a message's issue cycle
            if (const auto s = ref.pick()) flr |= 1u << ent_fn(*s);
        if (rnd_core && tb::chance(rng, 0.003)) {
            int f = int(tb::rnd(rng, 0, NVF));
            if (tb::chance(rng, 0.5)) set_fn(f, tb::chance(rng, 0.8), f == 0 ? pf_mask[0] : vf_mask[f - 1]);
            else set_fn(f, f == 0 ? pf_en[0] : vf_en[f - 1], tb::chance(rng, 0.3));
            noise_ignored();
        }
        const bool sent = answer_at == cyc && !answer_fail, fail = answer_at == cyc && answer_fail;
        m.req_valid_i = host_cur.has_value();
        if (host_cur) {
            m.req_write_i = host_cur->write;
            m.req_fn_i = uint8_t(host_cur->fn);
            m.req_addr_i = uint16_t(host_cur->addr);
            m.req_wdata_i = host_cur->wdata;
            m.req_be_i = host_cur->be;
        }
        m.msix_valid_i = card_cur.has_value();
        if (card_cur) {
            m.msix_fn_i = uint8_t(card_cur->fn);
            m.msix_vector_i = uint16_t(card_cur->vec);
        }
        m.flr_i = flr;
        m.cfg_interrupt_msi_sent_i = sent;
        m.cfg_interrupt_msi_fail_i = fail;
        drive_core();
        clk.eval();

        // Registered outputs: last cycle's read and request, the message of c - 2.
        if (exp_rsp) {
            uint32_t want = *exp_rsp;
            if (inject && reads == 11) want ^= 1;  // deliberate mismatch (--inject)
            chk.expect(m.rsp_valid_o && m.rsp_rdata_o == want, "cycle %ld read %ld: got %d/%08x want %08x", cyc,
                       reads, m.rsp_valid_o, m.rsp_rdata_o, want);
            reads++;
        } else {
            chk.expect(!m.rsp_valid_o, "cycle %ld: response without a read", cyc);
        }
        chk.expect(bool(m.drop_o) == exp_drop, "cycle %ld: drop_o %d, want %d", cyc, m.drop_o, exp_drop);
        dut_drops += m.drop_o;
        const bool want_msg = !exp_msg.empty() && exp_msg.front().due == cyc;
        if (m.cfg_interrupt_msix_int_o) {
            dut_msgs++;
            chk.expect(answer_at < cyc, "cycle %ld: a message while one is in flight", cyc);
            if (chk.expect(want_msg, "cycle %ld: message fn %u addr %016llx data %08x not expected", cyc,
                           m.cfg_interrupt_msi_function_number_o,
                           (unsigned long long)m.cfg_interrupt_msix_address_o, m.cfg_interrupt_msix_data_o)) {
                const Msg &x = exp_msg.front();
                chk.expect(m.cfg_interrupt_msi_function_number_o == x.fn_num &&
                               m.cfg_interrupt_msix_address_o == x.addr && m.cfg_interrupt_msix_data_o == x.data,
                           "cycle %ld: message fn %u addr %016llx data %08x, want fn %u vector %d addr %016llx "
                           "data %08x",
                           cyc, m.cfg_interrupt_msi_function_number_o,
                           (unsigned long long)m.cfg_interrupt_msix_address_o, m.cfg_interrupt_msix_data_o, x.fn_num,
                           ent_vec(x.entry), (unsigned long long)x.addr, x.data);
            }
            // The core answers after a random delay.
            answer_at = cyc + long(tb::rnd(rng, 1, tb::chance(rng, 0.7) ? std::min(4, max_delay) : max_delay));
            answer_fail = tb::chance(rng, p_fail);
        } else {
            chk.expect(!want_msg, "cycle %ld: expected message (fn %u vector %d) missing", cyc,
                       want_msg ? exp_msg.front().fn_num : 0, want_msg ? ent_vec(exp_msg.front().entry) : 0);
        }
        if (want_msg) exp_msg.pop_front();

        // This cycle through the reference.
        const bool look = ref.pick().has_value();
        chk.expect(bool(m.req_ready_o) == !look, "cycle %ld: req_ready_o %d, lookup %d", cyc, m.req_ready_o, look);
        std::optional<HostReq> h;
        std::optional<CardReq> k;
        if (host_cur && m.req_ready_o) {
            h = host_cur;
            host_cur.reset();
            writes += h->write;
        } else if (host_cur) {
            host_stalls++;
        }
        if (card_cur && m.msix_ready_o) {
            k = card_cur;
            card_cur.reset();
        }
        Ref::Out o = ref.step(cyc, h, k, flr, sent, fail, fn_en(), fn_ok());
        exp_rsp = o.rsp;
        exp_drop = o.drop;
        if (o.msg) exp_msg.push_back(*o.msg);
        clk.tick();
        cyc++;
    }

    bool quiet() const {
        return host_q.empty() && card_q.empty() && !host_cur && !card_cur && !ref.busy && exp_msg.empty() &&
               answer_at < cyc;
    }
    void run(long n) {
        for (long i = 0; i < n; i++) cycle();
    }
    void drain(long limit = 200000) {
        long n = 0;
        run(2);  // core bits changed by the caller act one cycle late
        while (!(quiet() && !ref.pick()) && n++ < limit) cycle();
        run(8);
        chk.expect(quiet(),
                   "cycle %ld: not drained (host %zu+%d, card %zu+%d, busy %d, %zu messages due, answer at %ld)", cyc, host_q.size(), host_cur.has_value(), card_q.size(), card_cur.has_value(), ref.busy,
                   exp_msg.size(), answer_at);
    }
    void write(int fn, uint32_t addr, uint32_t v, uint8_t be = 0xf) { host_q.push_back({true, fn, addr, v, be}); }
    void read(int fn, uint32_t addr) { host_q.push_back({false, fn, addr, 0, 0}); }
    void read_pbas() {
        for (int f = 0; f < NFN; f++)
            for (int w = 0; w < (nvec(f) + 31) / 32; w++) read(f, PBA_OFF + 4 * w);
    }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("msix");
    std::printf("[msix] seed %llu\n", (unsigned long long)args.seed);

    Bench b(chk, rng, args.inject);
    b.noise_ignored();
    b.p_fail = 0.0;

    // Directed: coalescing under the vector's Mask bit (PF vector 5) and
    // under the Function Mask (VF 2 = function 3, vector 6).
    b.set_fn(0, true, false);
    b.set_fn(3, true, true);
    b.run(2);
    b.write(0, 16 * 5 + 0, 0xfee01234);
    b.write(0, 16 * 5 + 4, 0x00000001);
    b.write(0, 16 * 5 + 8, 0x00004005);
    b.write(3, 16 * 6 + 0, 0xfee05678);
    b.write(3, 16 * 6 + 8, 0x00000036);
    b.write(3, 16 * 6 + 12, 0);  // its own Mask clear; the function is masked
    b.drain();
    for (int i = 0; i < 6; i++) b.card_q.push_back({0, 5}), b.card_q.push_back({3, 6});
    b.drain();
    b.read(0, PBA_OFF);
    b.read(3, PBA_OFF);
    b.drain();
    const long before = b.dut_msgs;
    chk.expect(before == 0 && b.ref.e[ent(0, 5)].pend && b.ref.e[ent(3, 6)].pend,
               "masked vectors: %ld messages, pending %d/%d", before, b.ref.e[ent(0, 5)].pend,
               b.ref.e[ent(3, 6)].pend);
    b.write(0, 16 * 5 + 12, 0);  // clear the Mask bit
    b.drain();
    b.set_fn(3, true, false);    // clear the Function Mask
    b.run(4);
    b.drain();
    b.read(0, PBA_OFF);
    b.read(3, PBA_OFF);
    b.drain();
    chk.expect(b.dut_msgs == 2 && b.ref.msgs[ent(0, 5)] == 1 && b.ref.msgs[ent(3, 6)] == 1,
               "coalescing: 12 requests of 2 masked vectors gave %ld messages", b.dut_msgs);
    std::printf("[msix] coalescing: 6 requests each of a Mask-ed and a Function-Mask-ed vector, %ld messages after "
                "unmask\n",
                b.dut_msgs);

    // Random: host traffic, requests, core bits, FLRs, fails; the rates
    // change every segment.
    b.rnd_traffic = b.rnd_core = b.rnd_flr = true;
    b.p_fail = 0.1;
    for (int f = 0; f < NFN; f++) b.set_fn(f, tb::chance(rng, 0.8), tb::chance(rng, 0.2));
    const long iters = args.iters(200000);
    for (long done = 0; done < iters;) {
        const double ph[] = {0.05, 0.3, 0.6, 0.95}, pc[] = {0.01, 0.08, 0.2, 0.6};
        b.p_host = ph[tb::rnd(rng, 0, 3)];
        b.p_card = pc[tb::rnd(rng, 0, 3)];
        b.max_delay = tb::chance(rng, 0.5) ? 4 : 40;
        long n = std::min<long>(iters - done, tb::rnd(rng, 2000, 20000));
        b.run(n);
        done += n;
    }
    const Ref &r = b.ref;
    std::printf("[msix] random: %ld cycles, %ld reads, %ld writes (%ld cycles waited), %ld FLRs\n", iters, b.reads,
                b.writes, b.host_stalls, r.flrs);
    std::printf("[msix] requests %ld: %ld dropped, %ld set a pending bit, %ld coalesced\n", r.reqs, r.dropped,
                r.new_pend, r.coalesced);
    std::printf("[msix] messages %ld: %ld sent, %ld failed (%ld set pending again); %ld pending cleared by FLR, "
                "%d pending now; longest deliverable wait %ld cycles\n",
                r.issued, r.sent, r.failed, r.repend, r.flr_cleared, r.pending(), r.max_wait);
    std::printf("[msix] corner cases: %ld requests in their vector's issue cycle, %ld fails after an FLR (%ld of "
                "them in the issue cycle), %ld fails of a vector pending again, %ld table writes to the entry in "
                "flight\n",
                r.same_cycle, r.fail_stale, r.fail_stale_issue, r.fail_merged, r.wr_in_flight);
    chk.expect(r.fail_stale_issue > 0, "no fail after an FLR in its message's issue cycle");

    // Final: everything enabled and unmasked; every pending vector is sent.
    b.rnd_traffic = b.rnd_core = b.rnd_flr = false;
    b.p_fail = 0.0;
    for (int f = 0; f < NFN; f++) b.set_fn(f, true, false);
    b.noise_ignored();
    b.drain();
    for (int f = 0; f < NFN; f++)
        for (int v = 0; v < nvec(f); v++) b.write(f, 16 * v + 12, 0);
    b.drain();
    b.read_pbas();
    b.drain();
    chk.expect(b.ref.pending() == 0, "after unmasking everything %d vectors still pending", b.ref.pending());
    chk.expect(b.dut_msgs == b.ref.issued, "messages: %ld from the block, %ld expected", b.dut_msgs, b.ref.issued);
    chk.expect(b.dut_drops == b.ref.dropped, "drops: %ld from the block, %ld expected", b.dut_drops, b.ref.dropped);
    // Every request ends dropped, coalesced, or as a pending bit that was
    // sent, cleared by an FLR, or failed and set again (then sent).
    chk.expect(r.reqs == r.dropped + r.coalesced + r.new_pend &&
                   r.new_pend + r.repend == r.issued + r.flr_cleared + r.pending() && r.issued == r.sent + r.failed,
               "request accounting");
    // Fairness: a deliverable vector waits at most NENT messages.
    const long bound = long(NENT + 1) * (ISSUE_TO_INT + 2 + 40);
    chk.expect(r.max_wait <= bound, "a vector waited %ld cycles deliverable (bound %ld)", r.max_wait, bound);
    std::printf("[msix] final: %ld messages in all, %ld drops, 0 pending\n", b.dut_msgs, b.dut_drops);

    // Throughput: all enabled and unmasked, the core answering sent the
    // cycle after the pulse, a request every cycle.
    b.max_delay = 1;
    const long m0 = b.dut_msgs, c0 = b.cyc;
    for (int i = 0; i < 4000; i++) {
        int f = int(tb::rnd(rng, 0, NVF));
        b.card_q.push_back({f, tb::rnd(rng, 0, uint32_t(nvec(f) - 1))});
    }
    while (!b.card_q.empty()) b.cycle();
    const double rate = double(b.dut_msgs - m0) / double(b.cyc - c0);
    b.drain();
    std::printf("[msix] throughput: %.3f messages per cycle with the core answering 1 cycle after the pulse; "
                "host read latency 1 cycle\n",
                rate);
    return chk.finish();
}
