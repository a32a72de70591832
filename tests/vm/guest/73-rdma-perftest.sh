#!/bin/bash
# Debian's perftest over Kite: bandwidth and latency of WRITE, READ, SEND and
# atomics, small and large messages, many QPs, and connection setup through
# rdma_cm (-R). Results are printed as diagnostics (MB/s, usec).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
tap_plan 16
dmesg -C
rdma_setup || { not_ok "setup"; rdma_cleanup; tap_done; }
# perf NAME TOOL ARGS...: server in B, client in A, one TAP line plus the
# result row (bytes, iterations, then the tool's figures).
perf() {
	local name=$1 tool=$2 row
	shift 2
	if pair "$tool" "$tool" -d "$IB_B" -F "$@" -- "$tool" -d "$IB_A" -F "$@" $IP_B; then
		row=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+/ { r = $0 } END { print r }' "/tmp/$tool.cli")
		if [ -n "$row" ]; then ok "$name"; diag "$name: $(echo $row)"; else not_ok "$name (no result row)"; fi
	else
		not_ok "$name"
	fi
}
X="-x $GID_A"	# both sides' IPv4 GIDs have the same index
[ "$GID_A" = "$GID_B" ] || diag "GID indexes differ: $GID_A / $GID_B"
perf "ib_write_bw 64 KiB" ib_write_bw $X -s 65536 -n 500
perf "ib_write_bw 1 MiB" ib_write_bw $X -s 1048576 -n 40
perf "ib_write_bw 64 B, 8 QPs" ib_write_bw $X -s 64 -n 500 -q 8
perf "ib_read_bw 1 KiB, 16 outstanding" ib_read_bw $X -s 1024 -n 1000
perf "ib_read_bw 64 KiB (multi-packet responses)" ib_read_bw $X -s 65536 -n 100
# Responses must arrive in order: a wire that reorders shows up here.
no_read_oos() { [ "$(in_a rdma statistic show link "$IB_A/1" | grep -o 'out_of_sequence [0-9]*' | cut -d' ' -f2)" = 0 ]; }
check "READ responses arrived in order (out_of_sequence 0)" no_read_oos
perf "ib_send_bw 64 KiB" ib_send_bw $X -s 65536 -n 300
perf "ib_send_bw 2 B" ib_send_bw $X -s 2 -n 1000
perf "ib_atomic_bw fetch-and-add" ib_atomic_bw $X -n 500
perf "ib_write_bw 64 KiB over rdma_cm (-R)" ib_write_bw -R -s 65536 -n 300
perf "ib_send_lat 64 B" ib_send_lat $X -s 64 -n 300
perf "ib_write_lat 64 B" ib_write_lat $X -s 64 -n 300
perf "ib_read_lat 64 B" ib_read_lat $X -s 64 -n 300
perf "ib_atomic_lat" ib_atomic_lat $X -n 300
perf "ib_send_lat 4 KiB over rdma_cm (-R)" ib_send_lat -R -s 4096 -n 200
rdma_cleanup
check "no warnings in dmesg" dmesg_clean
tap_done
