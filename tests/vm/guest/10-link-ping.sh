#!/bin/bash
# Bring-up, identity, ping both ways at MTU 1500 and 9000 (IPv4 and IPv6).
. "$(dirname "$0")/lib.sh"
tap_plan 11
dmesg -C
check "driver loads and binds both cards" load_kite 2
drvinfo() { ethtool -i "$(kite_netdevs | head -1)" | grep -qx 'driver: kite'; }
devinfo() { local i; i=$(devlink dev info) && echo "$i" && grep -q 'driver kite' <<<"$i" && grep -q 'serial_number' <<<"$i" && grep -q 'fw' <<<"$i"; }
check "ethtool -i reports driver kite" drvinfo
check "devlink dev info shows driver, fw and serial" devinfo
check "namespaces wired, carrier up" setup_b2b 1500
check "ping A->B (IPv4)" ip netns exec $NS_A ping -c 3 -i 0.2 -W 2 $IP_B
check "ping B->A (IPv4)" ip netns exec $NS_B ping -c 3 -i 0.2 -W 2 $IP_A
check "ping A->B (IPv6)" ip netns exec $NS_A ping -6 -c 3 -i 0.2 -W 2 $IP6_B
jumbo() { ip -n $NS_A link set kite0 mtu 9000 && ip -n $NS_B link set kite0 mtu 9000; }
check "MTU 9000 on both ends" jumbo
check "ping A->B 8972 bytes, do not fragment" ip netns exec $NS_A ping -M do -s 8972 -c 3 -i 0.2 -W 2 $IP_B
check "ping B->A 8972 bytes, do not fragment" ip netns exec $NS_B ping -M do -s 8972 -c 3 -i 0.2 -W 2 $IP_A
check "no warnings in dmesg" dmesg_clean
cleanup_b2b
tap_done
