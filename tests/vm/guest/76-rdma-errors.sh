#!/bin/bash
# Errors a user sees: an RDMA WRITE with a wrong rkey completes with a
# remote access error on the requester, the responder's memory is untouched
# and the responder counts it (pyverbs, rdma-core's Python binding).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
tap_plan 4
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
rdma_cleanup
check "no warnings in dmesg" dmesg_clean
tap_done
