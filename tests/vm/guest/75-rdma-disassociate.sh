#!/bin/bash
# Removing the device under running RDMA programs: kite_ib unloads without
# waiting for them, they get IBV_EVENT_DEVICE_FATAL, nothing crashes, and the
# device comes back when the module is loaded again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
tap_plan 5
dmesg -C
rdma_setup || { not_ok "setup"; rdma_cleanup; tap_done; }
# a context with PD, MR, CQ, QP waiting for its peer, and an event watcher
# (started without a wrapper, so that $! is the program and kill ends it)
ip netns exec $NS_B ibv_rc_pingpong -d $IB_B -g $GID_B >/tmp/pp.out 2>&1 &
pp=$!
ip netns exec $NS_B ibv_asyncwatch -d $IB_B >/tmp/aw.out 2>&1 &
aw=$!
sleep 2
check "the device is in use (uverbs objects exist)" sh -c "ip netns exec $NS_B rdma resource show qp | grep -q 'type RC'"
t0=$(date +%s)
check "rmmod kite_ib returns with programs still running" timeout 60 rmmod kite_ib
diag "rmmod took $(($(date +%s) - t0)) s"
sleep 1
check "ibv_asyncwatch got IBV_EVENT_DEVICE_FATAL" grep -q DEVICE_FATAL /tmp/aw.out
kill $pp $aw 2>/dev/null; wait $pp $aw 2>/dev/null
insmod "$KITE/modules/kite_ib.ko"
sleep 1
check "the ib devices come back" sh -c "[ \$(ls /sys/class/infiniband | wc -l) -ge 1 ]"
rdma_cleanup
check "no warnings in dmesg" dmesg_clean
tap_done
