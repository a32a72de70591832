#!/bin/bash
# Per-QP counters (`rdma statistic qp`): manual bind and unbind, auto mode
# by QP type; a counter counts exactly what its QPs sent while bound
# (rdma_qp_counter.py, pyverbs, prints one line per check).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
NCHECKS=18
tap_plan $((NCHECKS + 3))
dmesg -C
rdma_setup || { not_ok "setup"; rdma_cleanup; tap_done; }
timeout 120 ip netns exec $NS_A python3 "$(dirname "$0")/rdma_qp_counter.py" $IB_A $GID_A >/tmp/qpcnt.out 2>&1
n=0
while IFS= read -r l; do
	case $l in
	"ok "*) ok "${l#ok }"; n=$((n + 1)) ;;
	"not ok "*) not_ok "${l#not ok }"; n=$((n + 1)) ;;
	*) diag "$l" ;;
	esac
done </tmp/qpcnt.out
check "rdma_qp_counter.py ran all $NCHECKS checks (ran $n)" sh -c "[ $n -eq $NCHECKS ] && grep -q '^done' /tmp/qpcnt.out"
check "port counters still answer" sh -c "ip netns exec $NS_A rdma statistic show link $IB_A/1 | grep -q 'tx_packets [1-9]'"
rdma_cleanup
check "no warnings in dmesg" dmesg_clean
tap_done
