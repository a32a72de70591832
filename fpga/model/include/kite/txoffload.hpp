// SPDX-License-Identifier: MIT
// TX offloads as pure functions over a frame buffer (without FCS): checksum
// insertion, VLAN insertion and LSO (TSO/USO) segmentation. The TX pipeline
// and the RTL testbenches use them to produce the expected wire bytes.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace kite {

// Fills the IPv4 header checksum of the first IPv4 header. False if there is
// none.
bool tx_l3_csum(uint8_t *frame, size_t len);

// Linux CHECKSUM_PARTIAL: sum from csum_start to the end (the field already
// holds the pseudo-header sum) and store the complement at csum_start +
// csum_offset. A UDP result of 0 is sent as 0xffff. False if out of range.
bool tx_l4_csum(uint8_t *frame, size_t len, size_t csum_start, size_t csum_offset);

// Inserts an 802.1Q tag after the MAC addresses; buf must have len + 4 room.
// Returns the new length.
size_t tx_vlan_insert(uint8_t *buf, size_t len, uint16_t tci);

enum class lso_error { OK, NO_L4, HDR_LEN, MSS };

// Largest frame the TX pipeline sends without segmentation (and largest LSO
// segment), without FCS: MAX_MTU + 14 + 4.
inline constexpr size_t tx_max_frame = 9000 + 14 + 4;

// The descriptor checks an LSO WQE must pass before any byte is read: total
// super-frame length (sum of the gather entries), hdr_len, mss and the length
// of the first gather entry, which must hold the whole header. False: the WQE
// is dropped (tx_bad_desc).
bool tx_lso_desc_ok(size_t total, size_t hdr_len, size_t mss, size_t first_len);

// Cuts a TCP (or, with uso, UDP) super-frame into segments of at most mss
// payload bytes after hdr_len header bytes and fixes each segment's headers
// and checksums (a TCP header must be at least 20 bytes and lie within
// hdr_len). emit(ctx, seg, seg_len) is called for each segment; seg
// points into scratch, which must hold hdr_len + mss bytes.
lso_error tx_lso(const uint8_t *frame, size_t len, size_t hdr_len, size_t mss, bool uso, uint8_t *scratch,
                 void (*emit)(void *ctx, uint8_t *seg, size_t seg_len), void *ctx);

}  // namespace kite
