// SPDX-License-Identifier: MIT
// Kite control-plane firmware: the command processor and object lifecycle.
// Freestanding C++ (no exceptions, RTTI, heap or library): every object lives
// in a fixed pool inside Firmware, so one instance is one card.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kite/ctx.hpp"
#include "kite/spec.hpp"
#include "kite_fw/hal.hpp"

namespace kite::fw {

inline constexpr uint32_t make_version(uint32_t major, uint32_t minor, uint32_t patch) {
    return major << 24 | minor << 16 | patch;
}
inline constexpr uint32_t BUILTIN_VERSION = make_version(1, 0, 0);
inline constexpr uint32_t BUILTIN_BUILD = 1;

// What this card implements (CAPS register and caps_out.features).
inline constexpr uint32_t FEATURES = spec::reg::CAPS_ETH | spec::reg::CAPS_CSUM | spec::reg::CAPS_TSO |
                                     spec::reg::CAPS_USO | spec::reg::CAPS_RSS | spec::reg::CAPS_VLAN |
                                     spec::reg::CAPS_FLASH | spec::reg::CAPS_RDMA;

// RDMA limits this firmware reports (QUERY_CAPS) and enforces.
inline constexpr uint32_t MAX_RD_ATOMIC = 16;
inline constexpr uint32_t MAX_INLINE = 256;

// Flash layout: a control block, then two banks of FW_IMAGE_MAX bytes.
inline constexpr uint32_t FLASH_CTL_MAGIC = 0x4243464b;  // "KFCB"
inline constexpr uint32_t FLASH_BANK0 = 4096;
inline constexpr uint32_t FLASH_SIZE = FLASH_BANK0 + 2 * spec::flash::FW_IMAGE_MAX;
inline constexpr uint8_t NO_BANK = 0xff;

struct flash_ctl {
    uint32_t magic;
    uint8_t running_bank, pending_bank;  // NO_BANK: built-in image / none pending
    uint16_t rsvd;
    uint32_t bank_len[2];
    uint32_t bank_version[2];
    uint32_t bank_build[2];
    uint8_t bank_str[2][32];
};

class Firmware {
public:
    // features: the CAPS bits of the datapath it runs on (a card without
    // RDMA answers the RDMA commands NOT_SUPPORTED).
    explicit Firmware(Hal &hal, uint32_t features = FEATURES);
    void boot();
    // Destroys every object of fn, restores its receive mode, and (PF) sets
    // its ports down and switches to a pending flash bank.
    void reset_function(uint16_t fn);
    // Executes pending commands; true if the budget ran out with more left.
    bool poll(uint32_t budget = 64);
    uint32_t running_version() const { return version_; }

private:
    struct res {
        uint8_t status;
        uint32_t syndrome;
    };
    struct eq_obj { uint8_t used, async; uint16_t fn, vector, cq_refs; uint32_t db_page; };
    struct cq_obj { uint8_t used; uint16_t fn, eqn, refs; uint32_t db_page; };
    struct wq_obj { uint8_t used, port; uint16_t fn, cqn, rss_refs; uint32_t db_page; uint8_t kind; };
    struct qp_obj { uint8_t used, type, port, rsvd; uint16_t fn, scq, rcq, rsvd1; uint32_t pdn, srqn; };
    struct srq_obj { uint8_t used, rsvd; uint16_t fn, refs, rsvd1; uint32_t pdn; };
    struct ah_obj { uint8_t used, rsvd; uint16_t fn; uint32_t pdn; };
    struct pd_obj { uint8_t used; uint16_t fn, refs; };
    struct mr_obj { uint8_t used, variant; uint16_t fn; uint32_t pdn; };
    enum class flash_state : uint8_t { IDLE, WRITING };

    res execute(uint16_t fn, const uint8_t *in, uint8_t *out, uint16_t &out_len, uint32_t opcode, uint8_t version);
    res query_caps(uint16_t fn, uint8_t *out);
    res query_fw(uint8_t *out);
    res create_eq(uint16_t fn, const uint8_t *in, uint8_t *out);
    res destroy_eq(uint16_t fn, const uint8_t *in);
    res create_cq(uint16_t fn, const uint8_t *in, uint8_t *out);
    res destroy_cq(uint16_t fn, const uint8_t *in);
    res modify_cq(uint16_t fn, const uint8_t *in);
    res resize_cq(uint16_t fn, const uint8_t *in);
    res create_wq(uint16_t fn, bool rq, const uint8_t *in, uint8_t *out);
    res modify_wq(uint16_t fn, bool rq, const uint8_t *in);
    res destroy_wq(uint16_t fn, bool rq, const uint8_t *in);
    res query_wq(uint16_t fn, bool rq, const uint8_t *in, uint8_t *out);
    res alloc_pd(uint16_t fn, uint8_t *out);
    res dealloc_pd(uint16_t fn, const uint8_t *in);
    res create_mr(uint16_t fn, const uint8_t *in, uint8_t *out);
    res destroy_mr(uint16_t fn, const uint8_t *in);
    res query_mr(uint16_t fn, const uint8_t *in, uint8_t *out);
    res set_rss(uint16_t fn, const uint8_t *in, uint8_t *out);
    res destroy_rss(uint16_t fn, const uint8_t *in);
    res set_flow_rule(uint16_t fn, const uint8_t *in);
    res set_mac_filter(uint16_t fn, const uint8_t *in);
    res set_rx_mode(uint16_t fn, const uint8_t *in);
    res set_vlan_filter(uint16_t fn, const uint8_t *in);
    res query_port(uint16_t fn, const uint8_t *in, uint8_t *out);
    res set_port(uint16_t fn, const uint8_t *in);
    res query_stats(uint16_t fn, const uint8_t *in);
    res query_health(uint8_t *out);
    res alloc_db_page(uint16_t fn, uint8_t *out);
    res free_db_page(uint16_t fn, const uint8_t *in);
    res create_qp(uint16_t fn, const uint8_t *in, uint8_t *out);
    res modify_qp(uint16_t fn, const uint8_t *in);
    res query_qp(uint16_t fn, const uint8_t *in, uint8_t *out);
    res destroy_qp(uint16_t fn, const uint8_t *in);
    res create_srq(uint16_t fn, const uint8_t *in, uint8_t *out);
    res modify_srq(uint16_t fn, const uint8_t *in);
    res query_srq(uint16_t fn, const uint8_t *in, uint8_t *out);
    res destroy_srq(uint16_t fn, const uint8_t *in);
    res create_ah(uint16_t fn, const uint8_t *in, uint8_t *out);
    res destroy_ah(uint16_t fn, const uint8_t *in);
    res add_gid(uint16_t fn, const uint8_t *in);
    res del_gid(uint16_t fn, const uint8_t *in);
    res ring_mr_ok(uint16_t fn, uint32_t pdn, uint32_t lkey, uint64_t base, uint64_t len);
    void qp_release(uint32_t qpn);
    bool gid_valid(uint16_t fn, uint8_t port, uint8_t idx);
    res flash_begin(const uint8_t *in);
    res flash_write(const uint8_t *in);
    res flash_commit(const uint8_t *in);

    bool port_ok(uint16_t fn, uint32_t port);
    // A command's result written to host memory: the write, then a read of
    // its first byte. Posted writes report nothing back on real PCIe, so the
    // read is what learns that the address is refused (and it orders the
    // result before the completion); a counter is cleared only after it.
    bool write_result(uint16_t fn, uint64_t addr, const void *buf, uint32_t len);
    bool db_page_ok(uint16_t fn, uint32_t page) const;
    void rss_release(uint32_t idx);
    void flow_release(uint32_t idx);
    void default_filter(uint16_t fn, uint8_t port);
    ctx::func_ctx func(uint16_t fn);
    void load_flash_ctl();
    void save_flash_ctl();

    Hal &hal_;
    uint32_t features_;
    eq_obj eq_[ctx::NUM_EQ];
    cq_obj cq_[ctx::NUM_CQ];
    wq_obj sq_[ctx::NUM_SQ];
    wq_obj rq_[ctx::NUM_RQ];
    pd_obj pd_[ctx::NUM_PD];
    mr_obj mr_[ctx::NUM_MR];
    qp_obj qp_[ctx::NUM_QP];
    srq_obj srq_[ctx::NUM_SRQ];
    ah_obj ah_[ctx::NUM_AH];
    uint8_t rss_used_[ctx::NUM_RSS];
    uint8_t flow_used_[ctx::NUM_FLOW];
    uint8_t db_alloc_[ctx::MAX_FN][spec::pci::PF_DB_PAGES / 8];
    flash_ctl flash_;
    flash_state flash_state_;
    uint32_t flash_len_;
    uint32_t version_;
    uint32_t health_;
    uint64_t boot_ns_;
    uint64_t cmds_, cmd_errors_;
};

}  // namespace kite::fw
