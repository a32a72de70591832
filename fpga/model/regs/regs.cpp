// SPDX-License-Identifier: MIT
#include "regs/regs.hpp"

#include <cstring>

#include "kite_fw/fw.hpp"

namespace kite::model {

using namespace spec;

inline constexpr uint32_t HW_REVISION_VALUE = 0x00010000;  // model 1.0

uint32_t Regs::read32(uint16_t fn, uint32_t off) {
    const FuncRegs &r = hw_.regs[fn];
    const ctx::func_ctx &f = hw_.func[fn];
    switch (off) {
    case reg::MAGIC: return MAGIC;
    case reg::SPEC_VERSION: return SPEC_MAJOR << 16 | SPEC_MINOR;
    case reg::HW_REVISION: return HW_REVISION_VALUE;
    case reg::FW_VERSION: return hw_.fw_version;
    case reg::SERIAL_LO: return uint32_t(hw_.cfg.serial);
    case reg::SERIAL_HI: return uint32_t(hw_.cfg.serial >> 32);
    case reg::FUNC_INFO:
        return uint32_t(fn) | uint32_t(f.port) << 16 | uint32_t(f.num_ports) << 20 | (fn ? 1u << 31 : 0);
    case reg::CAPS: return fw::FEATURES;
    case reg::DEV_CTRL: return 0;  // resets complete synchronously
    case reg::DEV_STATUS: return hw_.fatal ? reg::DEV_STATUS_FATAL : reg::DEV_STATUS_READY;
    case reg::HEALTH_SYNDROME: return hw_.health;
    case reg::HEARTBEAT: return uint32_t((hw_.now() - hw_.start_ns) / 1000000);
    case reg::CMDQ_BASE_LO: return uint32_t(r.cmdq_base);
    case reg::CMDQ_BASE_HI: return uint32_t(r.cmdq_base >> 32);
    case reg::CMDQ_LOG_SIZE: return r.cmdq_log;
    case reg::CMDQ_PI: return r.cmdq_pi;
    case reg::CMDQ_CI: return r.cmdq_ci;
    case reg::DB_PAGES: return f.db_pages;
    case reg::MSIX_VECTORS: return f.msix_vectors;
    case reg::SCRATCH: return r.scratch;
    default: break;
    }
    if (off >= reg::STATS_BASE && off + 4 <= reg::STATS_BASE + sizeof(port_stats)) {
        uint32_t v;
        std::memcpy(&v, reinterpret_cast<const uint8_t *>(&hw_.fn_stats(fn)) + (off - reg::STATS_BASE), 4);
        return v;
    }
    return 0;
}

uint64_t Regs::read(uint16_t fn, uint64_t off, unsigned size) {
    if (off >= pci::REG_BAR_SIZE)
        return 0;
    uint32_t o = uint32_t(off);
    if (size == 8)
        return uint64_t(read32(fn, o & ~3u)) | uint64_t(read32(fn, (o & ~3u) + 4)) << 32;
    uint32_t v = read32(fn, o & ~3u) >> (8 * (o & 3));
    return size == 4 ? v : v & ((1u << (8 * size)) - 1);
}

void Regs::write(uint16_t fn, uint64_t off, uint64_t val, unsigned size) {
    if (size < 4 || off >= pci::REG_BAR_SIZE)
        return;
    FuncRegs &r = hw_.regs[fn];
    uint32_t v = uint32_t(val);
    switch (uint32_t(off)) {
    case reg::DEV_CTRL:
        if (v & reg::DEV_CTRL_RESET)
            reset_(fn);
        break;
    case reg::CMDQ_BASE_LO:
        if (!r.cmdq_log)
            r.cmdq_base = (r.cmdq_base & ~uint64_t(0xffffffff)) | v;
        if (size == 8 && !r.cmdq_log)
            r.cmdq_base = val;
        break;
    case reg::CMDQ_BASE_HI:
        if (!r.cmdq_log)
            r.cmdq_base = (r.cmdq_base & 0xffffffff) | uint64_t(v) << 32;
        break;
    case reg::CMDQ_LOG_SIZE:
        if (v <= 8 && (v == 0 || (r.cmdq_base & 0xfff) == 0)) {
            r.cmdq_log = uint8_t(v);
            r.cmdq_pi = r.cmdq_ci = 0;
        }
        break;
    case reg::CMDQ_PI:
        if (r.cmdq_log) {
            r.cmdq_pi = uint16_t(v);
            hw_.request_service();
        }
        break;
    case reg::SCRATCH:
        r.scratch = v;
        break;
    default:
        break;
    }
}

}  // namespace kite::model
