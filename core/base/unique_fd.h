// Owners of a file descriptor and of an aligned buffer: whatever path a setup leaves by, what
// it opened is closed and what it allocated is freed (a leaked descriptor of an unlinked file
// would hold its space until the agent restarts).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <utility>

namespace iofleet {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) Reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
// Memory from std::aligned_alloc.
using AlignedBuffer = std::unique_ptr<std::byte, FreeDeleter>;

// O_DIRECT buffers: 4 KiB covers every logical block size the agent meets.
inline constexpr size_t kDirectIoAlign = 4096;

inline AlignedBuffer AllocateAligned(size_t alignment, size_t bytes) {
  return AlignedBuffer(static_cast<std::byte*>(std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment)));
}

}  // namespace iofleet
