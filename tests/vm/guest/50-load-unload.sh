#!/bin/bash
# 20 load/unload cycles with traffic in between: no leak, no warning.
. "$(dirname "$0")/lib.sh"
tap_plan 5
cycles=20
dmesg -C
# settle: let deferred frees (RCU, page_pool release work, TIME_WAIT sockets) finish
settle() { sleep 2; sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }
# The baseline follows one full cycle with traffic, so one-time allocations
# (first netns, IPv6 tables, module text caches) are not mistaken for a leak.
setup_b2b 1500 >/dev/null && ip netns exec $NS_A ping -c 2 -i 0.1 -W 2 -q $IP_B >/dev/null
cleanup_b2b
unload_kite
settle
slab0=$(awk '/^Slab:/ {print $2}' /proc/meminfo)
avail0=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
fails=0
for i in $(seq $cycles); do
	if ! setup_b2b 1500 >/dev/null 2>&1 || ! ip netns exec $NS_A ping -c 2 -i 0.1 -W 2 -q $IP_B >/dev/null; then
		fails=$((fails + 1)); diag "cycle $i: traffic failed"
	fi
	cleanup_b2b
	unload_kite || { fails=$((fails + 1)); diag "cycle $i: rmmod failed"; }
done
[ $fails -eq 0 ] && ok "$cycles cycles of load, ping, unload" || not_ok "$cycles cycles of load, ping, unload ($fails failed)"
check "module is gone" sh -c "! grep -q '^kite ' /proc/modules"
settle
slab1=$(awk '/^Slab:/ {print $2}' /proc/meminfo)
avail1=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
diag "slab ${slab0} -> ${slab1} KiB, available ${avail0} -> ${avail1} KiB"
# Each cycle allocates 2 cards x 4 channels x 512 RX pages (16 MiB) plus rings:
# leaking them shows as 16+ MiB per cycle, 320 MiB over the run. MemAvailable
# swings by about +-25 MiB between identical runs (page cache, per-CPU lists),
# so the bound is 64 MiB: it catches a per-cycle leak of pages or rings, not a
# few bytes (Debian's kernel has no kmemleak). Slab is steadier: 2 MiB.
check "slab grew less than 2 MiB over $cycles cycles" test $((slab1 - slab0)) -lt 2048
check "available memory fell less than 64 MiB over $cycles cycles" test $((avail0 - avail1)) -lt 65536
check "no warnings in dmesg" dmesg_clean
tap_done
