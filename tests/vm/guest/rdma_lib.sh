#!/bin/bash
# RDMA helpers for the *-rdma-*.sh tests (sourced after lib.sh). The b2b VM's
# two Kite cards each get a network namespace, and in exclusive RDMA netns
# mode their ib devices follow: kiteA holds IB_A on kite0 (IP_A), kiteB holds
# IB_B (IP_B). rdma-core 56.1 with the Kite provider is in the payload
# (tests/vm/run.py --rdma). No udev in the guest: modules are loaded here.
IB_A=
IB_B=
GID_A=
GID_B=

# ib device whose parent is the PCI function of netdev $1
ib_of_netdev() {
	local pci d
	pci=$(basename "$(readlink -f "/sys/class/net/$1/device")")
	for d in /sys/class/infiniband/*; do
		[ "$(basename "$(readlink -f "$d/device")")" = "$pci" ] && basename "$d" && return 0
	done
	return 1
}

# gid_v4 NS DEV: index of the RoCEv2 GID holding kite0's IPv4 address
gid_v4() {
	ip netns exec "$1" sh -c '
		for g in /sys/class/infiniband/'"$2"'/ports/1/gids/*; do
			case $(cat "$g") in 0000:0000:0000:0000:0000:ffff:c000:02*)
				i=${g##*/}
				[ "$(cat /sys/class/infiniband/'"$2"'/ports/1/gid_attrs/types/$i)" = "RoCE v2" ] &&
					echo "$i" && exit 0 ;;
			esac
		done; exit 1'
}

# _try CMD...: run, or say which setup step failed
_try() { "$@" || { echo "# rdma_setup: failed: $*"; return 1; }; }

rdma_setup() {
	local a b i
	cleanup_b2b
	_try modprobe -a ib_uverbs rdma_ucm ib_umad || return 1
	# Exclusive mode can only be entered while no other netns exists.
	rdma system set netns exclusive 2>/dev/null
	_try sh -c 'rdma system show | grep -q "netns exclusive"' || return 1
	_try load_kite 2 || return 1
	grep -q '^kite_ib ' /proc/modules || _try insmod "$KITE/modules/kite_ib.ko" || return 1
	set -- $(kite_netdevs)
	a=$1 b=$2
	for i in $(seq 50); do
		IB_A=$(ib_of_netdev "$a") && IB_B=$(ib_of_netdev "$b") && break
		sleep 0.1
	done
	[ -n "$IB_A" ] && [ -n "$IB_B" ] || { echo "# rdma_setup: no ib devices for $a $b"; return 1; }
	_try ip netns add $NS_A && _try ip netns add $NS_B || return 1
	_try rdma dev set "$IB_A" netns $NS_A && _try rdma dev set "$IB_B" netns $NS_B || return 1
	_try ip link set "$a" netns $NS_A && _try ip link set "$b" netns $NS_B || return 1
	_try ip -n $NS_A link set "$a" name kite0 up && _try ip -n $NS_B link set "$b" name kite0 up || return 1
	ip -n $NS_A link set lo up; ip -n $NS_B link set lo up
	_try ip -n $NS_A addr add $IP_A/24 dev kite0 && _try ip -n $NS_B addr add $IP_B/24 dev kite0 || return 1
	_try ip -n $NS_A addr add $IP6_A/64 dev kite0 nodad && _try ip -n $NS_B addr add $IP6_B/64 dev kite0 nodad || return 1
	_try wait_carrier $NS_A 1 && _try wait_carrier $NS_B 1 || return 1
	# The core adds GIDs as addresses appear.
	for i in $(seq 50); do
		GID_A=$(gid_v4 $NS_A "$IB_A") && GID_B=$(gid_v4 $NS_B "$IB_B") && break
		sleep 0.1
	done
	[ -n "$GID_A" ] && [ -n "$GID_B" ] || { echo "# rdma_setup: no IPv4 RoCEv2 GIDs"; return 1; }
	# The kernel learns the peer's MAC before rdma_cm/AH resolution needs it.
	ip netns exec $NS_A ping -c 1 -W 2 -q $IP_B >/dev/null
}

rdma_cleanup() {
	cleanup_b2b
	grep -q '^kite_ib ' /proc/modules && rmmod kite_ib
	return 0
}

# in NS CMD...: run in a namespace
in_a() { ip netns exec $NS_A "$@"; }
in_b() { ip netns exec $NS_B "$@"; }

# pair NAME SERVER_CMD -- CLIENT_CMD: server in B (background), client in A
# after a short delay; both must exit 0 within T seconds (default 60). Output
# of both lands in /tmp/NAME.{srv,cli}.
pair() {
	local name=$1 t=${T:-60} srv=() cli=() spid rc_s rc_c
	shift
	while [ "$1" != "--" ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	timeout "$t" ip netns exec $NS_B "${srv[@]}" >"/tmp/$name.srv" 2>&1 &
	spid=$!
	sleep "${DELAY:-1}"
	# A loaded machine can take longer than DELAY to bring the server up:
	# wait (up to 15 s) for its TCP or rdma_cm listener before the client.
	local i
	for i in $(seq 150); do
		{ ip netns exec $NS_B ss -Hltn | grep -q . ||
		  ip netns exec $NS_B rdma resource show cm_id 2>/dev/null | grep -q LISTEN; } && break
		kill -0 $spid 2>/dev/null || break
		sleep 0.1
	done
	timeout "$t" ip netns exec $NS_A "${cli[@]}" >"/tmp/$name.cli" 2>&1
	rc_c=$?
	wait $spid
	rc_s=$?
	if [ $rc_c -ne 0 ] || [ $rc_s -ne 0 ]; then
		echo "# $name: client exit $rc_c, server exit $rc_s"
		tail -n 8 "/tmp/$name.cli" | sed 's/^/# cli: /'
		tail -n 8 "/tmp/$name.srv" | sed 's/^/# srv: /'
		return 1
	fi
	return 0
}

# tpair NAME ...: pair, as one TAP line
tpair() {
	local name=$1
	if pair "$@"; then ok "$name"; else not_ok "$name"; fi
}
