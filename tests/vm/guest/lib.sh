#!/bin/bash
# Helpers for Kite's in-guest tests (kselftest-style TAP). Sourced by each test.
# Layout in the guest: /kite/modules/*.ko, /kite/tests/*.sh (this folder).
set -u
KITE=${KITE:-/kite}
NS_A=kiteA
NS_B=kiteB
IP_A=192.0.2.1
IP_B=192.0.2.2
IP6_A=2001:db8::1
IP6_B=2001:db8::2
_tap_n=0
_tap_fail=0

tap_plan() { echo "TAP version 13"; echo "1..$1"; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_fail=$((_tap_fail + 1)); echo "not ok $_tap_n - $*"; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }
diag() { echo "# $*"; }
# check NAME CMD...: one TAP line from a command's exit status; output kept as diagnostics on failure
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name"; echo "$out" | tail -n 15 | sed 's/^/# /'; fi
}
tap_done() { [ "$_tap_fail" -eq 0 ]; exit $?; }

# Kite netdevs, in PCI order
kite_netdevs() {
	local d
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = kite ] && basename "$d"
	done
	return 0
}

load_kite() {
	if ! grep -q '^kite ' /proc/modules; then
		modprobe -q page_pool 2>/dev/null
		insmod "$KITE/modules/kite.ko" || return 1
	fi
	local i
	for i in $(seq 50); do
		[ "$(kite_netdevs | wc -l)" -ge "${1:-1}" ] && return 0
		sleep 0.1
	done
	return 1
}

unload_kite() { ! grep -q '^kite ' /proc/modules || rmmod kite; }

# Put the two back-to-back Kite ports in namespaces A and B, addressed, up.
setup_b2b() {
	local mtu=${1:-1500} a b
	cleanup_b2b
	load_kite 2 || return 1
	set -- $(kite_netdevs)
	a=$1 b=$2
	ip netns add $NS_A && ip netns add $NS_B || return 1
	ip link set "$a" netns $NS_A && ip link set "$b" netns $NS_B || return 1
	ip -n $NS_A link set "$a" name kite0 mtu "$mtu" up && ip -n $NS_B link set "$b" name kite0 mtu "$mtu" up || return 1
	ip -n $NS_A link set lo up; ip -n $NS_B link set lo up
	ip -n $NS_A addr add $IP_A/24 dev kite0 && ip -n $NS_B addr add $IP_B/24 dev kite0 || return 1
	ip -n $NS_A addr add $IP6_A/64 dev kite0 nodad && ip -n $NS_B addr add $IP6_B/64 dev kite0 nodad || return 1
	wait_carrier $NS_A 1 && wait_carrier $NS_B 1
}

cleanup_b2b() {
	ip netns del $NS_A 2>/dev/null
	ip netns del $NS_B 2>/dev/null
	# netdevs return to the init namespace when their namespace goes away
	sleep 0.2
	return 0
}

# wait_listen NS PORT [t|u]: a TCP (or UDP) socket listens on PORT in NS
# (up to 10 s), so a client started next never races its server.
wait_listen() {
	local i
	for i in $(seq 100); do
		ip netns exec "$1" ss -Hln"${3:-t}" "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# wait_carrier NS WANT [TENTHS]: carrier of kite0 in NS becomes WANT
wait_carrier() {
	local i
	for i in $(seq "${3:-50}"); do
		[ "$(ip netns exec "$1" cat /sys/class/net/kite0/carrier 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# kstat NS NAME: one ethtool -S counter of kite0 in NS
kstat() { ip netns exec "$1" ethtool -S kite0 | awk -v k="$2:" '$1 == k { print $2 }'; }

dmesg_clean() {
	# no warnings, oopses or leaks reported since the test began
	! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|page_pool_release_retry|leak|refcount_t|hw csum failure|kite.*(timeout|timed out)'
}

# qsum NS REGEX: sum of the ethtool -S counters of kite0 in NS whose name matches REGEX
qsum() { ip netns exec "$1" ethtool -S kite0 | awk -v re="$2" '{ n = $1; sub(/:$/, "", n) } n ~ re { s += $2 } END { print s + 0 }'; }

# snmp NS FILE FIELD: a counter from /proc/net/snmp (FILE snmp: "Udp:InCsumErrors") or snmp6
snmp() {
	if [ "$2" = snmp6 ]; then
		ip netns exec "$1" awk -v k="$3" '$1 == k { print $2 }' /proc/net/snmp6
	else
		ip netns exec "$1" awk -v k="$3" 'BEGIN { split(k, a, ":") }
			$1 == a[1] ":" { if (!h) { for (i = 2; i <= NF; i++) if ($i == a[2]) c = i; h = 1 } else print $c }' /proc/net/snmp
	fi
}

# capture NS FILE FILTER...: tcpdump on kite0 in NS, whole frames, in the background
capture() {
	local ns=$1 file=$2 i
	shift 2
	rm -f "$file" "$file.err"
	ip netns exec "$ns" tcpdump -i kite0 -s 0 -B 65536 -U --immediate-mode -Z root -w "$file" "$@" 2> "$file.err" &
	CAPTURE_PID=$!
	for i in $(seq 50); do grep -q listening "$file.err" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
capture_stop() { sleep 1; kill -INT "$CAPTURE_PID" 2>/dev/null; wait "$CAPTURE_PID" 2>/dev/null; return 0; }
