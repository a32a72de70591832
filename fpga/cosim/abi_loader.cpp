// SPDX-License-Identifier: MIT
// The model's unit-test host (fpga/model/tests) against a card library
// chosen at run time, as QEMU picks one: $KITE_CARD_LIB is dlopen()ed and
// its kite_card_get_abi() serves every FakeHost. Running the same tests
// with libkite_model.so and libkite_rtlcard.so checks that the RTL card
// gives what the model gives, through the card ABI only.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "kite/card_abi.h"

extern "C" const kite_card_abi *kite_card_get_abi(void) {
    static const kite_card_abi *abi = [] {
        const char *path = std::getenv("KITE_CARD_LIB");
        void *h = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
        auto get = h ? reinterpret_cast<const kite_card_abi *(*)()>(dlsym(h, "kite_card_get_abi")) : nullptr;
        if (!get) {
            std::fprintf(stderr, "KITE_CARD_LIB=%s: %s\n", path ? path : "(unset)", path ? dlerror() : "");
            std::abort();
        }
        return get();
    }();
    return abi;
}
