// Per-job counters: one writer (the job's worker thread), any number of readers (progress
// stream, final result after join). Nobody resets them: readers copy and subtract.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/base/histogram.h"

namespace iofleet::agent {

struct JobStats {
  std::atomic<uint64_t> ops{0};
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> last_completion_ns{0};
  LatencyHistogram latency;

  // The first error ends the job; written once by the worker before it returns.
  int error = 0;              // errno
  uint64_t error_offset = 0;

  void Record(uint64_t nbytes, uint64_t latency_ns, uint64_t now_ns) noexcept {
    Bump(ops, 1);
    Bump(bytes, nbytes);
    latency.Record(latency_ns);
    last_completion_ns.store(now_ns, std::memory_order_relaxed);
  }

 private:
  static void Bump(std::atomic<uint64_t>& c, uint64_t n) noexcept {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
};

}  // namespace iofleet::agent
