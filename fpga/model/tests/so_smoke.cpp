// SPDX-License-Identifier: MIT
// dlopen()s libkite_model.so as QEMU does and brings up the command ring.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "kite/card_abi.h"
#include "kite/spec.hpp"

namespace {
std::vector<uint8_t> mem(1 << 20);
uint64_t now;
int rd(void *, kite_fn_t, uint64_t a, void *b, size_t n) {
    if (a + n > mem.size())
        return -1;
    memcpy(b, &mem[a], n);
    return 0;
}
int wr(void *, kite_fn_t, uint64_t a, const void *b, size_t n) {
    if (a + n > mem.size())
        return -1;
    memcpy(&mem[a], b, n);
    return 0;
}
void msix(void *, kite_fn_t, uint16_t) {}
void out(void *, unsigned, const void *, size_t) {}
uint64_t now_ns(void *) { return now += 1000; }
void arm(void *, uint64_t) {}
}  // namespace

int main(int argc, char **argv) {
    using namespace kite::spec;
    void *h = dlopen(argc > 1 ? argv[1] : "libkite_model.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    auto get = reinterpret_cast<const kite_card_abi *(*)()>(dlsym(h, "kite_card_get_abi"));
    const kite_card_abi *abi = get ? get() : nullptr;
    if (!abi || abi->abi_version != KITE_CARD_ABI_VERSION)
        return 2;
    kite_host_ops ops{};
    ops.dma_read = rd;
    ops.dma_write = wr;
    ops.msix = msix;
    ops.frame_out = out;
    ops.now_ns = now_ns;
    ops.timer_arm = arm;  // no schedule: the card does its work inline
    kite_card_config cfg{};
    cfg.abi_version = KITE_CARD_ABI_VERSION;
    cfg.num_ports = 1;
    kite_card *c = abi->create(&cfg, &ops);
    if (!c || abi->mmio_read(c, 0, 0, reg::MAGIC, 4) != MAGIC)
        return 3;
    abi->mmio_write(c, 0, 0, reg::DEV_CTRL, reg::DEV_CTRL_RESET, 4);
    if (!(abi->mmio_read(c, 0, 0, reg::DEV_STATUS, 4) & reg::DEV_STATUS_READY))
        return 4;
    abi->mmio_write(c, 0, 0, reg::CMDQ_BASE_LO, 0x1000, 4);
    abi->mmio_write(c, 0, 0, reg::CMDQ_BASE_HI, 0, 4);
    abi->mmio_write(c, 0, 0, reg::CMDQ_LOG_SIZE, 2, 4);
    cmd_entry e{};
    e.opcode = cmd_opcode::QUERY_CAPS;
    e.version = 1;
    memcpy(&mem[0x1000], &e, sizeof(e));
    abi->mmio_write(c, 0, 0, reg::CMDQ_PI, 1, 4);
    memcpy(&e, &mem[0x1000], sizeof(e));
    caps_out caps;
    memcpy(&caps, e.out, sizeof(caps));
    bool ok = e.done == 1 && e.status == cmd_status::OK && abi->mmio_read(c, 0, 0, reg::CMDQ_CI, 4) == 1 &&
              caps.num_ports == 1 && e.out_len == sizeof(caps_out);
    abi->destroy(c);
    printf("so smoke: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 5;
}
