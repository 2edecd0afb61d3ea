// The controller's own progress, as a clock: it advances while the controller runs and hardly at
// all while it cannot (SIGSTOP, a host that swaps or is starved of CPU). An agent is judged by
// what it failed to send over this clock, so that a stall of the controller's is never taken
// for the agents' (issue 23): after 8 s stopped, the controller finds its agents' messages
// waiting, and none has been silent by this clock.
//
// A thread ticks every 50 ms; each tick adds the time since the last, but at most kCountedGapNs:
// a longer gap is a stall, recorded with its length.
//
// Thread-safety: every method from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace iofleet::controller {

struct Stall {
  uint64_t at_unix_ns = 0;  // when it ended, on the wall clock
  uint64_t ns = 0;          // how long the controller did not run (the gap less one tick)
};

// The clock's arithmetic, apart from its thread and the system clock (for tests).
class StallCounter {
 public:
  static constexpr uint64_t kCountedGapNs = 250'000'000;  // a longer gap between ticks is a stall
  explicit StallCounter(uint64_t now_ns) : last_(now_ns) {}
  // A tick at `now_ns` (monotonic): the stall it ends, if any.
  std::optional<uint64_t> Tick(uint64_t now_ns);
  uint64_t progress_ns() const { return progress_; }

 private:
  uint64_t last_;
  uint64_t progress_ = 0;
};

class StallClock {
 public:
  StallClock();
  ~StallClock();
  StallClock(const StallClock&) = delete;
  StallClock& operator=(const StallClock&) = delete;

  // Nanoseconds the controller has been able to run since the clock started.
  uint64_t ProgressNs() const { return progress_.load(std::memory_order_relaxed); }
  // The stalls of a second or more that ended at or after `since_unix_ns`.
  std::vector<Stall> StallsSince(uint64_t since_unix_ns) const;

 private:
  void Loop();

  std::atomic<uint64_t> progress_{0};
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::vector<Stall> stalls_;  // at most kKept, oldest dropped
  std::thread thread_;
};

}  // namespace iofleet::controller
