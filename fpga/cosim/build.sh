#!/usr/bin/env bash
# Builds build/cosim/libkite_rtlcard.so: the Verilated kite_card (the "card"
# sources of fpga/rtl/blocks.list) with the firmware beside it, behind the
# card C ABI (fpga/cosim/rtl_card.cpp). Reuses the previous build when no
# input changed; the library is also kept in $KITE_CACHE/rtl-card/<hash>
# (the hash leaves out where the tree is), so a fresh clone does not rebuild.
# The Verilated objects are reused on their own when only the C++ changed.
# Functions are split at 500 statements, as in fpga/tb/build.sh (g++ time).
# Prints the path of the library.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=$root/build/cosim
mkdir -p "$out"
read -r -a srcs <<<"$(awk '$1 == "card" { for (i = 4; i <= NF; i++) printf "%s ", $i }' fpga/rtl/blocks.list)"
rtl=(fpga/rtl/common/kite_pkg.sv fpga/rtl/common/kite_rtl_pkg.sv "${srcs[@]}")
vflags=(--cc --build -j 2 --top-module kite_card -Wno-fatal -Wno-lint -Wno-style
        --x-assign fast --x-initial fast --output-split-cfuncs 500 -CFLAGS "-fPIC -std=c++20"
        -MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2")
cxx=(g++ -std=c++20 -O2 -fPIC -fvisibility=hidden -Wall -Wextra -Werror)
vinc=/usr/share/verilator/include
tools=$( (verilator --version; g++ --version) | sha256sum | cut -c1-16)
rtl_stamp=$( (cat "${rtl[@]}"; echo "${vflags[*]}"; echo "$tools") | sha256sum | cut -c1-16)
stamp=$( (echo "$rtl_stamp"; cat fpga/cosim/rtl_card.cpp fpga/tb/common/pcie_host.hpp fpga/model/card/abi_export.hpp fpga/model/card/flash.hpp fpga/cosim/exports.map fpga/cosim/build.sh \
    firmware/src/*.cpp firmware/include/kite_fw/*.hpp fpga/model/include/kite/*.h fpga/model/include/kite/*.hpp) |
    sha256sum | cut -c1-16)
lib=$out/libkite_rtlcard.so
if [ -f "$lib" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "$lib"; exit 0
fi
rm -f "$out/stamp"
cache=${KITE_CACHE:-/var/cache/kite}/rtl-card/$stamp
if [ -f "$cache/libkite_rtlcard.so" ]; then
    cp "$cache/libkite_rtlcard.so" "$lib.tmp" && mv "$lib.tmp" "$lib"
    echo "$stamp" >"$out/stamp"
    echo "$lib"; exit 0
fi
log=$out/build.log
: >"$log"
obj=$out/obj
if [ "$(cat "$obj/stamp" 2>/dev/null)" != "$rtl_stamp" ]; then
    rm -rf "$obj"
    mkdir -p "$obj"
    abs=()
    for f in "${rtl[@]}"; do abs+=("$root/$f"); done
    (cd "$out" && verilator "${vflags[@]}" --Mdir obj "${abs[@]}") >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }
    for f in verilated verilated_threads; do
        g++ -std=c++20 -O2 -fPIC -fvisibility=hidden -w -I"$vinc" -I"$vinc/vltstd" -c "$vinc/$f.cpp" \
            -o "$obj/$f.o" >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }
    done
    echo "$rtl_stamp" >"$obj/stamp"
fi
inc=(-I"$obj" -I"$vinc" -I"$vinc/vltstd" -Ifpga/model -Ifpga/model/include -Ifirmware/include -Ifpga/tb/common)
{
    "${cxx[@]}" "${inc[@]}" -Wno-unused-parameter -c fpga/cosim/rtl_card.cpp -o "$out/rtl_card.o" &&
    "${cxx[@]}" "${inc[@]}" -fno-exceptions -fno-rtti -ffreestanding -c firmware/src/fw.cpp -o "$out/fw.o" &&
    "${cxx[@]}" "${inc[@]}" -fno-exceptions -ffreestanding -c firmware/src/port_hal.cpp -o "$out/port_hal.o" &&  # a base of kite_card: RTTI
    g++ -shared -o "$lib.tmp" "$out/rtl_card.o" "$out/fw.o" "$out/port_hal.o" "$obj/Vkite_card__ALL.a" "$obj/verilated.o" \
        "$obj/verilated_threads.o" -static-libstdc++ -static-libgcc -pthread -Wl,--no-undefined \
        -Wl,--version-script=fpga/cosim/exports.map
} >>"$log" 2>&1 || { cat "$log" >&2; exit 1; }
mv "$lib.tmp" "$lib"
if mkdir -p "$cache" 2>/dev/null && cp "$lib" "$cache/libkite_rtlcard.so.tmp" 2>/dev/null; then
    mv "$cache/libkite_rtlcard.so.tmp" "$cache/libkite_rtlcard.so"
fi
echo "$stamp" >"$out/stamp"
echo "$lib"
