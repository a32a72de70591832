#!/bin/bash
# ntuple steering (ethtool -N/-n flow-type ... action N|-1, SET_FLOW_RULE):
# one TCP flow moved to a queue RSS does not pick (per-queue rx counters),
# a UDP drop rule (rx_flow_drop), listing, deletion, rules kept across
# down/up.
. "$(dirname "$0")/lib.sh"
tap_plan 9
setup_b2b 1500 || { echo "Bail out! b2b setup failed"; exit 1; }
ip netns exec $NS_A ping -c 1 -W 2 $IP_B > /dev/null
ethA() { ip netns exec $NS_A ethtool "$@"; }
rxq() { qsum $NS_A "^rx$1_packets\$"; }
# tcp_flow: 4 connections from B (ephemeral source ports, so RSS alone would
# spread them) sending 256 KB each to A:5201.
tcp_flow() {
	ip netns exec $NS_A python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("'$IP_A'", 5201)); s.listen(4); s.settimeout(20)
for i in range(4):
    c, _ = s.accept()
    while c.recv(65536):
        pass
    c.close()' &
	local srv=$!
	wait_listen $NS_A 5201 || return 1
	ip netns exec $NS_B python3 -c '
import socket
for i in range(4):
    c = socket.create_connection(("'$IP_A'", 5201)); c.sendall(b"x" * 262144); c.close()' || return 1
	wait $srv
}
declare -a before after
snap() { local q; for q in 0 1 2 3; do eval "$1[$q]=\$(rxq $q)"; done; }
target=3
check "ethtool -N flow-type tcp4 dst-ip $IP_A dst-port 5201 action $target loc 5" \
	ethA -N kite0 flow-type tcp4 dst-ip $IP_A dst-port 5201 action $target loc 5
steered() {
	local q d others=0
	snap before; tcp_flow || return 1; snap after
	for q in 0 1 2; do others=$((others + after[q] - before[q])); done
	d=$((after[target] - before[target]))
	diag "queue $target: +$d, queues 0-2: +$others"
	[ $d -ge 600 ] && [ $others -lt 100 ]
}
check "4 TCP connections to port 5201 all arrive on queue $target" steered
listed() {
	local out; out=$(ethA -n kite0) || return 1
	echo "$out" | grep -q "Total 1 rules" && echo "$out" | grep -q "Filter: 5" &&
	echo "$out" | grep -q "Dest port: 5201" && echo "$out" | grep -q "Action: Direct to queue $target"
}
check "ethtool -n lists the rule" listed
dropped() {
	local d0 d1
	d0=$(kstat $NS_A rx_flow_drop)
	ethA -N kite0 flow-type udp4 dst-port 9999 action -1 || return 1
	ip netns exec $NS_B python3 $(dirname "$0")/l4tool.py send $IP_A 9999 50 100 || return 1
	sleep 1
	d1=$(kstat $NS_A rx_flow_drop)
	diag "rx_flow_drop +$((d1 - d0))"
	[ $((d1 - d0)) -eq 50 ]
}
check "a drop rule (action -1) drops a UDP flow, counted in rx_flow_drop" dropped
# ethtool 6.1 exits 0 when the kernel refuses a rule: check what it prints.
refused() { ethA -N kite0 "$@" 2>&1 | grep -q 'Cannot insert'; }
check "a rule to a queue beyond the 4 channels is refused" refused flow-type udp4 dst-port 7000 action 9
check "a rule with a partial address mask is refused" refused flow-type tcp4 dst-ip $IP_A m 0.0.0.255 action 1
kept() {
	ip -n $NS_A link set kite0 down && ip -n $NS_A link set kite0 up && wait_carrier $NS_A 1 &&
	ip netns exec $NS_A ping -c 1 -W 3 $IP_B > /dev/null && listed2 && steered
}
listed2() { ethA -n kite0 | grep -q "Total 2 rules"; }
check "rules survive down/up and still steer" kept
deleted() {
	local loc
	for loc in $(ethA -n kite0 | awk '/^Filter:/ { print $2 }'); do ethA -N kite0 delete $loc || return 1; done
	ethA -n kite0 | grep -q "Total 0 rules"
}
check "ethtool -N delete removes the rules" deleted
check "no warnings in dmesg" dmesg_clean
cleanup_b2b
tap_done
