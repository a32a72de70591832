#!/bin/bash
# RSS: ethtool -x/-X (40-byte Toeplitz key, 256-entry table), -n/-N
# rx-flow-hash, and where flows really land, checked against an independent
# Toeplitz computation (rsscheck.py; the hash itself is checked against
# Microsoft's published RSS verification vector there).
. "$(dirname "$0")/lib.sh"
tap_plan 8
setup_b2b 1500 || { echo "Bail out! b2b setup failed"; exit 1; }
ip netns exec $NS_A ping -c 1 -W 2 $IP_B > /dev/null; ip netns exec $NS_A ping -6 -c 1 -W 2 $IP6_B > /dev/null
ethA() { ip netns exec $NS_A ethtool "$@"; }
shows_table() {
	local out
	out=$(ethA -x kite0) || return 1
	echo "$out" | grep -q 'RX flow hash indirection table for kite0 with 4 RX ring(s)' &&
	[ "$(echo "$out" | grep -cE '^ +[0-9]+: ')" -eq 32 ] &&
	echo "$out" | grep -qE '^ +248: +0 +1 +2 +3 +0 +1 +2 +3' &&
	[ "$(echo "$out" | sed -n '/RSS hash key/{n;p}' | tr ':' '\n' | wc -l)" -eq 40 ] &&
	echo "$out" | grep -q '^ *toeplitz: on'
}
check "ethtool -x: 256-entry table spread over 4 rings, 40-byte key, toeplitz" shows_table
KEY=$(python3 -c 'print(":".join("%02x" % ((i * 37 + 11) & 0xff) for i in range(40)))')
key_set() { ethA -X kite0 hkey "$KEY" && ethA -x kite0 | sed -n '/RSS hash key/{n;p}' | grep -qx "$KEY"; }
check "ethtool -X hkey: the key reads back" key_set
check "ethtool -X weight 0 1: the table reads back with rings 1 only" sh -c \
	"ip netns exec $NS_A ethtool -X kite0 weight 0 1 && ! ip netns exec $NS_A ethtool -x kite0 | grep -E '^ +[0-9]+: ' | grep -qE ' [023]( |\$)'"
ethA -X kite0 default
check "each TCP/UDP IPv4/IPv6 flow lands in the queue its Toeplitz hash picks (all 8 index bits)" python3 $KITE/tests/rsscheck.py perflow
check "64 UDP flows spread over the queues as a weighted table predicts" python3 $KITE/tests/rsscheck.py spread
check "rx-flow-hash udp4 sd: ports leave the hash (-n shows it; flows follow the address-only hash)" python3 $KITE/tests/rsscheck.py 2tuple
check "unsupported rx-flow-hash field (L2 destination) refused" sh -c "ip netns exec $NS_A ethtool -N kite0 rx-flow-hash tcp4 m 2>&1 | grep -q 'Cannot change'"
check "no warnings in dmesg" dmesg_clean
cleanup_b2b
tap_done
