// SPDX-License-Identifier: MIT
// PCIe functions: the function table (PF, and VFs when SR-IOV arrives), BAR
// decoding to the register file and the doorbell pages. MSI-X tables live in
// the platform (QEMU's msix_*), the card only names vectors.
#pragma once

#include <cstdint>

#include "card/hw.hpp"
#include "doorbell/doorbell.hpp"
#include "regs/regs.hpp"

namespace kite::model {

class Pcie {
public:
    Pcie(Hw &hw, Regs &regs, Doorbells &db) : hw_(hw), regs_(regs), db_(db) {}
    void init_functions();
    uint64_t mmio_read(uint16_t fn, unsigned bar, uint64_t off, unsigned size);
    void mmio_write(uint16_t fn, unsigned bar, uint64_t off, uint64_t val, unsigned size);
    bool present(uint16_t fn) const { return fn < hw_.num_fn && hw_.func[fn].enabled; }

private:
    Hw &hw_;
    Regs &regs_;
    Doorbells &db_;
};

}  // namespace kite::model
