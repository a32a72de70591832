// SPDX-License-Identifier: MIT
#include "pcie/pcie.hpp"

namespace kite::model {

using namespace spec;

void Pcie::init_functions() {
    ctx::func_ctx &pf = hw_.func[0];
    pf = ctx::func_ctx{};
    pf.enabled = 1;
    pf.port = 0;
    pf.num_ports = uint8_t(hw_.cfg.num_ports);
    pf.msix_vectors = pci::PF_MSIX_VECTORS;
    pf.db_pages = pci::PF_DB_PAGES;
    // VF n (later): port = n-th port it is assigned, VF_MSIX_VECTORS, VF_DB_PAGES.
    hw_.num_fn = 1;
}

uint64_t Pcie::mmio_read(uint16_t fn, unsigned bar, uint64_t off, unsigned size) {
    if (!present(fn))
        return ~uint64_t(0) >> (64 - 8 * size);  // like a master abort
    if (bar == pci::REG_BAR)
        return regs_.read(fn, off, size);
    return 0;  // doorbells are write-only
}

void Pcie::mmio_write(uint16_t fn, unsigned bar, uint64_t off, uint64_t val, unsigned size) {
    if (!present(fn))
        return;
    if (bar == pci::REG_BAR)
        regs_.write(fn, off, val, size);
    else if (bar == pci::DB_BAR)
        db_.write(fn, off, val, size);
}

}  // namespace kite::model
