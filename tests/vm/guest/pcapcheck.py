#!/usr/bin/env python3
"""Check frames a peer captured (tcpdump -s 0 -w, GRO off on the capturing port).

    pcapcheck.py FILE --l4 tcp|udp --ip 4|6 [--vlan VID] [--mss N] [--min N]

Selects the TCP/UDP-over-IPv4/IPv6 frames (with the given 802.1Q VID, or
untagged) that carry payload, and checks, independently of the card: every
IPv4 header checksum and every TCP/UDP checksum is valid; no payload exceeds
--mss and most data segments are exactly --mss bytes; TCP sequence numbers of
each flow are contiguous (no hole); IPv4 IDs of a flow advance by one per
in-order segment. A TCP retransmission (the sender's own timers, not the
card) takes an IP ID of its own, so the next in-order segment may skip that
many; frames the capturing port's card counted as dropped (--peer-drops)
explain that many holes. Prints one line of figures and exits non-zero with
the reason when a check fails.
"""
import argparse
import struct
import sys


def csum(data, init=0):
    if len(data) % 2:
        data += b"\0"
    s = init + sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def frames(path):
    with open(path, "rb") as f:
        hdr = f.read(24)
        magic = struct.unpack("<I", hdr[:4])[0]
        end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
        linktype = struct.unpack(end + "I", hdr[20:24])[0]
        if linktype != 1:
            sys.exit(f"linktype {linktype}, want Ethernet")
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            _, _, incl, orig = struct.unpack(end + "IIII", rec)
            data = f.read(incl)
            if incl != orig:
                sys.exit("truncated capture: use tcpdump -s 0")
            yield data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--l4", choices=["tcp", "udp"], required=True)
    ap.add_argument("--ip", type=int, choices=[4, 6], required=True)
    ap.add_argument("--vlan", type=int, default=0)
    ap.add_argument("--mss", type=int, default=0)
    ap.add_argument("--min", type=int, default=1)
    ap.add_argument("--capture-log", help="tcpdump's stderr: frames it dropped relax the count and hole checks")
    ap.add_argument("--peer-drops", type=int, default=0,
                    help="frames the capturing port dropped (rx_no_buffer etc.) during the capture")
    a = ap.parse_args()
    dropped = 0
    if a.capture_log:
        import re
        m = re.search(r"(\d+) packets? dropped by kernel", open(a.capture_log).read())
        dropped = int(m.group(1)) if m else 0
    proto = 6 if a.l4 == "tcp" else 17
    n = bad_ip = bad_l4 = at_mss = over = 0
    sizes = {}
    flows = {}
    seq_holes = id_jumps = retrans = 0
    for f in frames(a.file):
        et, off, vid = struct.unpack("!H", f[12:14])[0], 14, 0
        if et == 0x8100:
            vid = struct.unpack("!H", f[14:16])[0] & 0xfff
            et, off = struct.unpack("!H", f[16:18])[0], 18
        if vid != a.vlan:
            continue
        if a.ip == 4 and et == 0x0800:
            ihl = (f[off] & 0xf) * 4
            tot = struct.unpack("!H", f[off + 2:off + 4])[0]
            if f[off + 9] != proto:
                continue
            ip = f[off:off + ihl]
            ipid = struct.unpack("!H", ip[4:6])[0]
            l4 = f[off + ihl:off + tot]
            pseudo = csum(ip[12:20] + struct.pack("!HH", proto, len(l4)))
            if csum(ip) != 0xffff:
                bad_ip += 1
            src, dst = ip[12:16], ip[16:20]
        elif a.ip == 6 and et == 0x86dd:
            if f[off + 6] != proto:
                continue
            plen = struct.unpack("!H", f[off + 4:off + 6])[0]
            l4 = f[off + 40:off + 40 + plen]
            pseudo = csum(f[off + 8:off + 40] + struct.pack("!IxxxB", len(l4), proto))
            ipid = None
            src, dst = f[off + 8:off + 24], f[off + 24:off + 40]
        else:
            continue
        hl = (l4[12] >> 4) * 4 if proto == 6 else 8
        payload = len(l4) - hl
        if payload <= 0:
            continue
        n += 1
        if csum(l4, pseudo) != 0xffff:
            bad_l4 += 1
        sizes[payload] = sizes.get(payload, 0) + 1
        if a.mss:
            at_mss += payload == a.mss
            over += payload > a.mss
        if proto == 6:
            key = (src, dst, l4[0:4])
            seq = struct.unpack("!I", l4[4:8])[0]
            st = flows.get(key)
            if st:
                exp, last_id, rtx = st
                d = (seq - exp) & 0xffffffff
                if d and d < 0x80000000:
                    seq_holes += 1  # data missing on the wire
                if d >= 0x80000000:
                    retrans += 1
                    flows[key] = (exp, last_id, rtx + 1)
                    continue
                # each retransmission since the last in-order segment used an ID
                if ipid is not None and d == 0 and not 1 <= ((ipid - last_id) & 0xffff) <= 1 + rtx:
                    id_jumps += 1
            flows[key] = ((seq + payload) & 0xffffffff, ipid, 0)
    top = sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
    print(f"# {n} {a.l4}/IPv{a.ip}{' vlan %d' % a.vlan if a.vlan else ''} data frames; bad IPv4 csum {bad_ip}, "
          f"bad L4 csum {bad_l4}; payload sizes (size:count) {top}; at mss {at_mss}, over mss {over}; "
          f"seq holes {seq_holes}, IP ID jumps {id_jumps}, retransmissions {retrans}")
    errs = []
    if dropped:
        # A slow guest's capture may drop frames the wire carried: holes in
        # the capture are then not holes on the wire, nor are IP ID jumps (a
        # retransmission the capture missed used an ID).
        print(f"# the capture dropped {dropped} frames: sequence holes and IP ID jumps not judged, "
              f"at least {a.min // 4} frames")
        a.min //= 4
        seq_holes = id_jumps = 0
    if n < a.min:
        errs.append(f"only {n} frames, want {a.min}")
    if bad_ip or bad_l4:
        errs.append("bad checksums")
    if a.mss and (over or at_mss * 2 < n):
        errs.append(f"segment sizes do not match mss {a.mss}")
    if seq_holes and seq_holes <= a.peer_drops:
        print(f"# {seq_holes} holes, {a.peer_drops} frames dropped by the capturing port's card: holes explained")
        seq_holes = 0
    if seq_holes or id_jumps:
        errs.append("sequence numbers or IP IDs not contiguous")
    if errs:
        sys.exit("; ".join(errs))


if __name__ == "__main__":
    main()
