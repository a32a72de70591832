// SPDX-License-Identifier: MIT
#include "kite/rss.hpp"

#include "kite/spec.hpp"
#include "kite/toeplitz.hpp"

namespace kite {

rss_result rss_hash(const uint8_t *f, const parsed_frame &p, uint8_t fields, const uint8_t *key) {
    namespace rf = spec::rss_field;
    namespace ht = spec::rss_hash_type;
    rss_result r;
    if (p.malformed || p.l3 == l3_type::NONE)
        return r;
    uint8_t in[36];
    size_t n = 0;
    bool v4 = p.l3 == l3_type::IPV4;
    size_t alen = v4 ? 4 : 16;
    const uint8_t *src = f + p.l3_off + (v4 ? 12 : 8);
    const uint8_t *dst = f + p.l3_off + (v4 ? 16 : 24);
    bool tcp = p.l4 == l4_type::TCP, udp = p.l4 == l4_type::UDP;
    uint8_t f_ip = v4 ? rf::IPV4 : rf::IPV6;
    uint8_t f_tcp = v4 ? rf::IPV4_TCP : rf::IPV6_TCP;
    uint8_t f_udp = v4 ? rf::IPV4_UDP : rf::IPV6_UDP;
    bool ports = (tcp && (fields & f_tcp)) || (udp && (fields & f_udp));
    if (!ports && !(fields & f_ip))
        return r;
    for (size_t i = 0; i < alen; i++)
        in[n++] = src[i];
    for (size_t i = 0; i < alen; i++)
        in[n++] = dst[i];
    if (ports) {
        for (int i = 0; i < 4; i++)
            in[n++] = f[p.l4_off + i];
        r.hash_type = uint8_t(v4 ? (tcp ? ht::IPV4_TCP : ht::IPV4_UDP) : (tcp ? ht::IPV6_TCP : ht::IPV6_UDP));
    } else {
        r.hash_type = uint8_t(v4 ? ht::IPV4 : ht::IPV6);
    }
    r.hash = toeplitz_hash(key, spec::limits::RSS_KEY_SIZE, in, n);
    return r;
}

}  // namespace kite
