// SPDX-License-Identifier: MIT
#include "kite_fw/fw.hpp"

#include "kite/crc32.hpp"

namespace kite::fw {

namespace st = spec::cmd_status;
namespace sy = spec::syndrome;
namespace op = spec::cmd_opcode;
using namespace spec;

namespace {

inline void copy(void *d, const void *s, size_t n) { __builtin_memcpy(d, s, n); }
inline void zero(void *d, size_t n) { __builtin_memset(d, 0, n); }

template <typename T> T load(const uint8_t *in) {
    T v;
    copy(&v, in, sizeof(T));
    return v;
}
template <typename T> void store(uint8_t *out, const T &v) { copy(out, &v, sizeof(T)); }

bool all_zero(const void *p, size_t n) {
    const uint8_t *b = static_cast<const uint8_t *>(p);
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

constexpr uint32_t OK_ = st::OK;
inline bool log_ok(uint32_t v) { return v >= limits::MIN_LOG_RING && v <= limits::MAX_LOG_RING; }
inline bool aligned4k(uint64_t a) { return (a & 0xfff) == 0; }

const command_info *find_cmd(uint32_t opcode) {
    for (const auto &c : commands)
        if (c.opcode == opcode)
            return &c;
    return nullptr;
}

}  // namespace

#define FAIL(s, y) return res{uint8_t(st::s), sy::y}
#define DONE() return res{uint8_t(OK_), sy::NONE}

Firmware::Firmware(Hal &hal) : hal_(hal) {
    zero(eq_, sizeof(eq_));
    zero(cq_, sizeof(cq_));
    zero(sq_, sizeof(sq_));
    zero(rq_, sizeof(rq_));
    zero(pd_, sizeof(pd_));
    zero(mr_, sizeof(mr_));
    zero(rss_used_, sizeof(rss_used_));
    zero(db_alloc_, sizeof(db_alloc_));
    zero(&flash_, sizeof(flash_));
    flash_state_ = flash_state::IDLE;
    flash_len_ = 0;
    version_ = BUILTIN_VERSION;
    health_ = health_syndrome::OK;
    boot_ns_ = 0;
    cmds_ = cmd_errors_ = 0;
}

void Firmware::load_flash_ctl() {
    if (hal_.flash_size() < FLASH_SIZE || !hal_.flash_read(0, &flash_, sizeof(flash_)) ||
        flash_.magic != FLASH_CTL_MAGIC || (flash_.running_bank > 1 && flash_.running_bank != NO_BANK) ||
        (flash_.pending_bank > 1 && flash_.pending_bank != NO_BANK)) {
        zero(&flash_, sizeof(flash_));
        flash_.magic = FLASH_CTL_MAGIC;
        flash_.running_bank = flash_.pending_bank = NO_BANK;
    }
}

void Firmware::save_flash_ctl() {
    if (!hal_.flash_write(0, &flash_, sizeof(flash_)))
        hal_.log(0, "fw: flash control block write failed");
}

void Firmware::boot() {
    boot_ns_ = hal_.now_ns();
    load_flash_ctl();
    // A pending bank becomes the running one at the next start.
    if (flash_.pending_bank != NO_BANK) {
        flash_.running_bank = flash_.pending_bank;
        flash_.pending_bank = NO_BANK;
        save_flash_ctl();
    }
    version_ = flash_.running_bank == NO_BANK ? BUILTIN_VERSION : flash_.bank_version[flash_.running_bank];
    hal_.set_fw_version(version_);
    for (uint16_t fn = 0; fn < hal_.num_functions(); fn++)
        reset_function(fn);
    for (uint8_t p = 0; p < hal_.num_ports(); p++) {
        ctx::port_ctx pc{};
        pc.mtu = 1500;
        pc.fec = fec_mode::AUTO;
        hal_.ctx_write(ctx::table::PORT, p, &pc, sizeof(pc));
    }
}

ctx::func_ctx Firmware::func(uint16_t fn) {
    ctx::func_ctx f{};
    hal_.ctx_read(ctx::table::FUNC, fn, &f, sizeof(f));
    return f;
}

bool Firmware::port_ok(uint16_t fn, uint32_t port) {
    ctx::func_ctx f = func(fn);
    return port >= f.port && port < uint32_t(f.port + f.num_ports) && port < hal_.num_ports();
}

bool Firmware::db_page_ok(uint16_t fn, uint32_t page) const {
    if (page >= pci::PF_DB_PAGES)
        return false;
    return page == 0 || (db_alloc_[fn][page / 8] >> (page % 8) & 1);
}

void Firmware::default_filter(uint16_t fn, uint8_t port) {
    ctx::filter_ctx f;
    zero(&f, sizeof(f));
    f.rx_mode = rx_mode_in::FLAGS_BROADCAST;
    hal_.port_mac(fn, port, f.perm_mac);
    hal_.ctx_write(ctx::table::FILTER, ctx::filter_index(fn, port), &f, sizeof(f));
}

void Firmware::rss_release(uint32_t idx) {
    ctx::rss_ctx r;
    hal_.ctx_read(ctx::table::RSS, idx, &r, sizeof(r));
    if (r.valid)
        for (uint32_t i = 0; i < r.table_size; i++)
            if (r.table[i] < ctx::NUM_RQ && rq_[r.table[i]].rss_refs)
                rq_[r.table[i]].rss_refs--;
    zero(&r, sizeof(r));
    hal_.ctx_write(ctx::table::RSS, idx, &r, sizeof(r));
    rss_used_[idx] = 0;
}

void Firmware::reset_function(uint16_t fn) {
    if (fn >= ctx::MAX_FN)
        return;
    for (uint32_t p = 0; p < pci::MAX_PORTS; p++)
        for (uint32_t c = 0; c < limits::MAX_RSS_CTX; c++)
            if (rss_used_[ctx::rss_index(fn, p, c)])
                rss_release(ctx::rss_index(fn, p, c));
    ctx::wq_ctx w;
    zero(&w, sizeof(w));
    for (uint32_t i = 1; i < ctx::NUM_SQ; i++)
        if (sq_[i].used && sq_[i].fn == fn) {
            sq_[i] = wq_obj{};
            hal_.ctx_write(ctx::table::SQ, i, &w, sizeof(w));
        }
    for (uint32_t i = 1; i < ctx::NUM_RQ; i++)
        if (rq_[i].used && rq_[i].fn == fn) {
            rq_[i] = wq_obj{};
            hal_.ctx_write(ctx::table::RQ, i, &w, sizeof(w));
        }
    ctx::cq_ctx c;
    zero(&c, sizeof(c));
    for (uint32_t i = 1; i < ctx::NUM_CQ; i++)
        if (cq_[i].used && cq_[i].fn == fn) {
            cq_[i] = cq_obj{};
            hal_.ctx_write(ctx::table::CQ, i, &c, sizeof(c));
        }
    ctx::eq_ctx e;
    zero(&e, sizeof(e));
    for (uint32_t i = 1; i < ctx::NUM_EQ; i++)
        if (eq_[i].used && eq_[i].fn == fn) {
            eq_[i] = eq_obj{};
            hal_.ctx_write(ctx::table::EQ, i, &e, sizeof(e));
        }
    ctx::mr_ctx m;
    zero(&m, sizeof(m));
    for (uint32_t i = 1; i < ctx::NUM_MR; i++)
        if (mr_[i].used && mr_[i].fn == fn) {
            mr_[i] = mr_obj{};
            hal_.ctx_write(ctx::table::MR, i, &m, sizeof(m));
        }
    for (uint32_t i = 1; i < ctx::NUM_PD; i++)
        if (pd_[i].used && pd_[i].fn == fn)
            pd_[i] = pd_obj{};
    zero(db_alloc_[fn], sizeof(db_alloc_[fn]));

    ctx::func_ctx f = func(fn);
    f.async_eqn = 0;
    hal_.ctx_write(ctx::table::FUNC, fn, &f, sizeof(f));
    for (uint8_t p = 0; p < hal_.num_ports(); p++)
        default_filter(fn, p);
    if (fn == 0) {
        for (uint8_t p = f.port; p < f.port + f.num_ports && p < hal_.num_ports(); p++) {
            ctx::port_ctx pc;
            hal_.ctx_read(ctx::table::PORT, p, &pc, sizeof(pc));
            pc.admin_up = 0;
            hal_.ctx_write(ctx::table::PORT, p, &pc, sizeof(pc));
        }
        flash_state_ = flash_state::IDLE;
        load_flash_ctl();
        if (flash_.pending_bank != NO_BANK) {
            flash_.running_bank = flash_.pending_bank;
            flash_.pending_bank = NO_BANK;
            save_flash_ctl();
            version_ = flash_.bank_version[flash_.running_bank];
            hal_.set_fw_version(version_);
        }
    }
}

bool Firmware::poll(uint32_t budget) {
    bool more = false;
    for (uint16_t fn = 0; fn < hal_.num_functions(); fn++) {
        cmdq_regs r;
        hal_.cmdq_get(fn, r);
        if (!r.log_size)
            continue;
        const uint32_t mask = (1u << r.log_size) - 1;
        while (r.ci != r.pi) {
            if (!budget) {
                more = true;
                break;
            }
            budget--;
            uint64_t addr = r.base + uint64_t(r.ci & mask) * limits::CMD_ENTRY_SIZE;
            cmd_entry c;
            if (!hal_.dma_read(fn, addr, &c, sizeof(c))) {
                health_ = health_syndrome::CMDQ_DMA;
                hal_.set_health(health_, true);
                hal_.log(0, "fw: command ring DMA read failed");
                return false;
            }
            uint16_t out_len = 0;
            zero(c.out, sizeof(c.out));
            res rs = execute(fn, c.in, c.out, out_len, c.opcode, c.version);
            cmds_++;
            if (rs.status != st::OK) {
                cmd_errors_++;
                out_len = 0;
                zero(c.out, sizeof(c.out));
            }
            c.status = rs.status;
            c.syndrome = rs.syndrome;
            c.out_len = out_len;
            // Output and status first, done last: the driver polls done.
            bool ok = hal_.dma_write(fn, addr + offsetof(cmd_entry, out), c.out, sizeof(c.out)) &&
                      hal_.dma_write(fn, addr + offsetof(cmd_entry, status), &c.status, 1) &&
                      hal_.dma_write(fn, addr + offsetof(cmd_entry, out_len), &c.out_len, 6);
            uint8_t one = 1;
            ok = ok && hal_.dma_write(fn, addr + offsetof(cmd_entry, done), &one, 1);
            if (!ok) {
                health_ = health_syndrome::CMDQ_DMA;
                hal_.set_health(health_, true);
                return false;
            }
            r.ci++;
            hal_.cmdq_set_ci(fn, r.ci);
            if (c.flags & cmd_entry::FLAGS_EVENT) {
                eqe e{};
                e.ev_type = eqe_type::CMD_DONE;
                e.obj = c.token;
                e.data = rs.status;
                hal_.post_async(fn, e);
            }
            // A reset or ring change from the command may have moved the ring.
            hal_.cmdq_get(fn, r);
            if (!r.log_size)
                break;
        }
    }
    return more;
}

Firmware::res Firmware::execute(uint16_t fn, const uint8_t *in, uint8_t *out, uint16_t &out_len, uint32_t opcode,
                               uint8_t version) {
    const command_info *ci = find_cmd(opcode);
    if (!ci)
        FAIL(BAD_OPCODE, CMD_UNKNOWN_OPCODE);
    if (version != 1)
        FAIL(BAD_VERSION, CMD_VERSION);
    if (ci->pf_only && fn != 0)
        FAIL(NOT_PERMITTED, CMD_PF_ONLY);
    res r{uint8_t(st::NOT_SUPPORTED), sy::NONE};
    switch (opcode) {
    case op::QUERY_CAPS: r = query_caps(fn, out); break;
    case op::QUERY_FW:
    case op::FLASH_QUERY: r = query_fw(out); break;
    case op::CREATE_EQ: r = create_eq(fn, in, out); break;
    case op::DESTROY_EQ: r = destroy_eq(fn, in); break;
    case op::CREATE_CQ: r = create_cq(fn, in, out); break;
    case op::DESTROY_CQ: r = destroy_cq(fn, in); break;
    case op::MODIFY_CQ: r = modify_cq(fn, in); break;
    case op::CREATE_SQ: r = create_wq(fn, false, in, out); break;
    case op::MODIFY_SQ: r = modify_wq(fn, false, in); break;
    case op::DESTROY_SQ: r = destroy_wq(fn, false, in); break;
    case op::QUERY_SQ: r = query_wq(fn, false, in, out); break;
    case op::CREATE_RQ: r = create_wq(fn, true, in, out); break;
    case op::MODIFY_RQ: r = modify_wq(fn, true, in); break;
    case op::DESTROY_RQ: r = destroy_wq(fn, true, in); break;
    case op::QUERY_RQ: r = query_wq(fn, true, in, out); break;
    case op::ALLOC_PD: r = alloc_pd(fn, out); break;
    case op::DEALLOC_PD: r = dealloc_pd(fn, in); break;
    case op::CREATE_MR: r = create_mr(fn, in, out); break;
    case op::DESTROY_MR: r = destroy_mr(fn, in); break;
    case op::QUERY_MR: r = query_mr(fn, in, out); break;
    case op::SET_RSS: r = set_rss(fn, in, out); break;
    case op::DESTROY_RSS: r = destroy_rss(fn, in); break;
    case op::SET_MAC_FILTER: r = set_mac_filter(fn, in); break;
    case op::SET_RX_MODE: r = set_rx_mode(fn, in); break;
    case op::SET_VLAN_FILTER: r = set_vlan_filter(fn, in); break;
    case op::QUERY_PORT: r = query_port(fn, in, out); break;
    case op::SET_PORT: r = set_port(fn, in); break;
    case op::QUERY_STATS: r = query_stats(fn, in); break;
    case op::QUERY_HEALTH: r = query_health(out); break;
    case op::ALLOC_DB_PAGE: r = alloc_db_page(fn, out); break;
    case op::FREE_DB_PAGE: r = free_db_page(fn, in); break;
    case op::FLASH_BEGIN: r = flash_begin(in); break;
    case op::FLASH_WRITE: r = flash_write(in); break;
    case op::FLASH_COMMIT: r = flash_commit(in); break;
    default:
        // RESIZE_CQ, QP, SRQ, AH, GID, VF configuration and flow rules are
        // not implemented yet: say so rather than pretend.
        break;
    }
    if (r.status == st::OK)
        out_len = uint16_t(ci->out_size);
    return r;
}

Firmware::res Firmware::query_caps(uint16_t fn, uint8_t *out) {
    ctx::func_ctx f = func(fn);
    caps_out c{};
    c.max_eq = ctx::NUM_EQ - 1;
    c.max_cq = ctx::NUM_CQ - 1;
    c.max_sq = ctx::NUM_SQ - 1;
    c.max_rq = ctx::NUM_RQ - 1;
    c.max_qp = 0;
    c.max_srq = 0;
    c.max_mr = ctx::NUM_MR - 1;
    c.max_pd = ctx::NUM_PD - 1;
    c.max_ah = 0;
    c.log_max_cqe = limits::MAX_LOG_RING;
    c.log_max_wqe = limits::MAX_LOG_RING;
    c.max_sge = limits::MAX_GATHER;
    c.max_rd_atomic = 0;
    c.max_inline = 0;
    c.max_mtu = limits::MAX_MTU;
    c.num_ports = f.num_ports;
    c.max_vfs = 0;  // SR-IOV arrives with a later firmware
    c.msix_vectors = f.msix_vectors;
    c.db_pages = f.db_pages;
    c.max_rss_ctx = limits::MAX_RSS_CTX;
    c.rss_table_size = limits::RSS_TABLE_SIZE;
    c.max_tso = limits::MAX_TSO_SIZE;
    c.max_gather = limits::MAX_GATHER;
    c.gid_table_size = limits::GID_TABLE_SIZE;
    c.features = FEATURES;
    c.max_mr_size = uint64_t(1) << 40;
    c.page_size_cap = ((uint64_t(1) << 31) - 1) & ~((uint64_t(1) << 12) - 1);
    store(out, c);
    DONE();
}

Firmware::res Firmware::query_fw(uint8_t *out) {
    fw_out o{};
    o.version = version_;
    o.running_bank = flash_.running_bank;
    o.pending_bank = flash_.pending_bank;
    if (flash_.running_bank == NO_BANK) {
        o.build = BUILTIN_BUILD;
        const char s[] = "kite-fw 1.0.0 (built-in)";
        copy(o.version_str, s, sizeof(s));
    } else {
        o.build = flash_.bank_build[flash_.running_bank];
        copy(o.version_str, flash_.bank_str[flash_.running_bank], 31);
    }
    if (flash_.pending_bank != NO_BANK)
        o.pending_version = flash_.bank_version[flash_.pending_bank];
    store(out, o);
    DONE();
}

// ------------------------------------------------------------------ EQ / CQ

Firmware::res Firmware::create_eq(uint16_t fn, const uint8_t *in, uint8_t *out) {
    auto a = load<create_eq_in>(in);
    ctx::func_ctx f = func(fn);
    if (!log_ok(a.log_size))
        FAIL(BAD_SIZE, EQ_LOG_SIZE);
    if (!aligned4k(a.base))
        FAIL(BAD_PARAM, EQ_ALIGN);
    if (a.flags & ~create_eq_in::FLAGS_ASYNC)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (a.msix_vector >= f.msix_vectors)
        FAIL(BAD_PARAM, EQ_VECTOR);
    if (!db_page_ok(fn, a.db_page))
        FAIL(BAD_PARAM, DB_PAGE_RANGE);
    uint32_t slot = 0;
    for (uint32_t i = 1; i < ctx::NUM_EQ; i++) {
        if (eq_[i].used && eq_[i].fn == fn && eq_[i].vector == a.msix_vector)
            FAIL(BUSY, EQ_VECTOR_IN_USE);
        if (!eq_[i].used && !slot)
            slot = i;
    }
    if ((a.flags & create_eq_in::FLAGS_ASYNC) && f.async_eqn)
        FAIL(BUSY, EQ_ASYNC_EXISTS);
    if (!slot)
        FAIL(NO_RESOURCES, EQ_NONE_FREE);
    bool async = a.flags & create_eq_in::FLAGS_ASYNC;
    eq_[slot] = eq_obj{1, uint8_t(async), fn, a.msix_vector, 0, a.db_page};
    ctx::eq_ctx e{};
    e.valid = 1;
    e.log_size = a.log_size;
    e.armed = 1;  // a new EQ interrupts on its first event
    e.async = async;
    e.fn = fn;
    e.vector = a.msix_vector;
    e.db_page = a.db_page;
    e.base = a.base;
    hal_.ctx_write(ctx::table::EQ, slot, &e, sizeof(e));
    if (async) {
        f.async_eqn = slot;
        hal_.ctx_write(ctx::table::FUNC, fn, &f, sizeof(f));
    }
    store(out, obj_out{slot, 0});
    DONE();
}

Firmware::res Firmware::destroy_eq(uint16_t fn, const uint8_t *in) {
    auto a = load<obj_in>(in);
    if (a.id == 0 || a.id >= ctx::NUM_EQ || !eq_[a.id].used)
        FAIL(BAD_OBJECT, EQ_UNKNOWN);
    if (eq_[a.id].fn != fn)
        FAIL(WRONG_OWNER, EQ_OWNER);
    if (eq_[a.id].cq_refs)
        FAIL(BUSY, EQ_IN_USE);
    if (eq_[a.id].async) {
        ctx::func_ctx f = func(fn);
        f.async_eqn = 0;
        hal_.ctx_write(ctx::table::FUNC, fn, &f, sizeof(f));
    }
    eq_[a.id] = eq_obj{};
    ctx::eq_ctx e{};
    hal_.ctx_write(ctx::table::EQ, a.id, &e, sizeof(e));
    DONE();
}

Firmware::res Firmware::create_cq(uint16_t fn, const uint8_t *in, uint8_t *out) {
    auto a = load<create_cq_in>(in);
    if (!log_ok(a.log_size))
        FAIL(BAD_SIZE, CQ_LOG_SIZE);
    if (!aligned4k(a.base))
        FAIL(BAD_PARAM, CQ_ALIGN);
    if ((a.flags & ~create_cq_in::FLAGS_USER) || a.rsvd || a.cqn)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (a.eqn == 0 || a.eqn >= ctx::NUM_EQ || !eq_[a.eqn].used)
        FAIL(BAD_OBJECT, EQ_UNKNOWN);
    if (eq_[a.eqn].fn != fn)
        FAIL(WRONG_OWNER, EQ_OWNER);
    if (a.mod_usec > 4095)
        FAIL(BAD_PARAM, CQ_MODERATION);
    if (!db_page_ok(fn, a.db_page))
        FAIL(BAD_PARAM, DB_PAGE_RANGE);
    uint32_t slot = 0;
    for (uint32_t i = 1; i < ctx::NUM_CQ && !slot; i++)
        if (!cq_[i].used)
            slot = i;
    if (!slot)
        FAIL(NO_RESOURCES, CQ_NONE_FREE);
    cq_[slot] = cq_obj{1, fn, a.eqn, 0, a.db_page};
    eq_[a.eqn].cq_refs++;
    ctx::cq_ctx c{};
    c.valid = 1;
    c.log_size = a.log_size;
    c.fn = fn;
    c.eqn = a.eqn;
    c.db_page = a.db_page;
    c.base = a.base;
    c.mod_usec = a.mod_usec;
    c.mod_count = a.mod_count;
    hal_.ctx_write(ctx::table::CQ, slot, &c, sizeof(c));
    store(out, obj_out{slot, 0});
    DONE();
}

Firmware::res Firmware::destroy_cq(uint16_t fn, const uint8_t *in) {
    auto a = load<obj_in>(in);
    if (a.id == 0 || a.id >= ctx::NUM_CQ || !cq_[a.id].used)
        FAIL(BAD_OBJECT, CQ_UNKNOWN);
    if (cq_[a.id].fn != fn)
        FAIL(WRONG_OWNER, CQ_OWNER);
    if (cq_[a.id].refs)
        FAIL(BUSY, CQ_IN_USE);
    eq_[cq_[a.id].eqn].cq_refs--;
    cq_[a.id] = cq_obj{};
    ctx::cq_ctx c{};
    hal_.ctx_write(ctx::table::CQ, a.id, &c, sizeof(c));
    DONE();
}

Firmware::res Firmware::modify_cq(uint16_t fn, const uint8_t *in) {
    auto a = load<modify_cq_in>(in);
    if (a.cqn == 0 || a.cqn >= ctx::NUM_CQ || !cq_[a.cqn].used)
        FAIL(BAD_OBJECT, CQ_UNKNOWN);
    if (cq_[a.cqn].fn != fn)
        FAIL(WRONG_OWNER, CQ_OWNER);
    if (a.rsvd)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (a.mod_usec > 4095)
        FAIL(BAD_PARAM, CQ_MODERATION);
    ctx::cq_ctx c;
    hal_.ctx_read(ctx::table::CQ, a.cqn, &c, sizeof(c));
    c.mod_usec = a.mod_usec;
    c.mod_count = a.mod_count;
    hal_.ctx_write(ctx::table::CQ, a.cqn, &c, sizeof(c));
    DONE();
}

// ------------------------------------------------------------------ SQ / RQ

Firmware::res Firmware::create_wq(uint16_t fn, bool rq, const uint8_t *in, uint8_t *out) {
    auto a = load<create_wq_in>(in);
    if (!log_ok(a.log_size))
        FAIL(BAD_SIZE, WQ_LOG_SIZE);
    if (a.log_stride < limits::MIN_LOG_STRIDE || a.log_stride > limits::MAX_LOG_STRIDE)
        FAIL(BAD_SIZE, WQ_LOG_STRIDE);
    if (!aligned4k(a.base))
        FAIL(BAD_PARAM, WQ_ALIGN);
    uint8_t allowed = rq ? uint8_t(create_wq_in::FLAGS_VLAN_STRIP | create_wq_in::FLAGS_RX_FCS |
                                   create_wq_in::FLAGS_RX_ALL)
                         : uint8_t(0);
    if ((a.flags & ~allowed) || a.rsvd || !all_zero(a.rsvd1, sizeof(a.rsvd1)))
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (!port_ok(fn, a.port))
        FAIL(BAD_PARAM, WQ_PORT);
    if (a.cqn == 0 || a.cqn >= ctx::NUM_CQ || !cq_[a.cqn].used)
        FAIL(BAD_OBJECT, CQ_UNKNOWN);
    if (cq_[a.cqn].fn != fn)
        FAIL(WRONG_OWNER, CQ_OWNER);
    if (!db_page_ok(fn, a.db_page))
        FAIL(BAD_PARAM, DB_PAGE_RANGE);
    wq_obj *pool = rq ? rq_ : sq_;
    uint32_t n = rq ? ctx::NUM_RQ : ctx::NUM_SQ;
    uint32_t slot = 0;
    for (uint32_t i = 1; i < n && !slot; i++)
        if (!pool[i].used)
            slot = i;
    if (!slot)
        FAIL(NO_RESOURCES, WQ_NONE_FREE);
    pool[slot] = wq_obj{1, a.port, fn, uint16_t(a.cqn), 0, a.db_page};
    cq_[a.cqn].refs++;
    ctx::wq_ctx w{};
    w.valid = 1;
    w.state = wq_state::RST;
    w.log_size = a.log_size;
    w.log_stride = a.log_stride;
    w.port = a.port;
    w.flags = a.flags;
    w.is_rq = rq;
    w.fn = fn;
    w.cqn = a.cqn;
    w.db_page = a.db_page;
    w.base = a.base;
    hal_.ctx_write(rq ? ctx::table::RQ : ctx::table::SQ, slot, &w, sizeof(w));
    store(out, obj_out{slot, 0});
    DONE();
}

#define WQ_LOOKUP(id)                                                      \
    wq_obj *pool = rq ? rq_ : sq_;                                         \
    if ((id) == 0 || (id) >= (rq ? ctx::NUM_RQ : ctx::NUM_SQ) || !pool[id].used) \
        FAIL(BAD_OBJECT, WQ_UNKNOWN);                                      \
    if (pool[id].fn != fn)                                                 \
        FAIL(WRONG_OWNER, WQ_OWNER);                                       \
    ctx::table tbl = rq ? ctx::table::RQ : ctx::table::SQ;

Firmware::res Firmware::modify_wq(uint16_t fn, bool rq, const uint8_t *in) {
    auto a = load<modify_wq_in>(in);
    WQ_LOOKUP(a.id);
    if ((a.mask & ~(modify_wq_in::MASK_STATE | modify_wq_in::MASK_FLAGS)) || !all_zero(a.rsvd, sizeof(a.rsvd)))
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    ctx::wq_ctx w;
    hal_.ctx_read(tbl, a.id, &w, sizeof(w));
    if (a.mask & modify_wq_in::MASK_STATE) {
        if (a.state > wq_state::ERR)
            FAIL(BAD_PARAM, WQ_STATE);
        uint8_t from = w.state, to = a.state;
        bool ok = to == wq_state::RST || (from == wq_state::RST && to == wq_state::RDY) ||
                  (from == wq_state::RDY && (to == wq_state::RDY || to == wq_state::ERR)) ||
                  (from == wq_state::ERR && to == wq_state::ERR);
        if (!ok)
            FAIL(BAD_STATE, WQ_STATE);
    }
    if (a.mask & modify_wq_in::MASK_FLAGS) {
        uint8_t allowed = rq ? uint8_t(7) : uint8_t(0);
        if (a.flags & ~allowed)
            FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
        w.flags = a.flags;
    }
    if (a.mask & modify_wq_in::MASK_STATE)
        w.state = a.state;
    hal_.ctx_write(tbl, a.id, &w, sizeof(w));
    DONE();
}

Firmware::res Firmware::destroy_wq(uint16_t fn, bool rq, const uint8_t *in) {
    auto a = load<obj_in>(in);
    WQ_LOOKUP(a.id);
    if (pool[a.id].rss_refs)
        FAIL(BUSY, WQ_IN_USE);
    cq_[pool[a.id].cqn].refs--;
    pool[a.id] = wq_obj{};
    ctx::wq_ctx w{};
    hal_.ctx_write(tbl, a.id, &w, sizeof(w));
    DONE();
}

Firmware::res Firmware::query_wq(uint16_t fn, bool rq, const uint8_t *in, uint8_t *out) {
    auto a = load<obj_in>(in);
    WQ_LOOKUP(a.id);
    ctx::wq_ctx w;
    hal_.ctx_read(tbl, a.id, &w, sizeof(w));
    query_wq_out o{};
    o.state = w.state;
    o.pi = w.pi;
    o.ci = w.ci;
    o.cqn = w.cqn;
    store(out, o);
    DONE();
}

// ------------------------------------------------------------------ PD / MR

Firmware::res Firmware::alloc_pd(uint16_t fn, uint8_t *out) {
    for (uint32_t i = 1; i < ctx::NUM_PD; i++)
        if (!pd_[i].used) {
            pd_[i] = pd_obj{1, fn, 0};
            store(out, obj_out{i, 0});
            DONE();
        }
    FAIL(NO_RESOURCES, PD_NONE_FREE);
}

Firmware::res Firmware::dealloc_pd(uint16_t fn, const uint8_t *in) {
    auto a = load<obj_in>(in);
    if (a.id == 0 || a.id >= ctx::NUM_PD || !pd_[a.id].used)
        FAIL(BAD_OBJECT, PD_UNKNOWN);
    if (pd_[a.id].fn != fn)
        FAIL(WRONG_OWNER, PD_OWNER);
    if (pd_[a.id].refs)
        FAIL(BUSY, PD_IN_USE);
    pd_[a.id] = pd_obj{};
    DONE();
}

Firmware::res Firmware::create_mr(uint16_t fn, const uint8_t *in, uint8_t *out) {
    using M = create_mr_in;
    auto a = load<create_mr_in>(in);
    if (a.pdn == 0 || a.pdn >= ctx::NUM_PD || !pd_[a.pdn].used)
        FAIL(BAD_OBJECT, PD_UNKNOWN);
    if (pd_[a.pdn].fn != fn)
        FAIL(WRONG_OWNER, PD_OWNER);
    if ((a.access & ~0x3fu) || (a.flags & ~0x7u) || a.rsvd || !all_zero(a.rsvd1, sizeof(a.rsvd1)))
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    // IB rule: remote write or atomic access needs local write.
    if ((a.access & (M::ACCESS_REMOTE_WRITE | M::ACCESS_REMOTE_ATOMIC)) && !(a.access & M::ACCESS_LOCAL_WRITE))
        FAIL(BAD_PARAM, MR_ACCESS);
    bool phys = a.flags & M::FLAGS_PHYS;
    if (phys && (a.flags & M::FLAGS_USER))
        FAIL(BAD_PARAM, MR_ACCESS);
    if (!phys) {
        if (a.page_shift < 12 || a.page_shift > 30)
            FAIL(BAD_PARAM, MR_PAGE_SHIFT);
        if (!(a.flags & M::FLAGS_FAST_REG)) {
            if (a.length == 0)
                FAIL(BAD_SIZE, MR_LENGTH);
            uint64_t ps = uint64_t(1) << a.page_shift;
            uint64_t first = (a.access & M::ACCESS_ZERO_BASED) ? 0 : a.iova & (ps - 1);
            uint64_t pages = (first + a.length + ps - 1) >> a.page_shift;
            if (a.mtt_count < pages)
                FAIL(BAD_SIZE, MR_LENGTH);
            if (a.mtt_addr & 7)
                FAIL(BAD_PARAM, MR_MTT_DMA);
            // Read the whole table once: it must be readable and page aligned.
            uint64_t buf[64];
            for (uint32_t i = 0; i < a.mtt_count; i += 64) {
                uint32_t n = a.mtt_count - i < 64 ? a.mtt_count - i : 64;
                if (!hal_.dma_read(fn, a.mtt_addr + uint64_t(i) * 8, buf, n * 8))
                    FAIL(DMA_ERROR, MR_MTT_DMA);
                for (uint32_t k = 0; k < n; k++)
                    if (buf[k] & (ps - 1))
                        FAIL(BAD_PARAM, MR_PAGE_SHIFT);
            }
        } else if (a.mtt_count == 0) {
            FAIL(BAD_SIZE, MR_LENGTH);
        }
    } else if (a.length == 0) {
        FAIL(BAD_SIZE, MR_LENGTH);
    }
    uint32_t slot = 0;
    for (uint32_t i = 1; i < ctx::NUM_MR && !slot; i++)
        if (!mr_[i].used)
            slot = i;
    if (!slot)
        FAIL(NO_RESOURCES, MR_NONE_FREE);
    uint32_t key = slot << 8 | a.key_variant;
    mr_[slot] = mr_obj{1, a.key_variant, fn, a.pdn};
    pd_[a.pdn].refs++;
    ctx::mr_ctx m{};
    m.valid = (a.flags & M::FLAGS_FAST_REG) ? 0 : 1;  // fast-reg MRs start free
    m.page_shift = a.page_shift;
    m.flags = a.flags;
    m.fn = fn;
    m.key = key;
    m.pdn = a.pdn;
    m.access = a.access;
    m.mtt_count = a.mtt_count;
    m.iova = a.iova;
    m.length = a.length;
    m.mtt_addr = a.mtt_addr;
    hal_.ctx_write(ctx::table::MR, slot, &m, sizeof(m));
    store(out, obj_out{key, 0});
    DONE();
}

#define MR_LOOKUP(key)                                                             \
    uint32_t idx = (key) >> 8;                                                     \
    if (idx == 0 || idx >= ctx::NUM_MR || !mr_[idx].used || mr_[idx].variant != ((key) & 0xff)) \
        FAIL(BAD_OBJECT, MR_UNKNOWN);                                              \
    if (mr_[idx].fn != fn)                                                         \
        FAIL(WRONG_OWNER, MR_OWNER);

Firmware::res Firmware::destroy_mr(uint16_t fn, const uint8_t *in) {
    auto a = load<obj_in>(in);
    MR_LOOKUP(a.id);
    pd_[mr_[idx].pdn].refs--;
    mr_[idx] = mr_obj{};
    ctx::mr_ctx m{};
    hal_.ctx_write(ctx::table::MR, idx, &m, sizeof(m));
    DONE();
}

Firmware::res Firmware::query_mr(uint16_t fn, const uint8_t *in, uint8_t *out) {
    auto a = load<obj_in>(in);
    MR_LOOKUP(a.id);
    ctx::mr_ctx m;
    hal_.ctx_read(ctx::table::MR, idx, &m, sizeof(m));
    create_mr_in o{};
    o.iova = m.iova;
    o.length = m.length;
    o.mtt_addr = m.mtt_addr;
    o.mtt_count = m.mtt_count;
    o.pdn = m.pdn;
    o.access = m.access;
    o.page_shift = m.page_shift;
    o.flags = m.flags;
    o.key_variant = mr_[idx].variant;
    store(out, o);
    DONE();
}

// ------------------------------------------------------------------ RX steering and filters

Firmware::res Firmware::set_rss(uint16_t fn, const uint8_t *in, uint8_t *out) {
    namespace rf = rss_field;
    auto a = load<set_rss_in>(in);
    if (!port_ok(fn, a.port))
        FAIL(BAD_PARAM, PORT_RANGE);
    if (a.rsvd || a.rsvd1)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    uint32_t c = a.ctx;
    if (c != 0xffff && c >= limits::MAX_RSS_CTX)
        FAIL(BAD_PARAM, RSS_CTX_RANGE);
    if (a.hash_fields & ~0x3fu)
        FAIL(BAD_PARAM, RSS_HASH_FIELDS);
    if (((a.hash_fields & (rf::IPV4_TCP | rf::IPV4_UDP)) && !(a.hash_fields & rf::IPV4)) ||
        ((a.hash_fields & (rf::IPV6_TCP | rf::IPV6_UDP)) && !(a.hash_fields & rf::IPV6)))
        FAIL(BAD_PARAM, RSS_HASH_FIELDS);
    if (a.table_size == 0 || a.table_size > limits::RSS_TABLE_SIZE || (a.table_size & (a.table_size - 1)))
        FAIL(BAD_PARAM, RSS_TABLE_SIZE);
    if (c == 0xffff) {
        for (uint32_t i = 1; i < limits::MAX_RSS_CTX && c == 0xffff; i++)
            if (!rss_used_[ctx::rss_index(fn, a.port, i)])
                c = i;
        if (c == 0xffff)
            FAIL(NO_RESOURCES, RSS_CTX_RANGE);
    }
    ctx::rss_ctx r{};
    if (!hal_.dma_read(fn, a.table_addr, r.table, a.table_size * 2u))
        FAIL(DMA_ERROR, DMA_READ);
    for (uint32_t i = 0; i < a.table_size; i++) {
        uint16_t q = r.table[i];
        if (q == 0 || q >= ctx::NUM_RQ || !rq_[q].used || rq_[q].fn != fn || rq_[q].port != a.port)
            FAIL(BAD_PARAM, RSS_TABLE);
    }
    uint32_t idx = ctx::rss_index(fn, a.port, c);
    if (rss_used_[idx])
        rss_release(idx);
    for (uint32_t i = 0; i < a.table_size; i++)
        rq_[r.table[i]].rss_refs++;
    r.valid = 1;
    r.hash_fields = a.hash_fields;
    r.port = a.port;
    r.fn = fn;
    r.table_size = a.table_size;
    copy(r.key, a.key, sizeof(r.key));
    hal_.ctx_write(ctx::table::RSS, idx, &r, sizeof(r));
    rss_used_[idx] = 1;
    store(out, obj_out{c | uint32_t(a.port) << 16, 0});
    DONE();
}

Firmware::res Firmware::destroy_rss(uint16_t fn, const uint8_t *in) {
    auto a = load<obj_in>(in);
    uint32_t c = a.id & 0xffff, port = a.id >> 16;
    if (!port_ok(fn, port))
        FAIL(BAD_PARAM, PORT_RANGE);
    if (c >= limits::MAX_RSS_CTX || !rss_used_[ctx::rss_index(fn, port, c)])
        FAIL(BAD_OBJECT, RSS_CTX_RANGE);
    rss_release(ctx::rss_index(fn, port, c));
    DONE();
}

Firmware::res Firmware::set_mac_filter(uint16_t fn, const uint8_t *in) {
    auto a = load<mac_filter_in>(in);
    if (!port_ok(fn, a.port))
        FAIL(BAD_PARAM, PORT_RANGE);
    if (a.rsvd)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (a.op > 1 || all_zero(a.mac, 6))
        FAIL(BAD_PARAM, FILTER_MAC);
    ctx::filter_ctx f;
    uint32_t idx = ctx::filter_index(fn, a.port);
    hal_.ctx_read(ctx::table::FILTER, idx, &f, sizeof(f));
    bool mc = a.mac[0] & 1;
    uint8_t(*list)[6] = mc ? f.mc : f.uc;
    uint8_t &num = mc ? f.num_mc : f.num_uc;
    uint32_t cap = mc ? ctx::NUM_MC : ctx::NUM_UC;
    int found = -1;
    for (uint32_t i = 0; i < num; i++)
        if (__builtin_memcmp(list[i], a.mac, 6) == 0)
            found = int(i);
    if (a.op == 1) {
        if (found >= 0)
            DONE();
        if (num >= cap)
            FAIL(NO_RESOURCES, FILTER_FULL);
        copy(list[num++], a.mac, 6);
    } else {
        if (found < 0)
            FAIL(BAD_OBJECT, FILTER_NOT_FOUND);
        copy(list[found], list[num - 1], 6);
        num--;
    }
    hal_.ctx_write(ctx::table::FILTER, idx, &f, sizeof(f));
    DONE();
}

Firmware::res Firmware::set_rx_mode(uint16_t fn, const uint8_t *in) {
    auto a = load<rx_mode_in>(in);
    if (!port_ok(fn, a.port))
        FAIL(BAD_PARAM, PORT_RANGE);
    if ((a.flags & ~0xfu) || !all_zero(a.rsvd, sizeof(a.rsvd)))
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    ctx::filter_ctx f;
    uint32_t idx = ctx::filter_index(fn, a.port);
    hal_.ctx_read(ctx::table::FILTER, idx, &f, sizeof(f));
    f.rx_mode = a.flags;
    hal_.ctx_write(ctx::table::FILTER, idx, &f, sizeof(f));
    DONE();
}

Firmware::res Firmware::set_vlan_filter(uint16_t fn, const uint8_t *in) {
    auto a = load<vlan_filter_in>(in);
    if (!port_ok(fn, a.port))
        FAIL(BAD_PARAM, PORT_RANGE);
    if (a.rsvd)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (a.vid < 1 || a.vid > 4094 || a.op > 1)
        FAIL(BAD_PARAM, FILTER_VLAN);
    ctx::filter_ctx f;
    uint32_t idx = ctx::filter_index(fn, a.port);
    hal_.ctx_read(ctx::table::FILTER, idx, &f, sizeof(f));
    uint8_t bit = uint8_t(1u << (a.vid % 8));
    if (a.op == 1) {
        f.vlan[a.vid / 8] |= bit;
    } else {
        if (!(f.vlan[a.vid / 8] & bit))
            FAIL(BAD_OBJECT, FILTER_NOT_FOUND);
        f.vlan[a.vid / 8] &= uint8_t(~bit);
    }
    hal_.ctx_write(ctx::table::FILTER, idx, &f, sizeof(f));
    DONE();
}

// ------------------------------------------------------------------ ports, counters, health

Firmware::res Firmware::query_port(uint16_t fn, const uint8_t *in, uint8_t *out) {
    auto a = load<obj_in>(in);
    if (!port_ok(fn, a.id))
        FAIL(BAD_PARAM, PORT_RANGE);
    ctx::port_ctx pc;
    hal_.ctx_read(ctx::table::PORT, a.id, &pc, sizeof(pc));
    port_info o{};
    o.port = uint8_t(a.id);
    o.link_up = hal_.port_link_up(uint8_t(a.id));
    o.admin_up = pc.admin_up;
    o.fec = pc.fec;
    o.speed = link_speed::SPEED_100G;
    o.mtu = pc.mtu;
    hal_.port_mac(fn, uint8_t(a.id), o.mac);
    o.pause = pc.pause;
    o.supported_fec = 0xf;
    store(out, o);
    DONE();
}

Firmware::res Firmware::set_port(uint16_t fn, const uint8_t *in) {
    auto a = load<port_info>(in);
    if (fn != 0)
        FAIL(NOT_PERMITTED, CMD_PF_ONLY);  // a VF may not change the shared port
    if (!port_ok(fn, a.port))
        FAIL(BAD_PARAM, PORT_RANGE);
    if ((a.mask & ~0xfu) || (a.pause & ~0x7u))
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if ((a.mask & port_info::MASK_MTU) && (a.mtu < limits::MIN_MTU || a.mtu > limits::MAX_MTU))
        FAIL(BAD_PARAM, PORT_MTU);
    if ((a.mask & port_info::MASK_FEC) && a.fec > fec_mode::AUTO)
        FAIL(BAD_PARAM, PORT_FEC);
    ctx::port_ctx pc;
    hal_.ctx_read(ctx::table::PORT, a.port, &pc, sizeof(pc));
    if (a.mask & port_info::MASK_ADMIN)
        pc.admin_up = a.admin_up ? 1 : 0;
    if (a.mask & port_info::MASK_MTU)
        pc.mtu = a.mtu;
    if (a.mask & port_info::MASK_PAUSE)
        pc.pause = a.pause;
    if (a.mask & port_info::MASK_FEC)
        pc.fec = a.fec;
    hal_.ctx_write(ctx::table::PORT, a.port, &pc, sizeof(pc));
    DONE();
}

Firmware::res Firmware::query_stats(uint16_t fn, const uint8_t *in) {
    auto a = load<query_stats_in>(in);
    if ((a.flags & ~query_stats_in::FLAGS_CLEAR) || a.rsvd || a.rsvd1)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    bool clear = a.flags & query_stats_in::FLAGS_CLEAR;
    if (clear && fn != 0)
        FAIL(NOT_PERMITTED, CMD_PF_ONLY);
    if (a.scope == stats_scope::PORT) {
        if (!port_ok(fn, a.id))
            FAIL(BAD_PARAM, PORT_RANGE);
        if (a.len < sizeof(port_stats))
            FAIL(BAD_SIZE, STATS_LEN);
        port_stats ps;
        hal_.port_stats(uint8_t(a.id), ps, false);
        if (!hal_.dma_write(fn, a.addr, &ps, sizeof(ps)))
            FAIL(DMA_ERROR, DMA_WRITE);
        if (clear)
            hal_.port_stats(uint8_t(a.id), ps, true);
        DONE();
    }
    if (a.scope == stats_scope::SQ || a.scope == stats_scope::RQ) {
        bool rq = a.scope == stats_scope::RQ;
        WQ_LOOKUP(a.id);
        if (a.len < sizeof(queue_stats))
            FAIL(BAD_SIZE, STATS_LEN);
        ctx::wq_ctx w;
        hal_.ctx_read(tbl, a.id, &w, sizeof(w));
        if (!hal_.dma_write(fn, a.addr, &w.stats, sizeof(w.stats)))
            FAIL(DMA_ERROR, DMA_WRITE);
        if (clear) {
            zero(&w.stats, sizeof(w.stats));
            hal_.ctx_write(tbl, a.id, &w, sizeof(w));
        }
        DONE();
    }
    if (a.scope == stats_scope::FUNC || a.scope == stats_scope::RDMA_PORT || a.scope == stats_scope::QP)
        FAIL(NOT_SUPPORTED, NONE);
    FAIL(BAD_PARAM, STATS_SCOPE);
}

Firmware::res Firmware::query_health(uint8_t *out) {
    health_out o{};
    o.state = health_ == health_syndrome::OK ? 0 : (health_ == health_syndrome::EQ_OVERFLOW ? 1 : 2);
    o.syndrome = health_;
    o.uptime_ms = (hal_.now_ns() - boot_ns_) / 1000000;
    o.cmds = cmds_ + 1;  // this one included
    o.cmd_errors = cmd_errors_;
    store(out, o);
    DONE();
}

Firmware::res Firmware::alloc_db_page(uint16_t fn, uint8_t *out) {
    ctx::func_ctx f = func(fn);
    for (uint32_t p = 1; p < f.db_pages && p < pci::PF_DB_PAGES; p++)
        if (!(db_alloc_[fn][p / 8] >> (p % 8) & 1)) {
            db_alloc_[fn][p / 8] |= uint8_t(1u << (p % 8));
            store(out, obj_out{p, 0});
            DONE();
        }
    FAIL(NO_RESOURCES, DB_NONE_FREE);
}

Firmware::res Firmware::free_db_page(uint16_t fn, const uint8_t *in) {
    auto a = load<obj_in>(in);
    ctx::func_ctx f = func(fn);
    if (a.id == 0 || a.id >= f.db_pages)
        FAIL(BAD_PARAM, DB_PAGE_RANGE);
    if (!db_page_ok(fn, a.id))
        FAIL(BAD_OBJECT, DB_UNKNOWN);
    for (uint32_t i = 1; i < ctx::NUM_EQ; i++)
        if (eq_[i].used && eq_[i].fn == fn && eq_[i].db_page == a.id)
            FAIL(BUSY, DB_IN_USE);
    for (uint32_t i = 1; i < ctx::NUM_CQ; i++)
        if (cq_[i].used && cq_[i].fn == fn && cq_[i].db_page == a.id)
            FAIL(BUSY, DB_IN_USE);
    for (uint32_t i = 1; i < ctx::NUM_SQ; i++)
        if ((sq_[i].used && sq_[i].fn == fn && sq_[i].db_page == a.id) ||
            (rq_[i].used && rq_[i].fn == fn && rq_[i].db_page == a.id))
            FAIL(BUSY, DB_IN_USE);
    db_alloc_[fn][a.id / 8] &= uint8_t(~(1u << (a.id % 8)));
    DONE();
}

// ------------------------------------------------------------------ flash

Firmware::res Firmware::flash_begin(const uint8_t *in) {
    auto a = load<flash_in>(in);
    if (a.addr || a.offset || a.crc32 || !all_zero(a.rsvd, sizeof(a.rsvd)))
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (hal_.flash_size() < FLASH_SIZE)
        FAIL(INTERNAL, NONE);
    if (a.len < sizeof(fw_image_header) || a.len > flash::FW_IMAGE_MAX)
        FAIL(BAD_SIZE, FLASH_IMAGE);
    // Restarting an update is allowed: a crashed updater must be able to retry.
    flash_state_ = flash_state::WRITING;
    flash_len_ = a.len;
    DONE();
}

static uint8_t spare_bank(uint8_t running) { return running == 0 ? 1 : 0; }

Firmware::res Firmware::flash_write(const uint8_t *in) {
    auto a = load<flash_in>(in);
    if (flash_state_ != flash_state::WRITING)
        FAIL(BAD_STATE, FLASH_STATE);
    if (a.len == 0 || a.len > flash::FW_CHUNK_MAX)
        FAIL(BAD_SIZE, FLASH_RANGE);
    if (uint64_t(a.offset) + a.len > flash_len_)
        FAIL(BAD_PARAM, FLASH_RANGE);
    static uint8_t chunk[flash::FW_CHUNK_MAX];
    if (!hal_.dma_read(0, a.addr, chunk, a.len))
        FAIL(DMA_ERROR, DMA_READ);
    uint32_t base = FLASH_BANK0 + spare_bank(flash_.running_bank) * flash::FW_IMAGE_MAX;
    if (!hal_.flash_write(base + a.offset, chunk, a.len))
        FAIL(INTERNAL, NONE);
    DONE();
}

Firmware::res Firmware::flash_commit(const uint8_t *in) {
    auto a = load<flash_in>(in);
    if (flash_state_ != flash_state::WRITING)
        FAIL(BAD_STATE, FLASH_STATE);
    uint8_t bank = spare_bank(flash_.running_bank);
    uint32_t base = FLASH_BANK0 + bank * flash::FW_IMAGE_MAX;
    static uint8_t chunk[flash::FW_CHUNK_MAX];
    uint32_t crc = 0;
    for (uint32_t off = 0; off < flash_len_; off += flash::FW_CHUNK_MAX) {
        uint32_t n = flash_len_ - off < flash::FW_CHUNK_MAX ? flash_len_ - off : flash::FW_CHUNK_MAX;
        if (!hal_.flash_read(base + off, chunk, n))
            FAIL(INTERNAL, NONE);
        crc = crc32_update(crc, chunk, n);
    }
    fw_image_header h;
    if (!hal_.flash_read(base, &h, sizeof(h)))
        FAIL(INTERNAL, NONE);
    if (crc != a.crc32 || h.magic != flash::FW_IMAGE_MAGIC || h.header_version != 1 || h.image_len != flash_len_)
        FAIL(BAD_PARAM, FLASH_IMAGE);
    flash_.pending_bank = bank;
    flash_.bank_len[bank] = flash_len_;
    flash_.bank_version[bank] = h.fw_version;
    flash_.bank_build[bank] = h.build;
    copy(flash_.bank_str[bank], h.version_str, 32);
    flash_.bank_str[bank][31] = 0;
    save_flash_ctl();
    flash_state_ = flash_state::IDLE;
    DONE();
}

}  // namespace kite::fw
