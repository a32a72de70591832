#!/usr/bin/env bash
# Host self-check of the built rdma-core tree, no Kite device needed:
#  1. ibv_devices / ibv_devinfo from the tree run and do not crash;
#  2. the kite provider loads (all symbols resolve against our libibverbs);
#  3. libibverbs matches a fake kite ib_device (PCI 4b49:0001, uverbs ABI 1)
#     to the kite provider, through a fake sysfs (SYSFS_PATH) and a stub
#     /dev/infiniband node made in a private mount namespace;
#  4. pyverbs and rdma-core's tests package import.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
inst=$("$here/build.sh" --print-install)
lib=$inst/usr/lib/x86_64-linux-gnu
bin=$inst/usr/bin
export LD_LIBRARY_PATH=$lib
export PYTHONPATH=$inst/usr/lib/python3/dist-packages
fail=0
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; fail=1; }

# 1. Without uverbs in the host kernel these report no devices, cleanly.
for t in ibv_devices ibv_devinfo; do
	rc=0; "$bin/$t" >/dev/null 2>&1 || rc=$?
	# 129..192: killed by a signal; 255 is exit(-1) for "no devices"
	if [ "$rc" -le 128 ] || [ "$rc" -gt 192 ]; then ok "$t runs (rc $rc)"
	else bad "$t crashed (rc $rc)"; fi
done

# 2. The provider resolves every symbol against our libibverbs.
prov=$lib/libibverbs/libkite-rdmav34.so
if python3 - "$lib/libibverbs.so.1" "$prov" <<'EOF'
import ctypes, os, sys
ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
ctypes.CDLL(sys.argv[2], mode=os.RTLD_NOW)
EOF
then ok "libkite-rdmav34.so loads"; else bad "libkite-rdmav34.so does not load"; fi
grep -qx 'driver kite' "$inst/etc/libibverbs.d/kite.driver" && ok "kite.driver installed" ||
	bad "kite.driver missing"

# 3. Device matching against a fake sysfs.
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
mkdir -p "$fake/devices/pci0000:00/0000:00:05.0/infiniband/kite0" \
	 "$fake/devices/pci0000:00/0000:00:05.0/infiniband_verbs/uverbs0" \
	 "$fake/class/infiniband" "$fake/class/infiniband_verbs"
pdev=$fake/devices/pci0000:00/0000:00:05.0
echo "pci:v00004B49d00000001sv00004B49sd00000001bc02sc00i00" > "$pdev/modalias"
echo 1 > "$pdev/infiniband/kite0/node_type"
echo 0000:0000:0000:0000 > "$pdev/infiniband/kite0/node_guid"
ln -s ../.. "$pdev/infiniband/kite0/device"
echo kite0 > "$pdev/infiniband_verbs/uverbs0/ibdev"
echo 1 > "$pdev/infiniband_verbs/uverbs0/abi_version"
echo 231:192 > "$pdev/infiniband_verbs/uverbs0/dev"
ln -s ../.. "$pdev/infiniband_verbs/uverbs0/device"
ln -s "$pdev/infiniband/kite0" "$fake/class/infiniband/kite0"
ln -s "$pdev/infiniband_verbs/uverbs0" "$fake/class/infiniband_verbs/uverbs0"
echo 6 > "$fake/class/infiniband_verbs/abi_version"
out=$(SYSFS_PATH=$fake RDMAV_DRIVERS=$lib/libibverbs/libkite unshare -m sh -c '
	mount -t tmpfs none /dev 2>/dev/null || mount -t tmpfs none /mnt
	mkdir -p /dev/infiniband && : > /dev/infiniband/uverbs0
	"$1/ibv_devices"; "$1/ibv_devinfo" -d kite0; echo "devinfo rc $?"' sh "$bin" 2>&1 || true)
if echo "$out" | grep -q '^ *kite0'; then ok "fake PCI 4b49:0001 ib_device matches the kite provider"
else bad "fake kite device not matched: $out"; fi
# opening it reaches kite_alloc_context, whose command fails on the stub node
rc=$(echo "$out" | sed -n 's/^devinfo rc //p')
if [ -n "$rc" ] && { [ "$rc" -le 128 ] || [ "$rc" -gt 192 ]; }; then
	ok "ibv_devinfo -d kite0 fails cleanly without a kernel driver (rc $rc)"
else bad "ibv_devinfo -d kite0: $out"; fi

# 4. pyverbs
if python3 -c 'import pyverbs.device, pyverbs.qp, pyverbs.cq, pyverbs.mr, pyverbs.cmid' 2>/dev/null
then ok "pyverbs imports"; else bad "pyverbs does not import"; fi
if python3 "$inst/usr/share/doc/rdma-core/tests/run_tests.py" --help >/dev/null 2>&1
then ok "rdma-core tests/run_tests.py starts"; else bad "rdma-core tests/run_tests.py does not start"; fi
exit $fail
