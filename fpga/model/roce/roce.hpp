// SPDX-License-Identifier: MIT
// RoCEv2 transport: RC requester/responder and UD over the SQ/RQ engine,
// memory keys and MTT translation, ICRC, retransmission timers.
#pragma once

#include <cstdint>
#include <deque>
#include <set>
#include <unordered_map>
#include <vector>

#include "card/hw.hpp"
#include "kite/parser.hpp"
#include "mac/mac.hpp"
#include "queue/queue.hpp"

namespace kite::model {

class Roce {
public:
    Roce(Hw &hw, QueueEngine &q, Mac &mac);
    // Works on the SQ of RDMA QP qpn; true if it stopped for budget with work left.
    bool sq_run(uint32_t qpn, uint32_t &budget);
    // Is this parsed frame RoCEv2 to one of the port's GIDs? Sets the function.
    bool match(unsigned port, const uint8_t *f, const parsed_frame &p, uint16_t &fn) const;
    // Takes a matched frame (FCS already removed and checked).
    void receive(unsigned port, uint16_t fn, const uint8_t *f, size_t len, const parsed_frame &p);
    void qp_ctx_written(uint32_t qpn, const ctx::qp_ctx &old);
    void mr_ctx_written() { mtt_cache_.clear(); }
    void rq_doorbell(uint32_t rqn);
    void timer(uint64_t now);
    uint64_t next_deadline() const;
    // Receives frames this card sent to its own GIDs; true if frames are left.
    bool loopback_run(uint32_t budget);

private:
    struct SendWqe {
        uint16_t idx = 0;
        uint8_t opcode = 0, flags = 0;
        uint32_t imm_raw = 0;       // ctrl.imm as stored (wire order)
        uint64_t raddr = 0;
        uint32_t rkey = 0;
        uint64_t swap_add = 0, compare = 0;
        spec::wqe_reg_mr reg{};      // REG_MR
        std::vector<spec::wqe_sge> sge;
        std::vector<uint8_t> inl;
        bool is_inline = false;
        uint32_t len = 0;
        uint32_t first_psn = 0, npkts = 0;
        uint32_t sent = 0;          // packets sent (READ/atomic: request sent)
        uint32_t read_off = 0;      // READ: bytes received
        bool rd_rerequested = false;  // READ: asked again for a gap, no progress since
        bool done = false;
        uint8_t status = 0;         // cqe_status when done
        uint32_t syndrome = 0;
    };
    struct RecvWqe {
        bool valid = false;
        uint16_t idx = 0;
        uint32_t srqn = 0;          // 0: the QP's own RQ
        std::vector<spec::wqe_sge> sge;
    };
    struct Replay {
        uint32_t psn;
        uint64_t orig;
    };
    struct QpRt {
        // requester
        std::deque<SendWqe> inflight;
        uint32_t next_psn = 0, hi_psn = 0, una = 0;
        uint8_t retry_left = 0, rnr_left = 0;
        uint64_t deadline = NEVER, rnr_until = NEVER;
        uint32_t rd_outstanding = 0;
        // responder
        uint32_t epsn = 0, msn = 0;
        bool nak_sent = false, comm_est = false;
        uint8_t resp_op = 0;        // 0 idle, 1 SEND, 2 WRITE in progress
        RecvWqe rw;
        uint32_t rw_off = 0;
        uint64_t w_va = 0;
        uint32_t w_rkey = 0, w_left = 0;
        std::deque<Replay> replay;
    };
    struct Path {
        uint8_t port = 0;
        ctx::gid_ctx sgid{};
        uint8_t dmac[6]{};
        bool vlan = false;
        uint16_t tci = 0;
        uint8_t dgid[16]{};
        uint32_t flow_label = 0;
        uint8_t hop_limit = 64, tclass = 0;
        uint16_t sport = 0;
    };
    struct Pkt {
        uint8_t opcode, pad;
        bool se, ackreq, v4;
        uint32_t dqpn, psn;
        const uint8_t *ip, *ext, *pay;
        size_t paylen;
        uint32_t src_qp, qkey;      // UD
    };
    enum class Fault { NONE, KEY, PD, ACCESS, BOUNDS };

    // memory
    Fault mr_check(const ctx::qp_ctx &q, uint32_t key, uint64_t va, uint64_t len, uint32_t need, bool remote,
                   const ctx::mr_ctx **mr) const;
    bool fast_reg(const ctx::qp_ctx &q, const spec::wqe_reg_mr &r);
    bool mem(uint16_t fn, const ctx::mr_ctx *m, uint64_t va, uint8_t *buf, size_t len, bool write);
    bool ring_read(const ctx::wq_ctx &wq, uint16_t idx, void *buf, size_t len);
    bool gather(const ctx::qp_ctx &q, const SendWqe &w, uint32_t off, uint8_t *out, uint32_t n);
    uint8_t scatter(const ctx::qp_ctx &q, const std::vector<spec::wqe_sge> &sge, uint32_t off, const uint8_t *data,
                    uint32_t n);

    // wire
    bool local_gid(unsigned port, const uint8_t *dgid, bool v4, uint16_t &fn) const;
    bool rc_path(uint32_t qpn, Path &pa) const;
    bool ud_path(const ctx::qp_ctx &q, const spec::wqe_ud &av, Path &pa) const;
    void send_pkt(uint32_t qpn, const Path &pa, uint8_t opcode, bool se, bool ackreq, uint32_t dqpn, uint32_t psn,
                  const uint8_t *ext, size_t ext_len, const uint8_t *pay, size_t pay_len);
    void send_aeth(uint32_t qpn, uint8_t opcode, uint32_t psn, uint8_t syndrome, const uint8_t *extra = nullptr,
                   size_t extra_len = 0, const uint8_t *pay = nullptr, size_t pay_len = 0);

    // requester
    bool fetch(uint32_t qpn, SendWqe &w, uint8_t &status);
    void send_next(uint32_t qpn, SendWqe &w);
    bool ud_send(uint32_t qpn, SendWqe &w, const uint8_t *wqe);
    void acked_to(uint32_t qpn, uint32_t psn);
    void rewind(uint32_t qpn, uint32_t psn);
    void fail_head(uint32_t qpn, uint8_t status, uint32_t syndrome);
    void complete_ready(uint32_t qpn);
    void post_send_cqe(uint32_t qpn, const SendWqe &w);
    void progress(uint32_t qpn);
    void arm_timer(uint32_t qpn);
    bool outstanding(const QpRt &r) const;
    void rx_response(uint32_t qpn, const Pkt &k);

    // responder
    void rx_request(uint32_t qpn, const Pkt &k);
    bool take_rwqe(uint32_t qpn, RecvWqe &rw);
    void resp_error(uint32_t qpn, uint8_t nak, uint8_t event);
    void read_response(uint32_t qpn, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len);
    void post_recv_cqe(uint32_t qpn, const RecvWqe &rw, uint8_t opcode, uint8_t status, uint32_t bytes,
                       uint8_t flags, uint32_t imm, uint32_t src_qp, bool solicited);
    void rx_ud(uint32_t qpn, const Pkt &k);

    // QP state
    void qp_error(uint32_t qpn, uint8_t event);
    void enter_err(uint32_t qpn);
    void flush_sq_ring(uint32_t qpn);
    void flush_rq_ring(uint32_t qpn);
    void post_qp_event(uint32_t qpn, uint8_t subtype);
    void kick(uint32_t qpn) { q_.kick_sq(qpn); }
    spec::rdma_stats &pstats(unsigned port) { return hw_.port[port].rdma; }

    Hw &hw_;
    QueueEngine &q_;
    Mac &mac_;
    std::vector<QpRt> rt_;
    std::set<uint32_t> timed_;  // QPs with a deadline or an RNR wait
    std::unordered_map<uint64_t, uint64_t> mtt_cache_;  // (mr << 32 | page) -> bus address
    struct Looped {
        uint8_t port;
        std::vector<uint8_t> frame;  // without FCS
    };
    std::deque<Looped> loop_;   // frames to a local GID, not yet received
    uint16_t ip_id_ = 0;
    uint8_t frame_[16 + 40 + 8 + 12 + 28 + 4096 + 8 + 64];
};

}  // namespace kite::model
