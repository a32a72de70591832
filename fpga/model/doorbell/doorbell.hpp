// SPDX-License-Identifier: MIT
// Doorbell pages (DB_BAR): decode, check ownership, state and page binding,
// then hand over to the queue engine. Anything else is dropped and counted.
#pragma once

#include <cstdint>

#include "card/hw.hpp"
#include "queue/queue.hpp"

namespace kite::model {

class Doorbells {
public:
    Doorbells(Hw &hw, QueueEngine &q) : hw_(hw), q_(q) {}
    void write(uint16_t fn, uint64_t off, uint64_t val, unsigned size);

private:
    void drop(uint16_t fn) { hw_.fn_stats(fn).db_dropped++; }
    Hw &hw_;
    QueueEngine &q_;
};

}  // namespace kite::model
