// SPDX-License-Identifier: MIT
#include "kite/parser.hpp"

#include "kite/csum.hpp"
#include "kite/spec.hpp"

namespace kite {

namespace {
constexpr uint16_t ETH_P_IP = 0x0800, ETH_P_IPV6 = 0x86dd, ETH_P_8021AD = 0x88a8;
constexpr uint8_t IPPROTO_TCP = 6, IPPROTO_UDP = 17;
}  // namespace

parsed_frame parse_frame(const uint8_t *f, size_t len) {
    parsed_frame p;
    p.len = len;
    if (len < 14) {
        p.malformed = true;
        return p;
    }
    size_t off = 12;
    uint16_t et = get_be16(f + off);
    while ((et == spec::wire::ETH_P_8021Q || et == ETH_P_8021AD) && p.num_vlans < 2) {
        if (off + 6 > len) {
            p.malformed = true;
            return p;
        }
        if (p.num_vlans == 0)
            p.outer_tci = get_be16(f + off + 2);
        p.num_vlans++;
        off += 4;
        et = get_be16(f + off);
    }
    off += 2;
    p.l3_off = off;
    p.ethertype = et;

    size_t l4 = 0;
    uint8_t proto = 0;
    if (et == ETH_P_IP) {
        if (off + 20 > len || (f[off] >> 4) != 4) {
            p.malformed = true;
            return p;
        }
        size_t ihl = size_t(f[off] & 0xf) * 4;
        size_t tot = get_be16(f + off + 2);
        if (ihl < 20 || tot < ihl || off + tot > len) {
            p.malformed = true;
            return p;
        }
        p.l3 = l3_type::IPV4;
        p.l3_hdr_len = ihl;
        p.l3_end = off + tot;
        p.ipv4_hdr_ok = ipv4_hdr_csum(f + off, ihl) == get_be16(f + off + 10);
        uint16_t frag = get_be16(f + off + 6);
        p.ip_frag = (frag & 0x3fff) != 0;  // MF or a fragment offset
        proto = f[off + 9];
        l4 = off + ihl;
    } else if (et == ETH_P_IPV6) {
        if (off + 40 > len || (f[off] >> 4) != 6) {
            p.malformed = true;
            return p;
        }
        size_t plen = get_be16(f + off + 4);
        if (off + 40 + plen > len) {
            p.malformed = true;
            return p;
        }
        p.l3 = l3_type::IPV6;
        p.l3_end = off + 40 + plen;
        proto = f[off + 6];
        l4 = off + 40;
        for (int i = 0; i < 8; i++) {
            size_t hl;
            if (proto == 0 || proto == 43 || proto == 60) {
                if (l4 + 8 > p.l3_end) {
                    p.malformed = true;
                    return p;
                }
                hl = (size_t(f[l4 + 1]) + 1) * 8;
            } else if (proto == 44) {
                if (l4 + 8 > p.l3_end) {
                    p.malformed = true;
                    return p;
                }
                p.ip_frag = true;
                hl = 8;
            } else if (proto == 51) {
                if (l4 + 8 > p.l3_end) {
                    p.malformed = true;
                    return p;
                }
                hl = (size_t(f[l4 + 1]) + 2) * 4;
            } else {
                break;
            }
            proto = f[l4];
            l4 += hl;
            if (l4 > p.l3_end) {
                p.malformed = true;
                return p;
            }
        }
        p.l3_hdr_len = l4 - off;
    } else {
        return p;
    }

    p.l4_proto = proto;
    p.l4_off = l4;
    if (p.ip_frag) {
        p.l4 = l4_type::OTHER;
        return p;
    }
    if (proto == IPPROTO_TCP) {
        if (l4 + 20 > p.l3_end) {
            p.malformed = true;
            return p;
        }
        size_t doff = size_t(f[l4 + 12] >> 4) * 4;
        if (doff < 20 || l4 + doff > p.l3_end) {
            p.malformed = true;
            return p;
        }
        p.l4 = l4_type::TCP;
        p.sport = get_be16(f + l4);
        p.dport = get_be16(f + l4 + 2);
    } else if (proto == IPPROTO_UDP) {
        if (l4 + 8 > p.l3_end) {
            p.malformed = true;
            return p;
        }
        size_t ulen = get_be16(f + l4 + 4);
        if (ulen < 8 || l4 + ulen > p.l3_end) {
            p.malformed = true;
            return p;
        }
        p.l4 = l4_type::UDP;
        p.sport = get_be16(f + l4);
        p.dport = get_be16(f + l4 + 2);
        if (p.dport == spec::wire::ROCEV2_UDP_PORT && ulen >= 8 + 12) {
            const uint8_t *bth = f + l4 + 8;
            p.roce = true;
            p.bth_opcode = bth[0];
            p.bth_dqpn = get_be32(bth + 4) & 0xffffff;
            p.bth_psn = get_be32(bth + 8) & 0xffffff;
        }
    } else {
        p.l4 = l4_type::OTHER;
    }
    return p;
}

int l4_csum_check(const uint8_t *f, const parsed_frame &p) {
    if (p.malformed || p.ip_frag || (p.l4 != l4_type::TCP && p.l4 != l4_type::UDP))
        return -1;
    size_t l4len = p.l3_end - p.l4_off;
    if (p.l4 == l4_type::UDP) {
        l4len = get_be16(f + p.l4_off + 4);
        if (p.l3 == l3_type::IPV4 && get_be16(f + p.l4_off + 6) == 0)
            return -1;
    }
    uint32_t s;
    if (p.l3 == l3_type::IPV4)
        s = pseudo_v4(f + p.l3_off + 12, f + p.l3_off + 16, p.l4_proto, uint32_t(l4len));
    else
        s = pseudo_v6(f + p.l3_off + 8, f + p.l3_off + 24, p.l4_proto, uint32_t(l4len));
    s = csum_partial(f + p.l4_off, l4len, s);
    return csum_fold(s) == 0xffff ? 1 : 0;
}

}  // namespace kite
