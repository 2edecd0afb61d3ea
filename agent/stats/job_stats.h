// Per-job counters: one writer (the job's worker thread), any number of readers (progress
// stream, the Prometheus collector at scrape time, final result after join). Nobody resets
// them: readers copy and subtract.
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

inline constexpr int kErrnoSlots = 160;  // errno values below this are counted by kind
inline constexpr int kVerifySlot = 0;    // errno 0 never fails a request: verify mismatches

struct OpCounters {
  std::atomic<uint64_t> ops{0};    // completed inside the measurement window
  std::atomic<uint64_t> bytes{0};
  // Completed during the ramp, before the window opens: shown live and in samples.csv as ramp
  // I/O, never part of the step's figures (nor of `ops`/`bytes`, which first_done reads).
  std::atomic<uint64_t> ramp_ops{0};
  std::atomic<uint64_t> ramp_bytes{0};
  LatencyHistogram latency;
  LatencyHistogram scheduled;  // rate-limited steps: from the scheduled time
  // Requests handed to the engine and taken back, ramp included: in flight = submitted - reaped
  // (a reader loads reaped first). The worker sets reaped to submitted when it returns.
  std::atomic<uint64_t> submitted{0};
  std::atomic<uint64_t> reaped{0};
  std::array<std::atomic<uint64_t>, kErrnoSlots> errors{};  // continue_on_error counts

  void Record(uint64_t nbytes, uint64_t latency_ns) noexcept {
    Bump(ops, 1);
    Bump(bytes, nbytes);
    latency.Record(latency_ns);
  }
};

struct JobStats {
  static constexpr int kErrnoSlots = agent::kErrnoSlots;
  static constexpr int kVerifySlot = agent::kVerifySlot;

  OpCounters read;
  OpCounters write;
  std::atomic<uint64_t> last_completion_ns{0};
  std::atomic<uint64_t> fsyncs{0};
  LatencyHistogram fsync_latency;
  // The job thread's id, published once as the thread starts (0 before and after): the
  // collector reads the thread's CPU time from /proc while the step runs.
  std::atomic<int32_t> tid{0};

  // Written by the worker before it returns.
  uint64_t issued = 0;         // I/Os taken from the sequence, every pass together
  uint64_t first_issue_ns = 0; // when the first request went to the engine
  uint64_t passes = 0;         // complete passes
  uint64_t cpu_user_ns = 0;    // the worker thread, inside the window
  uint64_t cpu_sys_ns = 0;

  // Errors counted under continue_on_error, every kind together (cold path: after the join).
  uint64_t ErrorCount() const noexcept {
    uint64_t n = 0;
    for (const auto& e : read.errors) n += e.load(std::memory_order_relaxed);
    for (const auto& e : write.errors) n += e.load(std::memory_order_relaxed);
    return n;
  }

  // The first error that ends the job.
  int error = 0;               // errno, or 0 with verify_failure set
  uint64_t error_offset = 0;
  uint8_t verify_failure = 0;  // VerifyFailure
  uint64_t verify_found = 0;
  uint64_t verify_expected = 0;
  // The job fell under its minimum rate (rate.min_*): the cycle that did, from its window's start,
  // and what it moved per second (bytes, or I/Os under min_iops).
  bool below_rate_min = false;
  uint64_t rate_min_cycle_from_ns = 0;
  uint64_t rate_min_cycle_to_ns = 0;
  double rate_min_achieved = 0;
};

}  // namespace iofleet::agent
