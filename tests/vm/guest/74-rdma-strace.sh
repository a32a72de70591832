#!/bin/bash
# The data path makes no system calls: post_send, post_recv and poll_cq only
# touch mmapped rings and the doorbell page. A ping-pong of 2000 iterations
# must cost (almost) no more system calls than one of 100.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
tap_plan 2
dmesg -C
rdma_setup || { not_ok "setup"; rdma_cleanup; tap_done; }
calls() {
	local n=$1
	pair "strace$n" ibv_rc_pingpong -d $IB_B -g $GID_B -n $n -- \
		strace -f -c -o /tmp/strace$n.txt ibv_rc_pingpong -d $IB_A -g $GID_A -n $n $IP_B >/dev/null || return 1
	awk '$NF == "total" { print $4 }' /tmp/strace$n.txt
}
c100=$(calls 100)
c2000=$(calls 2000)
diag "system calls of the client: ${c100:-?} for 100 iterations, ${c2000:-?} for 2000"
if [ -n "$c100" ] && [ -n "$c2000" ]; then
	ok "strace -c -f runs the ping-pong"
	# 1900 more round trips, i.e. 3800 more work requests and their polls
	check "1900 more iterations cost fewer than 20 more system calls" test $((c2000 - c100)) -lt 20
else
	not_ok "strace -c -f runs the ping-pong"
	not_ok "1900 more iterations cost fewer than 20 more system calls"
fi
rdma_cleanup
tap_done
