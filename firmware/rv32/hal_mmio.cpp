// SPDX-License-Identifier: MIT
// HAL of the soft CPU (kite_cpu_sys, fpga/rtl/cpu) over its MMIO window at
// 0x2000_0000. The window's card side is not written yet, so the register
// map below is still a sketch: on the board this HAL derives from
// fw::PortHal (firmware/src/port_hal.cpp) and the window carries
// kite_card's firmware ports (Documentation/hw/rtl.rst, "Control CPU").
#include "kite_fw/fw.hpp"

extern "C" {
void *memcpy(void *d, const void *s, size_t n) {
    auto *dp = static_cast<uint8_t *>(d);
    auto *sp = static_cast<const uint8_t *>(s);
    while (n--)
        *dp++ = *sp++;
    return d;
}
void *memset(void *d, int c, size_t n) {
    auto *dp = static_cast<uint8_t *>(d);
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

constexpr uintptr_t IO = 0x20000000;
enum : uintptr_t {
    DMA_ADDR_LO = IO + 0x000, DMA_ADDR_HI = IO + 0x004, DMA_LEN = IO + 0x008, DMA_FN = IO + 0x00c,
    DMA_CTRL = IO + 0x010,    // write 1 read, 2 write; reads busy(0) / error(1)
    DMA_STATUS = IO + 0x014,
    DMA_BUF = IO + 0x1000,     // 4 KiB staging buffer
    CTX_SEL = IO + 0x020,      // table << 24 | index
    CTX_CTRL = IO + 0x024,     // 1 read, 2 write
    CTX_DATA = IO + 0x2000,    // one context entry
    EVT_FN = IO + 0x030, EVT_POST = IO + 0x034, EVT_DATA = IO + 0x3000,
    CMDQ_SEL = IO + 0x040, CMDQ_BASE_LO = IO + 0x044, CMDQ_BASE_HI = IO + 0x048, CMDQ_LOG = IO + 0x04c,
    CMDQ_PI = IO + 0x050, CMDQ_CI = IO + 0x054,
    NUM_FN = IO + 0x060, NUM_PORTS = IO + 0x064, LINK = IO + 0x068, SERIAL_LO = IO + 0x06c, SERIAL_HI = IO + 0x070,
    MAC_BASE = IO + 0x074,     // 6 bytes, base MAC
    HEALTH = IO + 0x080, FATAL = IO + 0x084, FW_VERSION = IO + 0x088,
    STATS_SEL = IO + 0x090,    // port, or STATS_QUEUE | queue (SQ n, 512 + RQ n)
    STATS_CLEAR = IO + 0x094, STATS_DATA = IO + 0x4000,
    FLASH_ADDR = IO + 0x0a0, FLASH_LEN = IO + 0x0a4, FLASH_CTRL = IO + 0x0a8, FLASH_STATUS = IO + 0x0ac,
    FLASH_BUF = IO + 0x5000,
    TIME_LO = IO + 0x0b0, TIME_HI = IO + 0x0b4,
    UART = IO + 0x0c0,
};
constexpr uint32_t STATS_QUEUE = 0x10000;

inline volatile uint32_t &R(uintptr_t a) { return *reinterpret_cast<volatile uint32_t *>(a); }
inline volatile uint8_t *B(uintptr_t a) { return reinterpret_cast<volatile uint8_t *>(a); }

class MmioHal final : public kite::fw::Hal {
public:
    bool dma(uint16_t fn, uint64_t addr, uint32_t len, uint32_t op) {
        R(DMA_ADDR_LO) = uint32_t(addr);
        R(DMA_ADDR_HI) = uint32_t(addr >> 32);
        R(DMA_LEN) = len;
        R(DMA_FN) = fn;
        R(DMA_CTRL) = op;
        while (R(DMA_STATUS) & 1) {
        }
        return !(R(DMA_STATUS) & 2);
    }
    bool dma_read(uint16_t fn, uint64_t addr, void *buf, uint32_t len) override {
        auto *d = static_cast<uint8_t *>(buf);
        for (uint32_t off = 0; off < len; off += 4096) {
            uint32_t n = len - off < 4096 ? len - off : 4096;
            if (!dma(fn, addr + off, n, 1))
                return false;
            for (uint32_t i = 0; i < n; i++)
                d[off + i] = B(DMA_BUF)[i];
        }
        return true;
    }
    bool dma_write(uint16_t fn, uint64_t addr, const void *buf, uint32_t len) override {
        auto *s = static_cast<const uint8_t *>(buf);
        for (uint32_t off = 0; off < len; off += 4096) {
            uint32_t n = len - off < 4096 ? len - off : 4096;
            for (uint32_t i = 0; i < n; i++)
                B(DMA_BUF)[i] = s[off + i];
            if (!dma(fn, addr + off, n, 2))
                return false;
        }
        return true;
    }
    void ctx_read(kite::ctx::table t, uint32_t idx, void *buf, uint32_t len) override {
        R(CTX_SEL) = uint32_t(t) << 24 | idx;
        R(CTX_CTRL) = 1;
        for (uint32_t i = 0; i < len; i++)
            static_cast<uint8_t *>(buf)[i] = B(CTX_DATA)[i];
    }
    void ctx_write(kite::ctx::table t, uint32_t idx, const void *buf, uint32_t len) override {
        for (uint32_t i = 0; i < len; i++)
            B(CTX_DATA)[i] = static_cast<const uint8_t *>(buf)[i];
        R(CTX_SEL) = uint32_t(t) << 24 | idx;
        R(CTX_CTRL) = 2;
    }
    void post_async(uint16_t fn, const kite::spec::eqe &e) override {
        for (uint32_t i = 0; i < sizeof(e); i++)
            B(EVT_DATA)[i] = reinterpret_cast<const uint8_t *>(&e)[i];
        R(EVT_FN) = fn;
        R(EVT_POST) = 1;
    }
    uint16_t num_functions() override { return uint16_t(R(NUM_FN)); }
    void cmdq_get(uint16_t fn, kite::fw::cmdq_regs &r) override {
        R(CMDQ_SEL) = fn;
        r.base = R(CMDQ_BASE_LO) | uint64_t(R(CMDQ_BASE_HI)) << 32;
        r.log_size = uint8_t(R(CMDQ_LOG));
        r.pi = uint16_t(R(CMDQ_PI));
        r.ci = uint16_t(R(CMDQ_CI));
    }
    void cmdq_set_ci(uint16_t fn, uint16_t ci) override {
        R(CMDQ_SEL) = fn;
        R(CMDQ_CI) = ci;
    }
    void port_stats(uint8_t port, kite::spec::port_stats &out, bool clear) override {
        R(STATS_SEL) = port;
        for (uint32_t i = 0; i < sizeof(out); i++)
            reinterpret_cast<uint8_t *>(&out)[i] = B(STATS_DATA)[i];
        if (clear)
            R(STATS_CLEAR) = 1;
    }
    void queue_stats(bool rq, uint32_t qn, kite::spec::queue_stats &out, bool clear) override {
        R(STATS_SEL) = STATS_QUEUE | ((rq ? 512 : 0) + qn);
        for (uint32_t i = 0; i < sizeof(out); i++)
            reinterpret_cast<uint8_t *>(&out)[i] = B(STATS_DATA)[i];
        if (clear)
            R(STATS_CLEAR) = 1;
    }
    uint8_t port_link_up(uint8_t port) override { return uint8_t(R(LINK) >> port & 1); }
    uint8_t num_ports() override { return uint8_t(R(NUM_PORTS)); }
    void port_mac(uint16_t fn, uint8_t port, uint8_t mac[6]) override {
        uint64_t m = 0;
        for (int i = 0; i < 6; i++)
            m = m << 8 | B(MAC_BASE)[i];
        m += port + uint64_t(fn) * num_ports();
        for (int i = 5; i >= 0; i--, m >>= 8)
            mac[i] = uint8_t(m);
    }
    void set_health(uint32_t s, bool fatal) override {
        R(HEALTH) = s;
        if (fatal)
            R(FATAL) = 1;
    }
    void set_fw_version(uint32_t v) override { R(FW_VERSION) = v; }
    uint64_t serial() override { return R(SERIAL_LO) | uint64_t(R(SERIAL_HI)) << 32; }
    uint32_t flash_size() override { return kite::fw::FLASH_SIZE; }
    bool flash_op(uint32_t off, uint32_t len, uint32_t op) {
        R(FLASH_ADDR) = off;
        R(FLASH_LEN) = len;
        R(FLASH_CTRL) = op;
        while (R(FLASH_STATUS) & 1) {
        }
        return !(R(FLASH_STATUS) & 2);
    }
    bool flash_read(uint32_t off, void *buf, uint32_t len) override {
        for (uint32_t o = 0; o < len; o += 4096) {
            uint32_t n = len - o < 4096 ? len - o : 4096;
            if (!flash_op(off + o, n, 1))
                return false;
            for (uint32_t i = 0; i < n; i++)
                static_cast<uint8_t *>(buf)[o + i] = B(FLASH_BUF)[i];
        }
        return true;
    }
    bool flash_write(uint32_t off, const void *buf, uint32_t len) override {
        for (uint32_t o = 0; o < len; o += 4096) {
            uint32_t n = len - o < 4096 ? len - o : 4096;
            for (uint32_t i = 0; i < n; i++)
                B(FLASH_BUF)[i] = static_cast<const uint8_t *>(buf)[o + i];
            if (!flash_op(off + o, n, 2))
                return false;
        }
        return true;
    }
    uint64_t now_ns() override {
        uint32_t hi, lo;
        do {
            hi = R(TIME_HI);
            lo = R(TIME_LO);
        } while (hi != R(TIME_HI));
        return uint64_t(hi) << 32 | lo;
    }
    void log(int, const char *msg) override {
        while (*msg)
            R(UART) = uint8_t(*msg++);
        R(UART) = '\n';
    }
};

MmioHal hal;
kite::fw::Firmware firmware(hal);

}  // namespace

int main() {
    firmware.boot();
    for (;;)
        firmware.poll();
}
