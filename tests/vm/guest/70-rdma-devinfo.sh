#!/bin/bash
# kite_ib.ko: the ib devices appear, ports ACTIVE with RoCEv2 GIDs from the
# netdev's addresses, `rdma` shows link, resources and counters, and the
# devices follow their netdevs into exclusive RDMA network namespaces.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
tap_plan 10
dmesg -C
if ! rdma_setup; then
	not_ok "kite_ib loads and both ports come up"; rdma_cleanup; tap_done
fi
ok "kite_ib loads and both ports come up ($IB_A in $NS_A, $IB_B in $NS_B)"
info=$(in_a ibv_devinfo -v -d "$IB_A" 2>&1)
check "ibv_devinfo -v: transport InfiniBand, link layer Ethernet, PORT_ACTIVE" \
	sh -c 'echo "$1" | grep -q "state:.*PORT_ACTIVE" && echo "$1" | grep -q "link_layer:.*Ethernet"' _ "$info"
check "ibv_devinfo -v: RoCEv2 GIDs for the IPv4 and IPv6 addresses" \
	sh -c 'echo "$1" | grep -q "::ffff:192.0.2.1, RoCE v2" && echo "$1" | grep -q "2001:db8::1, RoCE v2"' _ "$info"
check "ibv_devinfo: the device is kite's (vendor 0x4b49) with atomics" \
	sh -c 'echo "$1" | grep -q "vendor_id:.*0x4b49" && echo "$1" | grep -q "atomic_cap:.*ATOMIC_HCA"' _ "$info"
check "$NS_A sees only $IB_A" sh -c "[ \"\$(ip netns exec $NS_A ibv_devices | grep -c kite_)\" = 1 ]"
check "rdma link: ACTIVE, LINK_UP, netdev kite0" \
	sh -c "ip netns exec $NS_A rdma link show $IB_A/1 | grep -q 'state ACTIVE physical_state LINK_UP netdev kite0'"
# counters move with RoCE traffic
rx0=$(in_b rdma statistic show link "$IB_B/1" | grep -o 'rx_packets [0-9]*' | cut -d' ' -f2)
T=60 pair pp ibv_rc_pingpong -d "$IB_B" -g "$GID_B" -n 20 -- ibv_rc_pingpong -d "$IB_A" -g "$GID_A" -n 20 $IP_B >/dev/null
rx1=$(in_b rdma statistic show link "$IB_B/1" | grep -o 'rx_packets [0-9]*' | cut -d' ' -f2)
check "rdma statistic: rx_packets moved (${rx0:-?} -> ${rx1:-?})" test "${rx1:-0}" -gt "${rx0:-0}"
check "rdma resource shows the kernel's GSI QP" sh -c "ip netns exec $NS_A rdma resource show qp link $IB_A/1 | grep -q 'lqpn 1 type GSI'"
rdma_cleanup
check "kite_ib unloads" sh -c "! grep -q '^kite_ib ' /proc/modules"
check "no warnings in dmesg" dmesg_clean
tap_done
