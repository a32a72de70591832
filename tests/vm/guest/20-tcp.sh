#!/bin/bash
# TCP both directions: iperf3, and a file whose bytes are compared end to end.
. "$(dirname "$0")/lib.sh"
tap_plan 7
setup_b2b 1500 || { echo "Bail out! b2b setup failed"; exit 1; }
ip netns exec $NS_B iperf3 -s -D -1 -p 5201 >/dev/null 2>&1
wait_listen $NS_B 5201
iperf() { ip netns exec $NS_A iperf3 -c $IP_B -J "$@"; }
iperf_to() { iperf "$@" > "$OUT"; }
OUT=/tmp/ipf1.json check "iperf3 TCP A->B" iperf_to -p 5201 -t 4
python3 -c "import json; j=json.load(open('/tmp/ipf1.json')); print('# A->B %.1f Mbit/s, retransmits %d' % (j['end']['sum_received']['bits_per_second']/1e6, j['end']['sum_sent'].get('retransmits', 0)))" 2>/dev/null
ip netns exec $NS_B iperf3 -s -D -1 -p 5202 >/dev/null 2>&1
wait_listen $NS_B 5202
OUT=/tmp/ipf2.json check "iperf3 TCP B->A (reverse)" iperf_to -p 5202 -t 4 -R
check "iperf3 moved data both ways" python3 -c "
import json
for f in ('/tmp/ipf1.json', '/tmp/ipf2.json'):
    j = json.load(open(f))
    assert j['end']['sum_received']['bytes'] > 1000000, f"
head -c 16M /dev/urandom > /tmp/blob
want=$(sha256sum < /tmp/blob)
xfer() { # FROM_NS TO_NS TO_IP
	rm -f /tmp/blob.rx
	ip netns exec "$2" sh -c 'nc -l -p 7000 > /tmp/blob.rx' &
	wait_listen "$2" 7000
	ip netns exec "$1" nc -N -w 10 "$3" 7000 < /tmp/blob
	wait
	[ "$(sha256sum < /tmp/blob.rx)" = "$want" ]
}
check "16 MiB file A->B arrives intact" xfer $NS_A $NS_B $IP_B
check "16 MiB file B->A arrives intact" xfer $NS_B $NS_A $IP_A
counters_moved() { [ "$(kstat $NS_A tx_packets)" -gt 1000 ] && [ "$(kstat $NS_B rx_packets)" -gt 1000 ]; }
check "TX/RX packet counters moved" counters_moved
check "no warnings in dmesg" dmesg_clean
rm -f /tmp/blob /tmp/blob.rx /tmp/ipf1.json /tmp/ipf2.json
cleanup_b2b
tap_done
