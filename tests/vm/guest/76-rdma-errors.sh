#!/bin/bash
# Errors a user sees: an RDMA WRITE with a wrong rkey completes with a
# remote access error on the requester, the responder's memory is untouched
# and the responder counts it (pyverbs, rdma-core's Python binding). A user
# CQ that overflows raises IBV_EVENT_CQ_ERR for its owner and leaves the
# Ethernet side of the card alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
tap_plan 7
dmesg -C
rdma_setup || { not_ok "setup"; rdma_cleanup; tap_done; }
d=$(mktemp -d)
py="python3 $(dirname "$0")/rdma_rkey.py"
ip netns exec $NS_B $py $IB_B $GID_B responder $d >/tmp/rkey.srv 2>&1 &
srv=$!
req=$(timeout 60 ip netns exec $NS_A $py $IB_A $GID_A requester $d 2>&1)
wait $srv
diag "requester: $req; responder: $(cat /tmp/rkey.srv)"
check "WRITE with a wrong rkey completes with IBV_WC_REM_ACCESS_ERR" sh -c "echo '$req' | grep -q REM_ACCESS_ERR"
check "the responder's buffer is untouched" grep -q intact /tmp/rkey.srv
check "the responder counted a remote access error" \
	sh -c "ip netns exec $NS_B rdma statistic show link $IB_B/1 | grep -q 'remote_access_errors [1-9]'"
rm -rf "$d"

ovf=$(timeout 60 ip netns exec $NS_A python3 "$(dirname "$0")/rdma_cq_overflow.py" $IB_A $GID_A 2>&1)
diag "cq overflow: $(echo "$ovf" | tr '\n' ' ')"
check "an overflowing user CQ raises IBV_EVENT_CQ_ERR for its owner" sh -c "echo '$ovf' | grep -q cq_err"
check "kite.ko does not rebuild its channels for a CQ it does not own" \
	sh -c "! dmesg | grep -q 'rebuilding'"
check "Ethernet keeps working after the user's CQ overflow" \
	ip netns exec $NS_A ping -c 3 -i 0.2 -W 2 $IP_B
rdma_cleanup
check "no warnings in dmesg" dmesg_clean
tap_done
