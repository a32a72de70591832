#!/usr/bin/env python3
"""TAP: the wire checker the offload tests rely on (tests/vm/guest/pcapcheck.py)
accepts what a correct TSO engine and a normal TCP sender put on the wire and
rejects what a broken segmenter would, on synthetic captures."""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "..", "vm", "guest", "pcapcheck.py")
sys.path.insert(0, os.path.dirname(CHECK))
from pcapcheck import csum  # noqa: E402

MSS = 1448


def frame(seq, ipid, payload=MSS, bad_l4=False):
    tcp = bytearray(struct.pack("!HHIIBBHHH", 40000, 7001, seq, 0, 5 << 4, 0x18, 65535, 0, 0)) + bytes(payload)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ipid, 0, 64, 6, 0,
                               bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    ip[10:12] = struct.pack("!H", 0xffff - csum(bytes(ip)))
    pseudo = csum(bytes(ip[12:20]) + struct.pack("!HH", 6, len(tcp)))
    tcp[16:18] = struct.pack("!H", (0xffff - csum(bytes(tcp), pseudo)) ^ (1 if bad_l4 else 0))
    return bytes(12) + b"\x08\x00" + bytes(ip) + bytes(tcp)


def run(frames, *extra):
    with tempfile.NamedTemporaryFile(suffix=".pcap") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for x in frames:
            f.write(struct.pack("<IIII", 0, 0, len(x), len(x)) + x)
        f.flush()
        return subprocess.run([sys.executable, CHECK, f.name, "--l4", "tcp", "--ip", "4", "--mss", str(MSS),
                               "--min", "5", *extra], capture_output=True).returncode


good = [frame(i * MSS, 100 + i) for i in range(10)]
cases = [
    ("contiguous segments pass", good, [], 0),
    ("a retransmission's own IP ID does not count as a jump", good + [frame(3 * MSS, 110), frame(10 * MSS, 111)], [], 0),
    ("an IP ID jump without retransmission fails", good + [frame(10 * MSS, 112)], [], 1),
    ("a sequence hole fails", good[:5] + good[6:], [], 1),
    ("a hole the capturing card counted as dropped passes", good[:5] + good[6:], ["--peer-drops", "1"], 0),
    ("two holes with one counted drop fail", good[:3] + good[4:6] + good[7:], ["--peer-drops", "1"], 1),
    ("a segment over the MSS fails", good + [frame(10 * MSS, 110, MSS + 1)], [], 1),
    ("a bad TCP checksum fails", good + [frame(10 * MSS, 110, bad_l4=True)], [], 1),
]
print(f"1..{len(cases)}")
for i, (name, frames, extra, want) in enumerate(cases, 1):
    rc = run(frames, *extra)
    print(f"{'ok' if (rc != 0) == bool(want) else 'not ok'} {i} - pcapcheck: {name}")
