// SPDX-License-Identifier: MIT
// RoCEv2 wire format: IBA transport opcodes, extended header sizes, PSN
// arithmetic and the ICRC (IBA Annex A17, RoCEv2). Header-only and pure so
// the model, the RTL testbenches and tools share one definition.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kite/crc32.hpp"

namespace kite::roce {

// BTH opcodes (IBA 9.2; RC prefix 000, UD prefix 011, CNP 0x81).
enum : uint8_t {
    SEND_FIRST = 0x00, SEND_MIDDLE = 0x01, SEND_LAST = 0x02, SEND_LAST_IMM = 0x03, SEND_ONLY = 0x04,
    SEND_ONLY_IMM = 0x05, WRITE_FIRST = 0x06, WRITE_MIDDLE = 0x07, WRITE_LAST = 0x08, WRITE_LAST_IMM = 0x09,
    WRITE_ONLY = 0x0a, WRITE_ONLY_IMM = 0x0b, READ_REQ = 0x0c, READ_RESP_FIRST = 0x0d, READ_RESP_MIDDLE = 0x0e,
    READ_RESP_LAST = 0x0f, READ_RESP_ONLY = 0x10, ACK = 0x11, ATOMIC_ACK = 0x12, CMP_SWAP = 0x13,
    FETCH_ADD = 0x14, SEND_LAST_INV = 0x16, SEND_ONLY_INV = 0x17,
    UD_SEND_ONLY = 0x64, UD_SEND_ONLY_IMM = 0x65, CNP = 0x81,
};

inline constexpr size_t BTH = 12, RETH = 16, AETH = 4, ATOMIC_ETH = 28, ATOMIC_ACK_ETH = 8, IMM = 4, IETH = 4,
                        DETH = 8, ICRC = 4, GRH = 40;
inline constexpr uint32_t PSN_MASK = 0xffffff;
inline constexpr uint16_t DEFAULT_PKEY = 0xffff;
inline constexpr uint32_t GSI_QKEY = 0x80010000;

// AETH syndrome (IBA 9.7.5.2.1): bits 6:5 say ACK / RNR NAK / NAK.
enum : uint8_t { AETH_ACK = 0x00, AETH_RNR = 0x20, AETH_NAK = 0x60, AETH_CREDITS_INVALID = 0x1f };
enum : uint8_t { NAK_PSN_SEQ = 0, NAK_INV_REQ = 1, NAK_REM_ACCESS = 2, NAK_REM_OP = 3, NAK_INV_RD_REQ = 4 };

// Bytes of the extended headers an opcode carries after the BTH.
constexpr size_t ext_len(uint8_t op) {
    switch (op) {
    case SEND_LAST_IMM: case SEND_ONLY_IMM: return IMM;
    case SEND_LAST_INV: case SEND_ONLY_INV: return IETH;
    case WRITE_FIRST: case WRITE_ONLY: return RETH;
    case WRITE_LAST_IMM: return IMM;
    case WRITE_ONLY_IMM: return RETH + IMM;
    case READ_REQ: return RETH;
    case READ_RESP_FIRST: case READ_RESP_LAST: case READ_RESP_ONLY: case ACK: return AETH;
    case ATOMIC_ACK: return AETH + ATOMIC_ACK_ETH;
    case CMP_SWAP: case FETCH_ADD: return ATOMIC_ETH;
    case UD_SEND_ONLY: return DETH;
    case UD_SEND_ONLY_IMM: return DETH + IMM;
    case CNP: return 16;
    default: return 0;
    }
}

constexpr bool known_opcode(uint8_t op) {
    return op <= FETCH_ADD || op == SEND_LAST_INV || op == SEND_ONLY_INV || op == UD_SEND_ONLY ||
           op == UD_SEND_ONLY_IMM || op == CNP;
}

// 24-bit serial-number arithmetic: negative when a is before b.
constexpr int32_t psn_diff(uint32_t a, uint32_t b) { return int32_t((a - b) << 8) >> 8; }
constexpr uint32_t psn_add(uint32_t a, uint32_t n) { return (a + n) & PSN_MASK; }

// IB path MTU enum (1 = 256 .. 5 = 4096) in bytes.
constexpr uint32_t mtu_bytes(uint8_t e) { return e >= 1 && e <= 5 ? 128u << e : 1024u; }

// RNR timer field (IBA table 45) in nanoseconds.
constexpr uint64_t rnr_timer_ns(uint8_t code) {
    constexpr uint32_t us[32] = {655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
                                 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
                                 163840, 245760, 327680, 491520};
    return uint64_t(us[code & 31]) * 1000;
}

// Local ACK timeout: 4.096 us * 2^timeout; 0 means none.
constexpr uint64_t ack_timeout_ns(uint8_t t) { return t ? uint64_t(4096) << (t > 31 ? 31 : t) : 0; }

// ICRC of a RoCEv2 packet. @ip points at the IPv4 or IPv6 header, @len
// covers IP header .. end of payload and pad (ICRC excluded). The CRC-32 of
// Ethernet runs over 8 bytes of 0xff (the masked LRH), the IP header with
// its variant fields set to ones (IPv4: TOS, TTL, checksum; IPv6: traffic
// class, flow label, hop limit), the UDP header with its checksum set to
// ones, the BTH with its reserved byte 4 (FECN/BECN) set to ones, then the
// rest unchanged. It goes on the wire least significant byte first.
inline uint32_t icrc(const uint8_t *ip, size_t len) {
    uint8_t hdr[40 + 8 + BTH];
    const bool v6 = (ip[0] >> 4) == 6;
    const size_t ihl = v6 ? 40 : size_t(ip[0] & 0xf) * 4;
    const size_t n = ihl + 8 + BTH;
    if (len < n || (!v6 && ihl < 20))
        return 0;
    static constexpr uint8_t ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    uint32_t crc = crc32_update(0, ones, 8);
    // IPv4 options (ihl > 5) are hashed as they are, in two steps.
    const size_t fixed = v6 ? 40 : 20;
    for (size_t i = 0; i < fixed; i++)
        hdr[i] = ip[i];
    if (v6) {
        hdr[0] |= 0x0f;
        hdr[1] = hdr[2] = hdr[3] = 0xff;
        hdr[7] = 0xff;
    } else {
        hdr[1] = 0xff;
        hdr[8] = 0xff;
        hdr[10] = hdr[11] = 0xff;
    }
    crc = crc32_update(crc, hdr, fixed);
    if (ihl > fixed)
        crc = crc32_update(crc, ip + fixed, ihl - fixed);
    for (size_t i = 0; i < 8 + BTH; i++)
        hdr[i] = ip[ihl + i];
    hdr[6] = hdr[7] = 0xff;
    hdr[8 + 4] = 0xff;
    crc = crc32_update(crc, hdr, 8 + BTH);
    return crc32_update(crc, ip + n, len - n);
}

}  // namespace kite::roce
