// SPDX-License-Identifier: MIT
#include "fake_host.hpp"

#include "kite/crc32.hpp"
#include "kite/csum.hpp"

namespace kt {

const uint8_t PF_MAC[6] = {0x02, 0x4b, 0x49, 0x00, 0x00, 0x10};
const uint8_t PEER_MAC[6] = {0x02, 0x4b, 0x49, 0x00, 0x00, 0x99};

namespace {
FakeHost *H(void *o) { return static_cast<FakeHost *>(o); }
bool bad(FakeHost *h, uint64_t a, size_t n) {
    if (a < FakeHost::MEM_BASE || a + n > FakeHost::MEM_BASE + FakeHost::MEM_SIZE)
        return true;
    return a < h->fail_hi && a + n > h->fail_lo;
}
}  // namespace

FakeHost::FakeHost(unsigned ports, const char *flash, uint8_t mac_last, uint32_t max_vfs) {
    ops.opaque = this;
    ops.dma_read = [](void *o, kite_fn_t, uint64_t a, void *b, size_t n) {
        if (bad(H(o), a, n))
            return -1;
        std::memcpy(b, H(o)->ptr(a), n);
        return 0;
    };
    ops.dma_write = [](void *o, kite_fn_t, uint64_t a, const void *b, size_t n) {
        if (bad(H(o), a, n))
            return -1;
        std::memcpy(H(o)->ptr(a), b, n);
        return 0;
    };
    ops.msix = [](void *o, kite_fn_t fn, uint16_t v) { H(o)->msix.emplace_back(fn, v); };
    ops.frame_out = [](void *o, unsigned port, const void *f, size_t n) {
        auto *p = static_cast<const uint8_t *>(f);
        H(o)->wire[port].emplace_back(p, p + n);
    };
    ops.rx_ready = [](void *o, unsigned) { H(o)->rx_ready++; };
    ops.now_ns = [](void *o) { return H(o)->now; };
    ops.timer_arm = [](void *o, uint64_t d) { H(o)->deadline = d; };
    ops.schedule = [](void *o) { H(o)->scheduled = true; };
    ops.log = [](void *o, int, const char *m) { H(o)->logs.emplace_back(m); };
    kite_card_config cfg{};
    cfg.abi_version = KITE_CARD_ABI_VERSION;
    cfg.num_ports = ports;
    cfg.max_vfs = max_vfs;
    cfg.serial = 0x1234;
    std::memcpy(cfg.mac, PF_MAC, 6);
    cfg.mac[5] = mac_last;
    cfg.flash_path = flash;
    card = abi->create(&cfg, &ops);
    pump();
}

FakeHost::~FakeHost() { abi->destroy(card); }

uint64_t FakeHost::alloc(size_t n, size_t align) {
    brk = (brk + align - 1) & ~(align - 1);
    uint64_t a = brk;
    brk += n;
    EXPECT_LE(brk, MEM_BASE + MEM_SIZE);
    std::memset(ptr(a), 0, n);
    return a;
}

void FakeHost::pump() {
    for (int i = 0; i < 1000 && scheduled; i++) {
        scheduled = false;
        abi->service(card);
    }
}

void FakeHost::advance(uint64_t ns) {
    uint64_t end = now + ns;
    while (deadline <= end) {
        now = std::max(now, deadline);
        deadline = ~uint64_t(0);
        abi->timer(card);
        pump();
    }
    now = end;
}

void FakeHost::exchange() {
    for (int i = 0; i < 100; i++) {
        pump();
        peer->pump();
        bool any = false;
        for (FakeHost *a : {this, peer}) {
            FakeHost *b = a == this ? peer : this;
            for (unsigned p = 0; p < 2; p++)
                while (!a->wire[p].empty()) {
                    auto f = a->wire[p].front();
                    a->wire[p].pop_front();
                    b->abi->frame_in(b->card, p, f.data(), f.size());
                    b->pump();
                    any = true;
                }
        }
        if (!any)
            return;
    }
}

std::vector<uint8_t> FakeHost::pop_frame(unsigned port) {
    // Ordered sets are PHY traffic; tests look at data frames.
    while (!wire[port].empty()) {
        auto f = wire[port].front();
        wire[port].pop_front();
        if (!(f.size() == 16 && std::memcmp(f.data(), "KITEOS", 6) == 0))
            return f;
    }
    return {};
}

port_stats FakeHost::stats(unsigned) {
    port_stats s;
    auto *p = reinterpret_cast<uint8_t *>(&s);
    for (uint32_t off = 0; off < sizeof(s); off += 8) {
        uint64_t v = abi->mmio_read(card, 0, 0, reg::STATS_BASE + off, 8);
        std::memcpy(p + off, &v, 8);
    }
    return s;
}

// ------------------------------------------------------------------ driver

void Driver::reset_and_init() {
    h.w32(reg::DEV_CTRL, reg::DEV_CTRL_RESET, fn);
    ASSERT_EQ(h.r32(reg::DEV_CTRL, fn) & reg::DEV_CTRL_RESET, 0u);
    ASSERT_TRUE(h.r32(reg::DEV_STATUS, fn) & reg::DEV_STATUS_READY);
    if (!cmdq)
        cmdq = h.alloc(256u << cmd_log);
    h.w32(reg::CMDQ_BASE_LO, uint32_t(cmdq), fn);
    h.w32(reg::CMDQ_BASE_HI, uint32_t(cmdq >> 32), fn);
    h.w32(reg::CMDQ_LOG_SIZE, cmd_log, fn);
    cmd_pi = 0;
}

Res Driver::cmd(uint32_t opcode, const void *in, size_t in_len, uint8_t version, uint8_t flags) {
    uint64_t a = cmdq + uint64_t(cmd_pi & ((1u << cmd_log) - 1)) * 256;
    cmd_entry e{};
    e.opcode = uint16_t(opcode);
    e.version = version;
    e.flags = flags;
    e.token = ++token;
    if (in_len)
        std::memcpy(e.in, in, in_len);
    h.wr(a, e);
    cmd_pi++;
    h.w32(reg::CMDQ_PI, cmd_pi, fn);
    h.pump();
    cmd_entry r = h.rd<cmd_entry>(a);
    EXPECT_EQ(r.done, 1) << "command " << cmd_opcode::name(opcode) << " not completed";
    EXPECT_EQ(h.r32(reg::CMDQ_CI, fn), cmd_pi);
    Res res{r.status, r.syndrome, r.out_len, {}};
    std::memcpy(res.out, r.out, sizeof(res.out));
    return res;
}

Res Driver::create_eq(Queue &q, uint32_t log, uint16_t vector, bool async) {
    q = Queue{};
    q.log_size = log;
    q.base = h.alloc(16u << log);
    create_eq_in in{};
    in.base = q.base;
    in.log_size = uint8_t(log);
    in.flags = async ? create_eq_in::FLAGS_ASYNC : 0;
    in.msix_vector = vector;
    Res r = cmd(cmd_opcode::CREATE_EQ, in);
    q.id = r.status == cmd_status::OK ? r.id() : 0;
    return r;
}

Res Driver::create_cq(Queue &q, uint32_t log, uint32_t eqn, uint16_t mod_usec, uint16_t mod_count) {
    q = Queue{};
    q.log_size = log;
    q.base = h.alloc(32u << log);
    create_cq_in in{};
    in.base = q.base;
    in.log_size = uint8_t(log);
    in.eqn = uint16_t(eqn);
    in.mod_usec = mod_usec;
    in.mod_count = mod_count;
    Res r = cmd(cmd_opcode::CREATE_CQ, in);
    q.id = r.status == cmd_status::OK ? r.id() : 0;
    return r;
}

Res Driver::create_wq(bool rq, Queue &q, uint32_t log, uint32_t log_stride, uint32_t cqn, uint8_t flags) {
    q = Queue{};
    q.log_size = log;
    q.stride = 1u << log_stride;
    q.base = h.alloc(size_t(q.stride) << log);
    create_wq_in in{};
    in.base = q.base;
    in.log_size = uint8_t(log);
    in.log_stride = uint8_t(log_stride);
    in.cqn = cqn;
    in.flags = flags;
    Res r = cmd(rq ? cmd_opcode::CREATE_RQ : cmd_opcode::CREATE_SQ, in);
    q.id = r.status == cmd_status::OK ? r.id() : 0;
    return r;
}

Res Driver::modify_wq(bool rq, uint32_t id, uint8_t state) {
    modify_wq_in in{};
    in.id = id;
    in.state = state;
    in.mask = modify_wq_in::MASK_STATE;
    return cmd(rq ? cmd_opcode::MODIFY_RQ : cmd_opcode::MODIFY_SQ, in);
}

Res Driver::set_rss(uint16_t ctx, const std::vector<uint16_t> &table, uint8_t fields, const uint8_t *key) {
    uint64_t t = h.alloc(table.size() * 2, 64);
    std::memcpy(h.ptr(t), table.data(), table.size() * 2);
    set_rss_in in{};
    in.ctx = ctx;
    in.hash_fields = fields;
    in.table_size = uint16_t(table.size());
    in.table_addr = t;
    if (key)
        std::memcpy(in.key, key, 40);
    return cmd(cmd_opcode::SET_RSS, in);
}

Res Driver::set_port(bool admin_up, uint16_t mtu, uint8_t pause) {
    port_info in{};
    in.port = 0;
    in.admin_up = admin_up;
    in.mask = port_info::MASK_ADMIN | (mtu ? port_info::MASK_MTU : 0) | port_info::MASK_PAUSE;
    in.mtu = mtu;
    in.pause = pause;
    return cmd(cmd_opcode::SET_PORT, in);
}

void Driver::bring_up(uint8_t rq_flags, uint32_t log) {
    reset_and_init();
    ASSERT_EQ(create_eq(eq, 6, 0, true).status, cmd_status::OK);
    ASSERT_EQ(create_cq(cq, 8, eq.id).status, cmd_status::OK);
    ASSERT_EQ(create_wq(false, sq, log, 7, cq.id).status, cmd_status::OK);
    ASSERT_EQ(create_wq(true, rq, log, 6, cq.id, rq_flags).status, cmd_status::OK);
    ASSERT_EQ(modify_wq(false, sq.id, wq_state::RDY).status, cmd_status::OK);
    ASSERT_EQ(modify_wq(true, rq.id, wq_state::RDY).status, cmd_status::OK);
    ASSERT_EQ(set_rss(0, {uint16_t(rq.id)}, 0).status, cmd_status::OK);
}

uint16_t Driver::post_tx(const std::vector<uint8_t> &frame, const wqe_eth &eth, size_t chunk, uint8_t ctrl_flags,
                         size_t first) {
    if (!chunk)
        chunk = frame.size();
    std::vector<std::pair<size_t, size_t>> pieces;  // offset, length
    size_t off = 0;
    if (first) {
        pieces.emplace_back(0, first);
        off = first;
    }
    for (; off < frame.size(); off += chunk)
        pieces.emplace_back(off, std::min(chunk, frame.size() - off));
    uint64_t buf = h.alloc(frame.size() + 64, 64);
    std::memcpy(h.ptr(buf), frame.data(), frame.size());
    uint64_t w = sq.base + uint64_t(sq.pi & ((1u << sq.log_size) - 1)) * sq.stride;
    std::memset(h.ptr(w), 0, sq.stride);
    wqe_ctrl c{};
    c.opcode = wqe_opcode::ETH_TX;
    c.flags = ctrl_flags;
    c.num_ds = uint8_t(1 + pieces.size());
    c.wqe_index = uint16_t(sq.pi);
    h.wr(w, c);
    h.wr(w + 16, eth);
    for (size_t i = 0; i < pieces.size() && 32 + 16 * i < sq.stride; i++) {
        wqe_sge s{};
        s.addr = buf + pieces[i].first;
        s.len = uint32_t(pieces[i].second);
        s.lkey = limits::LKEY_PHYS;
        h.wr(w + 32 + 16 * i, s);
    }
    return uint16_t(sq.pi++);
}

std::vector<uint64_t> Driver::post_rx(unsigned n, uint32_t len) {
    std::vector<uint64_t> bufs;
    for (unsigned i = 0; i < n; i++) {
        uint64_t b = h.alloc(len, 64);
        uint64_t w = rq.base + uint64_t(rq.pi & ((1u << rq.log_size) - 1)) * rq.stride;
        std::memset(h.ptr(w), 0, rq.stride);
        wqe_sge s{};
        s.addr = b;
        s.len = len;
        s.lkey = limits::LKEY_PHYS;
        h.wr(w, s);
        rq.pi++;
        bufs.push_back(b);
    }
    h.db(0, db::RQ, rq.id << 16 | (rq.pi & 0xffff), fn);
    return bufs;
}

std::optional<cqe> Driver::poll_cq(Queue &q) {
    uint64_t a = q.base + uint64_t(q.ci & ((1u << q.log_size) - 1)) * 32;
    cqe c = h.rd<cqe>(a);
    if ((c.owner & 1) != (((q.ci >> q.log_size) & 1) ^ 1))
        return std::nullopt;
    q.ci++;
    return c;
}

std::optional<eqe> Driver::poll_eq(Queue &q) {
    uint64_t a = q.base + uint64_t(q.ci & ((1u << q.log_size) - 1)) * 16;
    eqe e = h.rd<eqe>(a);
    if ((e.owner & 1) != (((q.ci >> q.log_size) & 1) ^ 1))
        return std::nullopt;
    q.ci++;
    return e;
}

// ------------------------------------------------------------------ frames

std::vector<uint8_t> eth_hdr(const uint8_t dst[6], const uint8_t src[6], uint16_t type) {
    std::vector<uint8_t> f(dst, dst + 6);
    f.insert(f.end(), src, src + 6);
    f.push_back(uint8_t(type >> 8));
    f.push_back(uint8_t(type));
    return f;
}

static void ip4(std::vector<uint8_t> &f, uint8_t proto, size_t l4len, uint32_t sip, uint32_t dip) {
    size_t o = f.size();
    f.resize(o + 20);
    uint8_t *ip = &f[o];
    ip[0] = 0x45;
    kite::put_be16(ip + 2, uint16_t(20 + l4len));
    kite::put_be16(ip + 4, 0x1000);
    ip[6] = 0x40;
    ip[8] = 64;
    ip[9] = proto;
    kite::put_be32(ip + 12, sip);
    kite::put_be32(ip + 16, dip);
    kite::put_be16(ip + 10, kite::ipv4_hdr_csum(ip, 20));
}

std::vector<uint8_t> udp4_frame(const uint8_t dst[6], size_t payload, uint32_t sip, uint32_t dip, uint16_t sport,
                                uint16_t dport) {
    auto f = eth_hdr(dst, PEER_MAC, 0x0800);
    ip4(f, 17, 8 + payload, sip, dip);
    size_t o = f.size();
    f.resize(o + 8 + payload);
    uint8_t *u = &f[o];
    kite::put_be16(u, sport);
    kite::put_be16(u + 2, dport);
    kite::put_be16(u + 4, uint16_t(8 + payload));
    for (size_t i = 0; i < payload; i++)
        u[8 + i] = uint8_t(i * 7 + 1);
    uint32_t s = kite::pseudo_v4(&f[26], &f[30], 17, uint32_t(8 + payload));
    uint16_t c = kite::csum_finish(kite::csum_partial(u, 8 + payload, s));
    kite::put_be16(u + 6, c ? c : 0xffff);
    return f;
}

static void tcp_hdr(std::vector<uint8_t> &f, size_t payload, uint32_t seq, uint8_t flags) {
    size_t o = f.size();
    f.resize(o + 20 + payload);
    uint8_t *t = &f[o];
    kite::put_be16(t, 40000);
    kite::put_be16(t + 2, 80);
    kite::put_be32(t + 4, seq);
    kite::put_be32(t + 8, 1);
    t[12] = 5 << 4;
    t[13] = flags;
    kite::put_be16(t + 14, 65535);
    for (size_t i = 0; i < payload; i++)
        t[20 + i] = uint8_t(i * 13 + 5);
}

std::vector<uint8_t> tcp4_frame(const uint8_t dst[6], size_t payload, uint32_t seq, uint8_t flags) {
    auto f = eth_hdr(dst, PEER_MAC, 0x0800);
    ip4(f, 6, 20 + payload, 0x0a000001, 0x0a000002);
    tcp_hdr(f, payload, seq, flags);
    uint32_t s = kite::pseudo_v4(&f[26], &f[30], 6, uint32_t(20 + payload));
    kite::put_be16(&f[34 + 16], kite::csum_finish(kite::csum_partial(&f[34], 20 + payload, s)));
    return f;
}

std::vector<uint8_t> tcp6_frame(const uint8_t dst[6], size_t payload, uint32_t seq, uint8_t flags) {
    auto f = eth_hdr(dst, PEER_MAC, 0x86dd);
    size_t o = f.size();
    f.resize(o + 40);
    uint8_t *ip = &f[o];
    ip[0] = 0x60;
    kite::put_be16(ip + 4, uint16_t(20 + payload));
    ip[6] = 6;
    ip[7] = 64;
    ip[8] = 0xfe;
    ip[9] = 0x80;
    ip[23] = 1;
    ip[24] = 0xfe;
    ip[25] = 0x80;
    ip[39] = 2;
    tcp_hdr(f, payload, seq, flags);
    uint32_t s = kite::pseudo_v6(&f[22], &f[38], 6, uint32_t(20 + payload));
    kite::put_be16(&f[54 + 16], kite::csum_finish(kite::csum_partial(&f[54], 20 + payload, s)));
    return f;
}

std::vector<uint8_t> with_fcs(std::vector<uint8_t> f) {
    if (f.size() < 60)
        f.resize(60, 0);
    uint32_t c = kite::crc32(f.data(), f.size());
    for (int i = 0; i < 4; i++)
        f.push_back(uint8_t(c >> (8 * i)));
    return f;
}

}  // namespace kt
