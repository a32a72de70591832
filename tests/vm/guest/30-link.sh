#!/bin/bash
# Administrative link down/up on the peer is seen as carrier loss/return here.
. "$(dirname "$0")/lib.sh"
tap_plan 6
setup_b2b 1500 || { echo "Bail out! b2b setup failed"; exit 1; }
before=$(kstat $NS_A link_changes)
peer_down() { ip -n $NS_B link set kite0 down && wait_carrier $NS_A 0; }
peer_up() { ip -n $NS_B link set kite0 up && wait_carrier $NS_A 1; }
# ip link derives NO-CARRIER from the operational state, which linkwatch
# updates up to a second after the carrier change.
no_carrier_shown() {
	local i
	for i in $(seq 30); do
		ip -n $NS_A link show kite0 | grep -q NO-CARRIER && return 0
		sleep 0.1
	done
	return 1
}
changes_moved() { [ $(($(kstat $NS_A link_changes) - before)) -eq 2 ]; }
check "peer down: carrier lost" peer_down
check "ip link reports NO-CARRIER" no_carrier_shown
check "peer up: carrier back" peer_up
check "link_changes counter moved by 2" changes_moved
check "traffic flows after link returns" ip netns exec $NS_A ping -c 2 -i 0.2 -W 2 $IP_B
check "no warnings in dmesg" dmesg_clean
cleanup_b2b
tap_done
