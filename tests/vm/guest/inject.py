#!/usr/bin/env python3
"""Send malformed Ethernet frames with SO_NOFCS: inject.py IFACE DST_MAC KIND COUNT
KIND: runt (40 bytes incl. FCS), oversize (4000-byte frame), badfcs (inverted FCS)."""
import socket
import struct
import sys
import zlib

SOL_SOCKET, SO_NOFCS = 1, 43
iface, dst, kind, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
src = open(f"/sys/class/net/{iface}/address").read().strip()
hdr = bytes.fromhex(dst.replace(":", "")) + bytes.fromhex(src.replace(":", "")) + struct.pack("!H", 0x88b5)
size = {"runt": 36, "oversize": 3996, "badfcs": 60}[kind]
body = hdr + bytes((i * 7) & 0xff for i in range(size - len(hdr)))
fcs = zlib.crc32(body) & 0xffffffff
if kind == "badfcs":
    fcs ^= 0xffffffff
frame = body + struct.pack("<I", fcs)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.setsockopt(SOL_SOCKET, SO_NOFCS, 1)
s.bind((iface, 0))
for _ in range(count):
    s.send(frame)
