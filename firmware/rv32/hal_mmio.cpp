// SPDX-License-Identifier: MIT
// The soft CPU's HAL on the board (kite_cpu_sys, fpga/rtl/cpu): kite_card's
// firmware ports through the MMIO window kite_cpu_io (register map:
// fpga/spec, group cpu_io), the context store in the CPU's UltraRAM
// (.ctx, link.ld), and the main loop. The translation of contexts into
// port writes is fw::PortHal's, the code the co-simulation runs.
#include "kite_fw/cpu_io.hpp"
#include "kite_fw/fw.hpp"
#include "kite_fw/port_hal.hpp"

extern "C" {
// Words at a time where both ends allow it, eight per loop: the firmware
// clears and copies its tables (tens of KiB at boot) with these, and the
// loop's own instructions would otherwise cost more than the stores.
void *memcpy(void *d, const void *s, size_t n) {
    auto *dp = static_cast<uint8_t *>(d);
    auto *sp = static_cast<const uint8_t *>(s);
    if (((uintptr_t(dp) | uintptr_t(sp)) & 3) == 0) {
        for (; n >= 32; n -= 32, dp += 32, sp += 32) {
            auto *w = reinterpret_cast<uint32_t *>(dp);
            const auto *r = reinterpret_cast<const uint32_t *>(sp);
            const uint32_t a = r[0], b = r[1], c = r[2], e = r[3], f = r[4], g = r[5], h = r[6], i = r[7];
            w[0] = a, w[1] = b, w[2] = c, w[3] = e, w[4] = f, w[5] = g, w[6] = h, w[7] = i;
        }
        for (; n >= 4; n -= 4, dp += 4, sp += 4)
            *reinterpret_cast<uint32_t *>(dp) = *reinterpret_cast<const uint32_t *>(sp);
    }
    while (n--)
        *dp++ = *sp++;
    return d;
}
void *memset(void *d, int c, size_t n) {
    auto *dp = static_cast<uint8_t *>(d);
    for (; n && (uintptr_t(dp) & 3); n--)
        *dp++ = uint8_t(c);
    const uint32_t w = uint8_t(c) * 0x01010101u;
    for (; n >= 32; n -= 32, dp += 32) {
        auto *p = reinterpret_cast<uint32_t *>(dp);
        p[0] = w, p[1] = w, p[2] = w, p[3] = w, p[4] = w, p[5] = w, p[6] = w, p[7] = w;
    }
    for (; n >= 4; n -= 4, dp += 4)
        *reinterpret_cast<uint32_t *>(dp) = w;
    while (n--)
        *dp++ = uint8_t(c);
    return d;
}
int memcmp(const void *a, const void *b, size_t n) {
    auto *x = static_cast<const uint8_t *>(a);
    auto *y = static_cast<const uint8_t *>(b);
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}
void __cxa_pure_virtual() {
    for (;;) {
    }
}
}

namespace {

namespace io = kite::fw::cpu_io;
namespace ctx = kite::ctx;
using kite::fw::card::wq_port;

constexpr uintptr_t WINDOW = 0x20000000;
inline volatile uint32_t &R(uint64_t off) { return *reinterpret_cast<volatile uint32_t *>(WINDOW + uintptr_t(off)); }
inline volatile uint8_t *BUF() { return reinterpret_cast<volatile uint8_t *>(WINDOW + uintptr_t(io::DMA_BUF)); }

// The context store (about 0.8 MiB): .ctx is the CPU's UltraRAM, zero at
// configuration, so it is not cleared at start.
#define KITE_CTX __attribute__((section(".ctx")))
KITE_CTX ctx::func_ctx s_func[ctx::MAX_FN];
KITE_CTX ctx::eq_ctx s_eq[ctx::NUM_EQ];
KITE_CTX ctx::cq_ctx s_cq[ctx::NUM_CQ];
KITE_CTX ctx::wq_ctx s_sq[ctx::NUM_SQ];
KITE_CTX ctx::wq_ctx s_rq[ctx::NUM_RQ];
KITE_CTX ctx::rss_ctx s_rss[ctx::NUM_RSS];
KITE_CTX ctx::filter_ctx s_filter[ctx::NUM_FILTER];
KITE_CTX ctx::flow_ctx s_flow[ctx::NUM_FLOW];
KITE_CTX ctx::port_ctx s_port[kite::spec::pci::MAX_PORTS];
KITE_CTX ctx::mr_ctx s_mr[ctx::NUM_MR];
KITE_CTX ctx::qp_ctx s_qp[ctx::NUM_QP];
KITE_CTX ctx::srq_ctx s_srq[ctx::NUM_SRQ];
KITE_CTX ctx::ah_ctx s_ah[ctx::NUM_AH];
KITE_CTX ctx::gid_ctx s_gid[ctx::NUM_GID];
KITE_CTX uint8_t s_flash_old[4096], s_flash_sec[4096];  // flash_write's subsector, before and after

class BoardHal final : public kite::fw::PortHal {
public:
    BoardHal() {
        set_store({s_func, s_eq, s_cq, s_sq, s_rq, s_rss, s_filter, s_flow, s_port, s_mr, s_qp, s_srq, s_ah, s_gid});
        // The PF exists from the start; VFs come with the host's NumVFs.
        s_func[0].enabled = 1;
        s_func[0].num_ports = uint8_t(R(io::NUM_PORTS));
        s_func[0].msix_vectors = uint16_t(kite::spec::pci::PF_MSIX_VECTORS);
        s_func[0].db_pages = uint16_t(kite::spec::pci::PF_DB_PAGES);
        // The PF's BAR0 FUNC_INFO: function 0 on port 0, and the port count.
        namespace reg = kite::spec::reg;
        R(io::FUNC_INFO) = (R(io::NUM_PORTS) << __builtin_ctz(reg::FUNC_INFO_NUM_PORTS)) & reg::FUNC_INFO_NUM_PORTS;
    }

    // Host memory through the window's DMA engine, 4 KiB at a time; the
    // staging buffer is in address lanes (byte (addr & 63) + i).
    bool dma(uint16_t fn, uint64_t addr, uint32_t len, uint32_t op) {
        R(io::DMA_ADDR_LO) = uint32_t(addr);
        R(io::DMA_ADDR_HI) = uint32_t(addr >> 32);
        R(io::DMA_LEN) = len;
        R(io::DMA_FN) = fn;
        R(io::DMA_CTRL) = op;
        while (R(io::DMA_STATUS) & 1) {
        }
        return !(R(io::DMA_STATUS) & 2);
    }
    bool dma_read(uint16_t fn, uint64_t addr, void *buf, uint32_t len) override {
        auto *d = static_cast<uint8_t *>(buf);
        for (uint32_t off = 0; off < len; off += 4096) {
            const uint32_t n = len - off < 4096 ? len - off : 4096;
            const uint64_t a = addr + off;
            if (!dma(fn, a, n, 1))
                return false;
            for (uint32_t i = 0; i < n; i++)
                d[off + i] = BUF()[(a & 63) + i];
        }
        return true;
    }
    bool dma_write(uint16_t fn, uint64_t addr, const void *buf, uint32_t len) override {
        auto *s = static_cast<const uint8_t *>(buf);
        for (uint32_t off = 0; off < len; off += 4096) {
            const uint32_t n = len - off < 4096 ? len - off : 4096;
            const uint64_t a = addr + off;
            for (uint32_t i = 0; i < n; i++)
                BUF()[(a & 63) + i] = s[off + i];
            if (!dma(fn, a, n, 2))
                return false;
        }
        return true;
    }

    uint16_t num_functions() override { return uint16_t(R(io::NUM_FN)); }
    void cmdq_get(uint16_t fn, kite::fw::cmdq_regs &r) override {
        R(io::CMDQ_SEL) = fn;
        r.base = R(io::CMDQ_BASE_LO) | uint64_t(R(io::CMDQ_BASE_HI)) << 32;
        r.log_size = uint8_t(R(io::CMDQ_LOG_SIZE));
        r.pi = uint16_t(R(io::CMDQ_PI));
        r.ci = uint16_t(R(io::CMDQ_CI));
    }
    void cmdq_set_ci(uint16_t fn, uint16_t ci) override {
        R(io::CMDQ_SEL) = fn;
        R(io::CMDQ_CI) = ci;
    }
    uint8_t port_link_up(uint8_t port) override { return uint8_t(R(io::LINK) >> port & 1); }
    uint8_t num_ports() override { return uint8_t(R(io::NUM_PORTS)); }
    void port_mac(uint16_t fn, uint8_t port, uint8_t mac[6]) override {
        uint64_t m = uint64_t(R(io::MAC_HI) & 0xffff) << 32 | R(io::MAC_LO);
        m += port + uint64_t(fn) * num_ports();
        for (int i = 5; i >= 0; i--, m >>= 8)
            mac[i] = uint8_t(m);
    }
    void set_health(uint32_t syndrome, bool fatal) override {
        R(io::HEALTH) = syndrome;
        fatal_ = fatal_ || fatal;
    }
    void set_fw_version(uint32_t v) override { R(io::FW_VERSION) = v; }
    uint64_t serial() override { return R(io::SERIAL_LO) | uint64_t(R(io::SERIAL_HI)) << 32; }
    // The configuration flash through kite_flash: the firmware's layout
    // (control block, two banks) from FLASH_WIN_BASE on.
    uint32_t flash_size() override { return kite::fw::FLASH_SIZE; }
    bool flash_read(uint32_t off, void *buf, uint32_t len) override {
        if (off > kite::fw::FLASH_SIZE || len > kite::fw::FLASH_SIZE - off)
            return false;
        auto *d = static_cast<uint8_t *>(buf);
        for (uint32_t done = 0; done < len;) {
            const uint32_t n = len - done < io::FLASH_BUF_SIZE ? len - done : io::FLASH_BUF_SIZE;
            if (!flash_op(io::FLASH_OP_READ, io::FLASH_WIN_BASE + off + done, n, FLASH_READ_US))
                return false;
            for (uint32_t i = 0; i < n; i += 4) {
                const uint32_t w = R(io::FLASH_BUF + i);
                for (uint32_t j = 0; j < 4 && i + j < n; j++)
                    d[done + i + j] = uint8_t(w >> (8 * j));
            }
            done += n;
        }
        return true;
    }
    // Byte-exact, as the HAL promises: each 4 KiB subsector the range
    // touches is read, merged, erased only where a bit must go from 0 to 1,
    // and its pages programmed where they changed (or, after an erase,
    // where they are not blank).
    bool flash_write(uint32_t off, const void *buf, uint32_t len) override {
        if (off > kite::fw::FLASH_SIZE || len > kite::fw::FLASH_SIZE - off)
            return false;
        uint8_t *old = s_flash_old, *sec = s_flash_sec;
        const auto *src = static_cast<const uint8_t *>(buf);
        while (len) {
            const uint32_t base = off & ~(SUB - 1), at = off - base;
            const uint32_t n = len < SUB - at ? len : SUB - at;
            if (!flash_read(base, old, SUB))
                return false;
            memcpy(sec, old, SUB);
            memcpy(sec + at, src, n);
            bool erase = false;
            for (uint32_t i = at; i < at + n; i++)
                erase = erase || (old[i] & sec[i]) != sec[i];
            const uint32_t fa = io::FLASH_WIN_BASE + base;
            if (erase && !flash_op(io::FLASH_OP_ERASE, fa, 0, FLASH_ERASE_US))
                return false;
            for (uint32_t p = 0; p < SUB; p += io::FLASH_BUF_SIZE) {
                bool need = false;
                for (uint32_t i = p; i < p + io::FLASH_BUF_SIZE; i++)
                    need = need || (erase ? sec[i] != 0xff : sec[i] != old[i]);
                if (!need)
                    continue;
                for (uint32_t i = 0; i < io::FLASH_BUF_SIZE; i += 4)
                    R(io::FLASH_BUF + i) = uint32_t(sec[p + i]) | uint32_t(sec[p + i + 1]) << 8 |
                                           uint32_t(sec[p + i + 2]) << 16 | uint32_t(sec[p + i + 3]) << 24;
                if (!flash_op(io::FLASH_OP_PROGRAM, fa + p, io::FLASH_BUF_SIZE, FLASH_PROG_US))
                    return false;
            }
            off += n, src += n, len -= n;
        }
        return true;
    }
    // HEARTBEAT: milliseconds since start().
    void start() { boot_ns_ = now_ns(); }
    void beat() { R(io::HEARTBEAT) = uint32_t((now_ns() - boot_ns_) / 1000000); }
    uint64_t now_ns() override {
        const uint32_t lo = R(io::TIME_LO);  // latches TIME_HI
        return uint64_t(R(io::TIME_HI)) << 32 | lo;
    }
    void log(int, const char *msg) override {
        while (*msg)
            R(io::UART) = uint8_t(*msg++);
        R(io::UART) = '\n';
    }

    // The host's NumVFs (NUM_FN, from the PCIe core's SR-IOV control):
    // VFs that go are reset and disabled; VFs that come get their function
    // context (ports round robin, the VF's vectors and doorbell pages) and
    // a reset, as enabling VFs does on the model card.
    void update_vfs(kite::fw::Firmware &fw) {
        const uint16_t n = uint16_t(R(io::NUM_FN) - 1);
        if (n == num_vfs_)
            return;
        for (uint16_t fn = 1; fn <= num_vfs_; fn++) {
            fw.reset_function(fn);
            s_func[fn] = ctx::func_ctx{};
            func_to_card(fn);
        }
        num_vfs_ = n;
        const uint8_t ports = num_ports();
        for (uint16_t fn = 1; fn <= n; fn++) {
            ctx::func_ctx &f = s_func[fn];
            f.enabled = 1;
            f.port = uint8_t((fn - 1) % ports);
            f.num_ports = 1;
            f.msix_vectors = uint16_t(kite::spec::pci::VF_MSIX_VECTORS);
            f.db_pages = uint16_t(kite::spec::pci::VF_DB_PAGES);
            func_to_card(fn);
            fw.reset_function(fn);
        }
    }

    bool fatal() const { return fatal_; }
    void clear_fatal() { fatal_ = false; }

protected:
    void port_wq(bool rq, uint32_t qn, const wq_port &p) override {
        R(io::WQ_BASE_LO) = uint32_t(p.base);
        R(io::WQ_BASE_HI) = uint32_t(p.base >> 32);
        R(io::WQ_A) = (qn & 0xffff) | uint32_t(rq) << 16 | uint32_t(p.en) << 17 | uint32_t(p.state) << 18 |
                      uint32_t(p.fn) << 24;
        R(io::WQ_B) = p.page | uint32_t(p.log_size) << 8 | uint32_t(p.log_stride) << 12 | uint32_t(p.port) << 16 |
                      uint32_t(p.flags) << 24;
        R(io::WQ_CQN) = p.cqn;
        R(io::WQ_GO) = 1;
        while (R(io::WQ_GO) & 1) {
        }
    }
    void port_cmd(uint8_t op, uint16_t qn, const uint8_t *data, size_t n) override {
        uint8_t d[32] = {};
        __builtin_memcpy(d, data, n < 32 ? n : 32);
        R(io::CMD_OP) = op | uint32_t(qn) << 16;
        for (unsigned i = 0; i < 8; i++)
            R(io::CMD_DATA + 4 * i) = uint32_t(d[4 * i]) | uint32_t(d[4 * i + 1]) << 8 |
                                      uint32_t(d[4 * i + 2]) << 16 | uint32_t(d[4 * i + 3]) << 24;
        R(io::CMD_GO) = 1;
        while (R(io::CMD_GO) & 1) {
        }
    }
    void port_rss(unsigned rss_ctx, unsigned addr, uint32_t v) override {
        R(io::RSS_SEL) = addr | rss_ctx << 16;
        R(io::RSS_DATA) = v;
    }
    void port_flt(unsigned port, unsigned addr, uint64_t v) override {
        R(io::FLT_SEL) = addr | port << 16;
        R(io::FLT_LO) = uint32_t(v);
        R(io::FLT_HI) = uint32_t(v >> 32);
    }
    void port_fn(uint16_t fn, uint16_t db_pages, uint8_t port) override {
        R(io::FN_CTL) = fn | uint32_t(port) << 8 | uint32_t(db_pages) << 16;
    }
    void port_pause(unsigned port, bool pause_rx) override { R(io::PORT_CTL) = port | uint32_t(pause_rx) << 8; }
    void port_counters(uint32_t idx, uint64_t *out, uint32_t words, bool clear) override {
        for (uint32_t w = 0; w < words; w++) {
            R(io::ST_IDX) = (idx + w) | uint32_t(clear) << 16;
            R(io::ST_GO) = 1;
            while (R(io::ST_GO) & 1) {
            }
            out[w] = R(io::ST_LO) | uint64_t(R(io::ST_HI)) << 32;
        }
    }

private:
    // How long kite_flash may wait for the flash, before and after its
    // command (MT25Q maxima: page program 1.8 ms, 4 KiB erase 400 ms; a
    // READ waits only for what an earlier operation left running).
    static constexpr uint32_t SUB = 4096;
    static constexpr uint32_t FLASH_READ_US = 500'000, FLASH_PROG_US = 505'000, FLASH_ERASE_US = 900'000;
    static_assert(kite::fw::FLASH_SIZE <= io::FLASH_WIN_SIZE, "the firmware's flash layout fits its window");

    // One kite_flash operation; the controller bounds its own waits.
    bool flash_op(uint32_t op, uint32_t addr, uint32_t len, uint32_t tmo_us) {
        R(io::FLASH_ADDR) = addr;
        R(io::FLASH_LEN) = len;
        R(io::FLASH_TIMEOUT) = tmo_us;
        R(io::FLASH_CMD) = op;
        uint32_t st;
        // An erase keeps the firmware here for up to 400 ms and an update
        // for seconds: the heartbeat goes on, the firmware is alive.
        for (uint32_t n = 1; (st = R(io::FLASH_STATUS)) & 1; n++)
            if (!(n & 255))
                beat();
        const uint32_t err = st >> 4 & 15;
        if (err == io::FLASH_ERR_NONE)
            return true;
        static const char *const why[] = {"", "unknown operation", "out of range", "timed out",
                                          "write enable not set", "program/erase failed", "aborted"};
        log(0, "fw: flash operation failed:");
        log(0, err < sizeof(why) / sizeof(why[0]) ? why[err] : "?");
        return false;
    }

    bool fatal_ = false;
    uint16_t num_vfs_ = 0;
    uint64_t boot_ns_ = 0;
};

BoardHal hal;
kite::fw::Firmware firmware(hal, kite::fw::card::FEATURES);

void set_status() {
    R(io::DEV_STATUS) = hal.fatal() ? uint32_t(kite::spec::reg::DEV_STATUS_FATAL)
                                    : uint32_t(kite::spec::reg::DEV_STATUS_READY);
}

}  // namespace

// Boot, then serve: the host's NumVFs, function resets the host asked for
// (DEV_CTRL.RESET), WQs the datapath moved to ERR, the command rings, the
// heartbeat (milliseconds since boot).
int main() {
    hal.start();
    firmware.boot();
    set_status();
    for (;;) {
        hal.update_vfs(firmware);
        const uint32_t req = R(io::RESET_REQ);
        if (req) {
            for (uint16_t fn = 0; fn < hal.num_functions(); fn++)
                if (req >> fn & 1)
                    firmware.reset_function(fn);
            if (req & 1) {
                hal.clear_fatal();
                R(io::HEALTH) = kite::spec::health_syndrome::OK;
            }
            R(io::RESET_DONE) = req;
        }
        if (const uint32_t sum = R(io::WQ_ERR_SUM)) {
            for (uint32_t w = 0; w < io::WQ_ERR_WORDS; w++) {
                if (!(sum >> w & 1))
                    continue;
                const uint32_t bits = R(io::WQ_ERR + 4 * w);   // clears them
                for (uint32_t b = 0; b < 32; b++)
                    if (bits >> b & 1)
                        hal.wq_error(w < io::WQ_ERR_WORDS / 2, 32 * (w % (io::WQ_ERR_WORDS / 2)) + b);
            }
        }
        firmware.poll();
        set_status();
        hal.beat();
    }
}
