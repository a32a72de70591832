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

// Cuts a TCP (or, with uso, UDP) super-frame into segments of at most mss
// payload bytes after hdr_len header bytes and fixes each segment's headers
// and checksums. emit(ctx, seg, seg_len) is called for each segment; seg
// points into scratch, which must hold hdr_len + mss bytes.
lso_error tx_lso(const uint8_t *frame, size_t len, size_t hdr_len, size_t mss, bool uso, uint8_t *scratch,
                 void (*emit)(void *ctx, uint8_t *seg, size_t seg_len), void *ctx);

}  // namespace kite
