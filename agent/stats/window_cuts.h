// Cuts of a running step's measurement into windows at instants the controller names (a
// target_latency, curve or steady step: agent.proto's CutWindow). A cut closes one window and
// opens the next, from which on the jobs keep a new pace. Each job makes the cut itself, on its
// own thread, at the first look at its clock past the instant: it copies its counters into its
// WindowSnapshot and publishes the cut's number, so every completion falls in exactly one
// window, decided by the time the job saw it complete (as the ramp's end is decided), and a
// window's figures are exact differences of one writer's counters, never sums of samples.
//
// One cut is pending at a time: the next is ordered only once every job made the last one and
// its snapshots were read, so a job's single snapshot is never written while it is read.
//
// Thread-safety: Order from one control thread; Ordered from the jobs; a snapshot is written
// by its job before the release store of `cuts_done` and read after an acquire load of it.
#pragma once

#include <atomic>
#include <cstdint>

#include "core/base/histogram.h"

namespace iofleet::agent {

struct CutOrder {
  uint64_t at_ns = 0;       // monotonic (core/base/clock.h)
  double ns_per_io = 0;     // the pace from the cut on; both 0: as fast as the job can
  double ns_per_byte = 0;
  uint32_t queue_depth = 0;  // requests in flight at most from the cut on; 0: the job's own
};

class WindowCuts {
 public:
  // Orders cut `number` (1, 2, ... in turn): false when it is not the next.
  bool Order(uint32_t number, const CutOrder& order) noexcept {
    if (number != ordered_.load(std::memory_order_relaxed) + 1) return false;
    order_ = order;
    ordered_.store(number, std::memory_order_release);
    return true;
  }
  // Cut `number`'s order once it was ordered, else null. A job copies what it needs at once.
  const CutOrder* Ordered(uint32_t number) const noexcept {
    return ordered_.load(std::memory_order_acquire) >= number ? &order_ : nullptr;
  }
  uint32_t ordered() const noexcept { return ordered_.load(std::memory_order_relaxed); }

 private:
  CutOrder order_;
  std::atomic<uint32_t> ordered_{0};
};

// One direction's counters at a cut, and the extremes of the window the cut closed (which no
// difference of cumulative counters gives).
struct OpSnapshot {
  uint64_t ops = 0;
  uint64_t bytes = 0;
  LatencyHistogram latency;
  LatencyHistogram scheduled;
  uint64_t latency_min = UINT64_MAX;  // UINT64_MAX, 0: the window had no completion
  uint64_t latency_max = 0;
  uint64_t scheduled_min = UINT64_MAX;
  uint64_t scheduled_max = 0;
};

// A job's counters at its last cut (about 120 KiB: made only for steps that are cut).
struct WindowSnapshot {
  OpSnapshot read;
  OpSnapshot write;
  uint64_t at_ns = 0;  // the cut's instant, as ordered
  std::atomic<uint32_t> cuts_done{0};
};

}  // namespace iofleet::agent
