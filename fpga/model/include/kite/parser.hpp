// SPDX-License-Identifier: MIT
// Frame parser shared by the RX pipeline, the TX offloads and the RTL
// testbenches: Ethernet, up to two VLAN tags, IPv4/IPv6 (with the common
// IPv6 extension headers), TCP/UDP and the RoCEv2 BTH.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace kite {

enum class l3_type : uint8_t { NONE, IPV4, IPV6 };
enum class l4_type : uint8_t { NONE, TCP, UDP, OTHER };

struct parsed_frame {
    size_t len = 0;           // bytes parsed (frame without FCS)
    uint8_t num_vlans = 0;
    uint16_t outer_tci = 0;   // first VLAN tag
    uint16_t ethertype = 0;   // after the tags
    size_t l3_off = 0;        // also the L2 header length
    l3_type l3 = l3_type::NONE;
    size_t l3_hdr_len = 0;    // IPv4 ihl*4; IPv6 40 + extension headers
    size_t l3_end = 0;        // end of the IP datagram (total/payload length)
    bool ip_frag = false;     // a fragment: L4 is not checked nor hashed
    bool ipv4_hdr_ok = false; // IPv4 header checksum verified
    uint8_t l4_proto = 0;
    l4_type l4 = l4_type::NONE;
    size_t l4_off = 0;
    uint16_t sport = 0, dport = 0;
    bool roce = false;        // UDP to ROCEV2_UDP_PORT with a full BTH
    uint8_t bth_opcode = 0;
    uint32_t bth_dqpn = 0;
    uint32_t bth_psn = 0;
    bool malformed = false;   // truncated or inconsistent headers
};

// Parses @frame of @len bytes (FCS excluded). Never reads past len.
parsed_frame parse_frame(const uint8_t *frame, size_t len);

// L4 checksum of a parsed TCP/UDP frame: 1 good, 0 bad, -1 not checkable
// (no L4, fragment, or UDP over IPv4 without checksum).
int l4_csum_check(const uint8_t *frame, const parsed_frame &p);

}  // namespace kite
