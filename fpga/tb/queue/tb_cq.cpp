// kite_cq testbench: the completion/event writer against the model's
// QueueEngine (fpga/model/queue/queue.cpp, compiled in). Both get the same
// random command stream (CQEs to valid, missing, destroyed and overflowing
// CQs; CQ_CI / CQ_ARM / CQ_ARM_SOLICITED and EQ_CI / EQ_ARM doorbells with
// right, partial and garbage consumer indices; async events; CQ/EQ/function
// context writes and MODIFY_CQ moderation; time advancing in microseconds)
// and must produce the same CQE writes, EQE writes and MSI-X requests, each
// stream in the same order, plus the drop / overflow pulses. Commands the
// doorbell decoder or firmware would reject go to the RTL only and must be
// dropped with a pulse while the block keeps running. Then directed latency
// and throughput runs.
#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "Vkite_cq.h"
#include "tb.hpp"
// The model's queue engine is a library source: compiled into this testbench.
#include "../../model/queue/queue.cpp"

namespace {

using kite::model::Hw;
using kite::model::QueueEngine;
namespace ctx = kite::ctx;
namespace spec = kite::spec;

enum : uint8_t { CQE = 0, CQ_DB = 1, EQ_DB = 2, EVENT = 3, CQ_CTX = 4, CQ_MOD = 5, EQ_CTX = 6, FN_CTX = 7 };
constexpr uint32_t MAX_FN = ctx::MAX_FN;

struct Write {
    uint16_t fn;
    uint64_t addr;
    std::vector<uint8_t> b;
    long cqes_before;  // model CQE writes issued before this one (ordering check)
};
struct Msix {
    uint16_t fn, vec;
    long eqes_before;
};

// The reference: the model's QueueEngine on a Hw whose host callbacks record
// what the card does.
struct Model {
    Hw hw;
    QueueEngine q{hw};
    uint64_t now_ns = 0;
    std::deque<Write> cqe, eqe;
    std::deque<Msix> msix;
    std::deque<uint16_t> cq_overflow_cqn;
    Write part{};
    bool have_part = false;
    long n_cqe = 0, n_eqe = 0, n_msix = 0;
    long eq_overflows = 0, cq_overflows = 0;

    Model() {
        hw.ops.opaque = this;
        hw.ops.now_ns = [](void *o) { return static_cast<Model *>(o)->now_ns; };
        hw.ops.dma_write = [](void *o, kite_fn_t fn, uint64_t a, const void *b, size_t n) {
            static_cast<Model *>(o)->write(fn, a, static_cast<const uint8_t *>(b), n);
            return 0;
        };
        hw.ops.msix = [](void *o, kite_fn_t fn, uint16_t v) {
            Model *m = static_cast<Model *>(o);
            m->msix.push_back({fn, v, m->n_eqe});
            m->n_msix++;
        };
        hw.ops.log = [](void *o, int, const char *msg) {
            Model *m = static_cast<Model *>(o);
            unsigned n = 0;
            if (std::sscanf(msg, "kite: CQ %u overflow", &n) == 1) {
                m->cq_overflows++;
                m->cq_overflow_cqn.push_back(uint16_t(n));
            } else if (std::sscanf(msg, "kite: EQ %u overflow", &n) == 1) {
                m->eq_overflows++;
            }
        };
    }
    // The model writes an entry's body, then its owner byte: one entry.
    void write(uint16_t fn, uint64_t a, const uint8_t *b, size_t n) {
        if (have_part && n == 1 && a == part.addr + part.b.size()) {
            part.b.push_back(b[0]);
            have_part = false;
            if (part.b.size() == 32) {
                part.cqes_before = n_cqe++;
                cqe.push_back(part);
            } else {
                part.cqes_before = n_cqe;
                n_eqe++;
                eqe.push_back(part);
            }
            return;
        }
        part = {fn, a, std::vector<uint8_t>(b, b + n), 0};
        have_part = true;
    }
};

struct Cmd {
    uint8_t op = 0;
    uint16_t qn = 0, ci = 0;
    bool arm = false, sol = false;
    std::array<uint8_t, 32> d{};
};

void put16(uint8_t *p, uint16_t v) { p[0] = uint8_t(v); p[1] = uint8_t(v >> 8); }
void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = uint8_t(v >> (8 * i)); }

// Context fields as kite_cq takes them (module header).
Cmd ctx_cmd(uint8_t op, uint16_t qn, bool valid, uint8_t log, uint16_t fn, uint16_t eqn_or_vec, uint64_t base,
            uint16_t mod_usec, uint16_t mod_count, bool armed) {
    Cmd c;
    c.op = op;
    c.qn = qn;
    put64(&c.d[0], base);
    put16(&c.d[8], fn);
    put16(&c.d[10], eqn_or_vec);
    c.d[12] = uint8_t((log & 15) | (valid ? 16 : 0) | (armed ? 32 : 0));
    put16(&c.d[14], mod_usec);
    put16(&c.d[16], mod_count);
    return c;
}

struct Bench {
    Vkite_cq m;
    tb::Clock<Vkite_cq> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    Model ref;
    std::deque<Cmd> in;
    bool inject;
    double p_ready = 1.0, p_msix = 1.0;
    uint32_t now_us = 0;
    // RTL observations
    long r_cqe = 0, r_eqe = 0, r_msix = 0;
    long r_drop = 0, r_cqovf = 0, r_cqbad = 0, r_eqovf = 0, r_evdrop = 0, r_eqbad = 0;
    // expectations beyond the model's outputs
    long e_drop = 0, e_cqbad = 0, e_eqbad = 0, e_evdrop = 0;
    long accepted = 0;
    uint64_t last_accept_cycle = 0, first_accept_cycle = 0;
    uint64_t last_cqe_cycle = 0, last_eqe_cycle = 0, last_msix_cycle = 0;

    Bench(tb::Checker &c, tb::Rng &r, bool inj) : chk(c), rng(r), inject(inj) {
        m.cmd_valid_i = 0;
        m.tick_i = 0;
        m.now_us_i = 0;
        m.dma_wr_ready_i = 1;
        m.msix_ready_i = 1;
        clk.reset();
        for (int i = 0; i < 2000 && m.busy_o; i++) clk.tick();
        chk.expect(!m.busy_o, "context RAM initialisation finishes");
    }

    void cycle() {
        bool have = !in.empty();
        m.cmd_valid_i = have;
        if (have) {
            const Cmd &c = in.front();
            m.cmd_op_i = c.op;
            m.cmd_qn_i = c.qn;
            m.cmd_ci_i = c.ci;
            m.cmd_arm_i = c.arm;
            m.cmd_sol_i = c.sol;
            tb::put_bytes(m.cmd_data_i, c.d.data(), 32);
        }
        m.dma_wr_ready_i = tb::chance(rng, p_ready);
        m.msix_ready_i = tb::chance(rng, p_msix);
        clk.eval();
        bool acc = have && m.cmd_ready_o;
        if (m.dma_wr_valid_o && m.dma_wr_ready_i) check_write();
        if (m.msix_valid_o && m.msix_ready_i) check_msix();
        r_drop += m.cqe_drop_o;
        r_cqbad += m.cq_bad_o;
        r_eqovf += m.eq_overflow_o;
        r_evdrop += m.ev_drop_o;
        r_eqbad += m.eq_bad_o;
        if (m.cq_overflow_o) {
            r_cqovf++;
            uint16_t want = ref.cq_overflow_cqn.empty() ? 0xffff : ref.cq_overflow_cqn.front();
            if (!ref.cq_overflow_cqn.empty()) ref.cq_overflow_cqn.pop_front();
            chk.expect(m.cq_overflow_cqn_o == want, "overflow of CQ %u, want %u", m.cq_overflow_cqn_o, want);
        }
        if (acc) {
            in.pop_front();
            accepted++;
            last_accept_cycle = clk.cycle;
        }
        clk.tick();
        m.tick_i = 0;
    }

    void check_write() {
        uint32_t len = m.dma_wr_len_o;
        bool is_cqe = len == 32;
        auto &q = is_cqe ? ref.cqe : ref.eqe;
        if (!chk.expect(len == 32 || len == 16, "DMA write length %u", len)) return;
        if (!chk.expect(!q.empty(), "%s write at %llx that the model did not make", is_cqe ? "CQE" : "EQE",
                        (unsigned long long)m.dma_wr_addr_o))
            return;
        Write w = q.front();
        q.pop_front();
        if (inject && is_cqe && r_cqe == 4) w.b[3] ^= 0x10;  // deliberate mismatch (--inject)
        bool same = m.dma_wr_fn_o == w.fn && m.dma_wr_addr_o == w.addr && w.b.size() == len;
        for (uint32_t i = 0; same && i < len; i++) same = tb::get_byte(m.dma_wr_data_o, i) == w.b[i];
        chk.expect(same, "%s %ld: fn %u addr %llx owner %u, want fn %u addr %llx owner %u", is_cqe ? "CQE" : "EQE",
                   is_cqe ? r_cqe : r_eqe, m.dma_wr_fn_o, (unsigned long long)m.dma_wr_addr_o,
                   tb::get_byte(m.dma_wr_data_o, len - 1), w.fn, (unsigned long long)w.addr, w.b.back());
        if (is_cqe) {
            r_cqe++;
            last_cqe_cycle = clk.cycle;
        } else {
            // A COMP EQE must not overtake the CQE it reports.
            chk.expect(r_cqe >= w.cqes_before, "EQE %ld issued before CQE %ld", r_eqe, w.cqes_before);
            r_eqe++;
            last_eqe_cycle = clk.cycle;
        }
    }

    void check_msix() {
        if (!chk.expect(!ref.msix.empty(), "MSI-X fn %u vector %u that the model did not raise", m.msix_fn_o,
                        m.msix_vector_o))
            return;
        Msix x = ref.msix.front();
        ref.msix.pop_front();
        chk.expect(m.msix_fn_o == x.fn && m.msix_vector_o == x.vec, "MSI-X %ld: fn %u vec %u, want fn %u vec %u",
                   r_msix, m.msix_fn_o, m.msix_vector_o, x.fn, x.vec);
        chk.expect(r_eqe >= x.eqes_before, "MSI-X %ld before its EQE", r_msix);
        r_msix++;
        last_msix_cycle = clk.cycle;
    }

    // Runs until every command is taken and the block is idle.
    void drain() {
        long guard = 0;
        // At least one cycle: idle_o does not yet reflect a tick_i just raised.
        do cycle(); while ((!in.empty() || !m.idle_o) && guard++ < 100000);
        for (int i = 0; i < 3; i++) cycle();
        chk.expect(in.empty() && m.idle_o, "drains: %zu commands left, idle %d, dma %d msix %d busy %d, cycle %llu",
                   in.size(), m.idle_o, m.dma_wr_valid_o, m.msix_valid_o, m.busy_o, (unsigned long long)clk.cycle);
        chk.expect(ref.cqe.empty() && ref.eqe.empty() && ref.msix.empty(),
                   "model writes still expected: %zu CQE %zu EQE %zu MSI-X", ref.cqe.size(), ref.eqe.size(),
                   ref.msix.size());
        chk.expect(r_drop == e_drop && r_cqovf == ref.cq_overflows && r_cqbad == e_cqbad &&
                       r_eqovf == ref.eq_overflows && r_evdrop == e_evdrop && r_eqbad == e_eqbad,
                   "pulses: drop %ld/%ld cq_ovf %ld/%ld cq_bad %ld/%ld eq_ovf %ld/%ld ev_drop %ld/%ld eq_bad %ld/%ld",
                   r_drop, e_drop, r_cqovf, ref.cq_overflows, r_cqbad, e_cqbad, r_eqovf, ref.eq_overflows,
                   r_evdrop, e_evdrop, r_eqbad, e_eqbad);
    }

    // Time moves on: the model's timer runs at once; the RTL sweeps on tick_i.
    void advance(uint32_t us) {
        drain();
        now_us += us;
        ref.now_ns = uint64_t(now_us) * 1000;
        m.now_us_i = now_us;
        m.tick_i = 1;
        ref.q.timer(ref.now_ns);
        drain();
    }

    // ------------------------------------------------------------ commands
    // Each applies the command to the model (as the doorbell decoder and
    // firmware would pass it) and queues it for the RTL.
    void cqe(uint16_t cqn, const std::array<uint8_t, 32> &b, bool sol) {
        spec::cqe c;
        std::memcpy(&c, b.data(), 32);
        if (!ref.q.post_cqe(cqn, c, sol)) e_drop++;
        Cmd k;
        k.op = CQE;
        k.qn = cqn;
        k.sol = sol;
        k.d = b;
        in.push_back(k);
    }
    bool cq_ok(uint32_t n) const { return n > 0 && n < ctx::NUM_CQ && ref.hw.cq[n].valid; }
    bool eq_ok(uint32_t n) const { return n > 0 && n < ctx::NUM_EQ && ref.hw.eq[n].valid; }
    void cq_db(uint16_t cqn, uint16_t ci, bool arm, bool sol) {
        if (cq_ok(cqn)) ref.q.cq_doorbell(cqn, ci, arm, sol);
        else e_cqbad++;
        Cmd k;
        k.op = CQ_DB;
        k.qn = cqn;
        k.ci = ci;
        k.arm = arm;
        k.sol = sol;
        in.push_back(k);
    }
    void eq_db(uint16_t eqn, uint16_t ci, bool arm) {
        if (eq_ok(eqn)) ref.q.eq_doorbell(eqn, ci, arm);
        else e_eqbad++;
        Cmd k;
        k.op = EQ_DB;
        k.qn = eqn;
        k.ci = ci;
        k.arm = arm;
        in.push_back(k);
    }
    void event(uint16_t fn, const std::array<uint8_t, 32> &b) {
        spec::eqe e;
        std::memcpy(&e, b.data(), 16);
        if (fn < MAX_FN) {
            uint32_t a = ref.hw.func[fn].async_eqn;
            if (!a || !eq_ok(a)) e_evdrop++;
            ref.q.post_async(fn, e);
        } else {
            e_evdrop++;
        }
        Cmd k;
        k.op = EVENT;
        k.qn = fn;
        k.d = b;
        in.push_back(k);
    }
    void cq_create(uint16_t cqn, bool valid, uint8_t log, uint16_t fn, uint16_t eqn, uint16_t mus, uint16_t mcnt) {
        uint64_t base = 0x200000000ull + uint64_t(cqn) * 0x100000;
        bool bad = cqn == 0 || cqn >= ctx::NUM_CQ || (valid && (fn >= MAX_FN || eqn >= ctx::NUM_EQ));
        if (!bad) {
            ctx::cq_ctx c{};
            if (valid) {
                c.valid = 1;
                c.log_size = log;
                c.fn = fn;
                c.eqn = eqn;
                c.base = base;
                c.mod_usec = mus;
                c.mod_count = mcnt;
            }
            ref.hw.cq[cqn] = c;
            ref.q.cq_ctx_written(cqn);
        } else {
            e_cqbad++;
        }
        in.push_back(ctx_cmd(CQ_CTX, cqn, valid, log, fn, eqn, base, mus, mcnt, false));
    }
    void cq_modify(uint16_t cqn, uint16_t mus, uint16_t mcnt) {
        if (cq_ok(cqn)) {
            ref.hw.cq[cqn].mod_usec = mus;
            ref.hw.cq[cqn].mod_count = mcnt;
            ref.q.cq_ctx_written(cqn);
        } else {
            e_cqbad++;
        }
        in.push_back(ctx_cmd(CQ_MOD, cqn, false, 0, 0, 0, 0, mus, mcnt, false));
    }
    void eq_create(uint16_t eqn, uint8_t log, uint16_t fn, uint16_t vec) {
        uint64_t base = 0x100000000ull + uint64_t(eqn) * 0x100000;
        ctx::eq_ctx e{};
        e.valid = 1;
        e.log_size = log;
        e.armed = 1;  // firmware: a new EQ interrupts on its first event
        e.fn = fn;
        e.vector = vec;
        e.base = base;
        ref.hw.eq[eqn] = e;
        in.push_back(ctx_cmd(EQ_CTX, eqn, true, log, fn, vec, base, 0, 0, true));
    }
    void fn_async(uint16_t fn, uint16_t eqn) {
        ref.hw.func[fn].async_eqn = eqn;
        Cmd k;
        k.op = FN_CTX;
        k.qn = fn;
        put16(&k.d[0], eqn);
        in.push_back(k);
    }
    // A consumer index: caught up, part way, or garbage.
    uint16_t pick_ci(uint32_t pi, uint32_t ci) {
        uint32_t r = tb::rnd(rng, 0, 99);
        if (r < 55) return uint16_t(pi);
        if (r < 97) return uint16_t(ci + tb::rnd(rng, 0, pi - ci));
        return uint16_t(rng());
    }
    std::array<uint8_t, 32> random_cqe() {
        std::array<uint8_t, 32> b;
        for (auto &x : b) x = uint8_t(rng());
        if (tb::chance(rng, 0.15)) b[18] = spec::cqe_opcode::ERROR;
        return b;
    }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("cq");
    std::printf("[cq] seed %llu\n", (unsigned long long)args.seed);
    Bench b(chk, rng, args.inject);

    // ------------------------------------------------ random, against the model
    const int NEQ = 6;
    for (uint16_t e = 1; e <= NEQ; e++) b.eq_create(e, uint8_t(tb::rnd(rng, 2, 5)), uint16_t(e % 3), uint16_t(rng()));
    for (uint16_t f = 0; f < 3; f++) b.fn_async(f, uint16_t(f + 1));  // function 3 has no async EQ
    std::vector<uint16_t> cqs;
    auto new_cq = [&](uint16_t n) {
        uint16_t mus = tb::chance(rng, 0.5) ? 0 : uint16_t(tb::rnd(rng, 1, 4));
        uint16_t mcnt = tb::chance(rng, 0.5) ? 0 : uint16_t(tb::rnd(rng, 1, 6));
        b.cq_create(n, true, uint8_t(tb::rnd(rng, 2, 6)), uint16_t(tb::rnd(rng, 0, 2)),
                    uint16_t(tb::rnd(rng, 1, NEQ)), mus, mcnt);
    };
    cqs.push_back(1);
    cqs.push_back(uint16_t(ctx::NUM_CQ - 1));
    while (cqs.size() < 16) {
        uint16_t n = uint16_t(tb::rnd(rng, 2, ctx::NUM_CQ - 2));
        if (std::find(cqs.begin(), cqs.end(), n) == cqs.end()) cqs.push_back(n);
    }
    for (uint16_t n : cqs) new_cq(n);

    long comps_timer = 0, steps = args.iters(30000);
    for (long i = 0; i < steps; i++) {
        // Back-pressure in phases.
        if (i % 2000 == 0) {
            b.p_ready = tb::chance(rng, 0.5) ? 1.0 : 0.4 + 0.5 * (double(rng() % 100) / 100);
            b.p_msix = tb::chance(rng, 0.5) ? 1.0 : 0.5;
        }
        uint32_t r = tb::rnd(rng, 0, 999);
        uint16_t cqn = cqs[tb::rnd(rng, 0, uint32_t(cqs.size() - 1))];
        const ctx::cq_ctx &c = b.ref.hw.cq[cqn];
        // The driver destroys and re-creates a CQ that overflowed.
        if ((c.error || !c.valid) && tb::chance(rng, 0.05)) new_cq(cqn);
        if (r < 500) {
            uint16_t n = cqn;
            if (r < 15) n = 0;
            else if (r < 30) n = uint16_t(tb::rnd(rng, ctx::NUM_CQ, 0xffff));  // out of range
            else if (r < 45) n = uint16_t(tb::rnd(rng, 1, ctx::NUM_CQ - 1));   // mostly not created
            b.cqe(n, b.random_cqe(), tb::chance(rng, 0.3));
        } else if (r < 660) {
            bool bad = r < 670 - 165;
            uint16_t n = bad ? uint16_t(tb::chance(rng, 0.5) ? 0 : tb::rnd(rng, 1, 0xffff)) : cqn;
            bool arm = tb::chance(rng, 0.6);
            b.cq_db(n, b.pick_ci(c.pi, c.ci), arm, arm && tb::chance(rng, 0.3));
        } else if (r < 800) {
            uint16_t e = uint16_t(tb::rnd(rng, 1, NEQ));
            if (r < 805 - 140) e = uint16_t(tb::chance(rng, 0.5) ? 0 : tb::rnd(rng, NEQ + 1, 0xffff));
            const ctx::eq_ctx &q = b.ref.hw.eq[e < ctx::NUM_EQ ? e : 0];
            b.eq_db(e, b.pick_ci(q.pi, q.ci), tb::chance(rng, 0.6));
        } else if (r < 850) {
            std::array<uint8_t, 32> ev{};
            for (int k = 0; k < 16; k++) ev[k] = uint8_t(rng());
            b.event(uint16_t(tb::rnd(rng, 0, MAX_FN + 3)), ev);
        } else if (r < 870) {
            if (tb::chance(rng, 0.2)) b.cq_create(cqn, false, 0, 0, 0, 0, 0);  // destroyed until re-created
            else new_cq(cqn);
        } else if (r < 875) {
            // Firmware would refuse these: function or EQ out of range, CQ 0.
            b.cq_create(tb::chance(rng, 0.5) ? 0 : cqn, true, 3, uint16_t(MAX_FN + tb::rnd(rng, 0, 5)), 1, 0, 0);
        } else if (r < 905) {
            b.cq_modify(tb::chance(rng, 0.9) ? cqn : uint16_t(tb::rnd(rng, 1, 0xffff)),
                        tb::chance(rng, 0.5) ? 0 : uint16_t(tb::rnd(rng, 1, 4)),
                        tb::chance(rng, 0.5) ? 0 : uint16_t(tb::rnd(rng, 1, 6)));
        } else if (r < 910) {
            uint16_t e = uint16_t(tb::rnd(rng, 1, NEQ));
            b.eq_create(e, uint8_t(tb::rnd(rng, 2, 5)), uint16_t(e % 3), uint16_t(rng()));
        } else if (r < 960) {
            long before = b.ref.n_eqe;
            b.advance(tb::rnd(rng, 1, 3));
            comps_timer += b.ref.n_eqe - before;
        }
        // Let the RTL run behind the model by a bounded amount.
        while (b.in.size() > 8) b.cycle();
        if (tb::chance(rng, 0.3)) b.cycle();
    }
    b.drain();
    std::printf("[cq] random: %ld CQEs, %ld EQEs, %ld MSI-X, %ld CQEs dropped, %ld CQ overflows, %ld EQ overflows, "
                "%ld moderation-timer events, %ld bad doorbells/contexts\n",
                b.r_cqe, b.r_eqe, b.r_msix, b.r_drop, b.r_cqovf, b.r_eqovf, comps_timer, b.r_cqbad + b.r_eqbad);
    chk.expect(b.r_cqe > 1000 && b.r_eqe > 300 && b.r_msix > 100 && b.r_cqovf > 5 && b.r_eqovf > 5 &&
                   comps_timer > 20 && b.r_evdrop > 10,
               "coverage");

    // ------------------------------------------------ directed: latency
    b.p_ready = b.p_msix = 1.0;
    b.eq_create(7, 12, 0, 42);
    b.cq_create(200, true, 12, 0, 7, 0, 0);
    b.cq_db(200, 0, true, false);
    b.drain();
    {
        std::array<uint8_t, 32> x{};
        x[0] = 0x55;
        b.cqe(200, x, false);
        uint64_t c0 = b.clk.cycle;  // accepted this cycle (idle, ready)
        b.drain();
        long lc = long(b.last_cqe_cycle - c0), le = long(b.last_eqe_cycle - c0), lm = long(b.last_msix_cycle - c0);
        std::printf("[cq] latency: CQE accepted -> CQE write %ld cycles, -> COMP EQE write %ld, -> MSI-X %ld\n", lc,
                    le, lm);
        chk.expect(lc == 2 && le == 4 && lm == 5, "latency");
        // Arming with an unseen CQE: event at once (no lost wake-up).
        b.eq_db(7, uint16_t(b.ref.hw.eq[7].pi), true);
        b.cqe(200, x, false);
        b.drain();
        b.cq_db(200, uint16_t(b.ref.hw.cq[200].ci), true, false);
        uint64_t c1 = b.clk.cycle;
        b.drain();
        std::printf("[cq] latency: CQ_ARM with an unseen CQE -> EQE write %ld cycles, -> MSI-X %ld\n",
                    long(b.last_eqe_cycle - c1), long(b.last_msix_cycle - c1));
    }

    // ------------------------------------------------ throughput
    {
        std::vector<uint16_t> big;
        for (uint16_t n = 300; n < 332; n++) {
            b.cq_create(n, true, 15, 0, 7, 0, 0);
            big.push_back(n);
        }
        b.drain();
        const long N = 4096;
        long a0 = b.accepted, r0 = b.r_cqe;
        uint64_t t0 = b.clk.cycle;
        b.first_accept_cycle = t0;
        for (long i = 0; i < N; i++) {
            b.cqe(big[i % big.size()], b.random_cqe(), false);
            while (b.in.size() > 4) b.cycle();
        }
        b.drain();
        double cpc = double(b.r_cqe - r0) / double(b.last_cqe_cycle - t0 + 1 - 2);
        std::printf("[cq] throughput: %ld CQEs to 32 CQs back to back: %ld accepted in %llu cycles, %.3f CQE/cycle "
                    "written\n",
                    N, b.accepted - a0, (unsigned long long)(b.last_accept_cycle - b.first_accept_cycle + 1), cpc);
        chk.expect(b.r_cqe - r0 == N && cpc > 0.99, "one CQE per cycle");

        // Every CQE to an armed CQ, re-armed each time: CQE + COMP EQE + MSI-X.
        for (uint16_t n : big) b.cq_db(n, uint16_t(b.ref.hw.cq[n].pi), true, false);
        b.eq_db(7, uint16_t(b.ref.hw.eq[7].pi), false);
        b.drain();
        long e0 = b.r_eqe, x0 = b.r_msix;
        r0 = b.r_cqe;
        t0 = b.clk.cycle;
        const long M = 1024;
        for (long i = 0; i < M; i++) {
            uint16_t n = big[i % big.size()];
            b.cqe(n, b.random_cqe(), false);
            b.cq_db(n, uint16_t(b.ref.hw.cq[n].pi), true, false);
            if (i % 256 == 255) b.eq_db(7, uint16_t(b.ref.hw.eq[7].pi), true);
            while (b.in.size() > 4) b.cycle();
        }
        b.drain();
        uint64_t span = std::max(b.last_cqe_cycle, b.last_eqe_cycle) - t0;
        std::printf("[cq] throughput: %ld CQEs each to an armed CQ plus its CQ_ARM (2 commands): %ld CQEs + %ld EQEs "
                    "+ %ld MSI-X in %llu cycles, %.3f CQE/cycle, %.3f DMA writes/cycle\n",
                    M, b.r_cqe - r0, b.r_eqe - e0, b.r_msix - x0, (unsigned long long)span,
                    double(b.r_cqe - r0) / double(span), double(b.r_cqe - r0 + b.r_eqe - e0) / double(span));
        chk.expect(b.r_eqe - e0 >= M, "one event per CQE");
    }
    b.drain();
    std::printf("[cq] totals: %ld CQEs, %ld EQEs, %ld MSI-X compared\n", b.r_cqe, b.r_eqe, b.r_msix);
    return chk.finish();
}
