#include "agent/engine/libaio_engine.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace iofleet::agent {

LibaioEngine::~LibaioEngine() {
  if (open_) io_destroy(ctx_);
}

Status LibaioEngine::Open(const EngineSetup& setup) {
  const uint32_t queue_depth = setup.queue_depth;
  int rc = io_setup(static_cast<int>(queue_depth), &ctx_);
  if (rc < 0) return PosixError("io_setup(" + std::to_string(queue_depth) + ")", -rc);
  open_ = true;
  iocbs_.assign(queue_depth, iocb{});
  staged_.assign(queue_depth, nullptr);
  events_.assign(queue_depth, io_event{});
  refused_.assign(queue_depth, Completion{0, 0});
  staged_count_ = 0;
  refused_count_ = 0;
  return Status::Ok();
}

int LibaioEngine::Enqueue(IoRequest& r) noexcept {
  if (staged_count_ == staged_.size() || r.slot >= iocbs_.size()) return -EAGAIN;
  iocb* cb = &iocbs_[r.slot];
  void* buffer = r.buffer + r.done;
  size_t length = r.length - r.done;
  long long offset = static_cast<long long>(r.offset + r.done);
  if (r.dir == IoDir::kRead) {
    io_prep_pread(cb, r.fd, buffer, length, offset);
  } else {
    io_prep_pwrite(cb, r.fd, buffer, length, offset);
  }
  cb->data = reinterpret_cast<void*>(static_cast<uintptr_t>(r.slot));
  staged_[staged_count_++] = cb;
  return 0;
}

int LibaioEngine::Submit() noexcept {
  uint32_t submitted = 0;
  uint32_t accepted = 0;
  while (submitted < staged_count_) {
    int rc = io_submit(ctx_, staged_count_ - submitted, staged_.data() + submitted);
    if (rc == -EINTR) continue;
    if (rc < 0) {
      // The kernel refused the first request (EBADF, EINVAL for misaligned O_DIRECT, ...):
      // it completes with that error, like any other failure, and the rest go on.
      iocb* cb = staged_[submitted++];
      refused_[refused_count_++] =
          Completion{static_cast<uint32_t>(reinterpret_cast<uintptr_t>(cb->data)), rc};
      continue;
    }
    submitted += static_cast<uint32_t>(rc);
    accepted += static_cast<uint32_t>(rc);
  }
  staged_count_ = 0;
  return static_cast<int>(accepted);
}

int LibaioEngine::Reap(std::span<Completion> out, uint32_t min_done, int64_t timeout_ns) noexcept {
  if (refused_count_ > 0) {
    uint32_t n = 0;
    while (refused_count_ > 0 && n < out.size()) out[n++] = refused_[--refused_count_];
    return static_cast<int>(n);
  }
  long max = static_cast<long>(std::min(out.size(), events_.size()));
  timespec timeout{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
  int rc;
  do {
    rc = io_getevents(ctx_, std::min<long>(min_done, max), max, events_.data(),
                      timeout_ns >= 0 ? &timeout : nullptr);
  } while (rc == -EINTR);
  if (rc < 0) return rc;
  for (int i = 0; i < rc; ++i) {
    const io_event& ev = events_[i];
    uint32_t slot = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(ev.data));
    // res holds bytes or a negated errno; res2 is unused by the block and file paths.
    out[i] = Completion{slot, static_cast<int64_t>(static_cast<long>(ev.res))};
  }
  return rc;
}

}  // namespace iofleet::agent
