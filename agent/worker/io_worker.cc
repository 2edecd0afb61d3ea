#include "agent/worker/io_worker.h"

#include <cerrno>

#include "core/base/clock.h"

namespace iofleet::agent {

bool IoWorker::NextOffset(uint64_t& offset) noexcept {
  if (next_block_ == blocks_) {
    if (!time_based_) return false;
    next_block_ = 0;  // wrap: a time-based job overwrites (or rereads) from the start
  }
  offset = next_block_++ * plan_.block_size;
  return true;
}

bool IoWorker::Issue(uint32_t slot, uint64_t now_ns) noexcept {
  uint64_t offset;
  if (!NextOffset(offset)) return false;
  IoRequest& r = requests_[slot];
  r.offset = offset;
  r.done = 0;
  r.issue_ns = now_ns;
  int rc = engine_.Enqueue(r);
  if (rc < 0) {
    Fail(-rc, offset);
    return false;
  }
  ++inflight_;
  return true;
}

void IoWorker::Fail(int err, uint64_t offset) noexcept {
  if (failed_) return;
  failed_ = true;
  stats_.error = err;
  stats_.error_offset = offset;
}

void IoWorker::Run(uint64_t start_ns, const std::atomic<bool>& stop) noexcept {
  blocks_ = plan_.file_size / plan_.block_size;
  time_based_ = plan_.runtime_ns > 0;
  const uint64_t end_ns = time_based_ ? start_ns + plan_.runtime_ns : UINT64_MAX;
  for (uint32_t slot = 0; slot < plan_.queue_depth; ++slot) {
    IoRequest& r = requests_[slot];
    r.slot = slot;
    r.dir = plan_.dir;
    r.fd = plan_.fd;
    r.length = plan_.block_size;
    r.buffer = plan_.buffers + static_cast<size_t>(slot) * plan_.block_size;
  }

  // One clock read per batch: the time after reaping stamps the requests issued in response.
  uint64_t now = MonotonicNs();
  for (uint32_t slot = 0; slot < plan_.queue_depth; ++slot) {
    if (!Issue(slot, now)) break;
  }
  while (inflight_ > 0) {
    int submitted = engine_.Submit();
    if (submitted < 0) {
      Fail(-submitted, 0);
      return;  // nothing staged reached the kernel; what is in flight is reaped by Close
    }
    int n = engine_.Reap(completions_, 1);
    if (n < 0) {
      Fail(-n, 0);
      return;
    }
    now = MonotonicNs();
    const bool issuing = !failed_ && now < end_ns && !stop.load(std::memory_order_relaxed);
    for (int i = 0; i < n; ++i) {
      const Completion& c = completions_[i];
      IoRequest& r = requests_[c.slot];
      --inflight_;
      if (c.result < 0) {
        Fail(static_cast<int>(-c.result), r.offset + r.done);
        continue;
      }
      uint32_t remaining = r.length - r.done;
      if (static_cast<uint64_t>(c.result) < remaining) {
        if (c.result == 0) {  // end of file where data was expected
          Fail(r.dir == IoDir::kRead ? ENODATA : EIO, r.offset + r.done);
          continue;
        }
        // A short transfer is completed, not an error: send the rest, keep the issue time.
        r.done += static_cast<uint32_t>(c.result);
        int rc = engine_.Enqueue(r);
        if (rc < 0) {
          Fail(-rc, r.offset + r.done);
        } else {
          ++inflight_;
        }
        continue;
      }
      if (now <= end_ns) stats_.Record(r.length, now - r.issue_ns, now);
      if (issuing && !failed_) Issue(c.slot, now);
    }
  }
}

}  // namespace iofleet::agent
