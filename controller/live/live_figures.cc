#include "controller/live/live_figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace iofleet::controller {

IntervalRate RateBetween(const CumulativeSample& before, const CumulativeSample& now, uint64_t ramp_ns) {
  IntervalRate rate;
  const uint64_t from = std::max(before.elapsed_ns, ramp_ns);
  if (now.elapsed_ns <= from || now.ops < before.ops || now.bytes < before.bytes) return rate;
  // A sliver of window (the ramp ended just before this sample) holds too few I/Os for a rate.
  if ((now.elapsed_ns - from) * 10 < now.elapsed_ns - before.elapsed_ns) return rate;
  const double seconds = static_cast<double>(now.elapsed_ns - from) / 1e9;
  rate.known = true;
  rate.ops_per_sec = static_cast<double>(now.ops - before.ops) / seconds;
  rate.bytes_per_sec = static_cast<double>(now.bytes - before.bytes) / seconds;
  return rate;
}

StepClock ClockOf(uint64_t elapsed_ns, uint64_t ramp_ns, uint64_t runtime_ns, uint64_t ops_done, uint64_t expected_ops,
                  double ops_per_sec) {
  StepClock clock;
  clock.elapsed_s = static_cast<double>(elapsed_ns) / 1e9;
  clock.ramp = elapsed_ns < ramp_ns;
  if (runtime_ns > 0) {
    const double expected = static_cast<double>(ramp_ns + runtime_ns) / 1e9;
    clock.expected_s = expected;
    clock.eta_s = std::max(0.0, expected - clock.elapsed_s);
    clock.fraction = std::clamp(clock.elapsed_s / expected, 0.0, 1.0);
    return clock;
  }
  if (expected_ops == 0) return clock;
  const uint64_t left = expected_ops > ops_done ? expected_ops - ops_done : 0;
  clock.fraction = std::clamp(static_cast<double>(ops_done) / static_cast<double>(expected_ops), 0.0, 1.0);
  if (left == 0) {
    clock.eta_s = 0;
  } else if (ops_per_sec > 0) {
    clock.eta_s = static_cast<double>(left) / ops_per_sec;
  }
  if (clock.eta_s) clock.expected_s = clock.elapsed_s + *clock.eta_s;
  return clock;
}

void AddDelta(const v1::Histogram& delta, SparseHistogram& into) {
  const int n = std::min(delta.bucket_size(), delta.count_size());
  uint32_t lowest = UINT32_MAX, highest = 0;
  for (int i = 0; i < n; ++i) {
    if (delta.bucket(i) >= LatencyHistogram::kBuckets || delta.count(i) == 0) continue;
    into.AddBucket(delta.bucket(i), delta.count(i));
    lowest = std::min(lowest, delta.bucket(i));
    highest = std::max(highest, delta.bucket(i));
  }
  if (lowest == UINT32_MAX) return;
  into.AddSummary(delta.sum(), LatencyHistogram::BucketLow(lowest), LatencyHistogram::BucketHigh(highest));
}

std::string Bar(double fraction, int width) {
  const int full = static_cast<int>(std::floor(std::clamp(fraction, 0.0, 1.0) * width + 1e-9));
  return "[" + std::string(static_cast<size_t>(full), '#') + std::string(static_cast<size_t>(width - full), '.') + "]";
}

std::string ShortDuration(double seconds) {
  const auto s = static_cast<uint64_t>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
}

std::string ShortLatency(uint64_t ns) {
  const double v = static_cast<double>(ns);
  if (ns < 1'000) return fmt::format("{} ns", ns);
  if (ns < 1'000'000) return fmt::format("{:.0f} us", v / 1e3);
  if (ns < 1'000'000'000) return fmt::format("{:.2f} ms", v / 1e6);
  return fmt::format("{:.2f} s", v / 1e9);
}

}  // namespace iofleet::controller
