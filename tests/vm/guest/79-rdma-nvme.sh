#!/bin/bash
# A kernel ULP over Kite: NVMe over RDMA (the kernel's nvmet-rdma target and
# nvme-rdma host, through rdma_cm, with fast-registration MRs, SEND_WITH_INV
# and LOCAL_INV) on one card (the card loops RoCE to its own GID inside:
# nvmet-rdma and nvme-rdma only listen and connect in the initial netns).
# The target exports a RAM disk; 8 MiB written and read back with O_DIRECT
# through /dev/nvmeXn1 must match, and must be what the RAM disk holds; once
# with per-QP receive queues, once with nvmet-rdma's kernel SRQ.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma_lib.sh"
tap_plan 14
dmesg -C
cfg=/sys/kernel/config/nvmet
nqn=kite-nvme-test
ctrl=
nvme_cleanup() {
	[ -n "$ctrl" ] && echo 1 >"/sys/class/nvme/$ctrl/delete_controller" 2>/dev/null
	rm -f $cfg/ports/1/subsystems/$nqn 2>/dev/null
	rmdir $cfg/subsystems/$nqn/namespaces/1 $cfg/subsystems/$nqn $cfg/ports/1 2>/dev/null
	rmmod nvme_rdma nvmet_rdma nvmet nvme_fabrics brd 2>/dev/null
	rdma_cleanup
}
setup() {
	cleanup_b2b
	_try modprobe -a ib_uverbs rdma_cm nvmet nvmet-rdma nvme-fabrics nvme-rdma || return 1
	_try modprobe brd rd_nr=1 rd_size=16384 || return 1
	_try load_kite 2 || return 1
	grep -q '^kite_ib ' /proc/modules || _try insmod "$KITE/modules/kite_ib.ko" || return 1
	dev=$(kite_netdevs | head -1)
	_try ip link set "$dev" up && _try ip addr add $IP_A/24 dev "$dev" || return 1
	for i in $(seq 50); do
		IB_A=$(ib_of_netdev "$dev") && [ -n "$(ls /sys/class/infiniband/$IB_A/ports/1/gid_attrs/ndevs 2>/dev/null)" ] && break
		sleep 0.1
	done
	_try sh -c "[ \"\$(cat /sys/class/net/$dev/carrier)\" = 1 ] || sleep 2" || return 1
	mountpoint -q /sys/kernel/config || _try mount -t configfs none /sys/kernel/config || return 1
	_try mkdir $cfg/subsystems/$nqn || return 1
	echo 1 >$cfg/subsystems/$nqn/attr_allow_any_host
	_try mkdir $cfg/subsystems/$nqn/namespaces/1 || return 1
	echo /dev/ram0 >$cfg/subsystems/$nqn/namespaces/1/device_path
	_try sh -c "echo 1 >$cfg/subsystems/$nqn/namespaces/1/enable" || return 1
	_try mkdir $cfg/ports/1 || return 1
	echo rdma >$cfg/ports/1/addr_trtype
	echo ipv4 >$cfg/ports/1/addr_adrfam
	echo $IP_A >$cfg/ports/1/addr_traddr
	echo 4420 >$cfg/ports/1/addr_trsvcid
	_try ln -s $cfg/subsystems/$nqn $cfg/ports/1/subsystems/$nqn
}
if ! setup; then
	not_ok "setup"
	nvme_cleanup
	tap_done
fi
ok "nvmet-rdma listens on $IP_A ($IB_A)"

# io_pass LABEL: connect, 8 MiB out and back with O_DIRECT, disconnect
io_pass() {
	local l=$1 tx0 tx1 i
	tx0=$(rdma statistic show link $IB_A/1 | sed -n 's/.* tx_packets \([0-9]*\).*/\1/p')
	check "$l: nvme-rdma connects (rdma_cm, kernel QPs)" \
		sh -c "echo transport=rdma,traddr=$IP_A,trsvcid=4420,nqn=$nqn >/dev/nvme-fabrics"
	ctrl=
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/transport" 2>/dev/null)" = rdma ] && ctrl=$(basename "$c")
	done
	# With native multipath the namespace is nvmeXnY over the path nvmeXcZnY.
	blk=
	for i in $(seq 100); do
		blk=$(ls -d /sys/class/nvme/$ctrl/nvme*n* 2>/dev/null | head -1)
		blk=/dev/$(basename "$blk" | sed 's/c[0-9]*n/n/')
		[ -b "$blk" ] && break
		sleep 0.1
	done
	diag "controller $ctrl, namespace $blk; SRQs: $(rdma res show srq 2>&1 | tr '\n' ' ')"
	check "$l: the namespace appears as a block device" test -b "$blk"
	dd if=/dev/urandom of=/tmp/nvme.pat bs=1M count=8 status=none
	dd if=/tmp/nvme.pat of="$blk" bs=1M count=8 oflag=direct status=none 2>/tmp/nvme.err
	dd if="$blk" of=/tmp/nvme.back bs=1M count=8 iflag=direct status=none 2>>/tmp/nvme.err
	diag "$(cat /tmp/nvme.err)"
	check "$l: 8 MiB written and read back through nvme-rdma match" cmp /tmp/nvme.pat /tmp/nvme.back
	# O_DIRECT: the target's writes went around /dev/ram0's page cache
	dd if=/dev/ram0 of=/tmp/nvme.ram bs=1M count=8 iflag=direct status=none
	check "$l: the target's RAM disk holds the same bytes" cmp /tmp/nvme.pat /tmp/nvme.ram
	tx1=$(rdma statistic show link $IB_A/1 | sed -n 's/.* tx_packets \([0-9]*\).*/\1/p')
	diag "RoCE tx_packets $tx0 -> $tx1"
	# 16 MiB of data in packets of at most 4 KiB, both ways on the one card
	check "$l: the card carried it (RoCE tx_packets +4096 or more)" test "$((tx1 - tx0))" -ge 4096
	[ -n "$ctrl" ] && echo 1 >"/sys/class/nvme/$ctrl/delete_controller"
	ctrl=
}
io_pass "receive queues"

# The target again with one shared receive queue per device (kernel SRQ).
rm -f $cfg/ports/1/subsystems/$nqn
rmmod nvmet_rdma
modprobe nvmet-rdma use_srq=1
ln -s $cfg/subsystems/$nqn $cfg/ports/1/subsystems/$nqn
check "nvmet-rdma use_srq=1 listens again" sh -c "dmesg | grep -c 'enabling port 1' | grep -q 2"
io_pass "SRQ"
check "the target used a kernel SRQ" sh -c "rdma res show srq | grep -q nvmet"
nvme_cleanup
check "no warnings in dmesg" dmesg_clean
tap_done
