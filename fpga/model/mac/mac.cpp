// SPDX-License-Identifier: MIT
#include "mac/mac.hpp"

#include <cstring>

#include "kite/crc32.hpp"
#include "kite/ordered_set.hpp"
#include "stats/stats.hpp"

namespace kite::model {

using namespace spec;

bool Mac::send(unsigned port, const uint8_t *frame, size_t len, bool no_fcs) {
    PortState &ps = hw_.ports[port];
    if (!ps.link_up)
        return false;
    uint8_t buf[limits::MAX_TSO_HDR + limits::MAX_MTU + 64];
    size_t n = len;
    if (no_fcs) {
        if (len > sizeof(buf))
            return false;
        std::memcpy(buf, frame, len);
    } else {
        if (len + 64 > sizeof(buf))
            return false;
        std::memcpy(buf, frame, len);
        if (n < limits::MIN_FRAME - limits::FCS_LEN) {
            std::memset(buf + n, 0, limits::MIN_FRAME - limits::FCS_LEN - n);
            n = limits::MIN_FRAME - limits::FCS_LEN;
        }
        fcs_put(buf + n, crc32(buf, n));
        n += limits::FCS_LEN;
    }
    port_stats &s = ps.stats;
    s.tx_packets++;
    s.tx_bytes += n - limits::FCS_LEN;
    if (buf[0] & 1) {
        static const uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        if (std::memcmp(buf, bc, 6) == 0)
            s.tx_broadcast++;
        else
            s.tx_multicast++;
    }
    hw_.ops.frame_out(hw_.ops.opaque, port, buf, n);
    return true;
}

void Mac::os_in(unsigned port, const uint8_t *f, size_t len) {
    PortState &ps = hw_.ports[port];
    if (!fcs_ok(f, len) || f[6] != OS_VERSION) {
        ps.stats.rx_bad_fcs++;
        return;
    }
    if (!ps.cable)
        return;
    ps.partner_up = f[7] & OS_STATE_UP;
    if (f[7] & OS_STATE_ANSWER) {
        ps.os_pending = true;
        hw_.request_service();
    }
    update(port);
}

void Mac::set_cable(unsigned port, bool plugged) {
    PortState &ps = hw_.ports[port];
    ps.cable = plugged;
    if (!plugged)
        ps.partner_up = false;
    update(port);
}

void Mac::port_ctx_written(unsigned port) { update(port); }

void Mac::update(unsigned port) {
    PortState &ps = hw_.ports[port];
    bool local = ps.cable && hw_.port[port].admin_up;
    if (local != ps.local_up) {
        ps.local_up = local;
        if (ps.cable) {
            // Tell the partner, and ask for its state.
            ps.os_pending = ps.os_please = true;
            hw_.request_service();
        }
    }
    ps.os_retry_ns = (local && !ps.partner_up) ? hw_.now() + OS_RETRY_NS : NEVER;
    bool up = local && ps.partner_up;
    if (up == ps.link_up)
        return;
    ps.link_up = up;
    ps.stats.link_changes++;
    hw_.log(2, "kite: port %u link %s", port, up ? "up" : "down");
    eqe e{};
    e.ev_type = eqe_type::PORT_CHANGE;
    e.subtype = up ? port_event::UP : port_event::DOWN;
    e.obj = port;
    for (uint16_t fn = 0; fn < hw_.num_fn; fn++) {
        const ctx::func_ctx &f = hw_.func[fn];
        if (f.enabled && port >= f.port && port < unsigned(f.port + f.num_ports))
            q_.post_async(fn, e);
    }
}

void Mac::service() {
    for (unsigned p = 0; p < hw_.cfg.num_ports; p++) {
        PortState &ps = hw_.ports[p];
        if (!ps.os_pending)
            continue;
        ps.os_pending = false;
        if (!ps.cable)
            continue;
        uint8_t os[OS_LEN];
        os_build(os, uint8_t((ps.local_up ? OS_STATE_UP : 0) | (ps.os_please ? OS_STATE_ANSWER : 0)));
        ps.os_please = false;
        hw_.ops.frame_out(hw_.ops.opaque, p, os, sizeof(os));
    }
}

void Mac::timer(uint64_t now) {
    for (unsigned p = 0; p < hw_.cfg.num_ports; p++) {
        PortState &ps = hw_.ports[p];
        if (ps.os_retry_ns != NEVER && now >= ps.os_retry_ns) {
            ps.os_pending = ps.os_please = true;
            ps.os_retry_ns = now + OS_RETRY_NS;
            hw_.request_service();
        }
    }
}

uint64_t Mac::next_deadline() const {
    uint64_t d = NEVER;
    for (unsigned p = 0; p < hw_.cfg.num_ports; p++)
        if (hw_.ports[p].os_retry_ns < d)
            d = hw_.ports[p].os_retry_ns;
    return d;
}

}  // namespace kite::model
