#!/bin/bash
# Additional RSS contexts (ethtool -X context new|N [delete], -x context N,
# ntuple rules with "context N"): a context over queues 4-7 with its own key,
# flows steered to it land exactly where its table and key put them
# (rsscheck.py, independent Toeplitz), the main table keeps the rest; the
# errors users see for a context in use, a channel count that would leave a
# context without its queues, and the 16th context; survival across down/up.
. "$(dirname "$0")/lib.sh"
tap_plan 15
setup_b2b 1500 || { echo "Bail out! b2b setup failed"; exit 1; }
ethA() { ip netns exec $NS_A ethtool "$@"; }
ethA -L kite0 combined 8 || { echo "Bail out! cannot set 8 channels"; exit 1; }
wait_carrier $NS_A 1
ip netns exec $NS_A ping -c 1 -W 2 $IP_B > /dev/null; ip netns exec $NS_A ping -6 -c 1 -W 2 $IP6_B > /dev/null
# The main context keeps to queues 0 and 1.
ethA -X kite0 equal 2
KEY=$(python3 -c 'print(":".join("%02x" % ((i * 53 + 7) & 0xff) for i in range(40)))')
# check runs its command in a subshell: create here, judge there.
NEW=$(ethA -X kite0 context new weight 0 0 0 0 1 2 0 1 hkey "$KEY" 2>&1)
CTX=$(echo "$NEW" | sed -n 's/^New RSS context is \([0-9]*\)$/\1/p')
created() { echo "$NEW"; [ -n "$CTX" ] && [ "$CTX" -ge 1 ]; }
check "ethtool -X context new weight 0 0 0 0 1 2 0 1 hkey K: a new context number" created
[ -n "$CTX" ] || { echo "Bail out! no context"; exit 1; }
reads_back() {
	local out q
	out=$(ethA -x kite0 context "$CTX") || return 1
	q=$(echo "$out" | grep -E '^ +[0-9]+: ' | cut -d: -f2 | tr -s ' ' '\n' | grep . | sort -un | tr '\n' ' ')
	diag "context $CTX uses queues: $q"
	[ "$q" = "4 5 7 " ] &&
	[ "$(echo "$out" | grep -E '^ +[0-9]+: ' | cut -d: -f2 | tr -s ' ' '\n' | grep -c '^5$')" -eq 128 ] &&
	echo "$out" | sed -n '/RSS hash key/{n;p}' | grep -qx "$KEY" &&
	! ethA -x kite0 | sed -n '/RSS hash key/{n;p}' | grep -qx "$KEY"
}
check "ethtool -x context N: its table (queues 4 5 7, 5 weighted twice) and key, not the main ones" reads_back
check "ethtool -N flow-type udp4 dst-port 6100 context N" ethA -N kite0 flow-type udp4 dst-port 6100 context "$CTX" loc 3
check "ethtool -N flow-type tcp6 dst-port 6200 context N" ethA -N kite0 flow-type tcp6 dst-port 6200 context "$CTX" loc 4
listed() { ethA -n kite0 rule 3 | grep -q "RSS Context ID: $CTX"; }
check "ethtool -n shows the rule's context" listed
check "64 UDP/IPv4 flows to the rule's port land per the context's key and table, only on its queues" \
	python3 $KITE/tests/rsscheck.py ctx "$CTX" udp 4 6100
check "64 TCP/IPv6 flows (SYNs) to the other rule's port likewise" \
	python3 $KITE/tests/rsscheck.py ctx "$CTX" tcp 6 6200
check "flows to another port keep to the main context (queues 0-1)" \
	python3 $KITE/tests/rsscheck.py ctx 0 udp 4 6300
# ethtool 6.1 does not always exit non-zero when the kernel refuses: judge
# by what it prints, and by the state afterwards.
busy() {
	local out
	out=$(ethA -X kite0 context "$CTX" delete 2>&1)
	diag "$out"
	echo "$out" | grep -q 'Device or resource busy' && ethA -x kite0 context "$CTX" > /dev/null
}
check "deleting a context a rule steers to fails with EBUSY; the context stays" busy
shrink() {
	local out
	out=$(ethA -L kite0 combined 6 2>&1)
	diag "$out"
	[ "$(ethA -l kite0 | awk '/^Combined:/ { v = $2 } END { print v }')" = 8 ] &&
	echo "$out" | grep -q 'Invalid argument'
}
check "-L combined 6 refused while the context uses queue 7" shrink
kept() {
	ip -n $NS_A link set kite0 down && ip -n $NS_A link set kite0 up && wait_carrier $NS_A 1 &&
	ip netns exec $NS_A ping -c 1 -W 3 $IP_B > /dev/null &&
	python3 $KITE/tests/rsscheck.py ctx "$CTX" udp 4 6100
}
check "context and rule survive down/up and still steer" kept
too_many() {
	local n=1 out ids=() id rc=0
	# the card has 16 contexts per port, the main one included
	while [ $n -lt 16 ]; do
		out=$(ethA -X kite0 context new equal 2 2>&1)
		id=$(echo "$out" | sed -n 's/^New RSS context is \([0-9]*\)$/\1/p')
		[ -n "$id" ] || break
		ids+=("$id")
		n=$((n + 1))
	done
	diag "created ${#ids[@]} more contexts (want 14); then: $out"
	[ ${#ids[@]} -eq 14 ] || rc=1
	out=$(ethA -X kite0 context new equal 2 2>&1)
	diag "the 16th: $out"
	echo "$out" | grep -q 'New RSS context' && rc=1
	echo "$out" | grep -q 'Device or resource busy' || rc=1
	for id in "${ids[@]}"; do ethA -X kite0 context "$id" delete || rc=1; done
	return $rc
}
check "15 additional contexts fit, the 16th fails with EBUSY" too_many
deleted() {
	ethA -N kite0 delete 3 && ethA -N kite0 delete 4 &&
	ethA -X kite0 context "$CTX" delete &&
	! ethA -x kite0 context "$CTX" > /dev/null 2>&1 &&
	python3 $KITE/tests/rsscheck.py ctx 0 udp 4 6100 &&
	ethA -X kite0 default && ethA -L kite0 combined 4
}
check "rules and context deleted: its flows return to the main context; -L 4 allowed again" deleted
# rmmod with a context and a rule to it in place (6.12: the core removes
# the context while unregistering; the card objects go at close).
removed() {
	local out id
	out=$(ethA -X kite0 context new equal 2 2>&1)
	id=$(echo "$out" | sed -n 's/^New RSS context is \([0-9]*\)$/\1/p')
	[ -n "$id" ] && ethA -N kite0 flow-type udp4 dst-port 6100 context "$id" loc 1 || return 1
	cleanup_b2b
	unload_kite && load_kite 2
}
check "rmmod with a context and its rule in place, then reload" removed
check "no warnings in dmesg" dmesg_clean
cleanup_b2b
tap_done
