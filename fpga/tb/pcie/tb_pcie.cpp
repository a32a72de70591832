// kite_pcie testbench: a C++ model of the host side of the UltraScale+ PCIe
// integrated block (PG213 512-bit descriptors, written here independently of
// the RTL) against the DMA engine and the completer.
//
// * Host memory: 64-bit addresses, bytes from a hash of the address until
//   written. It is the reference: a DMA read must return exactly its bytes, a
//   DMA write must leave exactly the client's bytes in it.
// * Host completer: takes RQ TLPs (random back-pressure), checks each against
//   the split the engine must make (MRRS/MPS-aligned, never across 4 KiB,
//   byte enables, no outstanding tag reused, every tag inside the pool the
//   engine reports (tags_pool_o: 256 with Extended Tag Field Enable, else
//   32), which may change only while no tag is in use and must match the
//   bit once the engine has been idle; the bit changes at random, idle or
//   not), and answers reads after a random
//   delay with completions out of order between tags, split at random RCB
//   (64-byte) boundaries, with junk outside the requested bytes, on an RC
//   stream without straddle or with the core's 2- or 4-TLP straddle
//   (pcie_host.hpp; the RTL's kite_pcie_rc must delimit TLPs by tuser alone,
//   and may hold the stream back with rc_tready). Some pages
//   are bad: their read TLPs end in an Unsupported Request completion, a
//   poisoned completion, the core's completion-timeout report (error code
//   1001), a duplicated split completion, or one with only its byte count or
//   only its lower address wrong; and completions for tags that are
//   not outstanding are injected. Each must surface as the request's error or
//   the exact counter, and the engine keeps running.
// * Host MMIO: CQ reads/writes (1 and 2 DW, random byte enables) to BAR0/BAR2
//   (kite/spec.hpp BAR numbers and sizes) and unsupported requests; the
//   card-side register file behind the MMIO port answers reads after a random
//   delay; read completions are checked against the host's own shadow of what
//   it wrote.
// Then directed throughput and latency runs.
#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "Vkite_pcie.h"
#include "kite/spec.hpp"
#include "pcie_host.hpp"
#include "tb.hpp"

namespace {

namespace pci = kite::spec::pci;

constexpr unsigned TAGS = 256, TAGS5 = 32, MRRS = 512, MPS = 256, RCB = 64;   // kite_pcie's defaults

uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

struct HostMem {
    std::unordered_map<uint64_t, uint8_t> written;
    uint8_t get(uint64_t a) const {
        auto it = written.find(a);
        return it != written.end() ? it->second : uint8_t(mix(a >> 3) >> (8 * (a & 7)));
    }
    void set(uint64_t a, uint8_t v) { written[a] = v; }
};

// Bad pages (4 KiB): what the host does to read TLPs inside them.
enum class Fault { NONE, UR, TIMEOUT, POISON, DUP, BADBC, BADLA };
Fault page_fault(uint64_t a) {
    switch (mix((a >> 12) * 7 + 3) % 64) {
    case 0: return Fault::UR;
    case 1: return Fault::TIMEOUT;
    case 2: return Fault::POISON;
    case 3: return Fault::DUP;
    case 4: return Fault::BADBC;
    case 5: return Fault::BADLA;
    default: return Fault::NONE;
    }
}

struct Beat {
    std::array<uint8_t, 64> d{};
    uint16_t keep = 0;
    bool last = false;
    std::array<uint32_t, 6> user{};
};

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
template <size_t W>
uint64_t wbits(const VlWide<W> &w, unsigned lo, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= uint64_t((w[(lo + i) / 32] >> ((lo + i) % 32)) & 1) << i;
    return v;
}
template <size_t W>
void put_words(VlWide<W> &w, const std::array<uint32_t, 6> &u) {
    for (size_t i = 0; i < W; i++) w[i] = u[i];
}
unsigned tz4(unsigned be) { return be & 1 ? 0 : be & 2 ? 1 : be & 4 ? 2 : be & 8 ? 3 : 0; }
unsigned lz4(unsigned be) { return be & 8 ? 0 : be & 4 ? 1 : be & 2 ? 2 : be & 1 ? 3 : 0; }

struct Config {
    double rq_ready = 0.8, rc_gap = 0.2, rsp_ready = 0.8, wr_gap = 0.2, cc_ready = 0.8;
    unsigned lat_min = 20, lat_max = 300;
    double split = 0.7;        // chance a completion stops at an RCB boundary
    bool faults = true, junk_tags = true, mmio = true;
    bool in_order = false;     // answer the oldest TLP first (a typical host)
    unsigned straddle = 1;     // RC: TLPs that may start in one beat (1, 2, 4)
    double pack = 0.9;         // chance a TLP straddles when it may
    unsigned lat_quantum = 1;  // answers become due at multiples of this (bursts)
};

// One client read request as the testbench expects it.
struct ReadReq {
    uint8_t id;
    uint64_t addr;
    uint32_t len;
    uint8_t fn = 0;            // requesting function, in every TLP's descriptor
    bool err = false;          // set when the host faults one of its TLPs
};
struct Chunk {                 // one expected TLP
    uint64_t addr;
    uint32_t len;
    size_t req;                // index in reads / writes
};

struct Pending {               // a read TLP the host owes completions to
    uint8_t tag;
    uint64_t addr, end, cur;
    uint64_t due;
    Fault fault;
    size_t req;
    unsigned sent = 0;
};

struct Bench {
    Vkite_pcie &m;
    tb::Clock<Vkite_pcie> clk;
    tb::Checker chk;
    tb::Rng rng;
    Config cfg;
    bool inject;
    HostMem mem;

    // Client side.
    std::vector<ReadReq> reads;
    std::deque<size_t> rd_todo;                  // not yet accepted
    std::deque<Chunk> rd_chunks;                 // TLPs expected on RQ, in order
    size_t rd_checked = 0;
    std::vector<std::pair<std::array<uint8_t, 64>, uint64_t>> rsp_beats;
    struct WriteReq { uint8_t id; uint64_t addr; uint32_t len; std::vector<uint8_t> data; uint8_t fn; };
    std::vector<WriteReq> writes;
    std::deque<size_t> wr_todo;
    std::deque<std::array<uint8_t, 64>> wr_words;  // data words of accepted requests
    std::deque<Chunk> wr_chunks;
    std::deque<std::pair<uint8_t, bool>> wr_done_exp;
    size_t wr_done_n = 0;

    // Host side.
    tb::pcie::RqStream rqs;                      // the card's RQ beats, straddled, into TLPs
    std::vector<Pending> pend;
    std::set<unsigned> tags_out;
    tb::pcie::RcStream rc;
    long n_err = 0, n_bad = 0, n_unexp = 0, n_rd_zero = 0, n_wr_zero = 0;
    long cov_split = 0, cov_ooo = 0, cov_4k = 0, cov_dup = 0, cov_badbc = 0, cov_badla = 0;
    long cov_full5 = 0, cov_full8 = 0, cov_pool_late = 0;   // cycles with the 32 / 256 pool full; late pool changes
    // Extended Tag Field Enable as driven; the engine's pool (tags_pool_o)
    // as last seen, and cycles the engine has been idle with the bit steady.
    bool ext_tag = true, ext_last = false;
    unsigned pool = TAGS5, idle_steady = 0, used_last = 0;
    long cov_rc_multi = 0, cov_rc_held = 0;   // RC beats with 2+ TLP starts; cycles rc_tready held one back
    long cov_wstrad = 0;                      // RQ beats where a write ends and the next write starts at DW 8
    std::map<unsigned, unsigned> tag_uses;
    bool injected = false;
    bool rq_stalled = false;
    uint64_t wd_rd = 0, wd_wr = 0, wd_mmio = 0;
    Beat rq_stall_beat;

    // MMIO.
    std::map<uint64_t, uint64_t> dev_regs, host_shadow;
    std::deque<Beat> cq_beats;
    struct MmioExp { bool valid; bool write; unsigned bar; uint32_t off; uint64_t wdata; unsigned be; unsigned fn; };
    std::optional<MmioExp> mmio_exp;     // forwarded request expected on the MMIO port
    struct CplExp { unsigned tag, status, dw, bc, la; uint64_t data; bool any; };
    std::optional<CplExp> cpl_exp;
    bool mmio_busy = false;
    std::optional<std::pair<uint64_t, uint64_t>> mmio_rsp;   // (due cycle, data)
    long n_unsup = 0, n_mmio_rd = 0, n_mmio_wr = 0;
    uint8_t mmio_tag = 0;
    unsigned cpl_fn = 0;                 // target (core) function of the MMIO awaiting its completion

    // Negotiated sizes (Device Control codes) and what the engine must use.
    unsigned mps_code = 1, mrrs_code = 2;
    uint32_t mps_eff() const { return std::min<uint32_t>(128u << mps_code, MPS); }
    uint32_t mrrs_eff() const { return std::min<uint32_t>(128u << mrrs_code, MRRS); }

    // Latency probes.
    uint64_t t_rd_acc = 0, t_rq_first = 0, t_rc_last = 0, t_rsp_first = 0, t_wr_acc = 0, t_rq_any = 0;
    uint64_t t_cq = 0, t_mrsp = 0, lat_cq_req = ~0ULL, lat_rsp_cc = ~0ULL;

    Bench(Vkite_pcie &mod, uint64_t seed, bool inj) : m(mod), clk(mod), chk("pcie"), rng(seed), inject(inj) {}

    uint64_t now() const { return clk.cycle; }

    // ------------------------------------------------------------ client
    void add_read(uint8_t id, uint64_t addr, uint32_t len) {
        reads.push_back({id, addr, len, uint8_t(rng())});
        rd_todo.push_back(reads.size() - 1);
    }
    void add_write(uint8_t id, uint64_t addr, uint32_t len) {
        WriteReq w{id, addr, len, tb::rbytes(rng, len), uint8_t(rng())};
        // The data words go out ahead of the request (the interface allows it).
        uint64_t base = w.addr & ~63ULL;
        size_t nw = w.len ? (w.addr % 64 + w.len + 63) / 64 : 0;
        for (size_t k = 0; k < nw; k++) {
            std::array<uint8_t, 64> word{};
            for (size_t l = 0; l < 64; l++) {
                uint64_t a = base + 64 * k + l;
                word[l] = (a >= w.addr && a < w.addr + w.len) ? w.data[a - w.addr] : uint8_t(rng());
            }
            wr_words.push_back(word);
        }
        writes.push_back(std::move(w));
        wr_todo.push_back(writes.size() - 1);
    }
    static void split(uint64_t addr, uint32_t len, uint32_t max, size_t req, std::deque<Chunk> &out) {
        while (len) {
            uint32_t n = std::min<uint64_t>(len, max - (addr % max));
            out.push_back({addr, n, req});
            addr += n;
            len -= n;
        }
    }

    // ------------------------------------------------------------ host RQ
    void host_tlp(const tb::pcie::RqTlp &t) {
        const uint8_t *d0 = t.bytes.data();
        uint64_t addr = bits(d0, 2, 62) << 2;
        unsigned dw = unsigned(bits(d0, 64, 11)), type = unsigned(bits(d0, 75, 4)), tag = unsigned(bits(d0, 96, 8));
        unsigned fbe = t.fbe, lbe = t.lbe;
        chk.expect(bits(d0, 0, 2) == 0 && bits(d0, 79, 1) == 0 && bits(d0, 120, 8) == 0,
                   "RQ descriptor: AT/poison/attr/TC/ID-enable not 0");
        if (!chk.expect(t.bytes.size() == 16 + (type == 1 ? 4 * size_t(dw) : 0),
                        "RQ TLP of %zu bytes, its descriptor says type %u, %u DW", t.bytes.size(), type, dw))
            return;
        uint64_t first = addr + tz4(fbe);
        uint32_t len = dw == 1 ? (fbe ? 4 - tz4(fbe) - lz4(fbe) : 0) : 4 * dw - tz4(fbe) - lz4(lbe);
        if (dw == 1) chk.expect(lbe == 0 && fbe != 0, "1-DW request: last BE %x first BE %x", lbe, fbe);
        else chk.expect(fbe != 0 && lbe != 0, "byte enables 0 in a %u-DW request", dw);
        bool cross4k = dw && (first >> 12) != ((first + len - 1) >> 12);
        chk.expect(!cross4k, "TLP at %llx len %u crosses 4 KiB", (unsigned long long)first, len);
        if (type == 0) {
            chk.expect(len <= mrrs_eff(), "read TLP of %u bytes > MRRS %u", len, mrrs_eff());
            chk.expect(!tags_out.count(tag), "tag %u reused while outstanding", tag);
            // The tag is in use, so the pool is still the one it came from.
            chk.expect(tag < unsigned(m.tags_pool_o), "tag %u out of the pool of %u", tag, unsigned(m.tags_pool_o));
            if (rd_chunks.empty()) {
                chk.expect(false, "unexpected read TLP %llx", (unsigned long long)first);
                return;
            }
            Chunk c = rd_chunks.front();
            rd_chunks.pop_front();
            chk.expect(c.addr == first && c.len == len, "read TLP %llx+%u, expected %llx+%u",
                       (unsigned long long)first, len, (unsigned long long)c.addr, c.len);
            chk.expect(bits(d0, 80, 8) == tb::core_fn(reads[c.req].fn) && bits(d0, 88, 8) == 0,
                       "read TLP requester function %llu bus %llu, expected %u (card's %u) and 0 (the core's)",
                       (unsigned long long)bits(d0, 80, 8), (unsigned long long)bits(d0, 88, 8),
                       tb::core_fn(reads[c.req].fn), reads[c.req].fn);
            if (c.addr % 4096 == 0 && c.addr != reads[c.req].addr) cov_4k++;
            tags_out.insert(tag);
            tag_uses[tag]++;
            if (t_rq_first == 0) t_rq_first = now() - 1;
            Fault f = cfg.faults ? page_fault(first) : Fault::NONE;
            uint64_t due = now() + tb::rnd(rng, cfg.lat_min, cfg.lat_max) + (f == Fault::TIMEOUT ? 500 : 0);
            due = (due + cfg.lat_quantum - 1) / cfg.lat_quantum * cfg.lat_quantum;
            pend.push_back({uint8_t(tag), first, first + len, first, due, f, c.req});
        } else if (type == 1) {
            chk.expect(len <= mps_eff(), "write TLP of %u bytes > MPS %u", len, mps_eff());
            if (wr_chunks.empty()) {
                chk.expect(false, "unexpected write TLP");
                return;
            }
            Chunk c = wr_chunks.front();
            wr_chunks.pop_front();
            chk.expect(c.addr == first && c.len == len, "write TLP %llx+%u, expected %llx+%u",
                       (unsigned long long)first, len, (unsigned long long)c.addr, c.len);
            chk.expect(bits(d0, 80, 8) == tb::core_fn(writes[c.req].fn) && bits(d0, 88, 8) == 0,
                       "write TLP requester function %llu bus %llu, expected %u (card's %u) and 0 (the core's)",
                       (unsigned long long)bits(d0, 80, 8), (unsigned long long)bits(d0, 88, 8),
                       tb::core_fn(writes[c.req].fn), writes[c.req].fn);
            for (unsigned j = 0; j < dw; j++) {
                unsigned be = j == 0 ? fbe : (j == dw - 1 ? lbe : 0xf);
                size_t s = 16 + 4 * size_t(j);
                for (unsigned b = 0; b < 4; b++)
                    if (be >> b & 1) mem.set(addr + 4 * j + b, t.bytes[s + b]);
            }
        } else {
            chk.expect(false, "RQ request type %u", type);
        }
    }

    // Next completion of pending request p (the caller removes finished ones).
    void make_cpl(Pending &p, bool final_only) {
        uint64_t cur = p.cur, end = p.end;
        uint64_t stop = end;
        bool dup = false;
        if (!final_only && (cfg.split >= 1.0 || tb::chance(rng, cfg.split) || p.fault == Fault::DUP)) {
            uint64_t b = (cur / RCB + 1 + tb::rnd(rng, 0, 3)) * RCB;
            if (p.fault == Fault::DUP || cfg.split >= 1.0) b = (cur / RCB + 1) * RCB;
            if (b < end) stop = b;
        }
        unsigned status = 0, ecode = 0;
        bool poison = false, nodata = false;
        bool fault_now = p.fault != Fault::NONE && (p.fault == Fault::DUP ? stop < end : (p.sent > 0 || tb::chance(rng, 0.5) || stop == end));
        if (fault_now) {
            switch (p.fault) {
            case Fault::UR: status = 1; ecode = 2; nodata = true; break;
            case Fault::TIMEOUT: ecode = 9; nodata = true; break;
            case Fault::POISON: poison = true; ecode = 1; break;
            case Fault::DUP: dup = true; break;
            case Fault::BADBC: case Fault::BADLA: break;
            default: break;
            }
        }
        uint64_t dwa = cur & ~3ULL;
        unsigned dw = nodata ? 0 : unsigned((stop - dwa + 3) / 4);
        std::vector<uint8_t> bytes(12 + 4 * size_t(dw));
        setbits(bytes.data(), 0, 12, cur & 0xfff);
        setbits(bytes.data(), 12, 4, ecode);
        setbits(bytes.data(), 16, 13, end - cur);
        setbits(bytes.data(), 30, 1, stop == end || nodata);
        setbits(bytes.data(), 32, 11, dw);
        setbits(bytes.data(), 43, 3, status);
        setbits(bytes.data(), 46, 1, poison);
        setbits(bytes.data(), 64, 8, p.tag);
        for (unsigned i = 0; i < 4 * dw; i++) {
            uint64_t a = dwa + i;
            bytes[12 + i] = (a >= cur && a < stop) ? mem.get(a) : uint8_t(rng());
        }
        // Only one field wrong: the byte count, or the lower address (by 4).
        if (fault_now && p.fault == Fault::BADBC) setbits(bytes.data(), 16, 13, end - cur + 4);
        if (fault_now && p.fault == Fault::BADLA) setbits(bytes.data(), 0, 12, (cur + 4) & 0xfff);
        push_rc(bytes);
        if (dup) push_rc(bytes);    // the same split completion again
        if (stop < end) cov_split++;
        p.sent++;
        p.cur = stop;
        if (fault_now) {
            bool bad = dup || p.fault == Fault::BADBC || p.fault == Fault::BADLA;
            (bad ? n_bad : n_err)++;
            cov_dup += dup;
            cov_badbc += p.fault == Fault::BADBC;
            cov_badla += p.fault == Fault::BADLA;
            reads[p.req].err = true;
            p.cur = p.end;           // the rest of the request is never sent
        }
    }
    void push_rc(const std::vector<uint8_t> &bytes) {
        rc.straddle = cfg.straddle;
        rc.push(bytes, tb::chance(rng, cfg.pack));
    }
    void junk_completion() {
        unsigned tag;
        // A tag in the pool only while none is in use (an RTL tag is in use
        // before its TLP reaches the host).
        if (m.tags_used_o == 0 && rd_todo.empty() && rd_chunks.empty() && tb::chance(rng, 0.5)) tag = tb::rnd(rng, 0, 255);
        else if (pool < 256) tag = tb::rnd(rng, pool, 255);
        else return;
        std::vector<uint8_t> bytes(12 + 16);
        for (auto &b : bytes) b = uint8_t(rng());
        setbits(bytes.data(), 12, 4, 0);
        setbits(bytes.data(), 32, 11, 4);
        setbits(bytes.data(), 43, 3, 0);
        setbits(bytes.data(), 46, 1, 0);
        setbits(bytes.data(), 64, 8, tag);
        push_rc(bytes);
        n_unexp++;
    }
    // Completions while fewer than two beats wait: one per cycle, or up to
    // four with straddle (the core can start four TLPs in a beat), so TLPs
    // share beats and short ones can outpace kite_pcie_rc.
    void host_rc() {
        if (rc.beats.size() >= 2) return;
        for (unsigned k = 0; k < cfg.straddle; k++) {
            if (cfg.junk_tags && tb::chance(rng, 0.002)) {
                junk_completion();
                continue;
            }
            std::vector<size_t> ready;
            for (size_t i = 0; i < pend.size(); i++)
                if (pend[i].due <= now()) ready.push_back(i);
            if (ready.empty()) return;
            size_t i = cfg.in_order ? ready[0] : ready[tb::rnd(rng, 0, uint32_t(ready.size() - 1))];
            if (i != 0) cov_ooo++;    // not the oldest outstanding TLP
            make_cpl(pend[i], false);
            if (pend[i].cur >= pend[i].end) {
                tags_out.erase(pend[i].tag);
                pend.erase(pend.begin() + long(i));
            }
        }
    }

    // ------------------------------------------------------------ MMIO host
    static uint64_t bar_base(unsigned bar) { return 0x00003c0000000000ULL + uint64_t(bar) * 0x10000000ULL; }
    void mmio_issue() {
        if (mmio_busy || !cq_beats.empty() || !cfg.mmio || !tb::chance(rng, 0.05)) return;
        unsigned bar = tb::chance(rng, 0.5) ? unsigned(pci::REG_BAR) : unsigned(pci::DB_BAR);
        uint64_t size = bar == pci::REG_BAR ? pci::REG_BAR_SIZE : pci::PF_DB_PAGES * pci::DB_PAGE_SIZE;
        unsigned aper = 0;
        while ((1ULL << aper) < size) aper++;
        uint32_t off = uint32_t(tb::rnd(rng, 0, uint32_t(size / 4 - 1)) * 4);
        if (tb::chance(rng, 0.7)) off &= 0x3fc | uint32_t(size - 1 - 0xfff);   // revisit offsets
        unsigned kind = tb::rnd(rng, 0, 9);
        unsigned type = 0, dw = 1, fbe = 0xf, lbe = 0, payload_dw = 0;
        bool supported = true, posted = false;
        if (kind <= 3) {                     // 1-DW write
            type = 1; posted = true; payload_dw = 1;
            fbe = tb::chance(rng, 0.7) ? 0xf : tb::rnd(rng, 0, 15);
        } else if (kind == 4) {              // 2-DW write
            type = 1; posted = true; dw = 2; payload_dw = 2; off &= ~7u;
            fbe = tb::chance(rng, 0.7) ? 0xf : tb::rnd(rng, 1, 15);
            lbe = tb::chance(rng, 0.7) ? 0xf : tb::rnd(rng, 1, 15);
        } else if (kind <= 6) {              // 1-DW read
            fbe = tb::chance(rng, 0.7) ? 0xf : tb::rnd(rng, 0, 15);
        } else if (kind == 7) {              // 2-DW read
            dw = 2; off &= ~7u; lbe = 0xf;
        } else {                             // unsupported
            supported = false;
            switch (tb::rnd(rng, 0, 5)) {
            case 0: type = 0; dw = 4; lbe = 0xf; break;                                 // long read: CA
            case 1: type = 0; dw = 2; off = (off & ~7u) | 4; lbe = 0xf; break;         // straddling read: CA
            case 2: type = 1; posted = true; dw = 3; payload_dw = 3; lbe = 0xf; break; // long write: drop
            case 3: type = 1; posted = true; dw = 40; payload_dw = 40; lbe = 0xf; off &= ~0xffu; break;
            case 4: type = 2; break;                                                    // I/O read: UR
            default: type = 12; posted = true; dw = 0; fbe = 0; break;                  // message: drop
            }
        }
        uint64_t addr = bar_base(bar) + off;
        uint16_t rid = uint16_t(rng());
        uint8_t tag = mmio_tag++;
        // Target function in the core's numbering: mostly the PF, else any
        // (PFs 1..3, which the card lacks, come out as 0xff).
        unsigned cfn = tb::chance(rng, 0.5) ? 0 : tb::rnd(rng, 0, 255);
        cpl_fn = cfn;
        std::vector<uint8_t> bytes(16 + 4 * size_t(payload_dw));
        setbits(bytes.data(), 2, 62, addr >> 2);
        setbits(bytes.data(), 64, 11, dw);
        setbits(bytes.data(), 75, 4, type);
        setbits(bytes.data(), 80, 16, rid);
        setbits(bytes.data(), 96, 8, tag);
        setbits(bytes.data(), 104, 8, cfn);
        setbits(bytes.data(), 112, 3, bar);
        setbits(bytes.data(), 115, 6, aper);
        setbits(bytes.data(), 121, 3, tb::rnd(rng, 0, 7));   // TC
        setbits(bytes.data(), 124, 3, tb::rnd(rng, 0, 7));   // attr
        for (unsigned i = 0; i < 4 * payload_dw; i++) bytes[16 + i] = uint8_t(rng());
        unsigned tc = unsigned(bits(bytes.data(), 121, 3)), attr = unsigned(bits(bytes.data(), 124, 3));
        (void)tc; (void)attr;
        size_t nb = (bytes.size() + 63) / 64;
        for (size_t b = 0; b < nb; b++) {
            Beat bt;
            size_t n = std::min<size_t>(64, bytes.size() - 64 * b);
            std::copy_n(bytes.begin() + long(64 * b), n, bt.d.begin());
            bt.keep = uint16_t(0xffffu >> (16 - (n + 3) / 4));
            bt.last = b + 1 == nb;
            bt.user[0] = fbe | (lbe << 8);
            cq_beats.push_back(bt);
        }
        uint64_t key = (uint64_t(bar) << 32) | (off & ~7u);
        if (!supported) {
            n_unsup++;
            if (!posted) {
                cpl_exp = CplExp{tag, type == 0 ? 4u : 1u, 0, 0, 0, 0, false};
                cpl_exp->la = 0;
                mmio_busy = true;
                cpl_rid = rid;
            }
            return;
        }
        uint64_t wdata = 0;
        unsigned be8 = 0;
        if (type == 1) {
            uint32_t p0 = uint32_t(bits(bytes.data(), 128, 32)), p1 = dw == 2 ? uint32_t(bits(bytes.data(), 160, 32)) : 0;
            if (off & 4) { wdata = uint64_t(p0) << 32; be8 = fbe << 4; }
            else { wdata = p0 | (uint64_t(p1) << 32); be8 = fbe | (dw == 2 ? lbe << 4 : 0); }
            uint64_t &s = host_shadow[key];
            for (unsigned b = 0; b < 8; b++)
                if (be8 >> b & 1) s = (s & ~(0xffULL << 8 * b)) | (wdata & (0xffULL << 8 * b));
            mmio_exp = MmioExp{true, true, bar, off & ~7u, wdata, be8, tb::card_fn(cfn)};
            mmio_busy = true;
            n_mmio_wr++;
        } else {
            be8 = (off & 4) ? fbe << 4 : (fbe | (dw == 2 ? lbe << 4 : 0));
            mmio_exp = MmioExp{true, false, bar, off & ~7u, 0, be8, tb::card_fn(cfn)};
            uint64_t v = host_shadow.count(key) ? host_shadow[key] : 0;
            unsigned bc = dw == 1 ? (fbe ? 4 - tz4(fbe) - lz4(fbe) : 1) : 8 - tz4(fbe) - lz4(lbe);
            uint64_t data = (off & 4) ? (v >> 32) : (dw == 2 ? v : (v & 0xffffffffULL));
            cpl_exp = CplExp{tag, 0, dw, bc, (off & 0x7c) | tz4(fbe), data, true};
            mmio_busy = true;
            cpl_rid = rid;
            n_mmio_rd++;
        }
    }
    uint16_t cpl_rid = 0;

    // ------------------------------------------------------------ one cycle
    void cycle() {
        // Client inputs.
        m.rd_req_valid_i = 0;
        if (!rd_todo.empty()) {
            const ReadReq &r = reads[rd_todo.front()];
            m.rd_req_valid_i = 1;
            m.rd_req_id_i = r.id;
            m.rd_req_fn_i = r.fn;
            m.rd_req_addr_i = r.addr;
            m.rd_req_len_i = r.len;
        }
        m.wr_req_valid_i = 0;
        if (!wr_todo.empty()) {
            const WriteReq &w = writes[wr_todo.front()];
            m.wr_req_valid_i = 1;
            m.wr_req_id_i = w.id;
            m.wr_req_fn_i = w.fn;
            m.wr_req_addr_i = w.addr;
            m.wr_req_len_i = w.len;
        }
        m.wr_data_valid_i = !wr_words.empty() && !tb::chance(rng, cfg.wr_gap);
        if (!wr_words.empty()) tb::put_bytes(m.wr_data_i, wr_words.front().data(), 64);
        m.rd_rsp_ready_i = tb::chance(rng, cfg.rsp_ready);
        m.cfg_max_payload_i = mps_code;
        m.cfg_max_read_req_i = mrrs_code;
        m.cfg_ext_tag_i = ext_tag;
        m.rq_tready_i = tb::chance(rng, cfg.rq_ready);
        m.cc_tready_i = tb::chance(rng, cfg.cc_ready);

        // Host inputs.
        host_rc();
        bool rc_v = !rc.beats.empty() && (rc.beats.front().shown || !tb::chance(rng, cfg.rc_gap));
        m.rc_tvalid_i = rc_v;
        if (!rc.beats.empty()) {
            tb::pcie::RcBeat &b = rc.beats.front();
            b.shown = b.shown || rc_v;
            tb::put_bytes(m.rc_tdata_i, b.d.data(), 64);
            m.rc_tkeep_i = b.keep;
            m.rc_tlast_i = b.last;
            put_words(m.rc_tuser_i, b.user);
        }
        mmio_issue();
        m.cq_tvalid_i = !cq_beats.empty();
        if (!cq_beats.empty()) {
            const Beat &b = cq_beats.front();
            tb::put_bytes(m.cq_tdata_i, b.d.data(), 64);
            m.cq_tkeep_i = b.keep;
            m.cq_tlast_i = b.last;
            put_words(m.cq_tuser_i, b.user);
        }
        m.mmio_rsp_valid_i = 0;
        if (mmio_rsp && mmio_rsp->first <= now()) {
            m.mmio_rsp_valid_i = 1;
            m.mmio_rsp_data_i = mmio_rsp->second;
        }
        m.eval();

        // Sample handshakes before the edge.
        bool rd_acc = m.rd_req_valid_i && m.rd_req_ready_o;
        bool wr_acc = m.wr_req_valid_i && m.wr_req_ready_o;
        bool wd_acc = m.wr_data_valid_i && m.wr_data_ready_o;
        bool rsp = m.rd_rsp_valid_o && m.rd_rsp_ready_i;
        bool rq = m.rq_tvalid_o && m.rq_tready_i;
        bool cq = m.cq_tvalid_i && m.cq_tready_o;
        bool cc = m.cc_tvalid_o && m.cc_tready_i;
        bool rc_acc = m.rc_tvalid_i && m.rc_tready_o;
        if (m.rc_tvalid_i && !m.rc_tready_o) cov_rc_held++;
        // The pool: 32 or 256, changed only with no tag in use (the last
        // cycle's count), and the bit's once the engine was idle a while.
        unsigned np = m.tags_pool_o, used = m.tags_used_o;
        chk.expect(np == TAGS5 || np == TAGS, "pool of %u tags", np);
        if (np != pool) {
            chk.expect(used_last == 0, "pool changed from %u to %u with %u tags in use", pool, np, used_last);
            cov_pool_late += !rd_todo.empty() || !rd_chunks.empty() || !pend.empty();
            pool = np;
        }
        chk.expect(used <= pool, "%u tags in use, pool %u", used, pool);
        idle_steady = (used == 0 && m.rd_req_ready_o && ext_tag == ext_last) ? idle_steady + 1 : 0;
        ext_last = ext_tag;
        if (idle_steady > 3)
            chk.expect(pool == (ext_tag ? TAGS : TAGS5), "pool %u, Extended Tag %d, engine idle", pool, ext_tag);
        used_last = used;
        if (used == TAGS5 && pool == TAGS5) cov_full5++;
        if (used == TAGS) cov_full8++;
        Beat rqb;
        if (m.rq_tvalid_o) {
            for (int i = 0; i < 64; i++) rqb.d[size_t(i)] = tb::get_byte(m.rq_tdata_o, size_t(i));
            rqb.keep = m.rq_tkeep_o;
            rqb.last = m.rq_tlast_o;
            rqb.user[0] = uint32_t(wbits(m.rq_tuser_o, 0, 32));
            rqb.user[1] = uint32_t(wbits(m.rq_tuser_o, 32, 32));
        }
        // PG213: tvalid stays up through a TLP; AXI-Stream: an offered beat
        // stays the same until taken.
        chk.expect(!rqs.open() || m.rq_tvalid_o, "RQ tvalid dropped inside a TLP");
        if (rq_stalled)
            chk.expect(m.rq_tvalid_o && rqb.d == rq_stall_beat.d && rqb.keep == rq_stall_beat.keep &&
                           rqb.last == rq_stall_beat.last && rqb.user == rq_stall_beat.user,
                       "RQ beat changed or withdrawn before it was taken");
        rq_stalled = m.rq_tvalid_o && !m.rq_tready_i;
        if (rq_stalled) rq_stall_beat = rqb;
        std::array<uint8_t, 64> rsp_d{};
        uint64_t rsp_keep = m.rd_rsp_keep_o;
        unsigned rsp_id = m.rd_rsp_id_o;
        bool rsp_last = m.rd_rsp_last_o, rsp_err = m.rd_rsp_err_o;
        if (rsp)
            for (int i = 0; i < 64; i++) rsp_d[size_t(i)] = tb::get_byte(m.rd_rsp_data_o, size_t(i));
        bool mreq = m.mmio_req_valid_o;
        MmioExp got{true, bool(m.mmio_req_write_o), unsigned(m.mmio_req_bar_o), uint32_t(m.mmio_req_addr_o),
                    uint64_t(m.mmio_req_wdata_o), unsigned(m.mmio_req_be_o), unsigned(m.mmio_req_func_o)};
        std::array<uint8_t, 64> ccd{};
        unsigned cc_keep = m.cc_tkeep_o, cc_last = m.cc_tlast_o;
        uint64_t cc_user = wbits(m.cc_tuser_o, 0, 17);
        if (cc)
            for (int i = 0; i < 64; i++) ccd[size_t(i)] = tb::get_byte(m.cc_tdata_o, size_t(i));
        bool wdone = m.wr_done_o;
        unsigned wdone_id = m.wr_done_id_o, wdone_err = m.wr_done_err_o;

        clk.tick();

        // Watchdog: a stuck engine must fail, not hang the testbench. Each
        // kind of work in flight (reads, writes, MMIO) must make progress.
        bool rd_out = rd_checked + rd_todo.size() < reads.size();
        if (rsp || !rd_out) wd_rd = now();
        if (wdone || wr_done_exp.empty()) wd_wr = now();
        if (cc || !mmio_busy) wd_mmio = now();
        if (now() - std::min({wd_rd, wd_wr, wd_mmio}) > 20000) {
            chk.expect(false, "hang: no progress for 20000 cycles (%zu/%zu reads answered, %zu TLPs pending, %zu "
                       "writes, MMIO %d)", rd_checked, reads.size(), pend.size(), wr_done_exp.size(), mmio_busy);
            std::exit(chk.finish());
        }

        // Update the models.
        if (rd_acc) {
            size_t i = rd_todo.front();
            rd_todo.pop_front();
            if (reads[i].len == 0) { n_rd_zero++; reads[i].err = true; }
            split(reads[i].addr, reads[i].len, mrrs_eff(), i, rd_chunks);
            if (t_rd_acc == 0) t_rd_acc = now() - 1;
        }
        if (wr_acc) {
            size_t i = wr_todo.front();
            wr_todo.pop_front();
            const WriteReq &w = writes[i];
            wr_done_exp.push_back({w.id, w.len == 0});
            if (w.len == 0) n_wr_zero++;
            split(w.addr, w.len, mps_eff(), i, wr_chunks);
        }
        if (wd_acc) wr_words.pop_front();
        if (wr_acc && t_wr_acc == 0) t_wr_acc = now() - 1;
        if (rq && t_rq_any == 0) t_rq_any = now() - 1;
        if (cq && ((cq_beats.front().d[9] >> 3) & 0xf) == 0 && mmio_exp && !mmio_exp->write)
            t_cq = now() - 1;    // SOP of a forwarded memory read (type bits 78:75 = 0)
        if (wdone) {
            if (chk.expect(!wr_done_exp.empty(), "wr_done without a request")) {
                auto e = wr_done_exp.front();
                wr_done_exp.pop_front();
                chk.expect(wdone_id == e.first && bool(wdone_err) == e.second, "wr_done id %u err %u, expected %u %d",
                           wdone_id, wdone_err, e.first, e.second);
            }
            wr_done_n++;
        }
        if (rq) {
            // One end and a start at DW 8 (alone, or beside one at DW 0): a
            // write followed by a write (a read riding adds its own end).
            const unsigned u = rqb.user[0], sop = u >> 20 & 3, eop = u >> 26 & 3;
            if (eop == 1 && (sop == 3 || (sop == 1 && (u >> 22 & 3) == 2))) cov_wstrad++;
            for (const auto &t : rqs.push(rqb.d, rqb.user)) host_tlp(t);
        }
        if (rc_acc) {
            if (rc.beats.front().user[2] >> 12 & 0xf) t_rc_last = now() - 1;   // a TLP ends in it
            if (__builtin_popcount(rc.beats.front().user[2] & 0xf) > 1) cov_rc_multi++;
            rc.beats.pop_front();
        }
        if (rsp) {
            if (t_rsp_first == 0) t_rsp_first = now() - 1;
            rsp_beats.push_back({rsp_d, rsp_keep});
            if (!chk.expect(rd_checked < reads.size(), "response without a request")) return;
            const ReadReq &r = reads[rd_checked];
            size_t nw = r.len ? (r.addr % 64 + r.len + 63) / 64 : 1;
            bool last_exp = rsp_beats.size() == nw;
            chk.expect(rsp_id == r.id, "response id %u, expected %u", rsp_id, r.id);
            chk.expect(rsp_last == last_exp, "read %zu: last=%d at beat %zu of %zu", rd_checked, rsp_last,
                       rsp_beats.size(), nw);
            if (rsp_last || rsp_beats.size() >= nw) {
                chk.expect(bool(rsp_err) == r.err, "read %zu (%llx+%u): err %d, expected %d", rd_checked,
                           (unsigned long long)r.addr, r.len, rsp_err, r.err);
                uint64_t base = r.addr & ~63ULL;
                long bad = 0;
                for (size_t k = 0; k < rsp_beats.size(); k++) {
                    uint64_t keep_exp = 0;
                    for (unsigned l = 0; l < 64; l++) {
                        uint64_t a = base + 64 * k + l;
                        if (r.len && a >= r.addr && a < r.addr + r.len) keep_exp |= 1ULL << l;
                    }
                    if (rsp_beats[k].second != keep_exp) bad++;
                    if (r.err) continue;
                    for (unsigned l = 0; l < 64; l++) {
                        if (!(keep_exp >> l & 1)) continue;
                        uint8_t e = mem.get(base + 64 * k + l);
                        if (inject && !injected) { e ^= 0x01; injected = true; }
                        if (rsp_beats[k].first[l] != e) bad++;
                    }
                }
                chk.expect(bad == 0, "read %zu (%llx+%u): %ld bad bytes/keeps", rd_checked,
                           (unsigned long long)r.addr, r.len, bad);
                rsp_beats.clear();
                rd_checked++;
            }
        }
        if (cq) cq_beats.pop_front();
        if (mreq) {
            if (!got.write && t_cq) lat_cq_req = std::min(lat_cq_req, now() - 1 - t_cq);
            if (chk.expect(mmio_exp.has_value(), "MMIO request nobody sent")) {
                const MmioExp &e = *mmio_exp;
                chk.expect(got.write == e.write && got.bar == e.bar && got.off == e.off && got.be == e.be &&
                               (!e.write || got.wdata == e.wdata) && got.fn == e.fn,
                           "MMIO %s fn %u bar %u off %x be %x data %llx, expected %s fn %u bar %u off %x be %x "
                           "data %llx",
                           got.write ? "wr" : "rd", got.fn, got.bar, got.off, got.be, (unsigned long long)got.wdata,
                           e.write ? "wr" : "rd", e.fn, e.bar, e.off, e.be, (unsigned long long)e.wdata);
                uint64_t key = (uint64_t(got.bar) << 32) | got.off;
                if (got.write) {
                    uint64_t &s = dev_regs[key];
                    for (unsigned b = 0; b < 8; b++)
                        if (got.be >> b & 1) s = (s & ~(0xffULL << 8 * b)) | (got.wdata & (0xffULL << 8 * b));
                    mmio_busy = false;
                } else {
                    mmio_rsp = {now() + tb::rnd(rng, 0, 20), dev_regs.count(key) ? dev_regs[key] : 0};
                }
                mmio_exp.reset();
            }
        }
        if (m.mmio_rsp_valid_i) {
            mmio_rsp.reset();
            t_mrsp = now() - 1;
        }
        if (cc && cpl_exp && cpl_exp->any && t_mrsp) lat_rsp_cc = std::min(lat_rsp_cc, now() - 1 - t_mrsp);
        if (cc) {
            if (chk.expect(cpl_exp.has_value(), "CC completion nobody asked for")) {
                const CplExp &e = *cpl_exp;
                const uint8_t *d = ccd.data();
                unsigned la = unsigned(bits(d, 0, 7)), bc = unsigned(bits(d, 16, 13)), dw = unsigned(bits(d, 32, 11));
                unsigned st = unsigned(bits(d, 43, 3)), rid = unsigned(bits(d, 48, 16)), tag = unsigned(bits(d, 64, 8));
                uint64_t data = bits(d, 96, 32) | (dw == 2 ? bits(d, 128, 32) << 32 : 0);
                unsigned cid = unsigned(bits(d, 72, 17));   // completer function, bus, ID enable
                bool ok = st == e.status && tag == e.tag && rid == cpl_rid && dw == e.dw && cid == cpl_fn && cc_last &&
                          (cc_user & 0x3) == 1 && ((cc_user >> 6) & 3) == 1 && ((cc_user >> 8) & 0xf) == 2 + dw &&
                          cc_keep == (0xffffu >> (13 - dw));
                if (e.any) ok = ok && la == e.la && bc == e.bc && data == e.data;
                chk.expect(ok, "CC: st %u tag %u rid %x cid %x dw %u la %x bc %u data %llx keep %x, expected st %u "
                           "tag %u rid %x cid %x dw %u la %x bc %u data %llx",
                           st, tag, rid, cid, dw, la, bc, (unsigned long long)data, cc_keep, e.status, e.tag, cpl_rid,
                           cpl_fn, e.dw, e.la, e.bc, (unsigned long long)e.data);
            }
            cpl_exp.reset();
            mmio_busy = false;
        }
    }

    bool idle() const {
        return rd_todo.empty() && wr_todo.empty() && rd_checked == reads.size() && wr_done_exp.empty() &&
               pend.empty() && rc.beats.empty() && cq_beats.empty() && !mmio_busy && wr_words.empty();
    }
    bool run_until_idle(uint64_t limit) {
        uint64_t start = now();
        while (!idle()) {
            cycle();
            if (now() - start > limit) {
                chk.expect(false, "hang: %zu/%zu reads answered, %zu writes pending, %zu TLPs pending", rd_checked,
                           reads.size(), wr_done_exp.size(), pend.size());
                return false;
            }
        }
        for (int i = 0; i < 20; i++) cycle();
        return true;
    }
};

uint64_t rand_len(tb::Rng &r) {
    unsigned k = tb::rnd(r, 0, 99);
    if (k == 0) return 0;
    if (k < 35) return tb::rnd(r, 1, 64);
    if (k < 75) return tb::rnd(r, 1, 700);
    if (k < 95) return tb::rnd(r, 1, 4200);
    return tb::rnd(r, 4000, 9100);
}

}  // namespace

int main(int argc, char **argv) {
    tb::Args args(argc, argv);
    Verilated::commandArgs(argc, argv);
    Vkite_pcie m;
    Bench b(m, args.seed, args.inject);
    std::printf("[pcie] seed %llu\n", (unsigned long long)args.seed);
    b.clk.reset();

    // Random traffic: reads from a region that crosses 4 GiB, writes to
    // another; MMIO alongside.
    const uint64_t RBASE = 0xfff80000ULL, WBASE = 0x7ffff00000ULL;
    long n = args.iters(3000);
    std::map<std::pair<unsigned, unsigned>, long> sizes;
    std::map<unsigned, long> straddles;
    long ext_busy = 0;
    for (long i = 0; i < n; i++) {
        if (i % 250 == 0) {
            // New negotiated sizes, changed while idle; some of the time the
            // largest (MPS 256, MRRS 512 here), else anything the link may
            // negotiate (128..1024 / 128..4096, reserved codes included).
            b.run_until_idle(2000000);
            bool dflt = i == 0 || tb::chance(b.rng, 0.3);
            b.mps_code = dflt ? 1 : tb::rnd(b.rng, 0, 3);
            b.mrrs_code = dflt ? 2 : tb::rnd(b.rng, 0, 7);
            // The RC stream: no straddle, 2 or 4 TLPs per beat (the card's core: 4).
            const unsigned st[] = {1, 2, 4, 4};
            b.cfg.straddle = st[(i / 250) % 4];
            b.ext_tag = (i / 250) % 3 != 1;   // a third of the time 32 tags
        } else if (i % 50 == 25 && tb::chance(b.rng, 0.3)) {
            // The host flips Extended Tag under traffic: taken at the next idle cycle.
            b.ext_tag = !b.ext_tag;
            ext_busy += m.tags_used_o != 0;
        }
        sizes[{b.mps_eff(), b.mrrs_eff()}]++;
        straddles[b.cfg.straddle]++;
        if (tb::chance(b.rng, 0.6)) {
            uint64_t a = RBASE + tb::rnd(b.rng, 0, 0xfffff);
            b.add_read(uint8_t(b.rng()), a, uint32_t(rand_len(b.rng)));
        } else {
            uint64_t a = WBASE + tb::rnd(b.rng, 0, 0x3ffff);
            b.add_write(uint8_t(b.rng()), a, uint32_t(rand_len(b.rng)));
        }
        // Keep the queues short so traffic interleaves in time.
        while (b.rd_todo.size() + b.wr_todo.size() > 8) b.cycle();
    }
    b.run_until_idle(2000000);
    // Short reads on the 4-TLP straddle: completions of 13-32 bytes, two to
    // four to a beat, more TLPs than kite_pcie_rc cuts per cycle, so it
    // holds the stream back (rc_tready) and nothing may be lost.
    {
        Config keep = b.cfg;
        b.cfg.straddle = 4;
        b.cfg.pack = 1.0;
        b.cfg.rc_gap = 0.0;
        b.cfg.lat_min = b.cfg.lat_max = 300;
        b.cfg.lat_quantum = 256;    // all tags' answers at once
        b.ext_tag = true;
        for (long i = 0; i < n / 3; i++) {
            b.add_read(uint8_t(b.rng()), RBASE + tb::rnd(b.rng, 0, 0xfffff), tb::rnd(b.rng, 1, 20));
            while (b.rd_todo.size() > 8) b.cycle();
        }
        b.run_until_idle(2000000);
        straddles[4] += n / 3;
        b.cfg = keep;
    }
    // Writes whose data comes slower than RQ takes it: the data FIFO runs
    // near empty, so each TLP, a TLP started at DW 8 of a shared beat
    // included, must wait until all of its words are in.
    long slow_ws = 0;
    {
        Config keep = b.cfg;
        b.cfg.wr_gap = 0.7;
        b.cfg.rq_ready = 0.9;
        const long ws0 = b.cov_wstrad;
        for (long i = 0; i < n / 3; i++) {
            b.add_write(uint8_t(b.rng()), WBASE + tb::rnd(b.rng, 0, 0x3ffff), tb::rnd(b.rng, 1, 300));
            while (b.wr_todo.size() > 4) b.cycle();
        }
        b.run_until_idle(2000000);
        slow_ws = b.cov_wstrad - ws0;
        b.cfg = keep;
    }
    std::printf("[pcie] writes with slow data: %ld x 1..300 B, %ld beats shared by two writes\n", n / 3, slow_ws);
    std::printf("[pcie] (MPS, MRRS) used:");
    for (auto &[k, v] : sizes) std::printf(" (%u, %u) x %ld", k.first, k.second, v);
    std::printf("; RC straddle:");
    for (auto &[k, v] : straddles) std::printf(" %u x %ld", k, v);
    std::printf("\n");
    // Read back what was written (reads after wr_done see the data).
    for (const auto &w : std::vector<Bench::WriteReq>(b.writes))
        if (w.len) b.add_read(uint8_t(w.id), w.addr, w.len);
    b.run_until_idle(2000000);
    // Every written byte is in host memory, and nothing else was written.
    {
        std::map<uint64_t, uint8_t> img;
        for (const auto &w : b.writes)
            for (uint32_t i = 0; i < w.len; i++) img[w.addr + i] = w.data[i];
        long bad = 0;
        for (auto &[a, v] : img)
            if (b.mem.get(a) != v) bad++;
        for (auto &[a, v] : b.mem.written)
            if (!img.count(a)) bad++;
        b.chk.expect(bad == 0, "host memory: %ld bytes differ from the writes", bad);
    }
    b.chk.expect(uint64_t(m.cnt_rc_cpl_err_o) == uint64_t(b.n_err), "cnt_rc_cpl_err %u, host sent %ld",
                 m.cnt_rc_cpl_err_o, b.n_err);
    b.chk.expect(uint64_t(m.cnt_rc_bad_o) == uint64_t(b.n_bad), "cnt_rc_bad %u, host sent %ld", m.cnt_rc_bad_o,
                 b.n_bad);
    b.chk.expect(uint64_t(m.cnt_rc_unexp_tag_o) == uint64_t(b.n_unexp), "cnt_rc_unexp_tag %u, host sent %ld",
                 m.cnt_rc_unexp_tag_o, b.n_unexp);
    b.chk.expect(uint64_t(m.cnt_rd_zero_len_o) == uint64_t(b.n_rd_zero), "cnt_rd_zero_len %u, expected %ld",
                 m.cnt_rd_zero_len_o, b.n_rd_zero);
    b.chk.expect(uint64_t(m.cnt_wr_zero_len_o) == uint64_t(b.n_wr_zero), "cnt_wr_zero_len %u, expected %ld",
                 m.cnt_wr_zero_len_o, b.n_wr_zero);
    b.chk.expect(uint64_t(m.cnt_cq_unsup_o) == uint64_t(b.n_unsup), "cnt_cq_unsup %u, expected %ld",
                 m.cnt_cq_unsup_o, b.n_unsup);
    long errs = 0;
    for (const auto &r : b.reads) errs += r.err;
    std::printf("[pcie] random: %zu reads (%ld with error), %zu writes, %ld split completions, %ld completions "
                "not for the oldest TLP, %ld TLPs starting on a 4 KiB boundary, %zu tags used (%ld cycles with all 32 "
                "out without Extended Tag, %ld with all %u; %ld flips of the bit with tags out, %ld pool changes with "
                "requests waiting), faults: %ld error completions, %ld bad (%ld duplicated, %ld byte count, %ld lower address), %ld unexpected tags, %ld+%ld zero-length; "
                "%ld RC beats with several TLP starts, %ld cycles of RC held back, %ld RQ beats with a write's end and the next write's start; MMIO %ld reads, %ld writes, %ld unsupported\n",
                b.reads.size(), errs, b.writes.size(), b.cov_split, b.cov_ooo, b.cov_4k, b.tag_uses.size(),
                b.cov_full5, b.cov_full8, TAGS, ext_busy, b.cov_pool_late, b.n_err, b.n_bad, b.cov_dup, b.cov_badbc, b.cov_badla, b.n_unexp, b.n_rd_zero, b.n_wr_zero, b.cov_rc_multi, b.cov_rc_held, b.cov_wstrad, b.n_mmio_rd,
                b.n_mmio_wr, b.n_unsup);
    if (n >= 1000) {
        b.chk.expect(b.cov_split > 1000 && b.cov_ooo > 100 && b.cov_4k > 50 && b.tag_uses.size() == TAGS &&
                         b.cov_full5 > 0 && b.cov_full8 > 0 && ext_busy > 2 && b.n_err > 5 && b.cov_dup > 2 && b.cov_badbc > 2 && b.cov_badla > 2 && b.n_unexp > 2 && b.n_rd_zero > 0 &&
                         b.n_wr_zero > 0 && b.n_unsup > 10 && b.n_mmio_rd > 50 && b.n_mmio_wr > 50 &&
                         b.cov_rc_multi > 500 && b.cov_rc_held > 100 && b.cov_wstrad > 100 && slow_ws > 50,
                     "coverage too thin");
    }

    // Throughput: ideal host (always ready, no gaps, no faults), round trip
    // of 100 cycles.
    auto perf = [&](const char *what, bool rd, uint32_t len, double split, unsigned count, unsigned straddle = 1,
                    unsigned lat = 100, bool ext = true) {
        b.cfg = Config{1.0, 0.0, 1.0, 0.0, 1.0, lat, lat, split, false, false, false, true};
        b.ext_tag = ext;
        b.run_until_idle(1000);
        b.cfg.straddle = straddle;
        b.cfg.pack = 1.0;
        b.mps_code = 1;
        b.mrrs_code = 2;
        uint64_t base = rd ? 0x100000000ULL : 0x200000000ULL;
        for (unsigned i = 0; i < count; i++) {
            if (rd) b.add_read(uint8_t(i), base + uint64_t(i) * len, len);
            else b.add_write(uint8_t(i), base + uint64_t(i) * len, len);
        }
        uint64_t t0 = b.now();
        b.run_until_idle(1000000);
        uint64_t cycles = b.now() - t0 - 20;
        double bpc = double(len) * count / double(cycles);
        std::printf("[pcie] throughput %s: %u x %u B in %llu cycles: %.1f B/cycle = %.2f GB/s at 250 MHz\n", what,
                    count, len, (unsigned long long)cycles, bpc, bpc * 0.25);
        return bpc;
    };
    double r1 = perf("DMA read, 512 B completions", true, 4096, 0.0, 256);
    double r2 = perf("DMA read, 64 B (RCB) completions", true, 4096, 1.0, 256);
    double r3 = perf("DMA read, 512 B completions, 2-TLP straddle", true, 4096, 0.0, 256, 2);
    double r4 = perf("DMA read, 64 B (RCB) completions, 2-TLP straddle", true, 4096, 1.0, 256, 2);
    double r5 = perf("DMA read, 512 B completions, 4-TLP straddle", true, 4096, 0.0, 256, 4);
    double r6 = perf("DMA read, 64 B (RCB) completions, 4-TLP straddle", true, 4096, 1.0, 256, 4);
    double w1 = perf("DMA write, MPS 256", false, 4096, 0.0, 64);
    // A host answering in 1 us (250 cycles): 64-byte reads (WQEs) are bound
    // by the tags in flight, 32 without Extended Tag, 256 with it.
    double t5 = perf("DMA read, 64 B requests, 1 us host, 32 tags", true, 64, 0.0, 4096, 4, 250, false);
    double t8 = perf("DMA read, 64 B requests, 1 us host, 256 tags", true, 64, 0.0, 4096, 4, 250, true);
    std::printf("[pcie] 64-byte reads on a 1 us host: %.1f M/s with 32 tags, %.1f M/s with 256 (%.2fx)\n",
                t5 / 64 * 250, t8 / 64 * 250, t8 / t5);
    // 32 tags: at most 32 reads per 250 cycles. 256: the RC stream's bound,
    // 64-byte completions 80 bytes apart with the 4-TLP straddle (0.8 per
    // cycle), which needs one request taken per cycle.
    b.chk.expect(t5 / 64 < 32.0 / 250 && t8 / 64 > 0.9 * 0.8,
                 "1 us host: %.3f reads/cycle with 32 tags (bound 0.128), %.3f with 256 (bound 0.8)", t5 / 64, t8 / 64);
    // 60-byte writes (RX frames) with 64-byte reads (TX WQEs) waiting beside
    // them: each read rides at DW 8 of a write's last beat, so the pair takes
    // 2 RQ beats, not 3.
    unsigned rq0 = b.rqs.beats, st0 = b.rqs.straddled;
    {
        b.cfg = Config{1.0, 0.0, 1.0, 0.0, 1.0, 100, 100, 0.0, false, false, false, true};
        for (unsigned i = 0; i < 256; i++) {
            b.add_write(uint8_t(i), 0x200000000ULL + 64ull * i, 60);
            b.add_read(uint8_t(i), 0x100000000ULL + 64ull * i, 64);
        }
        b.run_until_idle(1000000);
    }
    const unsigned mix_beats = b.rqs.beats - rq0, mix_st = b.rqs.straddled - st0;
    std::printf("[pcie] throughput RQ: 256 writes of 60 B and 256 reads of 64 B in %u RQ beats (%u with a write's "
                "end and a read), %.2f beats per pair (3 without straddle)\n", mix_beats, mix_st, mix_beats / 256.0);
    b.chk.expect(mix_beats < 256 * 2.5 && mix_st > 128, "reads ride on the writes' last beats");
    // RX frames of 60 bytes, each with its 32-byte CQE write: a write that
    // ends by DW 7 shares its last beat with the next one (frame 19 DWs,
    // CQE 12), so two frames take 5 beats, not 6, two of them shared.
    rq0 = b.rqs.beats;
    const long ws0 = b.cov_wstrad;
    {
        b.cfg = Config{1.0, 0.0, 1.0, 0.0, 1.0, 100, 100, 0.0, false, false, false, true};
        for (unsigned i = 0; i < 256; i++) {
            b.add_write(uint8_t(2 * i), 0x200000000ULL + 2048ull * i, 60);
            b.add_write(uint8_t(2 * i + 1), 0x280000000ULL + 32ull * i, 32);
        }
        b.run_until_idle(1000000);
    }
    const unsigned rx_beats = b.rqs.beats - rq0;
    const long rx_ws = b.cov_wstrad - ws0;
    std::printf("[pcie] throughput RQ: 256 RX frames of 60 B with their 32 B CQEs in %u RQ beats (%ld shared by two "
                "writes), %.2f beats per frame (3 without straddle)\n", rx_beats, rx_ws, rx_beats / 256.0);
    b.chk.expect(rx_beats <= 256 * 5 / 2 + 2 && rx_ws >= 250, "60-byte frames with CQEs: %u beats for 256, %ld shared",
                 rx_beats, rx_ws);
    // A completion of 12 + 512 bytes: 9 beats; straddled, the next starts at
    // byte 544 (2) or 528 (4). One of 12 + 64 bytes: 2 beats; straddled, 96
    // or 80 bytes apart. 256 B writes: 68 DWs each, two in 9 beats (the
    // second starts at DW 8 of the first's last beat).
    b.chk.expect(r1 > 0.97 * 512.0 / 9 && r2 > 0.97 * 64.0 / 2 && r3 > 0.97 * 512.0 * 64 / 544 &&
                     r4 > 0.97 * 64.0 * 64 / 96 && r5 > 0.97 * 512.0 * 64 / 528 && r6 > 0.97 * 64.0 * 64 / 80 &&
                     w1 > 0.97 * 256.0 / 4.5,
                 "throughput below the interface bound");

    // Latency (one 64-byte read, idle engine): request to RQ, last RC beat to
    // first response beat.
    b.t_rd_acc = b.t_rq_first = b.t_rc_last = b.t_rsp_first = 0;
    b.add_read(1, 0x300000040ULL, 64);
    b.run_until_idle(10000);
    b.t_rq_any = b.t_wr_acc = 0;
    b.add_write(2, 0x300000080ULL, 64);
    b.run_until_idle(10000);
    std::printf("[pcie] latency: read request to RQ %llu cycles, last RC beat to first response beat %llu cycles "
                "(PCIe round trip excluded); write request to first RQ beat %llu cycles (data waiting); MMIO: CQ "
                "read to MMIO port %llu cycles, MMIO data to CC %llu cycles\n",
                (unsigned long long)(b.t_rq_first - b.t_rd_acc), (unsigned long long)(b.t_rsp_first - b.t_rc_last),
                (unsigned long long)(b.t_rq_any - b.t_wr_acc), (unsigned long long)b.lat_cq_req,
                (unsigned long long)b.lat_rsp_cc);
    // Every RQ beat kept PG213's straddle rules; many carried two TLPs.
    std::printf("[pcie] RQ: %u beats, %u with two TLP starts or ends\n", b.rqs.beats, b.rqs.straddled);
    b.chk.expect(b.rqs.error.empty(), "%s", b.rqs.error.c_str());
    b.chk.expect(b.rqs.straddled > 200, "RQ straddle exercised");
    return b.chk.finish();
}
