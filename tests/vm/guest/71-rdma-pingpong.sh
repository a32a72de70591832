#!/bin/bash
# rdma-core's example programs over Kite: RC, UD and SRQ ping-pong with the
# received buffers checked (--chk), by polling and with completion events.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
tap_plan 6
dmesg -C
rdma_setup || { not_ok "setup"; rdma_cleanup; tap_done; }
A="-d $IB_A -g $GID_A"
B="-d $IB_B -g $GID_B"
tpair "ibv_rc_pingpong 4 KiB x 500, buffers checked" \
	ibv_rc_pingpong $B -n 500 -c -- ibv_rc_pingpong $A -n 500 -c $IP_B
diag "$(grep -h 'bytes in' /tmp/ibv_rc_pingpong*.cli)"
tpair "ibv_rc_pingpong 64 KiB x 50 at MTU 1024, completion events" \
	ibv_rc_pingpong $B -s 65536 -n 50 -m 1024 -e -c -- ibv_rc_pingpong $A -s 65536 -n 50 -m 1024 -e -c $IP_B
tpair "ibv_ud_pingpong 1 KiB x 500" \
	ibv_ud_pingpong $B -s 1024 -n 500 -c -- ibv_ud_pingpong $A -s 1024 -n 500 -c $IP_B
tpair "ibv_srq_pingpong 16 QPs on one SRQ x 200" \
	ibv_srq_pingpong $B -q 16 -n 200 -c -- ibv_srq_pingpong $A -q 16 -n 200 -c $IP_B
tpair "ibv_rc_pingpong over the IPv6 GID" \
	ibv_rc_pingpong -d $IB_B -g $(ip netns exec $NS_B sh -c "grep -l '^2001:0db8' /sys/class/infiniband/$IB_B/ports/1/gids/* | head -1 | xargs basename") -n 100 -c -- \
	ibv_rc_pingpong -d $IB_A -g $(ip netns exec $NS_A sh -c "grep -l '^2001:0db8' /sys/class/infiniband/$IB_A/ports/1/gids/* | head -1 | xargs basename") -n 100 -c $IP_B
rdma_cleanup
check "no warnings in dmesg" dmesg_clean
tap_done
