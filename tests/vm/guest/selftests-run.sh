#!/bin/bash
# Run the kernel's NIC selftests (from linux-source, under /kite/selftests)
# against Kite: port 1 is NETIF in the initial namespace, port 2 the remote
# end in namespace kiteB (REMOTE_TYPE=netns). Usage: selftests-run.sh TEST...
# (paths relative to tools/testing/selftests/drivers/net). Prints each test's
# KTAP output between "=== TEST" lines.
. "$(dirname "$0")/lib.sh"
ip netns del kiteB 2>/dev/null
load_kite 2 || { echo "Bail out! driver did not bind two ports"; exit 1; }
set -- $(kite_netdevs) "$@"
a=$1 b=$2
shift 2
ip link set "$a" name kite0 && ip link set kite0 up
ip netns add kiteB && ip link set "$b" netns kiteB && ip -n kiteB link set "$b" name kite0 up && ip -n kiteB link set lo up
ip addr add $IP_A/24 dev kite0 && ip addr add $IP6_A/64 dev kite0 nodad
ip -n kiteB addr add $IP_B/24 dev kite0 && ip -n kiteB addr add $IP6_B/64 dev kite0 nodad
for i in $(seq 50); do [ "$(cat /sys/class/net/kite0/carrier)" = 1 ] && break; sleep 0.1; done
ping -c 1 -W 2 $IP_B > /dev/null; ping -6 -c 1 -W 2 $IP6_B > /dev/null
ST=$KITE/selftests/tools/testing/selftests/drivers/net
for d in "$ST" "$ST/hw"; do
	cat > "$d/net.config" <<EOC
NETIF=kite0
LOCAL_V4=$IP_A
REMOTE_V4=$IP_B
LOCAL_V6=$IP6_A
REMOTE_V6=$IP6_B
REMOTE_TYPE=netns
REMOTE_ARGS=kiteB
EOC
done
for t in "$@"; do
	echo "=== $t"
	(cd "$(dirname "$ST/$t")" && timeout 300 python3 -u "./$(basename "$t")" 2>&1)
	echo "=== exit $?"
done
