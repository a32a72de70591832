#!/bin/bash
# Malformed frames from the peer (runt, oversize, bad FCS) are dropped and
# counted; good traffic keeps flowing. The peer injects them the way one does on
# real NICs: a packet socket with SO_NOFCS (the frame carries its own FCS).
. "$(dirname "$0")/lib.sh"
tap_plan 8
setup_b2b 1500 || { echo "Bail out! b2b setup failed"; exit 1; }
ip -n $NS_B link set kite0 mtu 9000
inject() { # KIND COUNT
	ip netns exec $NS_B python3 "$KITE/tests/inject.py" kite0 "$(ip netns exec $NS_A cat /sys/class/net/kite0/address)" "$1" "$2"
}
r0=$(kstat $NS_A rx_runt); o0=$(kstat $NS_A rx_oversize); f0=$(kstat $NS_A rx_bad_fcs)
ip netns exec $NS_A ping -q -i 0.05 -c 60 -W 2 $IP_B > /tmp/ping.out 2>&1 &
pid=$!
check "inject 10 runts" inject runt 10
check "inject 10 oversize frames (4000 bytes to an MTU 1500 port)" inject oversize 10
check "inject 10 frames with a bad FCS" inject badfcs 10
wait $pid
moved() { [ $(($(kstat $NS_A "$1") - $2)) -eq "$3" ]; }
check "rx_runt counted 10" moved rx_runt "$r0" 10
check "rx_oversize counted 10" moved rx_oversize "$o0" 10
check "rx_bad_fcs counted 10" moved rx_bad_fcs "$f0" 10
check "good traffic continued: 60/60 pings answered meanwhile" grep -q ' 0% packet loss' /tmp/ping.out
check "no warnings in dmesg" dmesg_clean
cleanup_b2b
tap_done
