// SPDX-License-Identifier: MIT
// BAR0 register file of one function (spec [[regs]]).
#pragma once

#include <cstdint>
#include <functional>

#include "card/hw.hpp"

namespace kite::model {

class Regs {
public:
    Regs(Hw &hw, std::function<void(uint16_t)> reset) : hw_(hw), reset_(std::move(reset)) {}
    uint64_t read(uint16_t fn, uint64_t off, unsigned size);
    void write(uint16_t fn, uint64_t off, uint64_t val, unsigned size);

private:
    uint32_t read32(uint16_t fn, uint32_t off);
    Hw &hw_;
    std::function<void(uint16_t)> reset_;
};

}  // namespace kite::model
