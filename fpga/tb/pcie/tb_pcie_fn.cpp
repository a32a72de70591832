// kite_pcie_fn testbench. The bench plays the UltraScale+ PCIe core (PG213)
// on one side and the card (kite_card_sys) on the other.
//
// * Configuration space of PF0, per epoch (the block is reset between
//   epochs): a list of 0-4 extended capabilities (random IDs other than
//   SR-IOV, random DWORD-aligned offsets >= 0x100) before the SR-IOV one,
//   sometimes more after it; or, in directed epochs, no SR-IOV capability at
//   all: a list ending in next pointer 0, one ending in a pointer below 0x100
//   (an SR-IOV header sits there as a decoy), or one that loops (the walk
//   must stop after 32 headers). Every other DWORD reads as noise.
// * cfg_mgmt: a read is answered after 1-12 cycles while it is held; the
//   read data is noise in every other cycle. Each read must be the one the
//   walk or the polling round reads next (the walk's headers in list order,
//   then Control and NumVFs alternately), function 0, all byte enables, no
//   write, address steady while held, low the cycle after its done; walks
//   and rounds start every POLL cycles (plus the previous one's time).
// * The host changes VF Enable and NumVFs (0..NVF+5, sometimes any 16-bit
//   value) at random times, at least 20 cycles apart (longer than a round's
//   two reads, so a round never mixes two changes into a value that was
//   never there); NumVFs mostly only while VF Enable is clear (SR-IOV), not
//   always. num_vfs_o must never show a value that was not the expected one
//   (VF Enable ? min(NumVFs, NVF) : 0, or 0 after reset) at some time in the
//   last window, and must equal it once it has been stable for the window
//   (2 * POLL + two reads' latency).
// * FLR: the core raises random PF0 and VF in-process bits (bursts too),
//   holds each until it sees its done (cfg_flr_done_o[0], or
//   cfg_vf_flr_done_o with cfg_vf_flr_func_num_o = v), then clears it; it
//   also raises bits the card does not have (VFs >= NVF, PFs 1-3), which
//   must give nothing, and holds some bits through a reset (an FLR the block
//   must still report). The card answers each flr_o pulse with a flr_done_i
//   pulse after a random delay, sometimes in the same cycle as another.
//   flr_o must pulse exactly on each rising edge, on its bit; the done
//   outputs must follow a reference of the pending-bit rule exactly; every
//   done is for an FLR in process whose flr_o was seen and whose card done
//   was sent; every FLR completes.
// * Directed: after each epoch the card pulses done bits in bursts (the same
//   VF in consecutive cycles), so a done arrives for the VF being signalled
//   in that cycle: it must not be lost.
#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <numeric>
#include <vector>

#include "Vkite_pcie_fn.h"
#include "tb.hpp"

namespace {

constexpr unsigned NVF = 16, POLL = 1024, LAT_MAX = 12, NVF_CORE = 252;
constexpr uint32_t SRIOV = 0x0010, EXT = 0x40;          // EXT: DWORD address of byte 0x100
constexpr uint64_t READ_MAX = LAT_MAX + 1;              // cycles of one read, incl. the gap
constexpr uint64_t WINDOW = 2 * POLL + 2 * READ_MAX + 8;

uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

enum class Layout { SRIOV, END0, LOW_PTR, LOOP };
const char *layout_name(Layout l) {
    switch (l) {
    case Layout::SRIOV: return "SR-IOV";
    case Layout::END0: return "no SR-IOV, ends at 0";
    case Layout::LOW_PTR: return "no SR-IOV, pointer < 0x100";
    default: return "no SR-IOV, loop";
    }
}

// PF0's configuration space, DWORD addresses.
struct CfgSpace {
    std::map<uint32_t, uint32_t> regs;
    uint64_t salt = 0;
    std::vector<uint32_t> walk;  // the headers a walk reads, in order
    uint32_t cap = 0;            // SR-IOV capability; 0: none in the list
    uint32_t read(uint32_t a) const {
        auto it = regs.find(a);
        return it != regs.end() ? it->second : uint32_t(mix(a ^ salt));
    }
};

uint32_t other_id(tb::Rng &r) {
    static const uint16_t common[] = {0x0001, 0x0003, 0x000b, 0x000e, 0x0019, 0x001e, 0x0100, 0x1000, 0x0011};
    uint32_t id;
    do id = tb::chance(r, 0.5) ? common[tb::rnd(r, 0, 8)] : tb::rnd(r, 0, 0xffff);
    while (id == SRIOV);
    return id;
}

CfgSpace make_cfg(tb::Rng &r, Layout lay) {
    CfgSpace c;
    c.salt = r();
    const bool sriov = lay == Layout::SRIOV;
    unsigned others = sriov ? tb::rnd(r, 0, 4) : tb::rnd(r, 1, 4);
    unsigned tail = sriov && tb::chance(r, 0.5) ? tb::rnd(r, 1, 2) : 0;  // after SR-IOV: never read
    unsigned n = others + (sriov ? 1 : 0) + tail;
    // The first header is at 0x100; the others in distinct 64-byte slots.
    std::vector<unsigned> slots(59);
    std::iota(slots.begin(), slots.end(), 1u);
    std::shuffle(slots.begin(), slots.end(), r);
    std::vector<uint32_t> off(n);  // byte offsets, list order
    for (unsigned i = 0; i < n; i++) off[i] = i == 0 ? 0x100 : 0x100 + 0x40 * slots[i - 1] + 4 * tb::rnd(r, 0, 7);
    for (unsigned i = 0; i < n; i++) {
        uint32_t next = i + 1 < n ? off[i + 1] : 0;
        if (i + 1 == n) {
            if (lay == Layout::LOW_PTR) next = 4 * tb::rnd(r, 1, 0x3b);  // the decoy stays below 0x100
            if (lay == Layout::LOOP) next = off[tb::rnd(r, 0, i)];
        }
        uint32_t id = sriov && i == others ? SRIOV : other_id(r);
        c.regs[off[i] / 4] = next << 20 | tb::rnd(r, 0, 15) << 16 | id;
        for (uint32_t k = 1; k < 8; k++) c.regs[off[i] / 4 + k] = uint32_t(r());  // capability body
    }
    if (lay == Layout::LOW_PTR) {
        // A decoy SR-IOV header, VFs enabled, where the pointer points: never to be read.
        uint32_t d = (c.regs[off[n - 1] / 4] >> 20) / 4;
        c.regs[d] = SRIOV | 1 << 16;
        c.regs[d + 2] = 1;
        c.regs[d + 4] = 5;
    }
    // The walk the block must make.
    uint32_t a = EXT;
    for (;;) {
        c.walk.push_back(a);
        uint32_t h = c.read(a);
        if ((h & 0xffff) == SRIOV) { c.cap = a; break; }
        if ((h >> 20) < 0x100 || c.walk.size() == 32) break;
        a = (h >> 20) / 4;
    }
    return c;
}

struct Bench {
    Vkite_pcie_fn m;
    tb::Clock<Vkite_pcie_fn> clk{m};
    tb::Checker &chk;
    tb::Rng &rng;
    bool inject = false;
    uint64_t cyc = 0;
    CfgSpace cfg;

    // cfg_mgmt, the core's side
    bool busy = false, after_done = false;
    unsigned lat = 0;
    uint32_t raddr = 0;
    size_t walk_pos = 0;
    bool rounds = false, want_ctrl = true, have_walk = false, have_round = false;
    uint64_t walk_start = 0, round_start = 0;

    // the host's SR-IOV registers and the expected num_vfs_o over time
    uint32_t ctrl = 0, num = 0;
    uint64_t next_change = 0, conv_from = 0;
    bool conv_wait = false;
    std::deque<std::pair<uint64_t, unsigned>> hist;  // (from cycle, expected value)

    // FLR, the core's side
    bool pf_in = false;
    unsigned pf_hi = 0;                       // PFs 1-3 (not on the card)
    std::array<bool, NVF_CORE> vf_in{};
    std::array<uint64_t, NVF_CORE> ign_clear{};  // VFs >= NVF: when the core drops them
    std::array<bool, NVF + 1> flr_seen{}, done_sent{};
    std::array<uint64_t, NVF + 1> raised_at{};
    uint32_t prev_in = 0;                     // last cycle's in-process bits, card numbering
    // expected outputs after the coming tick
    uint32_t exp_flr = 0, ref_pend = 0;
    bool exp_pf_done = false, exp_vf_done = false;
    unsigned exp_vf_num = 0;

    // the card
    std::multimap<uint64_t, unsigned> card_due;  // cycle -> function (card numbering)
    bool directed = false;
    uint32_t forced_done = 0;

    // figures
    long reads = 0, walks = 0, headers = 0, nrounds = 0, changes = 0, over_nvf = 0;
    uint64_t conv_max = 0, walk_gap_min = ~0ULL, walk_gap_max = 0, round_gap_min = ~0ULL, round_gap_max = 0;
    long raised_pf = 0, raised_vf = 0, raised_ign_vf = 0, raised_ign_pf = 0, held_reset = 0, pulses = 0;
    long pf_dones = 0, vf_dones = 0, same_cycle = 0, set_wins = 0, directed_dones = 0;
    uint64_t flr_lat_max = 0;
    std::array<long, NVF + 1> values_seen{};

    Bench(tb::Checker &c, tb::Rng &r) : chk(c), rng(r) {
        m.clk_i = 0;
        m.rst_ni = 1;
        m.cfg_mgmt_read_write_done_i = 0;
        m.cfg_mgmt_read_data_i = 0;
        m.cfg_flr_in_process_i = 0;
        for (int i = 0; i < 8; i++) m.cfg_vf_flr_in_process_i[i] = 0;
        m.flr_done_i = 0;
        m.eval();
    }

    unsigned expected_vfs() const {
        return (ctrl & 1) ? std::min<unsigned>(num & 0xffff, NVF) : 0;
    }
    bool in_process(unsigned f) const { return f == 0 ? pf_in : vf_in[f - 1]; }
    uint32_t in_word() const {
        uint32_t w = pf_in;
        for (unsigned v = 0; v < NVF; v++) w |= uint32_t(vf_in[v]) << (v + 1);
        return w;
    }
    void drive_in_process() {
        m.cfg_flr_in_process_i = uint8_t(pf_in | pf_hi << 1);
        for (int i = 0; i < 8; i++) m.cfg_vf_flr_in_process_i[i] = 0;
        for (unsigned v = 0; v < NVF_CORE; v++)
            if (vf_in[v]) m.cfg_vf_flr_in_process_i[v / 32] |= 1u << (v % 32);
    }
    bool flr_idle() const {
        bool any = pf_in;
        for (unsigned v = 0; v < NVF; v++) any |= vf_in[v];
        return !any && card_due.empty() && ref_pend == 0 && !exp_pf_done && !exp_vf_done;
    }

    // A new configuration space and a reset; FLRs may be held through it.
    void epoch(Layout lay, bool hold_flr) {
        cfg = make_cfg(rng, lay);
        ctrl = uint32_t(rng()) & ~1u;
        num = uint32_t(rng()) & 0xff0000u | tb::rnd(rng, 0, NVF + 5);
        if (tb::chance(rng, 0.5)) ctrl |= 1;
        if (cfg.cap) {
            cfg.regs[cfg.cap + 2] = ctrl;
            cfg.regs[cfg.cap + 4] = num;
        } else {
            ctrl = num = 0;
        }
        m.rst_ni = 0;
        m.cfg_mgmt_read_write_done_i = 0;
        m.flr_done_i = 0;
        if (hold_flr) {
            if (tb::chance(rng, 0.5)) pf_in = true;
            for (unsigned k = tb::rnd(rng, 1, 4); k; k--) vf_in[tb::rnd(rng, 0, NVF - 1)] = true;
            vf_in[tb::rnd(rng, NVF, NVF_CORE - 1)] = true;  // not the card's: nothing to report
            for (unsigned v = NVF; v < NVF_CORE; v++) if (vf_in[v]) ign_clear[v] = cyc + tb::rnd(rng, 10, 300);
        }
        drive_in_process();
        for (int i = 0; i < 4; i++) {
            clk.tick();
            cyc++;
            chk.expect(!m.cfg_mgmt_read_o && !m.flr_o && !m.num_vfs_o && !m.cfg_vf_flr_done_o && !m.cfg_flr_done_o,
                       "outputs idle in reset");
        }
        m.rst_ni = 1;
        busy = after_done = rounds = have_walk = have_round = false;
        walk_pos = 0;
        want_ctrl = true;
        ref_pend = 0;
        exp_pf_done = exp_vf_done = false;
        uint32_t in = in_word();
        exp_flr = in;  // the previous value is 0 after reset: a held bit is an edge
        prev_in = in;
        for (unsigned f = 0; f <= NVF; f++)
            if (in >> f & 1) { held_reset++; raised_at[f] = cyc; }
        hist.clear();
        hist.emplace_back(cyc, 0);
        if (expected_vfs() != 0) hist.emplace_back(cyc, expected_vfs());
        conv_wait = true;
        conv_from = cyc;
        next_change = cyc + tb::rnd(rng, 100, 3000);
        clk.tick();
        cyc++;
    }

    // ------------------------------------------------------------ observe
    void start_read(uint32_t a) {
        reads++;
        chk.expect(!m.cfg_mgmt_write_o && m.cfg_mgmt_function_number_o == 0 && m.cfg_mgmt_byte_enable_o == 0xf,
                   "read of %03x: write %d, function %u, byte enables %x", a, m.cfg_mgmt_write_o,
                   m.cfg_mgmt_function_number_o, m.cfg_mgmt_byte_enable_o);
        busy = true;
        lat = tb::rnd(rng, 1, LAT_MAX);
        raddr = a;
        if (!rounds) {
            if (walk_pos == 0 || walk_pos == cfg.walk.size()) {
                if (have_walk) {
                    uint64_t gap = cyc - walk_start;
                    walk_gap_min = std::min(walk_gap_min, gap);
                    walk_gap_max = std::max(walk_gap_max, gap);
                    chk.expect(gap >= POLL && gap <= POLL + 32 * READ_MAX + 8,
                               "walk retried %llu cycles after the last (POLL %u)", (unsigned long long)gap, POLL);
                }
                have_walk = true;
                walk_start = cyc;
                walks++;
                walk_pos = 0;
            }
            chk.expect(a == cfg.walk[walk_pos], "walk read %u: DWORD %03x, want the header at %03x", unsigned(walk_pos),
                       a, cfg.walk[walk_pos]);
            walk_pos++;
            headers++;
            if (walk_pos == cfg.walk.size() && cfg.cap) rounds = true;
        } else {
            uint32_t want = cfg.cap + (want_ctrl ? 2 : 4);
            chk.expect(a == want, "round read of DWORD %03x, want %03x (%s)", a, want, want_ctrl ? "Control" : "NumVFs");
            if (want_ctrl) {
                if (have_round) {
                    uint64_t gap = cyc - round_start;
                    round_gap_min = std::min(round_gap_min, gap);
                    round_gap_max = std::max(round_gap_max, gap);
                    chk.expect(gap >= POLL && gap <= POLL + 2 * READ_MAX + 8,
                               "round %llu cycles after the last (POLL %u)", (unsigned long long)gap, POLL);
                }
                have_round = true;
                round_start = cyc;
                nrounds++;
            }
            want_ctrl = !want_ctrl;
        }
    }

    void observe_cfg() {
        bool rd = m.cfg_mgmt_read_o;
        if (after_done) {
            chk.expect(!rd, "read still held the cycle after its done");
            after_done = false;
        } else if (busy) {
            chk.expect(rd && m.cfg_mgmt_addr_o == raddr, "read dropped or moved before its done (%d, %03x, %03x)", rd,
                       m.cfg_mgmt_addr_o, raddr);
        } else if (rd) {
            start_read(m.cfg_mgmt_addr_o);
        }
        if (!rd) chk.expect(!m.cfg_mgmt_write_o, "no write");

        unsigned nv = m.num_vfs_o;
        if (nv <= NVF) values_seen[nv]++;
        while (hist.size() >= 2 && hist[1].first + WINDOW <= cyc) hist.pop_front();
        bool ok = false;
        for (auto &h : hist) ok |= h.second == nv;
        chk.expect(ok, "num_vfs_o %u at cycle %llu was not the config value in the last %llu cycles (now %u)", nv,
                   (unsigned long long)cyc, (unsigned long long)WINDOW, hist.back().second);
        if (cyc - hist.back().first >= WINDOW)
            chk.expect(nv == hist.back().second, "num_vfs_o %u, the config says %u for %llu cycles", nv,
                       hist.back().second, (unsigned long long)(cyc - hist.back().first));
        if (conv_wait && nv == hist.back().second) {
            conv_max = std::max(conv_max, cyc - conv_from);
            conv_wait = false;
        }
    }

    void observe_flr() {
        uint32_t flr = m.flr_o;
        chk.expect(flr == exp_flr, "flr_o %05x, want %05x (cycle %llu)", flr, exp_flr, (unsigned long long)cyc);
        for (unsigned f = 0; f <= NVF; f++) {
            if (!(flr >> f & 1)) continue;
            pulses++;
            if (!in_process(f) || flr_seen[f]) continue;  // reported above; keep the card sane
            flr_seen[f] = true;
            uint64_t due = cyc + tb::rnd(rng, 1, 300);
            if (!card_due.empty() && tb::chance(rng, 0.3)) {  // with another function's done
                auto it = card_due.begin();
                std::advance(it, tb::rnd(rng, 0, unsigned(card_due.size() - 1)));
                due = it->first;
            }
            card_due.emplace(due, f);
        }

        bool pfd = m.cfg_flr_done_o & 1;
        chk.expect((m.cfg_flr_done_o >> 1) == 0, "cfg_flr_done_o[3:1] %x", m.cfg_flr_done_o >> 1);
        chk.expect(pfd == exp_pf_done, "cfg_flr_done_o[0] %d, want %d", pfd, exp_pf_done);
        if (pfd) {
            if (directed) {
                directed_dones++;
            } else {
                pf_dones++;
                chk.expect(pf_in && flr_seen[0] && done_sent[0], "PF0 FLR done: in process %d, flr_o seen %d, card done %d",
                           pf_in, flr_seen[0], done_sent[0]);
                flr_lat_max = std::max(flr_lat_max, cyc - raised_at[0]);
                pf_in = false;  // the core ends the FLR
                flr_seen[0] = done_sent[0] = false;
            }
        }

        bool vd = m.cfg_vf_flr_done_o;
        unsigned vn = m.cfg_vf_flr_func_num_o;
        unsigned want = exp_vf_num;
        if (inject && vd && vf_dones == 9) want ^= 1;  // deliberate mismatch (--inject)
        chk.expect(vd == exp_vf_done && (!vd || vn == want), "VF FLR done %d func %u, want %d func %u (cycle %llu)", vd, vn,
                   exp_vf_done, want, (unsigned long long)cyc);
        if (vd) {
            if (directed) {
                directed_dones++;
            } else {
                vf_dones++;
                bool ok = vn < NVF && vf_in[vn] && flr_seen[vn + 1] && done_sent[vn + 1];
                chk.expect(ok, "VF %u FLR done without its FLR, flr_o or card done", vn);
                if (vn < NVF) {
                    flr_lat_max = std::max(flr_lat_max, cyc - raised_at[vn + 1]);
                    vf_in[vn] = false;
                    flr_seen[vn + 1] = done_sent[vn + 1] = false;
                }
            }
        }
    }

    // ------------------------------------------------------------ drive
    void host_change() {
        bool vfe = ctrl & 1;
        if (tb::chance(rng, 0.5) || (vfe && tb::chance(rng, 0.8))) {
            ctrl = (uint32_t(rng()) & ~1u) | !vfe;
        } else {
            uint32_t n = tb::chance(rng, 0.9) ? tb::rnd(rng, 0, NVF + 5) : tb::rnd(rng, 0, 0xffff);
            num = (uint32_t(rng()) & 0xff0000u) | n;
            over_nvf += n > NVF;
        }
        cfg.regs[cfg.cap + 2] = ctrl;
        cfg.regs[cfg.cap + 4] = num;
        changes++;
        unsigned f = expected_vfs();
        if (f != hist.back().second) {
            hist.emplace_back(cyc, f);
            conv_wait = true;
            conv_from = cyc;
        }
    }

    void raise_vf(unsigned v) {
        if (vf_in[v] || (prev_in >> (v + 1) & 1)) return;  // low for a cycle before a new FLR
        vf_in[v] = true;
        raised_at[v + 1] = cyc;
        raised_vf++;
    }

    void core_flr(bool traffic) {
        for (unsigned v = NVF; v < NVF_CORE; v++)
            if (vf_in[v] && ign_clear[v] <= cyc) vf_in[v] = false;
        if (!traffic || !tb::chance(rng, 0.01)) return;
        unsigned k = tb::rnd(rng, 0, 99);
        if (k < 10) {
            if (!pf_in && !(prev_in & 1)) {
                pf_in = true;
                raised_at[0] = cyc;
                raised_pf++;
            }
        } else if (k < 72) {
            raise_vf(tb::rnd(rng, 0, NVF - 1));
        } else if (k < 80) {
            for (unsigned n = tb::rnd(rng, 2, 8); n; n--) raise_vf(tb::rnd(rng, 0, NVF - 1));
        } else if (k < 92) {
            unsigned v = tb::chance(rng, 0.5) ? tb::rnd(rng, NVF, NVF + 3) : tb::rnd(rng, NVF, NVF_CORE - 1);
            if (!vf_in[v]) {
                vf_in[v] = true;
                ign_clear[v] = cyc + tb::rnd(rng, 1, 300);
                raised_ign_vf++;
            }
        } else {
            pf_hi ^= 1u << tb::rnd(rng, 0, 2);
            raised_ign_pf++;
        }
    }

    void drive(bool traffic) {
        // cfg_mgmt: the answer, noise when there is none
        m.cfg_mgmt_read_write_done_i = 0;
        m.cfg_mgmt_read_data_i = uint32_t(rng());
        if (busy && --lat == 0) {
            m.cfg_mgmt_read_write_done_i = 1;
            m.cfg_mgmt_read_data_i = cfg.read(raddr);
            busy = false;
            after_done = true;
        }
        // the host, between reads
        if (cfg.cap && cyc >= next_change) {
            host_change();
            next_change = cyc + (tb::chance(rng, 0.4) ? tb::rnd(rng, 20, 400) : tb::rnd(rng, WINDOW, WINDOW + 3000));
        }
        // the core's FLRs
        core_flr(traffic);
        drive_in_process();
        uint32_t in = in_word();
        exp_flr = in & ~prev_in;
        prev_in = in;
        // the card's dones
        uint32_t done = 0;
        if (directed) {
            done = forced_done;
        } else {
            unsigned n = 0;
            while (!card_due.empty() && card_due.begin()->first <= cyc) {
                unsigned f = card_due.begin()->second;
                done |= 1u << f;
                done_sent[f] = true;
                card_due.erase(card_due.begin());
                n++;
            }
            same_cycle += n > 1;
        }
        m.flr_done_i = done;
        // reference: PF0 straight through; VFs pending, lowest first, set wins
        exp_pf_done = done & 1;
        uint32_t vfb = done >> 1;
        uint32_t low = ref_pend & (~ref_pend + 1);
        exp_vf_done = ref_pend != 0;
        exp_vf_num = low ? unsigned(__builtin_ctz(low)) : 0;
        set_wins += (low & vfb) != 0;
        ref_pend = (ref_pend & ~low) | vfb;
    }

    void step(bool traffic = true) {
        observe_cfg();
        observe_flr();
        drive(traffic);
        clk.tick();
        cyc++;
    }

    void drain() {
        long n = 0;
        while (!flr_idle() && n++ < 50000) step(false);
        chk.expect(flr_idle(), "every FLR completes (PF0 %d, card dones due %zu, pending %x)", pf_in, card_due.size(),
                   ref_pend);
        for (int i = 0; i < 4; i++) step(false);
    }

    // Done pulses in bursts, the same VF in consecutive cycles.
    void directed_dones_burst() {
        directed = true;
        for (int r = 0; r < 40; r++) {
            uint32_t mask = 0;
            for (unsigned k = tb::rnd(rng, 1, 4); k; k--) mask |= 1u << tb::rnd(rng, 0, NVF);
            for (int i = 0; i < 12; i++) {
                forced_done = 0;
                for (unsigned f = 0; f <= NVF; f++)
                    if ((mask >> f & 1) && tb::chance(rng, 0.6)) forced_done |= 1u << f;
                step(false);
            }
            forced_done = 0;
            for (int i = 0; i < 4 * int(NVF) && !flr_idle(); i++) step(false);
            step(false);
        }
        directed = false;
        chk.expect(flr_idle(), "directed dones all signalled");
    }
};

}  // namespace

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    tb::Args args(argc, argv);
    tb::Rng rng(args.seed);
    tb::Checker chk("pcie_fn");
    std::printf("[pcie_fn] seed %llu\n", (unsigned long long)args.seed);

    const long iters = args.iters(200000);
    struct Ep { Layout lay; long cycles; };
    // Long enough for walks to be retried and rounds to follow changes, whatever --n says.
    const long none = std::max<long>(iters / 20, 4 * POLL), some = std::max<long>(iters / 5, 8 * POLL);
    const Ep eps[] = {
        {Layout::END0, none}, {Layout::SRIOV, some}, {Layout::LOW_PTR, none}, {Layout::SRIOV, some},
        {Layout::LOOP, 2 * none}, {Layout::SRIOV, some}, {Layout::SRIOV, some},
    };
    Bench b(chk, rng);
    b.inject = args.inject;
    int e = 0;
    for (const Ep &ep : eps) {
        b.epoch(ep.lay, e % 2 == 1 || tb::chance(rng, 0.3));
        long walks0 = b.walks, rounds0 = b.nrounds;
        for (long i = 0; i < ep.cycles; i++) b.step();
        b.drain();
        b.directed_dones_burst();
        std::printf("[pcie_fn] epoch %d (%s, %zu headers walked, SR-IOV at 0x%03x): %ld walks, %ld rounds\n", e,
                    layout_name(ep.lay), b.cfg.walk.size(), b.cfg.cap * 4, b.walks - walks0, b.nrounds - rounds0);
        if (ep.lay == Layout::SRIOV)
            chk.expect(b.walks - walks0 == 1 && b.nrounds - rounds0 > 0, "one walk, then rounds (%ld, %ld)",
                       b.walks - walks0, b.nrounds - rounds0);
        else
            chk.expect(b.nrounds == rounds0 && b.walks - walks0 > 1, "walks retried, no rounds (%ld, %ld)",
                       b.walks - walks0, b.nrounds - rounds0);
        e++;
    }

    std::printf("[pcie_fn] cfg_mgmt: %ld reads, %ld walks (%ld headers), %ld rounds; walk every %llu..%llu cycles, "
                "round every %llu..%llu\n",
                b.reads, b.walks, b.headers, b.nrounds, (unsigned long long)b.walk_gap_min,
                (unsigned long long)b.walk_gap_max, (unsigned long long)b.round_gap_min,
                (unsigned long long)b.round_gap_max);
    std::printf("[pcie_fn] NumVFs: %ld host changes (%ld NumVFs over %u), slowest follow %llu cycles (window %llu); "
                "values shown:",
                b.changes, b.over_nvf, NVF, (unsigned long long)b.conv_max, (unsigned long long)WINDOW);
    int distinct = 0;
    for (unsigned v = 0; v <= NVF; v++) if (b.values_seen[v]) { std::printf(" %u", v); distinct++; }
    std::printf("\n");
    std::printf("[pcie_fn] FLR: %ld PF0, %ld VF, %ld held through reset; ignored %ld VF >= %u, %ld PF1-3 changes; "
                "%ld flr_o pulses; done %ld PF0, %ld VF; %ld card cycles with 2+ dones; slowest FLR %llu cycles\n",
                b.raised_pf, b.raised_vf, b.held_reset, b.raised_ign_vf, NVF, b.raised_ign_pf, b.pulses, b.pf_dones,
                b.vf_dones, b.same_cycle, (unsigned long long)b.flr_lat_max);
    std::printf("[pcie_fn] directed: %ld dones signalled, %ld arrived for the VF being signalled\n", b.directed_dones,
                b.set_wins);
    long flrs = b.raised_pf + b.raised_vf + b.held_reset;
    chk.expect(b.pulses == flrs, "one flr_o pulse per FLR (%ld, %ld)", b.pulses, flrs);
    chk.expect(b.pf_dones + b.vf_dones == flrs, "every FLR done (%ld + %ld of %ld)", b.pf_dones, b.vf_dones, flrs);
    chk.expect(b.set_wins > 0, "a done arrived for the VF being signalled");
    if (iters >= 100000) chk.expect(distinct > 2, "num_vfs_o took several values (%d)", distinct);
    return chk.finish();
}
