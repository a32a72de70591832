#!/bin/bash
# The ethtool surface: rings (-G), channels (-L) live under TCP, coalescing
# (-C, adaptive via DIM), pause (-A), per-queue and standard statistics
# (-S, --groups eth-mac eth-ctrl rmon), register dump (-d), self-test (-t),
# link modes and FEC.
. "$(dirname "$0")/lib.sh"
tap_plan 16
setup_b2b 1500 || { echo "Bail out! b2b setup failed"; exit 1; }
ethA() { ip netns exec $NS_A ethtool "$@"; }
pingB() { ip netns exec $NS_A ping -q -c "${1:-3}" -i 0.05 -W 2 ${2:+-s $2} $IP_B > /dev/null; }

rings() { ethA -G kite0 rx 1024 tx 256 && ethA -g kite0 | sed -n '/Current/,$p' | grep -q '^RX:[[:space:]]*1024' &&
	ethA -g kite0 | sed -n '/Current/,$p' | grep -q '^TX:[[:space:]]*256' && pingB; }
check "-G rx 1024 tx 256 reads back, traffic flows" rings

head -c 8M /dev/urandom > /tmp/blob
want=$(sha256sum < /tmp/blob)
live_l() {
	rm -f /tmp/blob.rx
	ip netns exec $NS_B sh -c "timeout 60 nc -l -p 7100 > /tmp/blob.rx" &
	wait_listen $NS_B 7100
	( timeout 60 ip netns exec $NS_A nc -N -w 10 $IP_B 7100 < /tmp/blob ) &
	local snd=$!
	sleep 0.3; ethA -L kite0 combined 2; sleep 0.3; ethA -L kite0 combined 4
	ip netns exec $NS_B ethtool -L kite0 combined 3
	wait $snd; wait
	[ "$(sha256sum < /tmp/blob.rx)" = "$want" ]
}
check "-L 2 -> 4 (and 3 on the peer) during an 8 MiB TCP transfer: every byte arrives" live_l
check "-S has per-queue counters for the 4 channels only" sh -c \
	"ip netns exec $NS_A ethtool -S kite0 | grep -q 'tx3_packets' && ! ip netns exec $NS_A ethtool -S kite0 | grep -q 'tx4_packets'"
ip netns exec $NS_B ethtool -L kite0 combined 4

coal() { ethA -C kite0 adaptive-rx off rx-usecs 50 rx-frames 16 tx-usecs 30 tx-frames 8 && local c; c=$(ethA -c kite0) &&
	echo "$c" | grep -q '^rx-usecs:[[:space:]]*50' && echo "$c" | grep -q '^rx-frames:[[:space:]]*16' &&
	echo "$c" | grep -q '^tx-usecs:[[:space:]]*30' && echo "$c" | grep -q '^tx-frames:[[:space:]]*8' && pingB; }
check "-C rx-usecs 50 rx-frames 16 tx-usecs 30 tx-frames 8 reads back, traffic flows" coal
check "-C rx-usecs 5000 (beyond the card's 4095) refused" sh -c "! ip netns exec $NS_A ethtool -C kite0 rx-usecs 5000 2>/dev/null"
dim() {
	ethA -C kite0 adaptive-rx on && ethA -c kite0 | grep -q 'Adaptive RX: on' || return 1
	ip netns exec $NS_B iperf3 -s -D -1 -p 5301 > /dev/null 2>&1; wait_listen $NS_B 5301
	ip netns exec $NS_A iperf3 -c $IP_B -p 5301 -t 3 -R > /dev/null
}
check "-C adaptive-rx on (net DIM moves RX moderation): TCP runs" dim
ethA -C kite0 adaptive-rx off rx-usecs 8 rx-frames 32 tx-usecs 16 tx-frames 64

pause() { ethA -A kite0 rx on tx on && ethA -a kite0 | grep -q '^RX:[[:space:]]*on' && ethA -a kite0 | grep -q '^TX:[[:space:]]*on' &&
	ethA -A kite0 rx off tx off && ethA -a kite0 | grep -q '^RX:[[:space:]]*off'; }
check "-A rx/tx on and off read back" pause
check "-A autoneg on refused (fixed-speed link)" sh -c "! ip netns exec $NS_A ethtool -A kite0 autoneg on 2>/dev/null"

g0=$(ethA -S kite0 --groups eth-mac eth-ctrl rmon)
pingB 20 1000
g1=$(ethA -S kite0 --groups eth-mac eth-ctrl rmon)
echo "$g1" | grep -E 'FramesReceivedOK|FramesTransmittedOK|1024to1518|MACControl' | sed 's/^/# /'
gval() { echo "$1" | awk -v k="$2" '$0 ~ k { print $NF; exit }'; }
groups() {
	local k
	for k in eth-mac-FramesTransmittedOK eth-mac-FramesReceivedOK etherStatsPkts1024to1518Octets; do
		[ $(($(gval "$g1" "$k") - $(gval "$g0" "$k"))) -ge 20 ] || { echo "$k did not move by 20"; return 1; }
	done
	echo "$g1" | grep -q 'eth-ctrl-MACControlFramesTransmitted' && echo "$g1" | grep -q 'etherStatsUndersizePkts'
}
check "--groups eth-mac eth-ctrl rmon: frame counters and the 1024-1518 histogram bucket moved with 20 pings of 1000 bytes" groups

check "-d: register dump starts with MAGIC 'KITE' and holds the port counters" sh -c \
	"ip netns exec $NS_A ethtool -d kite0 raw on | od -An -tx1 -N4 | grep -q '45 54 49 4b' && [ \$(ip netns exec $NS_A ethtool -d kite0 raw on | wc -c) -eq $((80 + 256)) ]"
selftest() { local out; out=$(ethA -t kite0 offline) || { echo "$out"; return 1; }
	echo "$out" | grep -q 'PASS' && echo "$out" | grep -q 'Register test' && echo "$out" | sed 's/^/# /'; }
check "-t offline: register, firmware and link tests pass" selftest
check "link modes: 100000baseCR4/Full supported, speed 100000Mb/s" sh -c \
	"ip netns exec $NS_A ethtool kite0 | grep -q '100000baseCR4/Full' && ip netns exec $NS_A ethtool kite0 | grep -q 'Speed: 100000Mb/s'"
fec() { local m
	for m in rs off baser auto; do
		ethA --set-fec kite0 encoding $m || return 1
		ethA --show-fec kite0 | grep -i 'Configured FEC encodings' | grep -qi "$m" || { ethA --show-fec kite0; return 1; }
	done
	ethA --show-fec kite0 | grep -i 'Active FEC encoding' | grep -qi rs
}
check "--set-fec rs/off/baser/auto read back with --show-fec; auto is active as RS" fec
check "--set-fec with two encodings refused" sh -c "! ip netns exec $NS_A ethtool --set-fec kite0 encoding rs baser 2>/dev/null"
check "traffic after all of it" pingB 10
check "no warnings in dmesg" dmesg_clean
rm -f /tmp/blob /tmp/blob.rx
cleanup_b2b
tap_done
