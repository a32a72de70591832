#!/bin/bash
# rdma_cm over Kite: connection setup uses the kernel's CM on the GSI QP
# (QP1 MADs through kite_ib's kernel post_send/post_recv/poll_cq), data
# moves on user QPs. rping verifies its data, ucmatose runs RC connections,
# udaddy UD.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
tap_plan 6
dmesg -C
rdma_setup || { not_ok "setup"; rdma_cleanup; tap_done; }
tpair "rping 20 pings, data verified" \
	rping -s -a $IP_B -C 20 -V -- rping -c -a $IP_B -C 20 -V
tpair "rping over IPv6, 32 KiB" \
	rping -s -a $IP6_B -C 10 -S 32768 -V -- rping -c -a $IP6_B -C 10 -S 32768 -V
tpair "ucmatose: 4 RC connections x 50 messages" \
	ucmatose -b $IP_B -c 4 -C 50 -- ucmatose -s $IP_B -c 4 -C 50
tpair "udaddy: 4 UD endpoints x 50 messages" \
	udaddy -b $IP_B -c 4 -C 50 -- udaddy -s $IP_B -c 4 -C 50
check "no connection left behind (rdma resource cm_id empty)" \
	sh -c "[ -z \"\$(ip netns exec $NS_A rdma resource show cm_id 2>/dev/null)\" ]"
rdma_cleanup
check "no warnings in dmesg" dmesg_clean
tap_done
