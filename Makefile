# Kite: one entry point. `make demo` and `make test` work on a fresh Debian 12
# machine (as root): they install what they need, build what is stale and reuse
# caches kept outside the repo in $(KITE_CACHE).

KITE_CACHE ?= /var/cache/kite
export KITE_CACHE
KVER_SERIES ?= 6.1
BUILD := $(CURDIR)/build
NPROC := $(shell nproc)

.PHONY: all help deps spec spec-check model firmware-rv32 kernel kernel-check fabric qemu images \
        test test-6.12 selftests demo bench rtl-check cosim clean

all: model kernel fabric

help:
	@echo "make demo        boot two emulated hosts with Kite cards, show link, ping, iperf3"
	@echo "make test        build everything stale and run the test suites (~70 min fresh, ~30 warm)"
	@echo "make cosim       the RTL card through the card ABI and in a VM against a model card (~2-6 min)"
	@echo "make bench       benchmarks: Kite vs virtio-net/e1000e and vs rdma_rxe (not tests, ~10-12 min)"
	@echo "make test-6.12   the VM suites on Debian's 6.12 kernel"
	@echo "make selftests   the kernel's own NIC selftests (6.12 guest) against Kite"
	@echo "make rtl-check   RTL lint, testbenches and synthesis (blocks and card top) only"
	@echo "make spec        regenerate headers/packages/docs from fpga/spec/kite.toml"
	@echo "make kernel KVER_SERIES=6.12   build the modules for another Debian kernel"

deps:
	@tools/setup/deps.sh build qemu vm rtl

spec:
	@python3 fpga/spec/gen.py

spec-check:
	@python3 fpga/spec/gen.py --check

model:
	@tools/setup/deps.sh build
	@cmake -S fpga/model -B $(BUILD)/model -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD)/model -j $(NPROC)

firmware-rv32:
	@tools/setup/deps.sh build
	@$(MAKE) -s -C firmware fw-rv32 BUILD=$(BUILD)/fw-rv32

kernel:
	@tools/setup/deps.sh build
	@kver=$$(tools/vm/kernel.sh $(KVER_SERIES) --print-kver) && \
	 kdir=$$(tools/vm/kernel.sh $(KVER_SERIES) --print-kdir) && \
	 echo "[kernel] building modules for $$kver" && \
	 rm -rf $(BUILD)/kernel/$(KVER_SERIES) && mkdir -p $(BUILD)/kernel/$(KVER_SERIES) && \
	 cp -a kernel/. $(BUILD)/kernel/$(KVER_SERIES)/ && \
	 b=$(BUILD)/kernel/$(KVER_SERIES) && \
	 { $(MAKE) -s -C $$kdir M=$$b/drivers/net/ethernet/kite \
	    KITE_INCLUDE=$$b/include W=1 modules && \
	   $(MAKE) -s -C $$kdir M=$$b/drivers/infiniband/hw/kite \
	    KITE_INCLUDE=$$b/include KBUILD_EXTRA_SYMBOLS=$$b/drivers/net/ethernet/kite/Module.symvers \
	    W=1 modules; } 2>&1 | tee $$b/build.log && \
	 [ -f $$b/drivers/infiniband/hw/kite/kite_ib.ko ] && \
	 ! grep -E 'warning:|error:' $$b/build.log

fabric:
	@tools/setup/deps.sh build
	@cmake -S tools/fabric -B $(BUILD)/fabric -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD)/fabric -j $(NPROC)

qemu:
	@tools/qemu/build.sh

images:
	@tools/vm/kernel.sh $(KVER_SERIES) >/dev/null
	@tools/vm/rootfs.sh

test:
	@python3 tests/run.py

# Every VM suite again on Debian's 6.12 kernel (not in make test: ~15 more minutes).
test-6.12:
	@python3 tests/run.py vm-b2b-6.12 vm-rdma-6.12

# The kernel's own NIC selftests against Kite on the 6.12 guest (not in make test).
selftests:
	@python3 tests/run.py selftests

demo: model kernel fabric qemu images
	@echo "[demo] rdma-core with the Kite provider (cached)"
	@tools/rdma-core/build.sh >/dev/null
	@python3 tools/demo/demo.py

# Not a test: ratios Kite vs virtio-net/e1000e (TCP, guest insns per GB) and vs rdma_rxe.
bench: model kernel fabric qemu images
	@echo "[bench] rdma-core with the Kite provider (cached)"
	@tools/rdma-core/build.sh >/dev/null
	@python3 tools/bench/bench.py

# Co-simulation of the Verilated card (fpga/cosim): the card-ABI scenarios
# and the VM test (kite.ko on the RTL card against a model card), ~2 minutes
# with the library cached, plus ~4 to build it. Not in make test (its time
# on a fresh machine): run it after changing fpga/rtl or fpga/cosim.
cosim:
	@python3 tests/run.py rtl-card-abi vm-cosim

rtl-check:
	@tools/setup/deps.sh rtl
	@fpga/check.sh

clean:
	rm -rf $(BUILD)
