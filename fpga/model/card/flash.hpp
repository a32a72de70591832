// The board's configuration flash as the firmware's Hal sees it: a file
// (kite_card_config.flash_path, so an update survives the card instance, as
// a board's flash survives a power cycle) or, without one, memory. Shared
// by the model's Card and the co-simulated RTL card.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kite_fw/fw.hpp"

namespace kite {

class BoardFlash {
public:
    // Opens (creating, sized to FLASH_SIZE) the file at path; false when that
    // fails, and the flash is then memory (erased: all 0xff), as without one.
    bool open(const std::string &path) {
        if (!path.empty()) {
            fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
            struct stat sb;
            if (fd_ >= 0 && fstat(fd_, &sb) == 0 && sb.st_size < off_t(fw::FLASH_SIZE) &&
                ftruncate(fd_, fw::FLASH_SIZE) != 0) {
                ::close(fd_);
                fd_ = -1;
            }
        }
        if (fd_ < 0)
            mem_.assign(fw::FLASH_SIZE, 0xff);
        return path.empty() || fd_ >= 0;
    }
    ~BoardFlash() {
        if (fd_ >= 0)
            ::close(fd_);
    }

    bool read(uint32_t off, void *buf, uint32_t len) {
        if (uint64_t(off) + len > fw::FLASH_SIZE)
            return false;
        if (fd_ >= 0)
            return ::pread(fd_, buf, len, off) == ssize_t(len);
        std::memcpy(buf, mem_.data() + off, len);
        return true;
    }
    bool write(uint32_t off, const void *buf, uint32_t len) {
        if (uint64_t(off) + len > fw::FLASH_SIZE)
            return false;
        if (fd_ >= 0)
            return ::pwrite(fd_, buf, len, off) == ssize_t(len);
        std::memcpy(mem_.data() + off, buf, len);
        return true;
    }

private:
    int fd_ = -1;
    std::vector<uint8_t> mem_;
};

}  // namespace kite
