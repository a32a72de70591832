// SPDX-License-Identifier: MIT
#include "kite/txoffload.hpp"

#include <cstring>

#include "kite/csum.hpp"
#include "kite/spec.hpp"

namespace kite {

namespace {

struct l3_info {
    size_t l3_off = 0;
    bool v4 = false, v6 = false;
    size_t l4_off = 0;
    uint8_t proto = 0;
};

// TX headers are trusted only as far as the offload needs: lengths come from
// the super-frame, not from the IP header the stack may leave stale.
bool find_l3(const uint8_t *f, size_t len, l3_info &li) {
    if (len < 14)
        return false;
    size_t off = 12;
    uint16_t et = get_be16(f + off);
    for (int i = 0; i < 2 && (et == spec::wire::ETH_P_8021Q || et == 0x88a8); i++) {
        off += 4;
        if (off + 2 > len)
            return false;
        et = get_be16(f + off);
    }
    off += 2;
    li.l3_off = off;
    if (et == 0x0800) {
        if (off + 20 > len || (f[off] >> 4) != 4)
            return false;
        size_t ihl = size_t(f[off] & 0xf) * 4;
        if (ihl < 20 || off + ihl > len)
            return false;
        li.v4 = true;
        li.proto = f[off + 9];
        li.l4_off = off + ihl;
        return true;
    }
    if (et == 0x86dd) {
        if (off + 40 > len || (f[off] >> 4) != 6)
            return false;
        li.v6 = true;
        uint8_t nh = f[off + 6];
        size_t l4 = off + 40;
        for (int i = 0; i < 4 && (nh == 0 || nh == 43 || nh == 60); i++) {
            if (l4 + 8 > len)
                return false;
            nh = f[l4];
            l4 += (size_t(f[l4 + 1]) + 1) * 8;
        }
        li.proto = nh;
        li.l4_off = l4;
        return l4 <= len;
    }
    return false;
}

}  // namespace

bool tx_l3_csum(uint8_t *f, size_t len) {
    l3_info li;
    if (!find_l3(f, len, li) || !li.v4)
        return false;
    uint8_t *ip = f + li.l3_off;
    size_t ihl = size_t(ip[0] & 0xf) * 4;
    put_be16(ip + 10, ipv4_hdr_csum(ip, ihl));
    return true;
}

bool tx_l4_csum(uint8_t *f, size_t len, size_t start, size_t offset) {
    if (start >= len || start + offset + 2 > len)
        return false;
    uint16_t c = csum_finish(csum_partial(f + start, len - start));
    if (offset == 6 && c == 0)  // UDP: 0 means "no checksum"
        c = 0xffff;
    put_be16(f + start + offset, c);
    return true;
}

size_t tx_vlan_insert(uint8_t *buf, size_t len, uint16_t tci) {
    std::memmove(buf + 16, buf + 12, len - 12);
    put_be16(buf + 12, uint16_t(spec::wire::ETH_P_8021Q));
    put_be16(buf + 14, tci);
    return len + 4;
}

bool tx_lso_desc_ok(size_t total, size_t hdr_len, size_t mss, size_t first_len) {
    static_assert(tx_max_frame == spec::limits::MAX_MTU + 14 + 4);
    return total >= 14 && total <= spec::limits::MAX_TSO_SIZE && mss != 0 && hdr_len <= spec::limits::MAX_TSO_HDR &&
           hdr_len <= first_len && hdr_len + mss <= tx_max_frame;
}

lso_error tx_lso(const uint8_t *f, size_t len, size_t hdr_len, size_t mss, bool uso, uint8_t *seg,
                 void (*emit)(void *, uint8_t *, size_t), void *ctx) {
    if (mss == 0)
        return lso_error::MSS;
    l3_info li;
    if (!find_l3(f, len, li))
        return lso_error::NO_L4;
    bool tcp = li.proto == 6 && !uso;
    bool udp = li.proto == 17 && uso;
    if (!tcp && !udp)
        return lso_error::NO_L4;
    size_t l4hl = 8;
    if (tcp) {
        if (li.l4_off + 20 > len)
            return lso_error::HDR_LEN;
        l4hl = size_t(f[li.l4_off + 12] >> 4) * 4;
        if (l4hl < 20)  // the fields patched below must lie in the header
            return lso_error::HDR_LEN;
    }
    if (hdr_len < li.l4_off + l4hl || hdr_len > len)
        return lso_error::HDR_LEN;

    size_t payload = len - hdr_len;
    size_t nseg = payload ? (payload + mss - 1) / mss : 1;
    uint16_t ip_id = li.v4 ? get_be16(f + li.l3_off + 4) : 0;
    uint32_t seq = tcp ? get_be32(f + li.l4_off + 4) : 0;
    uint8_t tcp_flags = tcp ? f[li.l4_off + 13] : 0;
    for (size_t i = 0; i < nseg; i++) {
        size_t chunk = payload - i * mss < mss ? payload - i * mss : mss;
        size_t slen = hdr_len + chunk;
        std::memcpy(seg, f, hdr_len);
        std::memcpy(seg + hdr_len, f + hdr_len + i * mss, chunk);
        uint8_t *ip = seg + li.l3_off;
        uint8_t *l4 = seg + li.l4_off;
        size_t l4len = slen - li.l4_off;
        if (li.v4) {
            put_be16(ip + 2, uint16_t(slen - li.l3_off));
            put_be16(ip + 4, uint16_t(ip_id + i));
            put_be16(ip + 10, ipv4_hdr_csum(ip, size_t(ip[0] & 0xf) * 4));
        } else {
            put_be16(ip + 4, uint16_t(slen - li.l3_off - 40));
        }
        uint32_t s = li.v4 ? pseudo_v4(ip + 12, ip + 16, li.proto, uint32_t(l4len))
                           : pseudo_v6(ip + 8, ip + 24, li.proto, uint32_t(l4len));
        if (tcp) {
            put_be32(l4 + 4, uint32_t(seq + i * mss));
            uint8_t fl = tcp_flags;
            if (i + 1 < nseg)
                fl &= uint8_t(~0x09);  // FIN, PSH only on the last segment
            if (i > 0)
                fl &= uint8_t(~0x80);  // CWR only on the first
            l4[13] = fl;
            put_be16(l4 + 16, 0);
            put_be16(l4 + 16, csum_finish(csum_partial(l4, l4len, s)));
        } else {
            put_be16(l4 + 4, uint16_t(l4len));
            put_be16(l4 + 6, 0);
            uint16_t c = csum_finish(csum_partial(l4, l4len, s));
            put_be16(l4 + 6, c ? c : 0xffff);
        }
        emit(ctx, seg, slen);
    }
    return lso_error::OK;
}

}  // namespace kite
