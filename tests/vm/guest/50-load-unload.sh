#!/bin/bash
# 20 load/unload cycles with traffic in between: no leak, no warning.
. "$(dirname "$0")/lib.sh"
tap_plan 5
cycles=20
dmesg -C
setup_b2b 1500 >/dev/null && cleanup_b2b
unload_kite
sync; echo 3 > /proc/sys/vm/drop_caches
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
sync; echo 3 > /proc/sys/vm/drop_caches
slab1=$(awk '/^Slab:/ {print $2}' /proc/meminfo)
avail1=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
diag "slab ${slab0} -> ${slab1} KiB, available ${avail0} -> ${avail1} KiB"
# A leak of one page per RX buffer or of one queue per cycle would show as MiBs.
check "slab grew less than 2 MiB over $cycles cycles" test $((slab1 - slab0)) -lt 2048
check "available memory fell less than 8 MiB over $cycles cycles" test $((avail0 - avail1)) -lt 8192
check "no warnings in dmesg" dmesg_clean
tap_done
