#!/usr/bin/env bash
# Installs the Debian packages a Kite build or test needs. Idempotent and quick
# when everything is present. Usage: deps.sh [group...]; groups: build vm qemu rtl rdma
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
groups=${*:-build qemu vm}
pkgs=()
for g in $groups; do
    case $g in
    build) pkgs+=(build-essential cmake ninja-build pkg-config python3 libgtest-dev libgmock-dev
                  gcc-riscv64-unknown-elf sparse) ;;
    qemu)  pkgs+=(dpkg-dev libglib2.0-dev libpixman-1-dev python3-venv flex bison
                  qemu-system-data seabios ipxe-qemu meson libcap-ng-dev libfdt-dev) ;;
    vm)    pkgs+=(debootstrap busybox-static e2fsprogs cpio kmod iperf3 zstd xz-utils dwarves tshark) ;;
    rtl)   pkgs+=(verilator iverilog yosys) ;;
    rdma)  pkgs+=(build-essential cmake ninja-build pkg-config patch python3-dev cython3
                  libnl-3-dev libnl-route-3-dev libudev-dev) ;;
    *) echo "deps: unknown group $g" >&2; exit 2 ;;
    esac
done
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    "$here/apt-sources.sh"
    echo "[setup] installing: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
