#include "controller/fleet/stall_clock.h"

#include <chrono>

#include "controller/fleet/fleet.h"
#include "core/base/clock.h"

namespace iofleet::controller {
namespace {

constexpr uint64_t kTickNs = 50'000'000;
constexpr size_t kKept = 256;
constexpr uint64_t kReportedNs = 1'000'000'000;  // a shorter stall counts, but is not worth a note

}  // namespace

std::optional<uint64_t> StallCounter::Tick(uint64_t now_ns) {
  const uint64_t gap = now_ns > last_ ? now_ns - last_ : 0;
  last_ = now_ns;
  if (gap <= kCountedGapNs) {
    progress_ += gap;
    return std::nullopt;
  }
  progress_ += kCountedGapNs;
  return gap - kTickNs;
}

StallClock::StallClock() : thread_([this] { Loop(); }) {}

StallClock::~StallClock() {
  stop_ = true;
  thread_.join();
}

void StallClock::Loop() {
  StallCounter counter(MonotonicNs());
  while (!stop_) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(kTickNs));
    if (auto stall = counter.Tick(MonotonicNs()); stall && *stall >= kReportedNs) {
      std::lock_guard lock(mu_);
      if (stalls_.size() == kKept) stalls_.erase(stalls_.begin());
      stalls_.push_back({UnixNowNs(), *stall});
    }
    progress_.store(counter.progress_ns(), std::memory_order_relaxed);
  }
}

std::vector<Stall> StallClock::StallsSince(uint64_t since_unix_ns) const {
  std::lock_guard lock(mu_);
  std::vector<Stall> out;
  for (const Stall& s : stalls_) {
    if (s.at_unix_ns >= since_unix_ns) out.push_back(s);
  }
  return out;
}

}  // namespace iofleet::controller
