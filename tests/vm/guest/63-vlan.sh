#!/bin/bash
# 802.1Q: tag insertion/stripping offloads (on and off) and VLAN filtering:
# with rx-vlan-filter on, tagged frames for a VID the host has no VLAN device
# for are dropped by the card (rx_filtered); off, they reach the stack.
. "$(dirname "$0")/lib.sh"
tap_plan 11
setup_b2b 1500 || { echo "Bail out! b2b setup failed"; exit 1; }
modprobe -q 8021q
vlan() { # NS VID IP
	ip -n "$1" link add link kite0 name "v$2" type vlan id "$2" && ip -n "$1" link set "v$2" up &&
	ip -n "$1" addr add "$3/24" dev "v$2"
}
vlan $NS_A 10 198.51.100.1; vlan $NS_B 10 198.51.100.2
vlan $NS_B 20 203.0.113.2
mac_a=$(ip netns exec $NS_A cat /sys/class/net/kite0/address)
# B sends tagged unicast for VLAN 20 to A's MAC (A has no VLAN 20).
ip -n $NS_B neigh add 203.0.113.1 lladdr "$mac_a" dev v20 nud permanent
ping10() { ip netns exec $NS_B ping -q -c 3 -i 0.2 -W 2 198.51.100.1; }
send20() { ip netns exec $NS_B ping -q -c 5 -i 0.1 -W 1 203.0.113.1 > /dev/null 2>&1; sleep 0.3; }
filt() { kstat $NS_A rx_filtered; }

check "rx-vlan-filter on by default" sh -c "ip netns exec $NS_A ethtool -k kite0 | grep -q '^rx-vlan-filter: on'"
check "VLAN 10 (a VID in the filter) passes: ping over v10" ping10
f0=$(filt); send20
check "VLAN 20 (not in the filter): 5 frames dropped by the card, rx_filtered +$(($(filt) - f0))" test $(($(filt) - f0)) -ge 5
ip netns exec $NS_A ethtool -K kite0 rx-vlan-filter off; sleep 0.5
r0=$(kstat $NS_A rx_packets); send20
check "rx-vlan-filter off: VLAN 20 frames reach the host (rx_packets +$(($(kstat $NS_A rx_packets) - r0)))" \
	test $(($(kstat $NS_A rx_packets) - r0)) -ge 5
ip netns exec $NS_A ethtool -K kite0 rx-vlan-filter on; sleep 0.5
f0=$(filt); send20
check "rx-vlan-filter back on: VLAN 20 dropped again" test $(($(filt) - f0)) -ge 5
ip -n $NS_A link del v10; sleep 0.5
f0=$(filt)
ip netns exec $NS_B ping -q -c 5 -i 0.1 -W 1 198.51.100.1 > /dev/null 2>&1; sleep 0.3
check "deleting A's VLAN 10 removes VID 10 from the filter: its frames are dropped" test $(($(filt) - f0)) -ge 1
vlan $NS_A 10 198.51.100.1
check "VLAN 10 re-added: ping over v10" ping10
ip netns exec $NS_A ethtool -K kite0 rxvlan off
check "tag stripping off (rxvlan off): ping over v10" ping10
ip netns exec $NS_A ethtool -K kite0 rxvlan on txvlan off
check "tag insertion off (txvlan off): ping over v10" ping10
ip netns exec $NS_A ethtool -K kite0 txvlan on
s0=$(kstat $NS_A rx_packets)
check "offloads back on: ping over v10" ping10
check "no warnings in dmesg" dmesg_clean
cleanup_b2b
tap_done
