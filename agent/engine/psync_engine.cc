#include "agent/engine/psync_engine.h"

#include <unistd.h>

#include <cerrno>

namespace iofleet::agent {

Status PsyncEngine::Open(const EngineSetup& setup) {
  done_.assign(setup.queue_depth, Completion{0, 0});
  count_ = 0;
  return Status::Ok();
}

int PsyncEngine::Enqueue(IoRequest& r) noexcept {
  if (count_ == done_.size()) return -EAGAIN;
  std::byte* buffer = r.buffer + r.done;
  size_t length = r.length - r.done;
  off_t offset = static_cast<off_t>(r.offset + r.done);
  ssize_t n;
  do {
    n = r.dir == IoDir::kRead ? pread(r.fd, buffer, length, offset)
                              : pwrite(r.fd, buffer, length, offset);
  } while (n < 0 && errno == EINTR);
  done_[count_++] = Completion{r.slot, n < 0 ? -static_cast<int64_t>(errno) : n};
  return 0;
}

int PsyncEngine::Reap(std::span<Completion> out, uint32_t, int64_t) noexcept {
  uint32_t n = 0;
  while (count_ > 0 && n < out.size()) out[n++] = done_[--count_];
  return static_cast<int>(n);
}

}  // namespace iofleet::agent
