// SPDX-License-Identifier: MIT
// Loader of the control CPU's firmware: a little-endian ELF32 RISC-V
// executable. Segments go to their physical (load) address, because the
// firmware's .data lives in ROM at its LMA and start.S copies it to RAM.
#ifndef KITE_CPU_ELF_HPP
#define KITE_CPU_ELF_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

namespace kite::cpu {

namespace elf_detail {
inline uint16_t rd16(const std::vector<uint8_t> &b, size_t o) { return uint16_t(b[o] | b[o + 1] << 8); }
inline uint32_t rd32(const std::vector<uint8_t> &b, size_t o) {
    return uint32_t(b[o]) | uint32_t(b[o + 1]) << 8 | uint32_t(b[o + 2]) << 16 | uint32_t(b[o + 3]) << 24;
}
} // namespace elf_detail

// Calls put() for each PT_LOAD segment: filesz bytes at p_paddr (the load
// address: .data's image sits in ROM), then memsz - filesz zero bytes after
// them at p_vaddr (where .bss lives at run time; its p_paddr only follows
// .data's image in ROM). Returns false with err set if the
// file is not a loadable RV32 executable; put() may have been called by then.
inline bool load_elf(const std::string &path, std::function<void(uint32_t addr, const uint8_t *data, size_t len)> put,
                     uint32_t &entry, std::string &err) {
    using elf_detail::rd16;
    using elf_detail::rd32;
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        err = path + ": cannot open";
        return false;
    }
    const std::vector<uint8_t> b{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    if (f.bad()) {
        err = path + ": read error";
        return false;
    }
    const auto fail = [&](const std::string &why) {
        err = path + ": " + why;
        return false;
    };
    if (b.size() < 52) return fail("too short for an ELF32 header");
    if (b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F') return fail("not an ELF file");
    if (b[4] != 1) return fail("not ELFCLASS32");
    if (b[5] != 1) return fail("not little-endian (ELFDATA2LSB)");
    if (rd16(b, 16) != 2) return fail("not an executable (ET_EXEC)");
    if (rd16(b, 18) != 243) return fail("not RISC-V (EM_RISCV)");
    entry = rd32(b, 24);
    const uint32_t phoff = rd32(b, 28);
    const uint16_t phentsize = rd16(b, 42), phnum = rd16(b, 44);
    if (phnum == 0) return fail("no program headers");
    if (phentsize < 32) return fail("program header entries too small");
    if (uint64_t(phoff) + uint64_t(phnum) * phentsize > b.size()) return fail("program headers past end of file");
    const std::vector<uint8_t> zeros(4096, 0);
    unsigned loads = 0;
    for (unsigned i = 0; i < phnum; ++i) {
        const size_t ph = size_t(phoff) + size_t(i) * phentsize;
        if (rd32(b, ph) != 1) continue; // PT_LOAD
        const uint32_t off = rd32(b, ph + 4), vaddr = rd32(b, ph + 8), paddr = rd32(b, ph + 12);
        const uint32_t filesz = rd32(b, ph + 16), memsz = rd32(b, ph + 20);
        const std::string seg = "segment " + std::to_string(i) + ": ";
        if (filesz > memsz) return fail(seg + "p_filesz > p_memsz");
        if (uint64_t(off) + filesz > b.size()) return fail(seg + "data past end of file");
        if (uint64_t(paddr) + filesz > (uint64_t(1) << 32) || uint64_t(vaddr) + memsz > (uint64_t(1) << 32))
            return fail(seg + "wraps the 32-bit address space");
        if (filesz) put(paddr, b.data() + off, filesz);
        for (uint32_t done = filesz; done < memsz;) {
            const uint32_t n = std::min<uint32_t>(memsz - done, uint32_t(zeros.size()));
            put(vaddr + done, zeros.data(), n);
            done += n;
        }
        ++loads;
    }
    if (loads == 0) return fail("no PT_LOAD segments");
    return true;
}

} // namespace kite::cpu

#endif // KITE_CPU_ELF_HPP
