#!/usr/bin/env python3
"""Small UDP helpers for the offload tests.

    l4tool.py send DST PORT COUNT SIZE [GSO]   COUNT sends of SIZE bytes; with GSO,
                                               UDP_SEGMENT = GSO (one USO super-frame each)
    l4tool.py recv ADDR PORT EXPECT SECONDS    count datagrams until EXPECT or timeout;
                                               prints "<count> <bytes>"
    l4tool.py badcsum IFACE DST_MAC SRC DST COUNT
                                               UDP datagrams (IPv4 or IPv6 by address)
                                               with a wrong UDP checksum, sent raw
"""
import socket
import struct
import sys
import time

UDP_SEGMENT = 103


def csum(data, init=0):
    if len(data) % 2:
        data += b"\0"
    s = init + sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def send(dst, port, count, size, gso=0):
    s = socket.socket(family(dst), socket.SOCK_DGRAM)
    if gso:
        s.setsockopt(socket.SOL_UDP, UDP_SEGMENT, gso)
    payload = bytes((i * 13) & 0xff for i in range(size))
    for _ in range(count):
        s.sendto(payload, (dst, port))


def recv(addr, port, expect, seconds):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.bind((addr, port))
    s.settimeout(0.5)
    n = nbytes = 0
    end = time.time() + seconds
    while n < expect and time.time() < end:
        try:
            nbytes += len(s.recv(65536))
            n += 1
        except socket.timeout:
            pass
    print(n, nbytes)
    return 0 if n >= expect else 1


def badcsum(iface, dst_mac, src, dst, count):
    smac = open(f"/sys/class/net/{iface}/address").read().strip()
    payload = b"kite bad checksum" * 4
    udp = struct.pack("!HHHH", 40000, 9, 8 + len(payload), 0) + payload
    if family(dst) == socket.AF_INET:
        sa, da = socket.inet_pton(socket.AF_INET, src), socket.inet_pton(socket.AF_INET, dst)
        c = 0xffff - csum(udp, csum(sa + da + struct.pack("!HH", 17, len(udp))))
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0x4000, 64, 17, 0, sa, da)
        ip = ip[:10] + struct.pack("!H", 0xffff - csum(ip)) + ip[12:]
        et = 0x0800
    else:
        sa, da = socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst)
        c = 0xffff - csum(udp, csum(sa + da + struct.pack("!IxxxB", len(udp), 17)))
        ip = struct.pack("!IHBB16s16s", 6 << 28, len(udp), 17, 64, sa, da)
        et = 0x86dd
    c = (c ^ 0x5a5a) or 1  # wrong, and never 0 ("no checksum" in IPv4)
    udp = udp[:6] + struct.pack("!H", c) + udp[8:]
    frame = bytes.fromhex(dst_mac.replace(":", "")) + bytes.fromhex(smac.replace(":", "")) + \
        struct.pack("!H", et) + ip + udp
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    for _ in range(count):
        s.send(frame)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "send":
        send(args[0], int(args[1]), int(args[2]), int(args[3]), int(args[4]) if len(args) > 4 else 0)
    elif cmd == "recv":
        sys.exit(recv(args[0], int(args[1]), int(args[2]), float(args[3])))
    elif cmd == "badcsum":
        badcsum(args[0], args[1], args[2], args[3], int(args[4]))
    else:
        sys.exit(__doc__)
