#!/bin/bash
# Checksum offload, TSO and USO as the peer sees them on the wire: tcpdump on
# the receiving port (GRO off, so every wire frame is captured) and an
# independent check of sizes and checksums (pcapcheck.py); RX checksum
# reporting: verified, bad (counted, left to the stack) and CHECKSUM_COMPLETE.
. "$(dirname "$0")/lib.sh"
T=$KITE/tests
tap_plan 33
setup_b2b 1500 || { echo "Bail out! b2b setup failed"; exit 1; }
ip netns exec $NS_B ethtool -K kite0 gro off
modprobe -q 8021q
for ns in $NS_A $NS_B; do
	ip -n $ns link add link kite0 name v10 type vlan id 10 && ip -n $ns link set v10 up
done
ip -n $NS_A addr add 198.51.100.1/24 dev v10 && ip -n $NS_B addr add 198.51.100.2/24 dev v10
ip -n $NS_A addr add 2001:db8:10::1/64 dev v10 nodad && ip -n $NS_B addr add 2001:db8:10::2/64 dev v10 nodad
check "VLAN 10 on both ports answers ping" ip netns exec $NS_A ping -c 2 -i 0.2 -W 2 198.51.100.2

head -c 2M /dev/urandom > /tmp/blob
want=$(sha256sum < /tmp/blob)
xfer() { # TO_IP PORT
	local fam=-4
	case $1 in *:*) fam=-6 ;; esac
	rm -f /tmp/blob.rx
	ip netns exec $NS_B sh -c "timeout 60 nc $fam -l -p $2 > /tmp/blob.rx" &
	wait_listen $NS_B "$2"
	timeout 60 ip netns exec $NS_A nc -N -w 10 "$1" "$2" < /tmp/blob
	wait $!
	[ "$(sha256sum < /tmp/blob.rx)" = "$want" ]
}
# frames the receiving port lost before tcpdump could see them
rx_lost() { echo $(($(kstat $NS_B rx_no_buffer) + $(ip netns exec $NS_B cat /sys/class/net/kite0/statistics/rx_dropped))); }
tso_case() { # NAME DST PORT IPVER MSS VLAN
	local lso0 tso0 lost0
	lso0=$(kstat $NS_A tx_lso); tso0=$(qsum $NS_A '^tx[0-9]+_tso$'); lost0=$(rx_lost)
	capture $NS_B /tmp/tso.pcap tcp port "$3"
	check "TSO $1: 2 MiB arrives intact" xfer "$2" "$3"
	capture_stop
	check "TSO $1: on the wire every segment <= MSS $5, most = MSS, checksums valid, seq/IP ID contiguous" \
		python3 $T/pcapcheck.py /tmp/tso.pcap --l4 tcp --ip "$4" --mss "$5" --vlan "$6" --min 1000 \
		--capture-log /tmp/tso.pcap.err --peer-drops $(($(rx_lost) - lost0))
	python3 $T/pcapcheck.py /tmp/tso.pcap --l4 tcp --ip "$4" --mss "$5" --vlan "$6" 2>/dev/null | head -1
	moved() { [ $(($(kstat $NS_A tx_lso) - lso0)) -gt 10 ] && [ $(($(qsum $NS_A '^tx[0-9]+_tso$') - tso0)) -gt 10 ]; }
	check "TSO $1: the card segmented super-frames (tx_lso $(($(kstat $NS_A tx_lso) - lso0)))" moved
}
tso_case "IPv4" $IP_B 7001 4 1448 0
tso_case "IPv6" $IP6_B 7002 6 1428 0
tso_case "IPv4 over VLAN 10" 198.51.100.2 7003 4 1448 10
tso_case "IPv6 over VLAN 10" 2001:db8:10::2 7004 6 1428 10

udp_case() { # NAME DST PORT IPVER COUNT SIZE GSO
	local want=$5 csum0 uso0
	[ "$7" -gt 0 ] && want=$(($5 * $6 / $7))
	csum0=$(qsum $NS_A '^tx[0-9]+_csum$'); uso0=$(qsum $NS_A '^tx[0-9]+_uso$')
	capture $NS_B /tmp/udp.pcap udp port "$3"
	ip netns exec $NS_B python3 $T/l4tool.py recv "$2" "$3" "$want" 10 > /tmp/udp.rx &
	wait_listen $NS_B "$3" u
	ip netns exec $NS_A python3 $T/l4tool.py send "$2" "$3" "$5" "$6" "$7"
	wait $!
	capture_stop
	check "$1: $want/$want datagrams delivered ($(cat /tmp/udp.rx))" test "$(cut -d' ' -f1 /tmp/udp.rx)" = "$want"
	local mss=$6
	[ "$7" -gt 0 ] && mss=$7
	check "$1: on the wire $want datagrams of $mss bytes, checksums valid" \
		python3 $T/pcapcheck.py /tmp/udp.pcap --l4 udp --ip "$4" --mss "$mss" --min "$want" --capture-log /tmp/udp.pcap.err
	if [ "$7" -gt 0 ]; then
		check "$1: $5 super-frames went to the card as USO" test $(($(qsum $NS_A '^tx[0-9]+_uso$') - uso0)) -eq "$5"
	else
		check "$1: checksums were offloaded (tx csum counters moved)" test $(($(qsum $NS_A '^tx[0-9]+_csum$') - csum0)) -ge "$5"
	fi
}
udp_case "UDP/IPv4 checksum" $IP_B 7101 4 20 1000 0
udp_case "UDP/IPv6 checksum" $IP6_B 7102 6 20 1000 0
udp_case "USO IPv4 (8000 bytes, UDP_SEGMENT 1000)" $IP_B 7103 4 5 8000 1000
udp_case "USO IPv6 (8000 bytes, UDP_SEGMENT 1000)" $IP6_B 7104 6 5 8000 1000

check "RX: the peer's card verified TCP/UDP checksums (rx csum_ok $(qsum $NS_B '^rx[0-9]+_csum_ok$'))" \
	test "$(qsum $NS_B '^rx[0-9]+_csum_ok$')" -gt 1000

mac_a=$(ip netns exec $NS_A cat /sys/class/net/kite0/address)
bad_case() { # NAME SRC DST SNMPFILE FIELD
	local p0 d0 s0
	p0=$(kstat $NS_A rx_bad_csum); d0=$(qsum $NS_A '^rx[0-9]+_csum_bad$'); s0=$(snmp $NS_A "$4" "$5")
	ip netns exec $NS_B python3 $T/l4tool.py badcsum kite0 "$mac_a" "$2" "$3" 10
	sleep 1
	check "$1: 10 frames with a bad UDP checksum counted by the card (rx_bad_csum) and the driver (csum_bad)" \
		test $(($(kstat $NS_A rx_bad_csum) - p0)) -eq 10 -a $(($(qsum $NS_A '^rx[0-9]+_csum_bad$') - d0)) -eq 10
	check "$1: delivered as CHECKSUM_NONE: the stack found and counted them ($5)" \
		test $(($(snmp $NS_A "$4" "$5") - s0)) -eq 10
}
bad_case "IPv4" $IP_B $IP_A snmp Udp:InCsumErrors
bad_case "IPv6" $IP6_B $IP6_A snmp6 Udp6InCsumErrors

c0=$(qsum $NS_A '^rx[0-9]+_csum_complete$')
check "ICMP echo (neither TCP nor UDP) answered" ip netns exec $NS_B ping -q -c 20 -i 0.05 -W 2 $IP_A
check "ICMP echo requests arrived with CHECKSUM_COMPLETE ($(($(qsum $NS_A '^rx[0-9]+_csum_complete$') - c0)))" \
	test $(($(qsum $NS_A '^rx[0-9]+_csum_complete$') - c0)) -ge 20
check "no warnings (and no 'hw csum failure') in dmesg" dmesg_clean
rm -f /tmp/blob /tmp/blob.rx /tmp/tso.pcap* /tmp/udp.pcap* /tmp/udp.rx
cleanup_b2b
tap_done
