// SPDX-License-Identifier: MIT
// The pure functions the RTL testbenches share: CRC-32, checksums, Toeplitz,
// the TX segmenter.
#include <gtest/gtest.h>

#include <arpa/inet.h>

#include "fake_host.hpp"
#include "kite/crc32.hpp"
#include "kite/csum.hpp"
#include "kite/parser.hpp"
#include "kite/rss.hpp"
#include "kite/toeplitz.hpp"
#include "kite/txoffload.hpp"

using namespace kite;

TEST(Crc32, CheckValue) {
    EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u);
    EXPECT_EQ(crc32_update(crc32_update(0, (const uint8_t *)"1234", 4), (const uint8_t *)"56789", 5), 0xCBF43926u);
}

TEST(Csum, Rfc1071Example) {
    const uint8_t d[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    EXPECT_EQ(csum_fold(csum_partial(d, sizeof(d))), 0xddf2);
}

namespace {
struct MsVector {
    const char *src, *dst;
    uint16_t sport, dport;
    uint32_t ip, tcp;
};
// Microsoft RSS verification suite, default key.
const MsVector v4[] = {
    {"66.9.149.187", "161.142.100.80", 2794, 1766, 0x323e8fc2, 0x51ccc178},
    {"199.92.111.2", "65.69.140.83", 14230, 4739, 0xd718262a, 0xc626b0ea},
    {"24.19.198.95", "12.22.207.184", 12898, 38024, 0xd2d0a5de, 0x5c2b394a},
    {"38.27.205.30", "209.142.163.6", 48228, 2217, 0x82989176, 0xafc7327f},
    {"153.39.163.191", "202.188.127.2", 44251, 1303, 0x5d1809c5, 0x10e828a2},
};
const MsVector v6[] = {
    {"3ffe:2501:200:1fff::7", "3ffe:2501:200:3::1", 2794, 1766, 0x2cc18cd5, 0x40207d3d},
    {"3ffe:501:8::260:97ff:fe40:efab", "ff02::1", 14230, 4739, 0x0f0c461c, 0xdde51bbf},
    {"3ffe:1900:4545:3:200:f8ff:fe21:67cf", "fe80::200:f8ff:fe21:67cf", 44251, 38024, 0x4b61e985, 0x02d1feef},
};
}  // namespace

TEST(Toeplitz, MicrosoftIpv4) {
    for (const auto &v : v4) {
        uint8_t in[12];
        inet_pton(AF_INET, v.src, in);
        inet_pton(AF_INET, v.dst, in + 4);
        put_be16(in + 8, v.sport);
        put_be16(in + 10, v.dport);
        EXPECT_EQ(toeplitz_hash(rss_default_key, 40, in, 8), v.ip) << v.src;
        EXPECT_EQ(toeplitz_hash(rss_default_key, 40, in, 12), v.tcp) << v.src;
    }
}

TEST(Toeplitz, MicrosoftIpv6) {
    for (const auto &v : v6) {
        uint8_t in[36];
        inet_pton(AF_INET6, v.src, in);
        inet_pton(AF_INET6, v.dst, in + 16);
        put_be16(in + 32, v.sport);
        put_be16(in + 34, v.dport);
        EXPECT_EQ(toeplitz_hash(rss_default_key, 40, in, 32), v.ip) << v.src;
        EXPECT_EQ(toeplitz_hash(rss_default_key, 40, in, 36), v.tcp) << v.src;
    }
}

TEST(Rss, ParsedFramesGiveMicrosoftHashes) {
    namespace rf = spec::rss_field;
    for (const auto &v : v4) {
        in_addr s, d;
        inet_pton(AF_INET, v.src, &s);
        inet_pton(AF_INET, v.dst, &d);
        auto f = kt::tcp4_frame(kt::PF_MAC, 10, 1, 0x10);
        std::memcpy(&f[26], &s, 4);
        std::memcpy(&f[30], &d, 4);
        put_be16(&f[34], v.sport);
        put_be16(&f[36], v.dport);
        parsed_frame p = parse_frame(f.data(), f.size());
        ASSERT_FALSE(p.malformed);
        EXPECT_EQ(rss_hash(f.data(), p, rf::IPV4 | rf::IPV4_TCP, rss_default_key).hash, v.tcp);
        EXPECT_EQ(rss_hash(f.data(), p, rf::IPV4 | rf::IPV4_TCP, rss_default_key).hash_type,
                  spec::rss_hash_type::IPV4_TCP);
        EXPECT_EQ(rss_hash(f.data(), p, rf::IPV4, rss_default_key).hash, v.ip);
    }
    for (const auto &v : v6) {
        auto f = kt::tcp6_frame(kt::PF_MAC, 10, 1, 0x10);
        inet_pton(AF_INET6, v.src, &f[22]);
        inet_pton(AF_INET6, v.dst, &f[38]);
        put_be16(&f[54], v.sport);
        put_be16(&f[56], v.dport);
        parsed_frame p = parse_frame(f.data(), f.size());
        ASSERT_EQ(p.l3, l3_type::IPV6);
        EXPECT_EQ(rss_hash(f.data(), p, rf::IPV6 | rf::IPV6_TCP, rss_default_key).hash, v.tcp);
        EXPECT_EQ(rss_hash(f.data(), p, rf::IPV6, rss_default_key).hash, v.ip);
    }
}

TEST(Parser, VlanRoceAndMalformed) {
    auto f = kt::udp4_frame(kt::PF_MAC, 40, 1, 2, 5000, 4791);
    parsed_frame p = parse_frame(f.data(), f.size());
    EXPECT_TRUE(p.roce);
    EXPECT_EQ(p.l4, l4_type::UDP);
    EXPECT_EQ(l4_csum_check(f.data(), p), 1);
    f[50] ^= 1;
    EXPECT_EQ(l4_csum_check(f.data(), parse_frame(f.data(), f.size())), 0);
    // 802.1Q tag
    auto t = kt::udp4_frame(kt::PF_MAC, 10);
    uint8_t tag[4] = {0x81, 0x00, 0x20, 0x05};
    t.insert(t.begin() + 12, tag, tag + 4);
    p = parse_frame(t.data(), t.size());
    EXPECT_EQ(p.num_vlans, 1);
    EXPECT_EQ(p.outer_tci, 0x2005);
    EXPECT_EQ(p.l3_off, 18u);
    EXPECT_TRUE(p.ipv4_hdr_ok);
    // truncated IPv4 total length
    auto b = kt::udp4_frame(kt::PF_MAC, 10);
    b.resize(30);
    EXPECT_TRUE(parse_frame(b.data(), b.size()).malformed);
}

namespace {
void collect(void *ctx, uint8_t *seg, size_t n) {
    static_cast<std::vector<std::vector<uint8_t>> *>(ctx)->emplace_back(seg, seg + n);
}
}  // namespace

TEST(TxLso, DescriptorChecks) {
    EXPECT_TRUE(tx_lso_desc_ok(65536, 54, 1448, 54));
    EXPECT_FALSE(tx_lso_desc_ok(65537, 54, 1448, 54));       // over MAX_TSO_SIZE
    EXPECT_FALSE(tx_lso_desc_ok(3000, 54, 0, 54));           // mss 0
    EXPECT_FALSE(tx_lso_desc_ok(3000, 257, 1000, 3000));     // header over MAX_TSO_HDR
    EXPECT_FALSE(tx_lso_desc_ok(3000, 54, 1000, 53));        // header beyond the first gather entry
    EXPECT_TRUE(tx_lso_desc_ok(30000, 54, 9018 - 54, 54));
    EXPECT_FALSE(tx_lso_desc_ok(30000, 54, 9018 - 53, 54));  // segment longer than a frame
}

TEST(TxLso, SegmentsAndShortTcpHeader) {
    auto f = kt::tcp4_frame(kt::PF_MAC, 3000, 0xfffffff0u, 0x19);  // FIN PSH ACK
    std::vector<std::vector<uint8_t>> segs;
    std::vector<uint8_t> scratch(tx_max_frame);
    ASSERT_EQ(tx_lso(f.data(), f.size(), 54, 1000, false, scratch.data(), collect, &segs), lso_error::OK);
    ASSERT_EQ(segs.size(), 3u);
    EXPECT_EQ(get_be32(&segs[2][38]), 0xfffffff0u + 2000);
    EXPECT_EQ(segs[0][47], 0x10);  // FIN/PSH only on the last
    EXPECT_EQ(segs[2][47], 0x19);
    f[46] = 0x40;  // data offset 4: the patched fields would be payload
    segs.clear();
    EXPECT_EQ(tx_lso(f.data(), f.size(), 54, 1000, false, scratch.data(), collect, &segs), lso_error::HDR_LEN);
    EXPECT_TRUE(segs.empty());
}
