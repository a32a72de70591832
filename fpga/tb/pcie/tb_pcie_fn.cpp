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
// * The standard capability list, per epoch: the Capabilities Pointer
//   (0x34) to 0-3 other capabilities before the PCI Express one (ID 0x10),
//   sometimes more after it; or none: a pointer of 0, a list ending below
//   0x40 or one that loops (32 headers). Reserved pointer bits are set at
//   random. Device Control (PCIe capability + 8) changes at random, bit 8
//   (Extended Tag Field Enable) included.
// * cfg_mgmt: a read is answered after 1-12 cycles while it is held; the
//   read data is noise in every other cycle. Each read must be the one a
//   round reads next, as the reference walker below (the documented order:
//   the standard walk until the PCIe capability is found, Device Control,
//   the extended walk until SR-IOV is found, then Control and NumVFs)
//   derives from the data answered; function 0, all byte enables, no write,
//   address steady while held, low the cycle after its done; rounds start
//   every POLL cycles (plus the previous round's reads). The walks must
//   find the capabilities the generator placed; ext_tag_o must be the bit
//   of the last Device Control read (0 after reset and without the
//   capability) in every cycle.
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
constexpr uint32_t PCIE = 0x10, CAP_PTR = 0x0d;         // CAP_PTR: DWORD address of byte 0x34
constexpr uint64_t READ_MAX = LAT_MAX + 1;              // cycles of one read, incl. the gap
// A round without the PCIe capability walks 1 + 32 standard headers first.
constexpr uint64_t WINDOW = 2 * POLL + 2 * (33 + 2) * READ_MAX + 8;

uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

enum class Layout { SRIOV, END0, LOW_PTR, LOOP };
enum class StdLayout { PCIE, NONE, LOOP };
const char *std_name(StdLayout l) {
    switch (l) {
    case StdLayout::PCIE: return "PCIe cap";
    case StdLayout::NONE: return "no PCIe cap";
    default: return "no PCIe cap, loop";
    }
}
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
    uint32_t pcap = 0;           // PCI Express capability; 0: none in the list
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

// The standard list in DWORDs 0x10..0x3f (16-byte slots, so a capability's
// Device Control DWORD is its own).
void make_std(tb::Rng &r, CfgSpace &c, StdLayout lay) {
    const bool junk = tb::chance(r, 0.5);  // reserved pointer bits set
    auto ptr = [&](uint32_t byte) { return byte | (junk && byte ? tb::rnd(r, 0, 3) : 0); };
    unsigned before = tb::rnd(r, 0, 3), after = tb::chance(r, 0.5) ? tb::rnd(r, 1, 2) : 0;
    unsigned n = lay == StdLayout::PCIE ? before + 1 + after : tb::rnd(r, 0, 4);
    if (lay == StdLayout::LOOP) n = std::max(n, 1u);
    std::vector<unsigned> slots(12);
    std::iota(slots.begin(), slots.end(), 4u);  // 0x40 .. 0xf0
    std::shuffle(slots.begin(), slots.end(), r);
    std::vector<uint32_t> off(n);
    for (unsigned i = 0; i < n; i++) off[i] = 16 * slots[i] + 4 * tb::rnd(r, 0, 1);
    c.regs[CAP_PTR] = uint32_t(r()) & ~0xffu | (n ? ptr(off[0]) : 0);
    for (unsigned i = 0; i < n; i++) {
        uint32_t next = i + 1 < n ? off[i + 1] : (tb::chance(r, 0.5) ? 0 : 4 * tb::rnd(r, 1, 15));
        if (i + 1 == n && lay == StdLayout::LOOP) next = off[tb::rnd(r, 0, i)];
        uint32_t id;
        if (lay == StdLayout::PCIE && i == before) id = PCIE;
        else do id = tb::rnd(r, 0, 0xff); while (id == PCIE);
        c.regs[off[i] / 4] = uint32_t(r()) & 0xffff0000u | ptr(next) << 8 | id;
        c.regs[off[i] / 4 + 1] = uint32_t(r());
        c.regs[off[i] / 4 + 2] = uint32_t(r());  // Device Control in a PCIe capability
        if (id == PCIE) c.pcap = off[i] / 4;
    }
}

CfgSpace make_cfg(tb::Rng &r, Layout lay, StdLayout slay) {
    CfgSpace c;
    c.salt = r();
    make_std(r, c, slay);
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
        // A decoy SR-IOV header, VFs enabled, where the pointer points: never
        // to be read. Not over the standard list.
        auto clash = [&](uint32_t d) {
            return d == CAP_PTR || d + 2 == CAP_PTR || d + 4 == CAP_PTR || c.regs.count(d) || c.regs.count(d + 2) ||
                   c.regs.count(d + 4);
        };
        uint32_t d;
        do d = tb::rnd(r, 1, 0x3b); while (clash(d));
        uint32_t &h = c.regs[off[n - 1] / 4];
        h = (h & 0xfffffu) | (4 * d) << 20;
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

// What the block must read next, from the data it was answered (the order
// kite_pcie_fn documents).
struct RefWalker {
    enum St { PPTR, PWALK, DCTL, WALK, CTRL, NUM, WAIT } st = PPTR;
    uint32_t ptr = 0, cap = 0, pcap = 0, hdr = 0;
    bool ext = false;
    St sriov() const { return cap ? CTRL : WALK; }
    uint32_t addr() const {
        switch (st) {
        case PPTR: return CAP_PTR;
        case DCTL: return pcap + 2;
        case CTRL: return cap + 2;
        case NUM: return cap + 4;
        default: return ptr;
        }
    }
    // One answer; returns true when the round ends (the next read waits POLL).
    bool answer(uint32_t d) {
        switch (st) {
        case PPTR:
            if ((d & 0xff) < 0x40) { st = sriov(); ptr = EXT; hdr = 0; }
            else { ptr = (d & 0xfc) >> 2; hdr = 0; st = PWALK; }
            break;
        case PWALK:
            if ((d & 0xff) == PCIE) { pcap = ptr; st = DCTL; }
            else if ((d >> 8 & 0xfc) < 0x40 || hdr == 31) { st = sriov(); ptr = EXT; hdr = 0; }
            else { ptr = (d >> 8 & 0xfc) >> 2; hdr++; }
            break;
        case DCTL:
            ext = d >> 8 & 1;
            st = sriov(); ptr = EXT; hdr = 0;
            break;
        case WALK:
            if ((d & 0xffff) == SRIOV) { cap = ptr; st = CTRL; }
            else if ((d >> 20) < 0x100 || hdr == 31) st = WAIT;
            else { ptr = (d >> 20) / 4; hdr++; }
            break;
        case CTRL: st = NUM; break;
        case NUM: st = WAIT; break;
        default: break;
        }
        return st == WAIT;
    }
    void next_round() { st = pcap ? DCTL : PPTR; ptr = EXT; hdr = 0; }
};

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
    RefWalker ref;
    bool have_round = false, new_round = true;
    uint64_t round_start = 0;
    long round_reads = 0, prev_round_reads = 0;
    long ext_reads[2] = {0, 0}, ext_flips = 0, dctl_changes = 0, pwalk_headers = 0;
    bool ext_prev = false;

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
    long reads = 0, walks = 0, headers = 0, nrounds = 0, changes = 0, over_nvf = 0, all_rounds = 0;
    uint64_t conv_max = 0, round_gap_min = ~0ULL, round_gap_max = 0;
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
    void epoch(Layout lay, StdLayout slay, bool hold_flr) {
        cfg = make_cfg(rng, lay, slay);
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
            chk.expect(!m.cfg_mgmt_read_o && !m.flr_o && !m.num_vfs_o && !m.ext_tag_o && !m.cfg_vf_flr_done_o &&
                           !m.cfg_flr_done_o,
                       "outputs idle in reset");
        }
        m.rst_ni = 1;
        busy = after_done = have_round = false;
        ref = RefWalker{};
        new_round = true;
        round_reads = prev_round_reads = 0;
        ext_prev = false;
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
        uint32_t want = ref.addr();
        chk.expect(a == want, "read of DWORD %03x, want %03x (reference state %d, header %u)", a, want, int(ref.st),
                   ref.hdr);
        if (new_round) {
            if (have_round) {
                uint64_t gap = cyc - round_start;
                round_gap_min = std::min(round_gap_min, gap);
                round_gap_max = std::max(round_gap_max, gap);
                chk.expect(gap >= POLL && gap <= POLL + uint64_t(prev_round_reads) * READ_MAX + 8,
                           "round %llu cycles after the last (POLL %u, %ld reads)", (unsigned long long)gap, POLL,
                           prev_round_reads);
            }
            have_round = true;
            round_start = cyc;
            new_round = false;
            round_reads = 0;
            all_rounds++;
        }
        round_reads++;
        if (ref.st == RefWalker::WALK) {
            if (ref.hdr == 0) walks++;
            headers++;
        }
        if (ref.st == RefWalker::PWALK) pwalk_headers++;
        if (ref.st == RefWalker::CTRL) nrounds++;
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
        bool et = m.ext_tag_o;
        chk.expect(et == ref.ext, "ext_tag_o %d, the last Device Control read says %d (cycle %llu)", et, ref.ext,
                   (unsigned long long)cyc);
        ext_flips += et != ext_prev;
        ext_prev = et;

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
            if (ref.st == RefWalker::DCTL) ext_reads[m.cfg_mgmt_read_data_i >> 8 & 1]++;
            if (ref.answer(m.cfg_mgmt_read_data_i)) {
                ref.next_round();
                new_round = true;
                prev_round_reads = round_reads;
            }
        }
        // the host's Device Control, bit 8 included
        if (cfg.pcap && tb::chance(rng, 0.002)) {
            cfg.regs[cfg.pcap + 2] ^= (tb::chance(rng, 0.5) ? 1u << 8 : 0) | (uint32_t(rng()) & 0xfffffeffu);
            dctl_changes++;
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
    struct Ep { Layout lay; StdLayout slay; long cycles; };
    // Long enough for walks to be retried and rounds to follow changes, whatever --n says.
    const long none = std::max<long>(iters / 20, 4 * POLL), some = std::max<long>(iters / 5, 8 * POLL);
    const Ep eps[] = {
        {Layout::END0, StdLayout::PCIE, none},      {Layout::SRIOV, StdLayout::PCIE, some},
        {Layout::LOW_PTR, StdLayout::NONE, none},   {Layout::SRIOV, StdLayout::PCIE, some},
        {Layout::LOOP, StdLayout::PCIE, 2 * none},  {Layout::SRIOV, StdLayout::LOOP, some},
        {Layout::SRIOV, StdLayout::PCIE, some},     {Layout::SRIOV, StdLayout::NONE, some},
    };
    Bench b(chk, rng);
    b.inject = args.inject;
    int e = 0;
    for (const Ep &ep : eps) {
        b.epoch(ep.lay, ep.slay, e % 2 == 1 || tb::chance(rng, 0.3));
        long walks0 = b.walks, rounds0 = b.nrounds;
        for (long i = 0; i < ep.cycles; i++) b.step();
        b.drain();
        b.directed_dones_burst();
        std::printf("[pcie_fn] epoch %d (%s, %zu headers walked, SR-IOV at 0x%03x; %s at 0x%02x): %ld walks, "
                    "%ld rounds\n",
                    e, layout_name(ep.lay), b.cfg.walk.size(), b.cfg.cap * 4, std_name(ep.slay), b.cfg.pcap * 4,
                    b.walks - walks0, b.nrounds - rounds0);
        chk.expect(b.ref.cap == b.cfg.cap && b.ref.pcap == b.cfg.pcap,
                   "walks found SR-IOV at %03x, PCIe at %02x; placed at %03x, %02x", b.ref.cap * 4, b.ref.pcap * 4,
                   b.cfg.cap * 4, b.cfg.pcap * 4);
        if (ep.lay == Layout::SRIOV)
            chk.expect(b.walks - walks0 == 1 && b.nrounds - rounds0 > 0, "one walk, then rounds (%ld, %ld)",
                       b.walks - walks0, b.nrounds - rounds0);
        else
            chk.expect(b.nrounds == rounds0 && b.walks - walks0 > 1, "walks retried, no rounds (%ld, %ld)",
                       b.walks - walks0, b.nrounds - rounds0);
        e++;
    }

    std::printf("[pcie_fn] cfg_mgmt: %ld reads, %ld rounds every %llu..%llu cycles; %ld SR-IOV walks (%ld headers), "
                "%ld with NumVFs; %ld standard headers\n",
                b.reads, b.all_rounds, (unsigned long long)b.round_gap_min, (unsigned long long)b.round_gap_max,
                b.walks, b.headers, b.nrounds, b.pwalk_headers);
    std::printf("[pcie_fn] Extended Tag: %ld Device Control changes, %ld reads with the bit clear, %ld set; "
                "ext_tag_o changed %ld times\n",
                b.dctl_changes, b.ext_reads[0], b.ext_reads[1], b.ext_flips);
    chk.expect(b.ext_reads[0] > 0 && b.ext_reads[1] > 0 && b.ext_flips > 2, "ext_tag_o followed the bit both ways");
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
