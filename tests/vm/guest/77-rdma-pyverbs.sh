#!/bin/bash
# rdma-core's own pyverbs test suite (tests/run_tests.py, installed by
# rdma-core into /usr/share/doc/rdma-core/tests) on kiteA's ib device. Most
# tests connect two QPs of the same device, so their RoCE frames loop back
# inside the card. TAP: one line per test class, then the suite's verdict;
# skip reasons are listed with their counts. The plan comes last.
# vm-timeout: 900
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
RUN=/usr/share/doc/rdma-core/tests/run_tests.py
echo "TAP version 13"
dmesg -C
if ! rdma_setup; then
	not_ok "setup"; rdma_cleanup; echo "1..$_tap_n"; tap_done
fi
t0=$SECONDS
timeout 840 ip netns exec $NS_A python3 "$RUN" --dev "$IB_A" -v >/tmp/pyverbs.out 2>/tmp/pyverbs.log
rc=$?
diag "run_tests.py --dev $IB_A -v: exit $rc after $((SECONDS - t0)) s"
while IFS= read -r line; do
	case $line in
	"not ok - "*) not_ok "${line#not ok - }" ;;
	"ok - "*" # SKIP "*) l=${line#ok - }; skip "${l%% # SKIP *}" "${l#* # SKIP }" ;;
	"ok - "*) ok "${line#ok - }" ;;
	*) echo "$line" ;;
	esac
done < <(python3 "$(dirname "$0")/pyverbs_tap.py" /tmp/pyverbs.log $rc)
[ $rc -eq 124 ] && tail -n 5 /tmp/pyverbs.log | sed 's/^/# timed out: /'
rdma_cleanup
check "no warnings in dmesg" dmesg_clean
echo "1..$_tap_n"
tap_done
