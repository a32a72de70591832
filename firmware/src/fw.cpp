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

bool same(const void *a, const void *b, size_t n) {
    const uint8_t *x = static_cast<const uint8_t *>(a), *y = static_cast<const uint8_t *>(b);
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return false;
    return true;
}

// A big-endian field as loaded from a command, in host order.
inline uint16_t be16_host(uint16_t v) {
    const uint8_t *b = reinterpret_cast<const uint8_t *>(&v);
    return uint16_t(b[0] << 8 | b[1]);
}

constexpr uint32_t OK_ = st::OK;
inline bool log_ok(uint32_t v) { return v >= limits::MIN_LOG_RING && v <= limits::MAX_LOG_RING; }
inline bool aligned4k(uint64_t a) { return (a & 0xfff) == 0; }

bool rdma_command(uint32_t opcode) {
    switch (opcode) {
    case op::ALLOC_PD: case op::DEALLOC_PD: case op::CREATE_MR: case op::DESTROY_MR: case op::QUERY_MR:
    case op::CREATE_QP: case op::MODIFY_QP: case op::QUERY_QP: case op::DESTROY_QP:
    case op::CREATE_SRQ: case op::MODIFY_SRQ: case op::QUERY_SRQ: case op::DESTROY_SRQ:
    case op::CREATE_AH: case op::DESTROY_AH: case op::ADD_GID: case op::DEL_GID: return true;
    default: return false;
    }
}

const command_info *find_cmd(uint32_t opcode) {
    for (const auto &c : commands)
        if (c.opcode == opcode)
            return &c;
    return nullptr;
}

}  // namespace

#define FAIL(s, y) return res{uint8_t(st::s), sy::y}
#define DONE() return res{uint8_t(OK_), sy::NONE}

Firmware::Firmware(Hal &hal, uint32_t features) : hal_(hal), features_(features) {
    zero(eq_, sizeof(eq_));
    zero(cq_, sizeof(cq_));
    zero(sq_, sizeof(sq_));
    zero(rq_, sizeof(rq_));
    zero(pd_, sizeof(pd_));
    zero(mr_, sizeof(mr_));
    zero(qp_, sizeof(qp_));
    zero(srq_, sizeof(srq_));
    zero(ah_, sizeof(ah_));
    zero(rss_used_, sizeof(rss_used_));
    zero(flow_used_, sizeof(flow_used_));
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

void Firmware::flow_release(uint32_t idx) {
    ctx::flow_ctx r;
    hal_.ctx_read(ctx::table::FLOW, idx, &r, sizeof(r));
    if (r.valid && r.action == 0 && r.rq < ctx::NUM_RQ && rq_[r.rq].rss_refs)
        rq_[r.rq].rss_refs--;
    zero(&r, sizeof(r));
    hal_.ctx_write(ctx::table::FLOW, idx, &r, sizeof(r));
    flow_used_[idx] = 0;
}

void Firmware::reset_function(uint16_t fn) {
    if (fn >= ctx::MAX_FN)
        return;
    for (uint32_t p = 0; p < pci::MAX_PORTS; p++)
        for (uint32_t i = 0; i < limits::MAX_FLOW_RULES; i++)
            if (flow_used_[ctx::flow_index(fn, p, i)])
                flow_release(ctx::flow_index(fn, p, i));
    for (uint32_t p = 0; p < pci::MAX_PORTS; p++)
        for (uint32_t c = 0; c < limits::MAX_RSS_CTX; c++)
            if (rss_used_[ctx::rss_index(fn, p, c)])
                rss_release(ctx::rss_index(fn, p, c));
    for (uint32_t i = 1; i < ctx::NUM_QP; i++)
        if (qp_[i].used && qp_[i].fn == fn)
            qp_release(i);
    ctx::srq_ctx sc;
    zero(&sc, sizeof(sc));
    for (uint32_t i = 1; i < ctx::NUM_SRQ; i++)
        if (srq_[i].used && srq_[i].fn == fn) {
            srq_[i] = srq_obj{};
            hal_.ctx_write(ctx::table::SRQ, i, &sc, sizeof(sc));
        }
    ctx::ah_ctx ac;
    zero(&ac, sizeof(ac));
    for (uint32_t i = 1; i < ctx::NUM_AH; i++)
        if (ah_[i].used && ah_[i].fn == fn) {
            ah_[i] = ah_obj{};
            hal_.ctx_write(ctx::table::AH, i, &ac, sizeof(ac));
        }
    ctx::gid_ctx gc;
    zero(&gc, sizeof(gc));
    for (uint32_t p = 0; p < pci::MAX_PORTS; p++)
        for (uint32_t i = 0; i < limits::GID_TABLE_SIZE; i++)
            hal_.ctx_write(ctx::table::GID, ctx::gid_index(fn, p, i), &gc, sizeof(gc));
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
    if (!(features_ & spec::reg::CAPS_RDMA) && rdma_command(opcode))
        return r;
    switch (opcode) {
    case op::QUERY_CAPS: r = query_caps(fn, out); break;
    case op::QUERY_FW:
    case op::FLASH_QUERY: r = query_fw(out); break;
    case op::CREATE_EQ: r = create_eq(fn, in, out); break;
    case op::DESTROY_EQ: r = destroy_eq(fn, in); break;
    case op::CREATE_CQ: r = create_cq(fn, in, out); break;
    case op::DESTROY_CQ: r = destroy_cq(fn, in); break;
    case op::MODIFY_CQ: r = modify_cq(fn, in); break;
    case op::RESIZE_CQ: r = resize_cq(fn, in); break;
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
    case op::SET_FLOW_RULE: r = set_flow_rule(fn, in); break;
    case op::SET_MAC_FILTER: r = set_mac_filter(fn, in); break;
    case op::SET_RX_MODE: r = set_rx_mode(fn, in); break;
    case op::SET_VLAN_FILTER: r = set_vlan_filter(fn, in); break;
    case op::QUERY_PORT: r = query_port(fn, in, out); break;
    case op::SET_PORT: r = set_port(fn, in); break;
    case op::QUERY_STATS: r = query_stats(fn, in); break;
    case op::QUERY_HEALTH: r = query_health(out); break;
    case op::ALLOC_DB_PAGE: r = alloc_db_page(fn, out); break;
    case op::FREE_DB_PAGE: r = free_db_page(fn, in); break;
    case op::CREATE_QP: r = create_qp(fn, in, out); break;
    case op::MODIFY_QP: r = modify_qp(fn, in); break;
    case op::QUERY_QP: r = query_qp(fn, in, out); break;
    case op::DESTROY_QP: r = destroy_qp(fn, in); break;
    case op::CREATE_SRQ: r = create_srq(fn, in, out); break;
    case op::MODIFY_SRQ: r = modify_srq(fn, in); break;
    case op::QUERY_SRQ: r = query_srq(fn, in, out); break;
    case op::DESTROY_SRQ: r = destroy_srq(fn, in); break;
    case op::CREATE_AH: r = create_ah(fn, in, out); break;
    case op::DESTROY_AH: r = destroy_ah(fn, in); break;
    case op::ADD_GID: r = add_gid(fn, in); break;
    case op::DEL_GID: r = del_gid(fn, in); break;
    case op::FLASH_BEGIN: r = flash_begin(in); break;
    case op::FLASH_WRITE: r = flash_write(in); break;
    case op::FLASH_COMMIT: r = flash_commit(in); break;
    default:
        // VF configuration is not implemented yet: say so rather
        // than pretend.
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
    c.max_qp = ctx::NUM_QP - ctx::FIRST_QPN;
    c.max_srq = ctx::NUM_SRQ - 1;
    c.max_mr = ctx::NUM_MR - 1;
    c.max_pd = ctx::NUM_PD - 1;
    c.max_ah = ctx::NUM_AH - 1;
    c.log_max_cqe = limits::MAX_LOG_RING;
    c.log_max_wqe = limits::MAX_LOG_RING;
    c.max_sge = limits::MAX_GATHER;
    c.max_rd_atomic = MAX_RD_ATOMIC;
    c.max_inline = MAX_INLINE;
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
    c.features = features_;
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

// Re-points a CQ at a new ring. CQEs written to the old ring and not yet
// consumed (by the last CQ_CI/CQ_ARM doorbell) are the driver's to copy to
// the front of the new ring, so the next CQE goes at index pi - ci there.
Firmware::res Firmware::resize_cq(uint16_t fn, const uint8_t *in) {
    auto a = load<create_cq_in>(in);
    if (a.cqn == 0 || a.cqn >= ctx::NUM_CQ || !cq_[a.cqn].used)
        FAIL(BAD_OBJECT, CQ_UNKNOWN);
    if (cq_[a.cqn].fn != fn)
        FAIL(WRONG_OWNER, CQ_OWNER);
    if (!log_ok(a.log_size))
        FAIL(BAD_SIZE, CQ_LOG_SIZE);
    if (!aligned4k(a.base))
        FAIL(BAD_PARAM, CQ_ALIGN);
    // eqn, db_page, flags and moderation stay as they are
    if (a.flags || a.rsvd || a.eqn || a.db_page || a.mod_usec || a.mod_count)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    ctx::cq_ctx c;
    hal_.ctx_read(ctx::table::CQ, a.cqn, &c, sizeof(c));
    const uint32_t pending = c.pi - c.ci;
    if (pending > (1u << a.log_size))
        FAIL(BAD_SIZE, CQ_RESIZE_TOO_SMALL);
    c.base = a.base;
    c.log_size = a.log_size;
    c.pi = pending;
    c.ci = 0;
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
    pool[slot] = wq_obj{1, a.port, fn, uint16_t(a.cqn), 0, a.db_page, ctx::WQ_ETH};
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
    // The counters live beside the context: a new queue counts from zero.
    queue_stats qs;
    hal_.queue_stats(rq, slot, qs, true);
    store(out, obj_out{slot, 0});
    DONE();
}

#define WQ_LOOKUP(id)                                                      \
    wq_obj *pool = rq ? rq_ : sq_;                                         \
    if ((id) == 0 || (id) >= (rq ? ctx::NUM_RQ : ctx::NUM_SQ) || !pool[id].used || pool[id].kind != ctx::WQ_ETH) \
        FAIL(BAD_OBJECT, WQ_UNKNOWN);                                      \
    if (pool[id].fn != fn)                                                 \
        FAIL(WRONG_OWNER, WQ_OWNER);                                       \
    [[maybe_unused]] ctx::table tbl = rq ? ctx::table::RQ : ctx::table::SQ;

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
    if (a.flags & M::FLAGS_FAST_REG)
        m.fr_max_pages = a.mtt_count;
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
        if (q == 0 || q >= ctx::NUM_RQ || !rq_[q].used || rq_[q].kind != ctx::WQ_ETH || rq_[q].fn != fn ||
            rq_[q].port != a.port)
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

// Exact-match ntuple rule of (fn, port): the fields the match bits select
// must equal the frame's; action 0 steers to an RQ of the function on the
// port, 1 to one of its RSS contexts on the port, 2 drops (rx_flow_drop).
// Adding to a used slot replaces the rule.
Firmware::res Firmware::set_flow_rule(uint16_t fn, const uint8_t *in) {
    using fr = flow_rule_in;
    auto a = load<flow_rule_in>(in);
    if (!port_ok(fn, a.port))
        FAIL(BAD_PARAM, PORT_RANGE);
    if (a.rsvd0 || a.rsvd1 || a.rsvd[0] || a.rsvd[1] || a.rsvd[2])
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (a.rule >= limits::MAX_FLOW_RULES)
        FAIL(BAD_PARAM, FLOW_RULE_RANGE);
    uint32_t idx = ctx::flow_index(fn, a.port, a.rule);
    if (a.op == 0) {
        if (!flow_used_[idx])
            FAIL(BAD_PARAM, FILTER_NOT_FOUND);
        flow_release(idx);
        DONE();
    }
    if (a.op != 1)
        FAIL(BAD_PARAM, FLOW_RULE_MATCH);
    const uint8_t all = fr::MATCH_SRC_IP | fr::MATCH_DST_IP | fr::MATCH_SRC_PORT | fr::MATCH_DST_PORT |
                        fr::MATCH_IPV6;
    if ((a.l4_proto != 6 && a.l4_proto != 17) || (a.match & ~all))
        FAIL(BAD_PARAM, FLOW_RULE_MATCH);
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (!(a.match & fr::MATCH_IPV6) &&
        (((a.match & fr::MATCH_SRC_IP) && !same(a.src_ip, mapped, 12)) ||
         ((a.match & fr::MATCH_DST_IP) && !same(a.dst_ip, mapped, 12))))
        FAIL(BAD_PARAM, FLOW_RULE_MATCH);
    switch (a.action) {
    case 0:
        if (a.ctx || a.rq == 0 || a.rq >= ctx::NUM_RQ || !rq_[a.rq].used || rq_[a.rq].kind != ctx::WQ_ETH ||
            rq_[a.rq].fn != fn || rq_[a.rq].port != a.port)
            FAIL(BAD_PARAM, FLOW_RULE_ACTION);
        break;
    case 1:
        if (a.rq || a.ctx >= limits::MAX_RSS_CTX || !rss_used_[ctx::rss_index(fn, a.port, a.ctx)])
            FAIL(BAD_PARAM, FLOW_RULE_ACTION);
        break;
    case 2:
        if (a.rq || a.ctx)
            FAIL(BAD_PARAM, FLOW_RULE_ACTION);
        break;
    default:
        FAIL(BAD_PARAM, FLOW_RULE_ACTION);
    }
    if (flow_used_[idx])
        flow_release(idx);
    ctx::flow_ctx r;
    zero(&r, sizeof(r));
    r.valid = 1;
    r.l4_proto = a.l4_proto;
    r.match = a.match;
    r.action = a.action;
    r.ctx = a.ctx;
    r.rq = a.action == 0 ? a.rq : 0;
    r.sport = be16_host(a.src_port);
    r.dport = be16_host(a.dst_port);
    if (a.match & fr::MATCH_SRC_IP)
        copy(r.src_ip, a.src_ip, 16);
    if (a.match & fr::MATCH_DST_IP)
        copy(r.dst_ip, a.dst_ip, 16);
    if (a.action == 0)
        rq_[a.rq].rss_refs++;
    hal_.ctx_write(ctx::table::FLOW, idx, &r, sizeof(r));
    flow_used_[idx] = 1;
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

bool Firmware::write_result(uint16_t fn, uint64_t addr, const void *buf, uint32_t len) {
    uint8_t first;
    return hal_.dma_write(fn, addr, buf, len) && hal_.dma_read(fn, addr, &first, 1);
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
        if (!write_result(fn, a.addr, &ps, sizeof(ps)))
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
        queue_stats qs;
        hal_.queue_stats(rq, a.id, qs, false);
        if (!write_result(fn, a.addr, &qs, sizeof(qs)))
            FAIL(DMA_ERROR, DMA_WRITE);
        if (clear)
            hal_.queue_stats(rq, a.id, qs, true);
        DONE();
    }
    if (a.scope == stats_scope::RDMA_PORT) {
        if (!port_ok(fn, a.id))
            FAIL(BAD_PARAM, PORT_RANGE);
        if (a.len < sizeof(rdma_stats))
            FAIL(BAD_SIZE, STATS_LEN);
        ctx::port_ctx pc;
        hal_.ctx_read(ctx::table::PORT, a.id, &pc, sizeof(pc));
        if (!write_result(fn, a.addr, &pc.rdma, sizeof(pc.rdma)))
            FAIL(DMA_ERROR, DMA_WRITE);
        if (clear) {
            zero(&pc.rdma, sizeof(pc.rdma));
            hal_.ctx_write(ctx::table::PORT, a.id, &pc, sizeof(pc));
        }
        DONE();
    }
    if (a.scope == stats_scope::QP) {
        if (a.id == 0 || a.id >= ctx::NUM_QP || !qp_[a.id].used)
            FAIL(BAD_PARAM, STATS_SCOPE);
        if (qp_[a.id].fn != fn)
            FAIL(WRONG_OWNER, QP_OWNER);
        if (a.len < sizeof(rdma_stats))
            FAIL(BAD_SIZE, STATS_LEN);
        ctx::qp_ctx q;
        hal_.ctx_read(ctx::table::QP, a.id, &q, sizeof(q));
        if (!write_result(fn, a.addr, &q.stats, sizeof(q.stats)))
            FAIL(DMA_ERROR, DMA_WRITE);
        if (clear) {
            zero(&q.stats, sizeof(q.stats));
            hal_.ctx_write(ctx::table::QP, a.id, &q, sizeof(q));
        }
        DONE();
    }
    if (a.scope == stats_scope::FUNC)
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

// ------------------------------------------------------------------ RDMA: QP, SRQ, AH, GID

namespace {
// qp_attr.mask bits: the numbers of enum ib_qp_attr_mask.
namespace qa {
constexpr uint32_t STATE = 1u << 0, CUR_STATE = 1u << 1, SQD_NOTIFY = 1u << 2, ACCESS = 1u << 3, PKEY = 1u << 4,
                   PORT = 1u << 5, QKEY = 1u << 6, AV = 1u << 7, MTU = 1u << 8, TIMEOUT = 1u << 9,
                   RETRY = 1u << 10, RNR_RETRY = 1u << 11, RQ_PSN = 1u << 12, MAX_RD = 1u << 13,
                   ALT_PATH = 1u << 14, MIN_RNR = 1u << 15, SQ_PSN = 1u << 16, MAX_DEST_RD = 1u << 17,
                   MIG = 1u << 18, CAP = 1u << 19, DEST_QPN = 1u << 20;
constexpr uint32_t KNOWN = (1u << 21) - 1;
}  // namespace qa

// The IB QP state machine (IBA 10.3.1, as Linux's ib_modify_qp_is_ok):
// whether cur -> next is allowed and which attributes it requires/permits.
bool qp_transition(uint8_t type, uint8_t cur, uint8_t next, uint32_t &req, uint32_t &opt) {
    using namespace qa;
    namespace s = qp_state;
    const bool rc = type == qp_type::RC, ud = type == qp_type::UD;
    req = opt = 0;
    if (next == s::RESET || next == s::ERR)
        return true;  // from any state, nothing required
    switch (cur) {
    case s::RESET:
        if (next != s::INIT)
            return false;
        req = rc ? PKEY | PORT | ACCESS : ud ? PKEY | PORT | QKEY : PKEY | QKEY;
        return true;
    case s::INIT:
        if (next == s::INIT) {
            opt = rc ? PKEY | PORT | ACCESS : ud ? PKEY | PORT | QKEY : PKEY | QKEY;
            return true;
        }
        if (next != s::RTR)
            return false;
        if (rc) {
            req = AV | MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD | MIN_RNR;
            opt = ALT_PATH | ACCESS | PKEY;
        } else {
            opt = PKEY | QKEY;
        }
        return true;
    case s::RTR:
        if (next != s::RTS)
            return false;
        if (rc) {
            req = TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | MAX_RD;
            opt = CUR_STATE | ALT_PATH | ACCESS | MIN_RNR | MIG;
        } else {
            req = SQ_PSN;
            opt = CUR_STATE | QKEY;
        }
        return true;
    case s::RTS:
        if (next == s::RTS) {
            opt = rc ? CUR_STATE | ACCESS | ALT_PATH | MIG | MIN_RNR : CUR_STATE | QKEY;
            return true;
        }
        if (next == s::SQD) {
            opt = SQD_NOTIFY;
            return true;
        }
        return false;
    case s::SQD:
        if (next == s::RTS) {
            opt = rc ? CUR_STATE | ALT_PATH | ACCESS | MIG | MIN_RNR : CUR_STATE | QKEY;
            return true;
        }
        if (next == s::SQD) {
            opt = rc ? PORT | AV | TIMEOUT | RETRY | RNR_RETRY | MAX_RD | MAX_DEST_RD | ALT_PATH | ACCESS | PKEY |
                           MIN_RNR | MIG
                     : PKEY | QKEY;
            return true;
        }
        return false;
    case s::SQE:
        if (next == s::RTS && !rc) {
            opt = CUR_STATE | QKEY;
            return true;
        }
        return false;
    default:
        return false;
    }
}

bool ipv4_mapped(const uint8_t *g) {
    for (int i = 0; i < 10; i++)
        if (g[i])
            return false;
    return g[10] == 0xff && g[11] == 0xff;
}
}  // namespace

#define PD_LOOKUP(pdn)                                                      \
    if ((pdn) == 0 || (pdn) >= ctx::NUM_PD || !pd_[pdn].used)              \
        FAIL(BAD_OBJECT, PD_UNKNOWN);                                       \
    if (pd_[pdn].fn != fn)                                                  \
        FAIL(WRONG_OWNER, PD_OWNER);

#define CQ_CHECK(cqn)                                                       \
    if ((cqn) == 0 || (cqn) >= ctx::NUM_CQ || !cq_[cqn].used)              \
        FAIL(BAD_OBJECT, CQ_UNKNOWN);                                       \
    if (cq_[cqn].fn != fn)                                                  \
        FAIL(WRONG_OWNER, CQ_OWNER);

#define QP_LOOKUP(qpn)                                                      \
    if ((qpn) == 0 || (qpn) >= ctx::NUM_QP || !qp_[qpn].used)              \
        FAIL(BAD_OBJECT, QP_UNKNOWN);                                       \
    if (qp_[qpn].fn != fn)                                                  \
        FAIL(WRONG_OWNER, QP_OWNER);

#define SRQ_LOOKUP(id)                                                      \
    if ((id) == 0 || (id) >= ctx::NUM_SRQ || !srq_[id].used)               \
        FAIL(BAD_OBJECT, SRQ_UNKNOWN);                                      \
    if (srq_[id].fn != fn)                                                  \
        FAIL(WRONG_OWNER, SRQ_OWNER);

bool Firmware::gid_valid(uint16_t fn, uint8_t port, uint8_t idx) {
    if (idx >= limits::GID_TABLE_SIZE || port >= pci::MAX_PORTS)
        return false;
    ctx::gid_ctx g;
    hal_.ctx_read(ctx::table::GID, ctx::gid_index(fn, port, idx), &g, sizeof(g));
    return g.valid;
}

// A user ring lives in an MR of the same function and PD (the kernel pins
// and registers the provider's buffer); the whole ring must lie inside it.
Firmware::res Firmware::ring_mr_ok(uint16_t fn, uint32_t pdn, uint32_t lkey, uint64_t base, uint64_t len) {
    uint32_t idx = lkey >> 8;
    if (idx == 0 || idx >= ctx::NUM_MR || !mr_[idx].used || mr_[idx].variant != (lkey & 0xff) ||
        mr_[idx].fn != fn || mr_[idx].pdn != pdn)
        FAIL(BAD_PARAM, QP_RING_MR);
    ctx::mr_ctx m;
    hal_.ctx_read(ctx::table::MR, idx, &m, sizeof(m));
    if (!m.valid || base < m.iova || base + len < base || base + len > m.iova + m.length)
        FAIL(BAD_PARAM, QP_RING_MR);
    DONE();
}

Firmware::res Firmware::create_qp(uint16_t fn, const uint8_t *in, uint8_t *out) {
    using Q = create_qp_in;
    auto a = load<create_qp_in>(in);
    if ((a.flags & ~(Q::FLAGS_USER | Q::FLAGS_SIG_ALL | Q::FLAGS_RING_MR)) || a.rsvd || !all_zero(a.rsvd1, sizeof(a.rsvd1)))
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (a.qp_type > qp_type::GSI)
        FAIL(BAD_PARAM, QP_TYPE);
    if (!port_ok(fn, a.port))
        FAIL(BAD_PARAM, PORT_RANGE);
    PD_LOOKUP(a.pdn);
    CQ_CHECK(a.send_cqn);
    CQ_CHECK(a.recv_cqn);
    const bool has_srq = a.srqn != limits::NO_OBJECT;
    if (has_srq) {
        SRQ_LOOKUP(a.srqn);
        if (a.rq_log_size || a.rq_log_stride || a.rq_base)
            FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    }
    if (!log_ok(a.sq_log_size) || (!has_srq && !log_ok(a.rq_log_size)))
        FAIL(BAD_SIZE, WQ_LOG_SIZE);
    auto stride_ok = [](uint32_t s) { return s >= limits::MIN_LOG_STRIDE && s <= limits::MAX_LOG_STRIDE; };
    if (!stride_ok(a.sq_log_stride) || (!has_srq && !stride_ok(a.rq_log_stride)))
        FAIL(BAD_SIZE, WQ_LOG_STRIDE);
    if (a.max_inline > MAX_INLINE)
        FAIL(BAD_PARAM, QP_ATTR);
    if (!db_page_ok(fn, a.db_page))
        FAIL(BAD_PARAM, DB_PAGE_RANGE);
    if (!aligned4k(a.sq_base) || (!has_srq && !aligned4k(a.rq_base)))
        FAIL(BAD_PARAM, WQ_ALIGN);
    if (a.flags & Q::FLAGS_RING_MR) {
        res r = ring_mr_ok(fn, a.pdn, a.ring_lkey, a.sq_base, uint64_t(1) << (a.sq_log_size + a.sq_log_stride));
        if (r.status != OK_)
            return r;
        if (!has_srq) {
            r = ring_mr_ok(fn, a.pdn, a.ring_lkey, a.rq_base, uint64_t(1) << (a.rq_log_size + a.rq_log_stride));
            if (r.status != OK_)
                return r;
        }
    } else if ((a.flags & Q::FLAGS_USER) || a.ring_lkey) {
        FAIL(BAD_PARAM, QP_RING_MR);  // user rings are always translated
    }
    if (a.qp_type == qp_type::GSI)
        for (uint32_t i = 1; i < ctx::NUM_QP; i++)
            if (qp_[i].used && qp_[i].fn == fn && qp_[i].type == qp_type::GSI && qp_[i].port == a.port)
                FAIL(BUSY, QP_GSI_EXISTS);
    uint32_t n = 0;
    for (uint32_t i = ctx::FIRST_QPN; i < ctx::NUM_QP && !n; i++)
        if (!qp_[i].used && !sq_[i].used && !rq_[i].used)
            n = i;
    if (!n)
        FAIL(NO_RESOURCES, QP_NONE_FREE);

    qp_[n] = qp_obj{1, a.qp_type, a.port, 0, fn, uint16_t(a.send_cqn), uint16_t(a.recv_cqn), 0, a.pdn, a.srqn};
    sq_[n] = wq_obj{1, a.port, fn, uint16_t(a.send_cqn), 0, a.db_page, ctx::WQ_QP};
    rq_[n] = wq_obj{1, a.port, fn, uint16_t(has_srq ? 0 : a.recv_cqn), 0, a.db_page, ctx::WQ_QP};
    pd_[a.pdn].refs++;
    cq_[a.send_cqn].refs++;
    cq_[a.recv_cqn].refs++;
    if (has_srq)
        srq_[a.srqn].refs++;

    const uint32_t lkey = (a.flags & Q::FLAGS_RING_MR) ? a.ring_lkey : limits::LKEY_PHYS;
    ctx::qp_ctx q{};
    q.valid = 1;
    q.type = a.qp_type;
    q.state = qp_state::RESET;
    q.port = a.port;
    q.fn = fn;
    q.flags = a.flags;
    q.pdn = a.pdn;
    q.send_cqn = a.send_cqn;
    q.recv_cqn = a.recv_cqn;
    q.srqn = a.srqn;
    q.max_inline = a.max_inline;
    q.path_mtu = 3;  // 1024 until RTR says otherwise
    hal_.ctx_write(ctx::table::QP, n, &q, sizeof(q));
    ctx::wq_ctx w{};
    w.valid = 1;
    w.state = wq_state::RST;
    w.log_size = a.sq_log_size;
    w.log_stride = a.sq_log_stride;
    w.port = a.port;
    w.kind = ctx::WQ_QP;
    w.fn = fn;
    w.cqn = a.send_cqn;
    w.db_page = a.db_page;
    w.base = a.sq_base;
    w.ring_lkey = lkey;
    hal_.ctx_write(ctx::table::SQ, n, &w, sizeof(w));
    if (!has_srq) {
        w.is_rq = 1;
        w.log_size = a.rq_log_size;
        w.log_stride = a.rq_log_stride;
        w.cqn = a.recv_cqn;
        w.base = a.rq_base;
        hal_.ctx_write(ctx::table::RQ, n, &w, sizeof(w));
    }
    store(out, obj_out{n, 0});
    DONE();
}

void Firmware::qp_release(uint32_t n) {
    qp_obj &o = qp_[n];
    ctx::qp_ctx q{};
    hal_.ctx_write(ctx::table::QP, n, &q, sizeof(q));
    ctx::wq_ctx w{};
    hal_.ctx_write(ctx::table::SQ, n, &w, sizeof(w));
    hal_.ctx_write(ctx::table::RQ, n, &w, sizeof(w));
    if (o.pdn < ctx::NUM_PD && pd_[o.pdn].refs)
        pd_[o.pdn].refs--;
    if (cq_[o.scq].refs)
        cq_[o.scq].refs--;
    if (cq_[o.rcq].refs)
        cq_[o.rcq].refs--;
    if (o.srqn != limits::NO_OBJECT && o.srqn < ctx::NUM_SRQ && srq_[o.srqn].refs)
        srq_[o.srqn].refs--;
    sq_[n] = wq_obj{};
    rq_[n] = wq_obj{};
    o = qp_obj{};
}

Firmware::res Firmware::modify_qp(uint16_t fn, const uint8_t *in) {
    auto a = load<qp_attr>(in);
    QP_LOOKUP(a.qpn);
    if (a.rsvd || !all_zero(a.rsvd1, sizeof(a.rsvd1)))
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (a.mask & ~qa::KNOWN)
        FAIL(BAD_PARAM, QP_ATTR);
    if (a.mask & (qa::ALT_PATH | qa::MIG | qa::CAP))
        FAIL(NOT_SUPPORTED, QP_ATTR);  // no alternate paths, no resize
    ctx::qp_ctx q;
    hal_.ctx_read(ctx::table::QP, a.qpn, &q, sizeof(q));
    const uint8_t cur = q.state;
    const uint8_t next = (a.mask & qa::STATE) ? a.state : cur;
    if (next > qp_state::ERR)
        FAIL(BAD_PARAM, QP_TRANSITION);
    if ((a.mask & qa::CUR_STATE) && a.cur_state != cur)
        FAIL(BAD_STATE, QP_TRANSITION);
    uint32_t req, opt;
    if (!qp_transition(q.type, cur, next, req, opt))
        FAIL(BAD_STATE, QP_TRANSITION);
    const uint32_t m = a.mask & ~qa::STATE;
    if ((m & req) != req || (m & ~(req | opt)))
        FAIL(BAD_PARAM, QP_ATTR);

    const uint8_t port = (m & qa::PORT) ? a.port : q.port;
    if ((m & qa::PKEY) && a.pkey_index != 0)
        FAIL(BAD_PARAM, QP_ATTR);  // one P_Key (0xffff) per port
    if ((m & qa::PORT) && !port_ok(fn, a.port))
        FAIL(BAD_PARAM, PORT_RANGE);
    if ((m & qa::ACCESS) && (a.access & ~0xfu))
        FAIL(BAD_PARAM, QP_ATTR);
    if ((m & qa::MTU) && (a.path_mtu < 1 || a.path_mtu > 5))
        FAIL(BAD_PARAM, QP_MTU);
    if (((m & qa::TIMEOUT) && a.timeout > 31) || ((m & qa::RETRY) && a.retry_cnt > 7) ||
        ((m & qa::RNR_RETRY) && a.rnr_retry > 7) || ((m & qa::MIN_RNR) && a.min_rnr_timer > 31) ||
        ((m & qa::MAX_RD) && a.max_rd_atomic > MAX_RD_ATOMIC) ||
        ((m & qa::MAX_DEST_RD) && a.max_dest_rd_atomic > MAX_RD_ATOMIC) ||
        ((m & qa::RQ_PSN) && a.rq_psn > 0xffffff) || ((m & qa::SQ_PSN) && a.sq_psn > 0xffffff) ||
        ((m & qa::DEST_QPN) && a.dest_qpn > 0xffffff))
        FAIL(BAD_PARAM, QP_ATTR);
    if (m & qa::AV) {
        if ((a.av_flags & ~3u) || a.flow_label > 0xfffff)
            FAIL(BAD_PARAM, QP_ATTR);
        if (!gid_valid(fn, port, a.sgid_index))
            FAIL(BAD_PARAM, QP_GID_INDEX);
    }

    if (m & qa::PORT)
        q.port = a.port;
    if (m & qa::ACCESS)
        q.access = a.access;
    if (m & qa::QKEY)
        q.qkey = a.qkey;
    if (m & qa::AV) {
        copy(q.dmac, a.dmac, 6);
        q.vlan_tci = a.vlan_tci;
        copy(q.dgid, a.dgid, 16);
        q.flow_label = a.flow_label;
        q.hop_limit = a.hop_limit;
        q.tclass = a.tclass;
        q.sgid_index = a.sgid_index;
        q.av_flags = a.av_flags;
    }
    if (m & qa::MTU)
        q.path_mtu = a.path_mtu;
    if (m & qa::TIMEOUT)
        q.timeout = a.timeout;
    if (m & qa::RETRY)
        q.retry_cnt = a.retry_cnt;
    if (m & qa::RNR_RETRY)
        q.rnr_retry = a.rnr_retry;
    if (m & qa::RQ_PSN)
        q.rq_psn = a.rq_psn;
    if (m & qa::SQ_PSN)
        q.sq_psn = a.sq_psn;
    if (m & qa::MAX_RD)
        q.max_rd_atomic = a.max_rd_atomic;
    if (m & qa::MAX_DEST_RD)
        q.max_dest_rd_atomic = a.max_dest_rd_atomic;
    if (m & qa::MIN_RNR)
        q.min_rnr_timer = a.min_rnr_timer;
    if (m & qa::DEST_QPN)
        q.dest_qpn = a.dest_qpn;
    q.state = next;
    if (next == qp_state::SQD && cur != qp_state::SQD) {
        q.sq_draining = 1;  // the datapath clears it when the SQ is idle
        q.sqd_notify = (m & qa::SQD_NOTIFY) ? 1 : 0;
    }
    if (next != qp_state::SQD)
        q.sq_draining = 0;
    if (next == qp_state::RESET)
        zero(&q.stats, sizeof(q.stats));
    qp_[a.qpn].port = q.port;
    hal_.ctx_write(ctx::table::QP, a.qpn, &q, sizeof(q));
    // The rings accept doorbells in every state but RESET; leaving RESET
    // (or entering it) restarts both at index 0.
    const uint8_t ws = next == qp_state::RESET ? uint8_t(wq_state::RST) : uint8_t(wq_state::RDY);
    for (int i = 0; i < 2; i++) {
        const ctx::table t = i ? ctx::table::RQ : ctx::table::SQ;
        ctx::wq_ctx w;
        hal_.ctx_read(t, a.qpn, &w, sizeof(w));
        if (w.valid && w.state != ws) {
            w.state = ws;
            w.port = q.port;
            hal_.ctx_write(t, a.qpn, &w, sizeof(w));
        }
    }
    DONE();
}

Firmware::res Firmware::query_qp(uint16_t fn, const uint8_t *in, uint8_t *out) {
    auto a = load<obj_in>(in);
    QP_LOOKUP(a.id);
    ctx::qp_ctx q;
    hal_.ctx_read(ctx::table::QP, a.id, &q, sizeof(q));
    qp_attr o{};
    o.qpn = a.id;
    o.mask = qa::KNOWN & ~(qa::ALT_PATH | qa::MIG | qa::CAP);
    o.state = o.cur_state = q.state;
    o.path_mtu = q.path_mtu;
    o.timeout = q.timeout;
    o.retry_cnt = q.retry_cnt;
    o.rnr_retry = q.rnr_retry;
    o.min_rnr_timer = q.min_rnr_timer;
    o.max_rd_atomic = q.max_rd_atomic;
    o.max_dest_rd_atomic = q.max_dest_rd_atomic;
    o.access = q.access;
    o.port = q.port;
    o.sgid_index = q.sgid_index;
    o.qkey = q.qkey;
    o.rq_psn = q.rq_psn;
    o.sq_psn = q.sq_psn;
    o.dest_qpn = q.dest_qpn;
    copy(o.dmac, q.dmac, 6);
    o.vlan_tci = q.vlan_tci;
    copy(o.dgid, q.dgid, 16);
    o.flow_label = q.flow_label;
    o.hop_limit = q.hop_limit;
    o.tclass = q.tclass;
    o.av_flags = q.av_flags;
    o.sq_draining = q.sq_draining;
    store(out, o);
    DONE();
}

Firmware::res Firmware::destroy_qp(uint16_t fn, const uint8_t *in) {
    auto a = load<obj_in>(in);
    QP_LOOKUP(a.id);
    qp_release(a.id);
    DONE();
}

Firmware::res Firmware::create_srq(uint16_t fn, const uint8_t *in, uint8_t *out) {
    using Q = create_qp_in;
    auto a = load<create_srq_in>(in);
    if ((a.flags & ~(Q::FLAGS_USER | Q::FLAGS_RING_MR)) || a.id)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    PD_LOOKUP(a.pdn);
    if (!log_ok(a.log_size))
        FAIL(BAD_SIZE, WQ_LOG_SIZE);
    if (a.log_stride < limits::MIN_LOG_STRIDE || a.log_stride > limits::MAX_LOG_STRIDE)
        FAIL(BAD_SIZE, WQ_LOG_STRIDE);
    if (a.limit >= (1u << a.log_size))
        FAIL(BAD_PARAM, SRQ_LIMIT);
    if (!db_page_ok(fn, a.db_page))
        FAIL(BAD_PARAM, DB_PAGE_RANGE);
    if (!aligned4k(a.base))
        FAIL(BAD_PARAM, WQ_ALIGN);
    if (a.flags & Q::FLAGS_RING_MR) {
        res r = ring_mr_ok(fn, a.pdn, a.ring_lkey, a.base, uint64_t(1) << (a.log_size + a.log_stride));
        if (r.status != OK_)
            return r;
    } else if ((a.flags & Q::FLAGS_USER) || a.ring_lkey) {
        FAIL(BAD_PARAM, QP_RING_MR);
    }
    uint32_t n = 0;
    for (uint32_t i = 1; i < ctx::NUM_SRQ && !n; i++)
        if (!srq_[i].used && !rq_[i].used)
            n = i;
    if (!n)
        FAIL(NO_RESOURCES, SRQ_NONE_FREE);
    srq_[n] = srq_obj{1, 0, fn, 0, 0, a.pdn};
    rq_[n] = wq_obj{1, 0, fn, 0, 0, a.db_page, ctx::WQ_SRQ};
    pd_[a.pdn].refs++;
    ctx::srq_ctx s{};
    s.valid = 1;
    s.fn = fn;
    s.pdn = a.pdn;
    s.limit = a.limit;
    hal_.ctx_write(ctx::table::SRQ, n, &s, sizeof(s));
    ctx::wq_ctx w{};
    w.valid = 1;
    w.state = wq_state::RDY;  // an SRQ takes WQEs from creation on
    w.log_size = a.log_size;
    w.log_stride = a.log_stride;
    w.is_rq = 1;
    w.kind = ctx::WQ_SRQ;
    w.fn = fn;
    w.db_page = a.db_page;
    w.base = a.base;
    w.ring_lkey = (a.flags & Q::FLAGS_RING_MR) ? a.ring_lkey : limits::LKEY_PHYS;
    w.flags = uint8_t(a.flags);
    hal_.ctx_write(ctx::table::RQ, n, &w, sizeof(w));
    store(out, obj_out{n, 0});
    DONE();
}

Firmware::res Firmware::modify_srq(uint16_t fn, const uint8_t *in) {
    auto a = load<create_srq_in>(in);
    SRQ_LOOKUP(a.id);
    ctx::wq_ctx w;
    hal_.ctx_read(ctx::table::RQ, a.id, &w, sizeof(w));
    if (a.limit >= (1u << w.log_size))
        FAIL(BAD_PARAM, SRQ_LIMIT);
    ctx::srq_ctx s;
    hal_.ctx_read(ctx::table::SRQ, a.id, &s, sizeof(s));
    s.limit = a.limit;  // arms (or, with 0, disarms) the limit event
    hal_.ctx_write(ctx::table::SRQ, a.id, &s, sizeof(s));
    DONE();
}

Firmware::res Firmware::query_srq(uint16_t fn, const uint8_t *in, uint8_t *out) {
    auto a = load<obj_in>(in);
    SRQ_LOOKUP(a.id);
    ctx::wq_ctx w;
    hal_.ctx_read(ctx::table::RQ, a.id, &w, sizeof(w));
    ctx::srq_ctx s;
    hal_.ctx_read(ctx::table::SRQ, a.id, &s, sizeof(s));
    create_srq_in o{};
    o.base = w.base;
    o.pdn = s.pdn;
    o.db_page = w.db_page;
    o.log_size = w.log_size;
    o.log_stride = w.log_stride;
    o.flags = w.flags;
    o.limit = s.limit;
    o.ring_lkey = w.ring_lkey;
    o.id = a.id;
    store(out, o);
    DONE();
}

Firmware::res Firmware::destroy_srq(uint16_t fn, const uint8_t *in) {
    auto a = load<obj_in>(in);
    SRQ_LOOKUP(a.id);
    if (srq_[a.id].refs)
        FAIL(BUSY, SRQ_IN_USE);
    if (pd_[srq_[a.id].pdn].refs)
        pd_[srq_[a.id].pdn].refs--;
    srq_[a.id] = srq_obj{};
    rq_[a.id] = wq_obj{};
    ctx::srq_ctx s{};
    hal_.ctx_write(ctx::table::SRQ, a.id, &s, sizeof(s));
    ctx::wq_ctx w{};
    hal_.ctx_write(ctx::table::RQ, a.id, &w, sizeof(w));
    DONE();
}

Firmware::res Firmware::create_ah(uint16_t fn, const uint8_t *in, uint8_t *out) {
    auto a = load<create_ah_in>(in);
    wqe_ud av;
    copy(&av, a.av, sizeof(av));
    const uint32_t pdn = av.ah;
    PD_LOOKUP(pdn);
    if ((av.flags & ~3u) || av.rsvd || av.flow_label > 0xfffff)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    uint32_t n = 0;
    for (uint32_t i = 1; i < ctx::NUM_AH && !n; i++)
        if (!ah_[i].used)
            n = i;
    if (!n)
        FAIL(NO_RESOURCES, AH_NONE_FREE);
    ah_[n] = ah_obj{1, 0, fn, pdn};
    pd_[pdn].refs++;
    ctx::ah_ctx c{};
    c.valid = 1;
    c.fn = fn;
    c.pdn = pdn;
    c.av = av;
    c.av.ah = 0;
    hal_.ctx_write(ctx::table::AH, n, &c, sizeof(c));
    store(out, obj_out{n, 0});
    DONE();
}

Firmware::res Firmware::destroy_ah(uint16_t fn, const uint8_t *in) {
    auto a = load<obj_in>(in);
    if (a.id == 0 || a.id >= ctx::NUM_AH || !ah_[a.id].used)
        FAIL(BAD_OBJECT, AH_UNKNOWN);
    if (ah_[a.id].fn != fn)
        FAIL(WRONG_OWNER, AH_OWNER);
    if (pd_[ah_[a.id].pdn].refs)
        pd_[ah_[a.id].pdn].refs--;
    ah_[a.id] = ah_obj{};
    ctx::ah_ctx c{};
    hal_.ctx_write(ctx::table::AH, a.id, &c, sizeof(c));
    DONE();
}

Firmware::res Firmware::add_gid(uint16_t fn, const uint8_t *in) {
    auto a = load<gid_in>(in);
    if (!port_ok(fn, a.port))
        FAIL(BAD_PARAM, PORT_RANGE);
    if (a.rsvd || a.rsvd1)
        FAIL(BAD_PARAM, CMD_RESERVED_NONZERO);
    if (a.index >= limits::GID_TABLE_SIZE)
        FAIL(BAD_PARAM, GID_INDEX);
    if (a.gid_type != gid_type::ROCE_V2_IPV4 && a.gid_type != gid_type::ROCE_V2_IPV6)
        FAIL(BAD_PARAM, GID_TYPE);
    if ((a.gid_type == gid_type::ROCE_V2_IPV4) != ipv4_mapped(a.gid) || all_zero(a.gid, 16) ||
        (a.mac[0] & 1) || all_zero(a.mac, 6))
        FAIL(BAD_PARAM, GID_ADDR);
    if (a.vlan_tci != 0xffff && (a.vlan_tci & 0xfff) == 0xfff)
        FAIL(BAD_PARAM, FILTER_VLAN);
    ctx::gid_ctx g{};
    g.valid = 1;
    g.type = a.gid_type;
    g.vlan_tci = a.vlan_tci;
    copy(g.mac, a.mac, 6);
    copy(g.gid, a.gid, 16);
    hal_.ctx_write(ctx::table::GID, ctx::gid_index(fn, a.port, a.index), &g, sizeof(g));
    DONE();
}

Firmware::res Firmware::del_gid(uint16_t fn, const uint8_t *in) {
    auto a = load<gid_in>(in);
    if (!port_ok(fn, a.port))
        FAIL(BAD_PARAM, PORT_RANGE);
    if (a.index >= limits::GID_TABLE_SIZE)
        FAIL(BAD_PARAM, GID_INDEX);
    if (!gid_valid(fn, a.port, a.index))
        FAIL(BAD_OBJECT, GID_INDEX);
    ctx::gid_ctx g{};
    hal_.ctx_write(ctx::table::GID, ctx::gid_index(fn, a.port, a.index), &g, sizeof(g));
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
