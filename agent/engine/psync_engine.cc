#include "agent/engine/psync_engine.h"

#include <unistd.h>

#include <cerrno>

namespace iofleet::agent {

Status PsyncEngine::Open(const EngineSetup& setup) {
  done_.Open(setup.queue_depth);
  return Status::Ok();
}

int PsyncEngine::Enqueue(IoRequest& r) noexcept {
  if (done_.full()) return -EAGAIN;
  std::byte* buffer = r.buffer + r.done;
  size_t length = r.length - r.done;
  off_t offset = static_cast<off_t>(r.offset + r.done);
  ssize_t n;
  do {
    n = r.dir == IoDir::kRead ? pread(r.fd, buffer, length, offset)
                              : pwrite(r.fd, buffer, length, offset);
  } while (n < 0 && errno == EINTR);
  done_.Push(Completion{r.slot, n < 0 ? -static_cast<int64_t>(errno) : n});
  return 0;
}

int PsyncEngine::Reap(std::span<Completion> out, uint32_t, int64_t) noexcept { return done_.PopInto(out); }

}  // namespace iofleet::agent
