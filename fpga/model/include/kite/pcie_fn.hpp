// SPDX-License-Identifier: MIT
// PCIe function numbers as the card counts them (PF 0, VF n at n) and as
// the AMD PCIe core does: fpga/syn/vivado/ip.tcl sets ARI and First VF
// Offset 4, so the core's VF n is function 3 + n and its functions 1..3 are
// PFs the card does not have (kite_pcie's VF_FN_BASE; its CQ maps them to
// 0xff). The RTL testbenches and the co-simulation's host use these to
// speak the core's numbers on RQ/RC/CQ/CC.
#pragma once

namespace kite::pcie_fn {

constexpr unsigned VF_FN_BASE = 4;  // the core's function number of VF 1

constexpr unsigned core_fn(unsigned card) { return card == 0 ? 0 : (card + VF_FN_BASE - 1) & 0xff; }

constexpr unsigned card_fn(unsigned core)
{
    return core == 0 ? 0 : core < VF_FN_BASE ? 0xff : core - VF_FN_BASE + 1;
}

static_assert(core_fn(1) == 4 && card_fn(4) == 1 && card_fn(core_fn(16)) == 16 && card_fn(2) == 0xff);

}  // namespace kite::pcie_fn
