// Per-job counters: one writer (the job's worker thread), any number of readers (progress
// stream, final result after join). Nobody resets them: readers copy and subtract.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "core/base/histogram.h"

namespace iofleet::agent {

// Single writer: a plain load and store, no locked read-modify-write.
inline void Bump(std::atomic<uint64_t>& c, uint64_t n) noexcept {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

struct OpCounters {
  std::atomic<uint64_t> ops{0};
  std::atomic<uint64_t> bytes{0};
  LatencyHistogram latency;
  LatencyHistogram scheduled;  // rate-limited steps: from the scheduled time

  void Record(uint64_t nbytes, uint64_t latency_ns) noexcept {
    Bump(ops, 1);
    Bump(bytes, nbytes);
    latency.Record(latency_ns);
  }
};

struct JobStats {
  static constexpr int kErrnoSlots = 160;  // errno values below this are counted by kind
  static constexpr int kVerifySlot = 0;    // errno 0 never fails a request: verify mismatches

  OpCounters read;
  OpCounters write;
  std::atomic<uint64_t> last_completion_ns{0};
  std::atomic<uint64_t> fsyncs{0};
  LatencyHistogram fsync_latency;
  std::array<std::atomic<uint64_t>, kErrnoSlots> errors{};  // continue_on_error counts

  // Written by the worker before it returns.
  uint64_t issued = 0;         // I/Os taken from the sequence, every pass together
  uint64_t first_issue_ns = 0; // when the first request went to the engine
  uint64_t passes = 0;         // complete passes
  uint64_t cpu_user_ns = 0;    // the worker thread, inside the window
  uint64_t cpu_sys_ns = 0;

  // Errors counted under continue_on_error, every kind together (cold path: after the join).
  uint64_t ErrorCount() const noexcept {
    uint64_t n = 0;
    for (const auto& e : errors) n += e.load(std::memory_order_relaxed);
    return n;
  }

  // The first error that ends the job.
  int error = 0;               // errno, or 0 with verify_failure set
  uint64_t error_offset = 0;
  uint8_t verify_failure = 0;  // VerifyFailure
  uint64_t verify_found = 0;
  uint64_t verify_expected = 0;
};

}  // namespace iofleet::agent
