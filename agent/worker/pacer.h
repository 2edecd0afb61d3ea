// When a rate-capped job may release its next request (fio's rate, rate_iops and rate_process):
// each release is scheduled one gap after the previous one, the gap being the request's share of
// the rate (1 / iops, or its length / bytes per second), evenly spaced or, for a Poisson process,
// that mean times an Exp(1) draw. Latency under a rate is also measured from these times, so a
// request that waits for a free slot is late, not on time (coordinated omission).
//
// The schedule keeps its fractional nanoseconds: 3 IOPS is 333,333,333.3 ns apart, not a job
// that runs 1e-9 fast. No allocation, lock or maths-library call per release.
//
// Thread-safety: one thread (the job's).
#pragma once

#include <cstdint>

#include "agent/worker/arrival_gaps.h"
#include "core/base/random.h"

namespace iofleet::agent {

class Pacer {
 public:
  Pacer() = default;
  // `poisson` (may be null: evenly spaced) outlives the pacer; `seed` keys the job's gaps.
  Pacer(double ns_per_io, double ns_per_byte, const ArrivalGaps* poisson, uint64_t seed)
      : ns_per_io_(ns_per_io), ns_per_byte_(ns_per_byte), poisson_(poisson), rng_(seed) {}

  bool limited() const { return ns_per_io_ > 0 || ns_per_byte_ > 0; }
  // A new pace (a window cut, agent/stats/window_cuts.h); Start follows.
  void SetRate(double ns_per_io, double ns_per_byte) noexcept {
    ns_per_io_ = ns_per_io;
    ns_per_byte_ = ns_per_byte;
  }
  void Start(uint64_t now_ns) noexcept {
    next_ns_ = now_ns;
    carry_ = 0;
  }
  // The time scheduled for the next request, before Release.
  uint64_t next_ns() const { return next_ns_; }

  // The next request (of `length` bytes) goes out: its scheduled time; the one after is set.
  uint64_t Release(uint32_t length) noexcept {
    const uint64_t at = next_ns_;
    double gap = ns_per_io_ + ns_per_byte_ * length;
    if (poisson_) gap *= poisson_->Gap(rng_.Next());
    carry_ += gap;
    const auto whole = static_cast<uint64_t>(carry_);
    carry_ -= static_cast<double>(whole);
    next_ns_ += whole;
    return at;
  }

 private:
  double ns_per_io_ = 0;
  double ns_per_byte_ = 0;
  const ArrivalGaps* poisson_ = nullptr;
  SplitMix64 rng_{1};
  uint64_t next_ns_ = 0;
  double carry_ = 0;  // the fraction of a nanosecond the schedule owes, in [0, 1)
};

}  // namespace iofleet::agent
