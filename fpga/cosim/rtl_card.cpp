// SPDX-License-Identifier: MIT
// The Verilated RTL card (fpga/rtl/card/kite_card.sv) behind the card C ABI
// (kite/card_abi.h), so the QEMU device and the unit-test host can load it in
// place of the C++ model.
//
// The RTL is clocked on demand: every entry point queues its stimulus (a CQ
// TLP for MMIO, MAC RX beats for a frame) and runs cycles until the design
// has been quiet on all of its interfaces for QUIET cycles. The PCIe side
// plays the root complex: RQ reads are answered from ops->dma_read with RC
// completions, RQ writes go to ops->dma_write, CC completions answer MMIO
// reads. MSI-X requests go to ops->msix, MAC TX frames to ops->frame_out.
//
// Beside the RTL runs what the soft CPU would: the firmware (firmware/src,
// the same code as the model's) over fw::PortHal (firmware/src/port_hal.cpp,
// firmware code, built for rv32 too) on the card's firmware port
// (function table, SQ/RQ contexts, kite_cq commands, RSS table, counters, DMA, BAR0
// identity/status and command-queue registers), and the PHY's link ordered
// sets (the RTL has no PCS). The firmware's own DMA (command ring,
// QUERY_STATS results, RSS tables) goes through the card's firmware DMA port.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Vkite_card.h"
#include "card/flash.hpp"
#include "kite/card_abi.h"
#include "kite/crc32.hpp"
#include "kite/ctx.hpp"
#include "kite/ordered_set.hpp"
#include "kite/pcie_fn.hpp"
#include "kite/spec.hpp"
#include "kite_fw/card_ports.hpp"
#include "kite_fw/fw.hpp"
#include "kite_fw/hal.hpp"
#include "kite_fw/port_hal.hpp"
#include "pcie_host.hpp"
#include "verilated.h"

namespace {

using namespace kite;
using namespace kite::spec;

constexpr uint64_t NEVER = ~uint64_t(0);
constexpr unsigned NVF = 16;              // kite_card NVF: VFs with a BAR0 register file
// The core's function numbers on RQ/CQ (ip.tcl: First VF Offset 4).
using kite::pcie_fn::card_fn;
using kite::pcie_fn::core_fn;
constexpr unsigned QUIET = 48;            // idle cycles that end a run
// After an SQ doorbell: a frame waits inside the card with no interface
// activity while the gather's store-and-forward ring and the segmenter /
// checksum stages (each stores a segment, up to 9 KiB) take it in.
constexpr unsigned QUIET_TX = 512;
constexpr uint64_t RUN_LIMIT = 4000000;   // a run never takes longer than this
constexpr uint64_t OS_RETRY_NS = 100'000'000;
constexpr uint64_t BAR_ADDR[3] = {0x00003c0000000000ULL, 0, 0x00003c0010000000ULL};
constexpr unsigned BAR_APER[3] = {16, 0, 20};  // log2 of the BAR sizes (64 KiB, 1 MiB)

struct Beat {
    std::array<uint8_t, 64> d{};
    uint16_t keep = 0;
    bool last = false;
    std::array<uint32_t, 6> user{};
};

uint64_t bits(const uint8_t *p, unsigned lo, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= uint64_t((p[(lo + i) / 8] >> ((lo + i) % 8)) & 1) << i;
    return v;
}
void setbits(uint8_t *p, unsigned lo, unsigned n, uint64_t v) {
    for (unsigned i = 0; i < n; i++) {
        uint8_t m = uint8_t(1u << ((lo + i) % 8));
        if ((v >> i) & 1)
            p[(lo + i) / 8] |= m;
        else
            p[(lo + i) / 8] &= uint8_t(~m);
    }
}
unsigned tz4(unsigned be) { return be & 1 ? 0 : be & 2 ? 1 : be & 4 ? 2 : be & 8 ? 3 : 0; }
unsigned lz4(unsigned be) { return be & 8 ? 0 : be & 4 ? 1 : be & 2 ? 2 : be & 1 ? 3 : 0; }

template <size_t W> void put_bytes(VlWide<W> &w, const uint8_t *p, size_t n, size_t at = 0) {
    for (size_t i = 0; i < n; i++) {
        size_t b = at + i;
        w[b / 4] = (w[b / 4] & ~(0xffu << (8 * (b % 4)))) | (uint32_t(p[i]) << (8 * (b % 4)));
    }
}
template <size_t W> uint8_t get_byte(const VlWide<W> &w, size_t i) { return uint8_t(w[i / 4] >> (8 * (i % 4))); }

// kite_card mac_ev_i bits of a port (the MAC's statistics vector).
enum : unsigned { MAC_RX_RUNT, MAC_RX_OVERSIZE, MAC_RX_BAD_FCS, MAC_LINK_CHANGE, MAC_RX_MULTICAST, MAC_RX_BROADCAST,
                  MAC_TX_MULTICAST, MAC_TX_BROADCAST };

struct Phy {
    bool cable = true, partner_up = false, local_up = false, link_up = false;
    bool os_pending = false, os_please = false;
    uint64_t os_retry_ns = NEVER;
    uint64_t dropped_no_link = 0;
};

}  // namespace

struct kite_card final : kite::fw::PortHal {
    kite_card(const kite_card_config &cfg, const kite_host_ops &ops);
    ~kite_card() {
        stats_written_ = {};
        write_stats(std::chrono::steady_clock::now());
        m_->final();
    }

    uint64_t mmio_read(uint16_t fn, unsigned bar, uint64_t off, unsigned size);
    void mmio_write(uint16_t fn, unsigned bar, uint64_t off, uint64_t val, unsigned size);
    int frame_in(unsigned port, const void *frame, size_t len);
    void timer();
    void service();
    void flr(uint16_t fn);
    void set_num_vfs(uint16_t n);
    void set_cable(unsigned port, bool plugged);

    // fw::Hal (contexts, events and counters: fw::PortHal)
    bool dma_read(uint16_t fn, uint64_t addr, void *buf, uint32_t len) override;
    bool dma_write(uint16_t fn, uint64_t addr, const void *buf, uint32_t len) override;
    uint16_t num_functions() override { return uint16_t(1 + num_vfs_); }
    void cmdq_get(uint16_t fn, fw::cmdq_regs &r) override;
    void cmdq_set_ci(uint16_t fn, uint16_t ci) override;
    uint8_t port_link_up(uint8_t port) override { return port < cfg_.num_ports && phy_[port].link_up; }
    uint8_t num_ports() override { return uint8_t(cfg_.num_ports); }
    void port_mac(uint16_t fn, uint8_t port, uint8_t mac[6]) override;
    void set_health(uint32_t syndrome, bool fatal) override {
        health_ = syndrome;
        fatal_ = fatal_ || fatal;
    }
    void set_fw_version(uint32_t v) override { fw_version_ = v; }
    uint64_t serial() override { return cfg_.serial; }
    uint32_t flash_size() override { return fw::FLASH_SIZE; }
    bool flash_read(uint32_t off, void *buf, uint32_t len) override;
    bool flash_write(uint32_t off, const void *buf, uint32_t len) override;
    uint64_t now_ns() override { return ops_.now_ns(ops_.opaque); }
    void log(int level, const char *msg) override { logf(level, "%s", msg); }

    uint64_t cycles() const { return cycle_; }

private:
    void logf(int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
    void cycle();
    void run();
    void sync_time();
    void settle();
    void rearm();
    void write_stats(std::chrono::steady_clock::time_point now);
    void host_rq_tlp(const tb::pcie::RqTlp &t);
    void queue_cq_tlp(uint16_t fn, unsigned bar, uint64_t off, bool write, uint64_t val, unsigned size);
    uint64_t bar0_read(uint32_t off, unsigned size);
    // fw::PortHal: kite_card's firmware ports, and the PHY beside them.
    void port_wq(bool rq, uint32_t qn, const fw::card::wq_port &p) override;
    void port_cmd(uint8_t op, uint16_t qn, const uint8_t *data, size_t n) override;
    void port_rss(unsigned rss_ctx, unsigned addr, uint32_t v) override;
    void port_flt(unsigned port, unsigned addr, uint64_t v) override;
    void port_fn(uint16_t fn, uint16_t db_pages, uint8_t port) override;
    void port_pause(unsigned port, bool pause_rx) override;
    void port_counters(uint32_t idx, uint64_t *out, uint32_t words, bool clear) override;
    void port_changed(unsigned port) override { phy_update(port); }
    void cq_repointed(uint32_t cqn, uint32_t pending) override {
        logf(1, "kite-rtl: CQ %u re-pointed with %u CQEs pending: the RTL restarts the ring at 0", cqn, pending);
    }
    void bad_ctx(bool write, ctx::table t, uint32_t idx) override {
        logf(0, "kite-rtl: bad context %s %u/%u", write ? "write" : "read", unsigned(t), idx);
    }
    void phy_update(unsigned port);
    // A pulse on the MAC statistics input (counted by kite_stats); a second
    // event of the same kind in one cycle waits a cycle.
    void mac_event(unsigned port, unsigned bit) {
        uint16_t b = uint16_t(1u << (8 * port + bit));
        if (mac_ev_ & b)
            cycle();
        mac_ev_ |= b;
    }
    void phy_service();

    kite_card_config cfg_;
    kite_host_ops ops_;
    std::unique_ptr<VerilatedContext> vctx_;
    std::unique_ptr<Vkite_card> m_;
    uint64_t cycle_ = 0;
    uint64_t start_ns_ = 0;
    uint32_t now_us_ = 0;
    uint32_t heartbeat_ = 0;  // the firmware's milliseconds since boot
    bool in_run_ = false;
    bool tx_armed_ = false;  // an SQ doorbell since the last run
    bool fw_wq_taken_ = false, fw_cq_taken_ = false;  // the port took the request this cycle
    bool fw_st_taken_ = false;
    // Firmware DMA port: request taken, read beats, write word taken / done.
    bool fw_rd_taken_ = false, fw_wr_taken_ = false, fw_wd_taken_ = false, fw_wr_done_ = false, fw_wr_err_ = false;
    bool fw_rd_last_ = false, fw_rd_err_ = false;
    std::vector<uint8_t> fw_rd_bytes_;
    std::optional<uint64_t> fw_st_data_;
    uint64_t sim_ns_ = 0, sim_cycles_ = 0;  // wall time and cycles inside settle()
    const char *stats_path_ = std::getenv("KITE_RTL_STATS");
    std::chrono::steady_clock::time_point stats_written_{};

    // Host side of the PCIe interfaces.
    std::deque<Beat> cq_beats_;
    // Read completions split at a 64-byte RCB (as Intel root complexes do),
    // straddled up to four per beat (the card's core configuration).
    tb::pcie::RcStream rc_;
    tb::pcie::RqStream rqs_;   // RQ beats (a read may ride on a write's last beat)
    std::deque<uint64_t> cc_data_;
    uint8_t mmio_tag_ = 0;
    // MAC side.
    std::deque<std::vector<uint8_t>> rx_q_[2];
    bool rx_owed_[2]{};   // frame_in refused a frame (PAUSE): rx_ready owed
    size_t rx_off_[2]{};
    std::vector<uint8_t> tx_cur_[2];
    Phy phy_[2];
    bool cqe_written_ = false;
    uint16_t mac_ev_ = 0;  // kite_card's mac_ev_i pulses for the next cycle

    // Soft CPU: the store of fw::PortHal (the firmware's view of the context
    // tables: what it wrote), the BAR0 inputs it drives and the events it serves.
    std::vector<ctx::func_ctx> func_ = std::vector<ctx::func_ctx>(ctx::MAX_FN);
    std::vector<ctx::eq_ctx> eq_ = std::vector<ctx::eq_ctx>(ctx::NUM_EQ);
    std::vector<ctx::cq_ctx> cq_ = std::vector<ctx::cq_ctx>(ctx::NUM_CQ);
    std::vector<ctx::wq_ctx> sq_ = std::vector<ctx::wq_ctx>(ctx::NUM_SQ);
    std::vector<ctx::wq_ctx> rq_ = std::vector<ctx::wq_ctx>(ctx::NUM_RQ);
    std::vector<ctx::rss_ctx> rss_ = std::vector<ctx::rss_ctx>(ctx::NUM_RSS);
    std::vector<ctx::filter_ctx> filter_ = std::vector<ctx::filter_ctx>(ctx::NUM_FILTER);
    std::vector<ctx::flow_ctx> flow_ = std::vector<ctx::flow_ctx>(ctx::NUM_FLOW);
    std::vector<ctx::port_ctx> port_ = std::vector<ctx::port_ctx>(pci::MAX_PORTS);
    std::vector<ctx::mr_ctx> mr_ = std::vector<ctx::mr_ctx>(ctx::NUM_MR);
    std::vector<ctx::qp_ctx> qp_ = std::vector<ctx::qp_ctx>(ctx::NUM_QP);
    std::vector<ctx::srq_ctx> srq_ = std::vector<ctx::srq_ctx>(ctx::NUM_SRQ);
    std::vector<ctx::ah_ctx> ah_ = std::vector<ctx::ah_ctx>(ctx::NUM_AH);
    std::vector<ctx::gid_ctx> gid_ = std::vector<ctx::gid_ctx>(ctx::NUM_GID);
    uint32_t fw_version_ = 0, health_ = 0;
    bool fatal_ = false;
    uint16_t num_vfs_ = 0;
    bool tbl_read_ = false;  // a BAR4 read to answer next cycle
    uint32_t ev_reset_ = 0;  // functions whose DEV_CTRL.RESET awaits the firmware
    bool ev_cmdq_ = false;
    uint64_t armed_deadline_ = NEVER;
    BoardFlash flash_;
    std::unique_ptr<fw::Firmware> fw_;
};

kite_card::kite_card(const kite_card_config &cfg, const kite_host_ops &ops) : cfg_(cfg), ops_(ops) {
    // The board's flash: persistent across card instances, as the model's.
    flash_.open(cfg.flash_path ? cfg.flash_path : "");
    cfg_.flash_path = nullptr;
    vctx_ = std::make_unique<VerilatedContext>();
    m_ = std::make_unique<Vkite_card>(vctx_.get(), "kite_card");
    start_ns_ = now_ns();
    set_store({func_.data(), eq_.data(), cq_.data(), sq_.data(), rq_.data(), rss_.data(), filter_.data(),
               flow_.data(), port_.data(), mr_.data(), qp_.data(), srq_.data(), ah_.data(), gid_.data()});
    Vkite_card &m = *m_;
    m.rq_tready_i = 1;
    m.cc_tready_i = 1;
    m.cfg_max_payload_i = 1;   // 256 bytes
    m.cfg_max_read_req_i = 2;  // 512 bytes
    m.cfg_ext_tag_i = 1;       // Extended Tag Field Enable, as Linux sets it: 256 read tags
    m.msix_ready_i = 1;
    // QEMU keeps the MSI-X table (BAR4) itself and sends the card no BAR4
    // request; one would read 0 (cycle()).
    m.tbl_req_ready_i = 1;
    m.tx_tready_i = 3;
    uint64_t serial = cfg_.serial;
    m.serial_i = serial;
    m.func_info_i = uint32_t(cfg_.num_ports) << 20;  // function 0, first port 0
    m.dev_status_i = 0;
    m.rst_ni = 0;
    for (int i = 0; i < 4; i++) {
        m.clk_i = 0;
        m.eval();
        m.clk_i = 1;
        m.eval();
    }
    m.rst_ni = 1;
    // The counter and context RAMs initialise after reset (kite_stats clears
    // 16 K counters; tb_card waits as long).
    for (int i = 0; i < 9000; i++)
        cycle();
    ctx::func_ctx &pf = func_[0];
    pf.enabled = 1;
    pf.num_ports = uint8_t(cfg_.num_ports);
    pf.msix_vectors = pci::PF_MSIX_VECTORS;
    pf.db_pages = pci::PF_DB_PAGES;
    // The firmware reports what the datapath offers: the RTL's CAPS register.
    uint32_t caps = uint32_t(bar0_read(reg::CAPS, 4));
    fw_ = std::make_unique<fw::Firmware>(*this, caps);
    fw_->boot();
    m.dev_status_i = fatal_ ? reg::DEV_STATUS_FATAL : reg::DEV_STATUS_READY;
    settle();
}

void kite_card::logf(int level, const char *fmt, ...) {
    if (!ops_.log)
        return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    ops_.log(ops_.opaque, level, buf);
}

// ------------------------------------------------------------------ clocking

// One clock: inputs from the queues, outputs sampled before the edge.
void kite_card::cycle() {
    Vkite_card &m = *m_;
    if (!cq_beats_.empty()) {
        const Beat &b = cq_beats_.front();
        m.cq_tvalid_i = 1;
        put_bytes(m.cq_tdata_i, b.d.data(), 64);
        m.cq_tkeep_i = b.keep;
        m.cq_tlast_i = b.last;
        for (size_t i = 0; i < 6; i++)
            m.cq_tuser_i[i] = b.user[i];
    } else {
        m.cq_tvalid_i = 0;
    }
    if (!rc_.beats.empty()) {
        tb::pcie::RcBeat &b = rc_.beats.front();
        b.shown = true;
        m.rc_tvalid_i = 1;
        put_bytes(m.rc_tdata_i, b.d.data(), 64);
        m.rc_tkeep_i = b.keep;
        m.rc_tlast_i = b.last;
        for (size_t i = 0; i < 6; i++)
            m.rc_tuser_i[i] = b.user[i];
    } else {
        m.rc_tvalid_i = 0;
    }
    uint32_t rxv = 0;
    for (unsigned p = 0; p < 2; p++) {
        if (rx_q_[p].empty())
            continue;
        const auto &f = rx_q_[p].front();
        size_t n = std::min<size_t>(64, f.size() - rx_off_[p]);
        uint8_t buf[64]{};
        std::memcpy(buf, f.data() + rx_off_[p], n);
        put_bytes(m.rx_tdata_i, buf, 64, 64 * p);
        uint64_t keep = n >= 64 ? ~0ULL : ((1ULL << n) - 1);
        m.rx_tkeep_i[2 * p] = uint32_t(keep);
        m.rx_tkeep_i[2 * p + 1] = uint32_t(keep >> 32);
        m.rx_tlast_i = (m.rx_tlast_i & ~(1u << p)) | (uint32_t(rx_off_[p] + n == f.size()) << p);
        rxv |= 1u << p;
    }
    m.rx_tvalid_i = rxv;
    m.fw_version_i = fw_version_;
    m.health_syndrome_i = health_;
    m.now_us_i = now_us_;
    m.heartbeat_i = heartbeat_;
    m.mac_ev_i = mac_ev_;
    mac_ev_ = 0;
    m.tbl_rsp_valid_i = tbl_read_;
    m.tbl_rsp_rdata_i = 0;
    m.clk_i = 0;
    m.eval();
    tbl_read_ = m.tbl_req_valid_o && !m.tbl_req_write_o;
    fw_wq_taken_ = m.fw_wq_valid_i && m.fw_wq_ready_o;
    fw_st_taken_ = fw_st_taken_ || (m.fw_st_valid_i && m.fw_st_ready_o);
    fw_rd_taken_ = fw_rd_taken_ || (m.fw_rd_valid_i && m.fw_rd_ready_o);
    fw_wr_taken_ = fw_wr_taken_ || (m.fw_wr_valid_i && m.fw_wr_ready_o);
    fw_wd_taken_ = m.fw_wd_valid_i && m.fw_wd_ready_o;
    if (m.fw_rd_rsp_valid_o) {
        uint64_t keep = uint64_t(m.fw_rd_rsp_keep_o);
        for (unsigned i = 0; i < 64; i++)
            if (keep >> i & 1)
                fw_rd_bytes_.push_back(get_byte(m.fw_rd_rsp_data_o, i));
        if (m.fw_rd_rsp_last_o) {
            fw_rd_last_ = true;
            fw_rd_err_ = m.fw_rd_rsp_err_o;
        }
    }
    if (m.fw_wr_done_o) {
        fw_wr_done_ = true;
        fw_wr_err_ = m.fw_wr_err_o;
    }
    if (m.fw_st_rvalid_o)
        fw_st_data_ = uint64_t(m.fw_st_rdata_o);
    fw_cq_taken_ = m.fw_cq_valid_i && m.fw_cq_ready_o;

    if (m.cq_tvalid_i && m.cq_tready_o)
        cq_beats_.pop_front();
    if (m.rc_tvalid_i && m.rc_tready_o)
        rc_.beats.pop_front();
    for (unsigned p = 0; p < 2; p++) {
        if ((m.rx_tvalid_i >> p & 1) && (m.rx_tready_o >> p & 1)) {
            size_t n = std::min<size_t>(64, rx_q_[p].front().size() - rx_off_[p]);
            rx_off_[p] += n;
            if (rx_off_[p] == rx_q_[p].front().size()) {
                rx_q_[p].pop_front();
                rx_off_[p] = 0;
            }
        }
        if ((m.tx_tvalid_o >> p & 1) && (m.tx_tready_i >> p & 1)) {
            uint64_t keep = uint64_t(m.tx_tkeep_o[2 * p]) | uint64_t(m.tx_tkeep_o[2 * p + 1]) << 32;
            for (unsigned i = 0; i < 64; i++)
                if (keep >> i & 1)
                    tx_cur_[p].push_back(get_byte(m.tx_tdata_o, 64 * p + i));
            if (m.tx_tlast_o >> p & 1) {
                // A PHY without link discards what the MAC sends.
                if (p < cfg_.num_ports && phy_[p].link_up) {
                    const std::vector<uint8_t> &f = tx_cur_[p];
                    if (f[0] & 1)
                        mac_event(p, std::all_of(f.begin(), f.begin() + 6, [](uint8_t b) { return b == 0xff; })
                                         ? MAC_TX_BROADCAST
                                         : MAC_TX_MULTICAST);
                    ops_.frame_out(ops_.opaque, p, f.data(), f.size());
                } else
                    phy_[p & 1].dropped_no_link++;
                tx_cur_[p].clear();
            }
        }
    }
    if (m.rq_tvalid_o) {
        Beat b;
        for (unsigned i = 0; i < 64; i++)
            b.d[i] = get_byte(m.rq_tdata_o, i);
        for (size_t i = 0; i < 5; i++)
            b.user[i] = m.rq_tuser_o[i];
        for (const auto &t : rqs_.push(b.d, b.user)) {
            cqe_written_ = cqe_written_ || bits(t.bytes.data(), 75, 4) == 1;
            host_rq_tlp(t);
        }
        if (!rqs_.error.empty()) {
            logf(0, "kite-rtl: %s", rqs_.error.c_str());
            rqs_.error.clear();
        }
    }
    if (m.cc_tvalid_o && m.cc_tlast_o) {
        uint64_t v = 0;
        for (unsigned i = 0; i < 8; i++)
            v |= uint64_t(get_byte(m.cc_tdata_o, 12 + i)) << (8 * i);
        cc_data_.push_back(v);
    }
    if (m.msix_valid_o)
        ops_.msix(ops_.opaque, kite_fn_t(m.msix_fn_o), uint16_t(m.msix_vector_o));
    ev_reset_ |= m.reset_req_o;
    if (m.cmdq_enable_o)
        ev_cmdq_ = true;
    if (m.cmdq_db_o)
        ev_cmdq_ = true;
    if (m.rq_err_o)
        wq_error(true, m.rq_err_qn_o);
    if (m.sq_err_o)
        wq_error(false, m.sq_err_qn_o);

    m.clk_i = 1;
    m.eval();
    cycle_++;
    m.fw_fn_we_i = 0;
    m.fw_rss_we_i = 0;
    m.fw_flt_we_i = 0;
    m.fw_port_we_i = 0;
    m.tick_i = 0;
    m.reset_done_i = 0;
    m.cmdq_ci_we_i = 0;
}

// The card's microsecond clock follows the host's; the design is clocked
// only while an entry point runs.
void kite_card::sync_time() {
    uint64_t ns = now_ns() - start_ns_;
    uint32_t us = uint32_t(ns / 1000);
    heartbeat_ = uint32_t(ns / 1000000);
    if (us != now_us_) {
        now_us_ = us;
        m_->tick_i = 1;  // kite_cq's moderation sweep
    }
}

// Runs until every interface has been quiet for QUIET cycles (QUIET_TX
// after an SQ doorbell).
void kite_card::run() {
    Vkite_card &m = *m_;
    sync_time();
    unsigned quiet = 0;
    const unsigned need = tx_armed_ ? QUIET_TX : QUIET;
    tx_armed_ = false;
    for (uint64_t n = 0; quiet < need && n < RUN_LIMIT; n++) {
        bool busy = !cq_beats_.empty() || !rc_.beats.empty() || !rx_q_[0].empty() || !rx_q_[1].empty();
        cycle();
        busy = busy || m.rq_tvalid_o || m.cc_tvalid_o || m.tx_tvalid_o || m.msix_valid_o || rqs_.open();
        quiet = busy ? 0 : quiet + 1;
    }
}

// Runs the RTL and the soft CPU's work until neither has anything left.
void kite_card::settle() {
    if (in_run_)
        return;
    in_run_ = true;
    auto t0 = std::chrono::steady_clock::now();
    uint64_t c0 = cycle_;
    for (int i = 0; i < 1000; i++) {
        run();
        if (ev_reset_) {
            uint32_t fns = ev_reset_;
            ev_reset_ = 0;
            for (uint16_t fn = 0; fn <= num_vfs_; fn++)
                if (fns >> fn & 1)
                    fw_->reset_function(fn);
            if (fns & 1) {
                fatal_ = false;
                health_ = health_syndrome::OK;
                m_->dev_status_i = reg::DEV_STATUS_READY;
            }
            m_->reset_done_i = fns;
            continue;
        }
        if (ev_cmdq_) {
            ev_cmdq_ = fw_->poll();
            m_->dev_status_i = fatal_ ? reg::DEV_STATUS_FATAL : reg::DEV_STATUS_READY;
            continue;
        }
        phy_service();
        if (cq_beats_.empty() && rx_q_[0].empty() && rx_q_[1].empty())
            break;
    }
    in_run_ = false;
    for (unsigned p = 0; p < cfg_.num_ports; p++) {
        if (rx_owed_[p] && !(m_->rx_xoff_o >> p & 1)) {
            rx_owed_[p] = false;
            if (ops_.rx_ready)
                ops_.rx_ready(ops_.opaque, p);
        }
    }
    auto t1 = std::chrono::steady_clock::now();
    sim_ns_ += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    sim_cycles_ += cycle_ - c0;
    write_stats(t1);
    rearm();
}

void kite_card::write_stats(std::chrono::steady_clock::time_point now) {
    if (!stats_path_ || now - stats_written_ < std::chrono::seconds(2))
        return;
    // Simulation speed for whoever asked ($KITE_RTL_STATS): rewritten in place.
    stats_written_ = now;
    if (FILE *f = std::fopen(stats_path_, "w")) {
        std::fprintf(f, "cycles %llu\nsim_seconds %.3f\ncycles_per_second %.0f\n", (unsigned long long)sim_cycles_,
                     double(sim_ns_) / 1e9, sim_ns_ ? double(sim_cycles_) * 1e9 / double(sim_ns_) : 0.0);
        std::fclose(f);
    }
}

void kite_card::rearm() {
    uint64_t d = NEVER;
    for (unsigned p = 0; p < cfg_.num_ports; p++)
        d = std::min(d, phy_[p].os_retry_ns);
    // CQEs written under moderation: come back when its time may be up.
    if (cqe_written_ && max_mod_usec()) {
        d = std::min(d, now_ns() + uint64_t(max_mod_usec()) * 1000 + 1000);
        cqe_written_ = false;
    }
    if (d != NEVER && d != armed_deadline_) {
        armed_deadline_ = d;
        ops_.timer_arm(ops_.opaque, d);
    }
}

// A request TLP from the card: reads answered with one completion, writes
// stored, each on behalf of the descriptor's requester function (PF 0, VFs
// 1..), as the model's DMA calls carry the queue's function.
void kite_card::host_rq_tlp(const tb::pcie::RqTlp &t) {
    const uint8_t *d0 = t.bytes.data();
    uint64_t addr = bits(d0, 2, 62) << 2;
    const kite_fn_t fn = kite_fn_t(card_fn(unsigned(bits(d0, 80, 8))));
    unsigned dw = unsigned(bits(d0, 64, 11)), type = unsigned(bits(d0, 75, 4)), tag = unsigned(bits(d0, 96, 8));
    unsigned fbe = t.fbe, lbe = t.lbe;
    if (type == 0) {
        uint64_t first = addr + tz4(fbe);
        uint32_t len = dw == 1 ? 4 - tz4(fbe) - lz4(fbe) : 4 * dw - tz4(fbe) - lz4(lbe);
        uint64_t dwa = first & ~3ULL;
        unsigned cdw = unsigned((first + len - dwa + 3) / 4);
        std::vector<uint8_t> data(4 * size_t(cdw));
        bool ok = ops_.dma_read(ops_.opaque, fn, first, data.data() + (first - dwa), len) == 0;
        // Not ok: Unsupported Request, the IOMMU said no.
        for (const auto &t : tb::pcie::read_completions(first, len, tag, ok, 64,
                                                        [&](uint64_t a) { return data[a - dwa]; }))
            rc_.push(t);
    } else if (type == 1) {
        // Posted: bytes by enables, one host write per contiguous run.
        std::vector<uint8_t> buf;
        uint64_t start = 0;
        auto flush = [&]() {
            if (!buf.empty() && ops_.dma_write(ops_.opaque, fn, start, buf.data(), buf.size()) != 0)
                logf(1, "kite-rtl: DMA write of %zu bytes at 0x%llx failed", buf.size(),
                     (unsigned long long)start);
            buf.clear();
        };
        for (unsigned j = 0; j < dw; j++) {
            unsigned be = j == 0 ? fbe : (j == dw - 1 ? lbe : 0xf);
            size_t s = 16 + 4 * size_t(j);
            for (unsigned k = 0; k < 4; k++) {
                uint64_t a = addr + 4 * j + k;
                if (be >> k & 1) {
                    if (buf.empty())
                        start = a;
                    buf.push_back(t.bytes[s + k]);
                } else {
                    flush();
                }
            }
        }
        flush();
    } else {
        logf(0, "kite-rtl: RQ request type %u ignored", type);
    }
}

void kite_card::queue_cq_tlp(uint16_t fn, unsigned bar, uint64_t off, bool write, uint64_t val, unsigned size) {
    uint64_t addr = BAR_ADDR[bar] + (off & ~3ULL);
    unsigned sh = unsigned(off & 3), fbe, lbe = 0, dw = 1;
    if (size == 8) {
        fbe = lbe = 0xf;
        dw = 2;
    } else {
        fbe = ((1u << size) - 1) << sh & 0xf;
        val <<= 8 * sh;
    }
    std::vector<uint8_t> b(16 + (write ? 4 * dw : 0));
    setbits(b.data(), 2, 62, addr >> 2);
    setbits(b.data(), 64, 11, dw);
    setbits(b.data(), 75, 4, write ? 1 : 0);
    setbits(b.data(), 96, 8, mmio_tag_++);
    setbits(b.data(), 104, 8, core_fn(fn));  // target function
    setbits(b.data(), 112, 3, bar);
    setbits(b.data(), 115, 6, BAR_APER[bar]);
    if (write)
        std::memcpy(&b[16], &val, 4 * dw);
    Beat bt;
    std::copy(b.begin(), b.end(), bt.d.begin());
    bt.keep = uint16_t(0xffffu >> (16 - b.size() / 4));
    bt.last = true;
    bt.user[0] = fbe | lbe << 8;
    cq_beats_.push_back(bt);
}

uint64_t kite_card::bar0_read(uint32_t off, unsigned size) {
    size_t before = cc_data_.size();
    queue_cq_tlp(0, 0, off, false, 0, size);
    for (int i = 0; i < 10000 && cc_data_.size() == before; i++)
        cycle();
    if (cc_data_.size() == before) {
        logf(0, "kite-rtl: BAR0 read 0x%x not answered", off);
        return ~0ULL;
    }
    uint64_t v = cc_data_.back();
    cc_data_.clear();
    return size == 8 ? v : uint32_t(v);
}

// ------------------------------------------------------------------ ABI

uint64_t kite_card::mmio_read(uint16_t fn, unsigned bar, uint64_t off, unsigned size) {
    if (fn > num_vfs_ || (bar != 0 && bar != 2))
        return ~uint64_t(0) >> (64 - 8 * size);  // no such function or BAR: like a master abort
    if (size == 8 && (off & 7))
        return ~uint64_t(0);
    sync_time();
    size_t before = cc_data_.size();
    queue_cq_tlp(fn, bar, off, false, 0, size);
    for (int i = 0; i < 100000 && cc_data_.size() == before; i++)
        cycle();
    if (cc_data_.size() == before) {
        logf(0, "kite-rtl: MMIO read of BAR%u 0x%llx not answered", bar, (unsigned long long)off);
        return ~uint64_t(0) >> (64 - 8 * size);
    }
    uint64_t v = cc_data_.back();
    cc_data_.clear();
    if (size < 8)
        v = (v >> (8 * (off & 3))) & ((1ULL << (8 * size)) - 1);
    settle();
    return v;
}

void kite_card::mmio_write(uint16_t fn, unsigned bar, uint64_t off, uint64_t val, unsigned size) {
    if (fn > num_vfs_ || (bar != 0 && bar != 2) || (size == 8 && (off & 7)) || (size < 8 && (off & 3) + size > 4))
        return;
    if (bar == 2 && (off & (pci::DB_PAGE_SIZE - 1)) == db::SQ)
        tx_armed_ = true;
    queue_cq_tlp(fn, bar, off, true, val, size);
    settle();
}

int kite_card::frame_in(unsigned port, const void *frame, size_t len) {
    if (port >= cfg_.num_ports)
        return 1;
    const uint8_t *f = static_cast<const uint8_t *>(frame);
    Phy &ph = phy_[port];
    if (os_is(f, len)) {
        if (!fcs_ok(f, len) || f[6] != OS_VERSION) {
            mac_event(port, MAC_RX_BAD_FCS);
            settle();
            return 1;
        }
        if (!ph.cable)
            return 1;
        ph.partner_up = f[7] & OS_STATE_UP;
        if (f[7] & OS_STATE_ANSWER)
            ph.os_pending = true;
        phy_update(port);
        settle();
        return 1;
    }
    if (!ph.link_up)
        return 1;  // the PHY has no link: nothing is received
    // PAUSE: the port holds a frame for a receive buffer and asks the MAC to
    // pause the link partner; the platform keeps this one until rx_ready.
    if (m_->rx_xoff_o >> port & 1) {
        rx_owed_[port] = true;
        return 0;
    }
    // The MAC drops runts, frames over its maximum (the port's MTU) and bad
    // FCSs and counts them; good frames reach kite_card's RX port with their
    // FCS (CMAC ctl_rx_delete_fcs = 0: RQs with RX_FCS get it).
    if (len < limits::MIN_FRAME)
        mac_event(port, MAC_RX_RUNT);
    else if (len > size_t(port_[port].mtu) + 14 + 4 + limits::FCS_LEN)
        mac_event(port, MAC_RX_OVERSIZE);
    else if (!fcs_ok(f, len))
        mac_event(port, MAC_RX_BAD_FCS);
    else
        rx_q_[port].emplace_back(f, f + len);
    settle();
    return 1;
}

void kite_card::timer() {
    armed_deadline_ = NEVER;
    uint64_t now = now_ns();
    for (unsigned p = 0; p < cfg_.num_ports; p++) {
        Phy &ph = phy_[p];
        if (ph.os_retry_ns != NEVER && now >= ph.os_retry_ns) {
            ph.os_pending = ph.os_please = true;
            ph.os_retry_ns = now + OS_RETRY_NS;
        }
    }
    settle();
}

void kite_card::service() { settle(); }

void kite_card::flr(uint16_t fn) {
    if (fn > num_vfs_)
        return;
    // The PCIe core's FLR: kite_card clears the function's registers and
    // asks for its reset, which the firmware serves as DEV_CTRL.RESET's.
    m_->flr_i = 1u << fn;
    cycle();
    m_->flr_i = 0;
    settle();
}

// The function table entry of fn: its doorbell pages and port.
void kite_card::port_fn(uint16_t fn, uint16_t db_pages, uint8_t port) {
    m_->fw_fn_we_i = 1;
    m_->fw_fn_sel_i = uint8_t(fn);
    m_->fw_fn_db_pages_i = db_pages;
    m_->fw_fn_port_i = port;
    cycle();
}

// A port's PAUSE_RX.
void kite_card::port_pause(unsigned port, bool pause_rx) {
    m_->fw_port_we_i = 1;
    m_->fw_port_sel_i = port & 1;
    m_->fw_port_pause_i = pause_rx;
    cycle();
}

// VF enable, as the model's Card::set_num_vfs: each VF gets its function
// table entry (its port, its doorbell pages and MSI-X vectors) and a reset;
// VFs going away are reset and forgotten. Their BAR accesses reach the RTL
// with their function number (each has its BAR0 register file there); DMA
// requests of this RTL carry function 0.
void kite_card::set_num_vfs(uint16_t n) {
    n = uint16_t(std::min<uint32_t>({n, cfg_.max_vfs, uint32_t(NVF)}));
    for (uint16_t fn = 1; fn <= num_vfs_; fn++) {
        flr(fn);
        func_[fn] = ctx::func_ctx{};
        func_to_card(fn);
    }
    num_vfs_ = n;
    for (uint16_t fn = 1; fn <= n; fn++) {
        ctx::func_ctx &f = func_[fn];
        f.enabled = 1;
        f.port = uint8_t((fn - 1) % cfg_.num_ports);
        f.num_ports = 1;
        f.msix_vectors = uint16_t(pci::VF_MSIX_VECTORS);
        f.db_pages = uint16_t(pci::VF_DB_PAGES);
        func_to_card(fn);
        flr(fn);
    }
    settle();
}

void kite_card::set_cable(unsigned port, bool plugged) {
    if (port >= cfg_.num_ports)
        return;
    phy_[port].cable = plugged;
    if (!plugged)
        phy_[port].partner_up = false;
    phy_update(port);
    settle();
}

// ------------------------------------------------------------------ PHY

void kite_card::phy_update(unsigned port) {
    Phy &ph = phy_[port];
    bool local = ph.cable && port_[port].admin_up;
    if (local != ph.local_up) {
        ph.local_up = local;
        if (ph.cable)
            ph.os_pending = ph.os_please = true;
    }
    ph.os_retry_ns = (local && !ph.partner_up) ? now_ns() + OS_RETRY_NS : NEVER;
    bool up = local && ph.partner_up;
    if (up == ph.link_up)
        return;
    ph.link_up = up;
    mac_event(port, MAC_LINK_CHANGE);
    logf(2, "kite-rtl: port %u link %s", port, up ? "up" : "down");
    eqe e{};
    e.ev_type = eqe_type::PORT_CHANGE;
    e.subtype = up ? port_event::UP : port_event::DOWN;
    e.obj = port;
    if (func_[0].enabled)
        post_async(0, e);
}

void kite_card::phy_service() {
    for (unsigned p = 0; p < cfg_.num_ports; p++) {
        Phy &ph = phy_[p];
        if (!ph.os_pending)
            continue;
        ph.os_pending = false;
        if (!ph.cable)
            continue;
        uint8_t os[OS_LEN];
        os_build(os, uint8_t((ph.local_up ? OS_STATE_UP : 0) | (ph.os_please ? OS_STATE_ANSWER : 0)));
        ph.os_please = false;
        ops_.frame_out(ops_.opaque, p, os, sizeof(os));
    }
}

// ------------------------------------------------------------------ firmware port

void kite_card::port_wq(bool rq, uint32_t qn, const fw::card::wq_port &p) {
    Vkite_card &m = *m_;
    m.fw_wq_rq_i = rq;
    m.fw_wq_qn_i = uint16_t(qn);
    m.fw_wq_en_i = p.en;
    m.fw_wq_state_i = p.state;
    m.fw_wq_fn_i = p.fn;
    m.fw_wq_page_i = p.page;
    m.fw_wq_log_size_i = p.log_size;
    m.fw_wq_log_stride_i = p.log_stride;
    m.fw_wq_cqn_i = p.cqn;
    m.fw_wq_port_i = p.port;
    m.fw_wq_base_i = p.base;
    m.fw_wq_flags_i = p.flags;
    m.fw_wq_valid_i = 1;
    for (int i = 0; i < 100000; i++) {
        cycle();
        if (fw_wq_taken_)
            break;
    }
    m.fw_wq_valid_i = 0;
    // An RQ write drains (its frames and WQE reads of the old context)
    // before the firmware completes the command, as WQ_GO reads on the board.
    for (int i = 0; i < 1000000 && m.fw_wq_busy_o; i++)
        cycle();
}

void kite_card::port_cmd(uint8_t op, uint16_t qn, const uint8_t *data, size_t n) {
    Vkite_card &m = *m_;
    m.fw_cq_op_i = uint8_t(op);
    m.fw_cq_qn_i = qn;
    for (size_t i = 0; i < 8; i++)
        m.fw_cq_data_i[i] = 0;
    put_bytes(m.fw_cq_data_i, data, std::min<size_t>(n, 32));
    m.fw_cq_valid_i = 1;
    for (int i = 0; i < 100000; i++) {
        cycle();
        if (fw_cq_taken_)
            break;
    }
    m.fw_cq_valid_i = 0;
}

void kite_card::port_rss(unsigned rss_ctx, unsigned addr, uint32_t v) {
    m_->fw_rss_we_i = 1;
    m_->fw_rss_ctx_i = uint8_t(rss_ctx);
    m_->fw_rss_addr_i = uint16_t(addr);
    m_->fw_rss_wdata_i = v;
    cycle();
}

void kite_card::port_flt(unsigned port, unsigned addr, uint64_t v) {
    m_->fw_flt_we_i = 1;
    m_->fw_flt_port_i = port & 1;
    m_->fw_flt_addr_i = uint16_t(addr);
    m_->fw_flt_wdata_i = v;
    cycle();
    m_->fw_flt_we_i = 0;
}

// The soft CPU's window onto the functions' ring registers: select, read.
void kite_card::cmdq_get(uint16_t fn, fw::cmdq_regs &r) {
    r = fw::cmdq_regs{};
    if (fn > num_vfs_)
        return;
    Vkite_card &m = *m_;
    if (m.cmdq_sel_i != fn) {  // the outputs of the last cycle show the selected function's
        m.cmdq_sel_i = uint8_t(fn);
        m.eval();
    }
    r.base = m.cmdq_base_o;
    r.log_size = uint8_t(m.cmdq_log_size_o);
    r.pi = uint16_t(m.cmdq_pi_o);
    r.ci = uint16_t(m.cmdq_ci_o);
}

void kite_card::cmdq_set_ci(uint16_t fn, uint16_t ci) {
    if (fn > num_vfs_)
        return;
    m_->cmdq_sel_i = uint8_t(fn);
    m_->cmdq_ci_i = ci;
    m_->cmdq_ci_we_i = 1;
    cycle();
}

// The firmware's DMA goes through the card's firmware DMA port, on behalf of
// the function it serves.
bool kite_card::dma_read(uint16_t fn, uint64_t addr, void *buf, uint32_t len) {
    Vkite_card &m = *m_;
    for (uint32_t done = 0; done < len;) {
        uint32_t n = std::min<uint32_t>(len - done, 4096);
        m.fw_rd_addr_i = addr + done;
        m.fw_rd_fn_i = uint8_t(fn);
        m.fw_rd_len_i = uint16_t(n);
        m.fw_rd_valid_i = 1;
        fw_rd_taken_ = fw_rd_last_ = fw_rd_err_ = false;
        fw_rd_bytes_.clear();
        for (int i = 0; i < 100000 && !fw_rd_taken_; i++)
            cycle();
        m.fw_rd_valid_i = 0;
        for (int i = 0; i < 1000000 && !fw_rd_last_; i++)
            cycle();
        if (!fw_rd_last_ || fw_rd_err_ || fw_rd_bytes_.size() != n)
            return false;
        std::memcpy(static_cast<uint8_t *>(buf) + done, fw_rd_bytes_.data(), n);
        done += n;
    }
    return true;
}

bool kite_card::dma_write(uint16_t fn, uint64_t addr, const void *buf, uint32_t len) {
    Vkite_card &m = *m_;
    const uint8_t *src = static_cast<const uint8_t *>(buf);
    for (uint32_t done = 0; done < len;) {
        uint32_t n = std::min<uint32_t>(len - done, 4096);
        uint64_t a = addr + done;
        m.fw_wr_addr_i = a;
        m.fw_wr_fn_i = uint8_t(fn);
        m.fw_wr_len_i = uint16_t(n);
        m.fw_wr_valid_i = 1;
        fw_wr_taken_ = fw_wr_done_ = fw_wr_err_ = false;
        for (int i = 0; i < 100000 && !fw_wr_taken_; i++)
            cycle();
        m.fw_wr_valid_i = 0;
        if (!fw_wr_taken_)
            return false;
        // Address-aligned words: byte b of the request sits in lane (a + b) mod 64.
        uint32_t words = uint32_t(((a & 63) + n + 63) / 64);
        for (uint32_t w = 0; w < words; w++) {
            uint8_t word[64]{};
            for (unsigned l = 0; l < 64; l++) {
                int64_t b = int64_t(w) * 64 + l - int64_t(a & 63);
                if (b >= 0 && b < int64_t(n))
                    word[l] = src[done + uint32_t(b)];
            }
            put_bytes(m.fw_wd_i, word, 64);
            m.fw_wd_valid_i = 1;
            fw_wd_taken_ = false;
            for (int i = 0; i < 100000 && !fw_wd_taken_; i++)
                cycle();
        }
        m.fw_wd_valid_i = 0;
        for (int i = 0; i < 100000 && !fw_wr_done_; i++)
            cycle();
        if (!fw_wr_done_ || fw_wr_err_)
            return false;
        done += n;
    }
    return true;
}

// QUERY_STATS: kite_stats through the card's firmware counter port, words
// idx.. (port p's port_stats at 32 p, queue q's queue_stats at 64 + 8 q with
// q = SQ n or 512 + RQ n).
void kite_card::port_counters(uint32_t idx, uint64_t *out, uint32_t words, bool clear) {
    Vkite_card &m = *m_;
    for (uint32_t w = 0; w < words; w++) {
        m.fw_st_idx_i = uint16_t(idx + w);
        m.fw_st_clear_i = clear;
        m.fw_st_valid_i = 1;
        fw_st_data_.reset();
        for (int i = 0; i < 1000 && !fw_st_taken_; i++)
            cycle();
        m.fw_st_valid_i = 0;
        fw_st_taken_ = false;
        for (int i = 0; i < 1000 && !fw_st_data_; i++)
            cycle();
        out[w] = fw_st_data_.value_or(0);
    }
}

void kite_card::port_mac(uint16_t fn, uint8_t port, uint8_t mac[6]) {
    uint64_t m = 0;
    for (int i = 0; i < 6; i++)
        m = m << 8 | cfg_.mac[i];
    m += port + uint64_t(fn) * cfg_.num_ports;
    for (int i = 5; i >= 0; i--, m >>= 8)
        mac[i] = uint8_t(m);
}

bool kite_card::flash_read(uint32_t off, void *buf, uint32_t len) { return flash_.read(off, buf, len); }

bool kite_card::flash_write(uint32_t off, const void *buf, uint32_t len) { return flash_.write(off, buf, len); }

// ------------------------------------------------------------------ C ABI

#include "card/abi_export.hpp"

// Cycles simulated by a card of this library (diagnostics, tests).
extern "C" __attribute__((visibility("default"))) uint64_t kite_rtl_card_cycles(const kite_card *c) {
    return c->cycles();
}
