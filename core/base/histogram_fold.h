// Prometheus's classic histogram wants cumulative counts at fixed upper bounds. The exact
// histogram (core/base/histogram.h) is folded into them when a scrape asks, never measured a
// second time. Each exact bucket is counted under the first bound at or above its lowest value:
// every value at or below a bound is counted under it, and a count is high only by values
// within one exact bucket (0.8%) above a bound.
#pragma once

#include <array>
#include <cstdint>

#include "core/base/histogram.h"
#include "core/base/sparse_histogram.h"

namespace iofleet {

// 1-2-5 steps from 1 us to 10 s, in seconds: the `le` labels of every latency histogram
// iofleet exports (DESIGN.md section 5b).
inline constexpr std::array<double, 22> kLatencyBoundsSeconds = {
    1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3,
    5e-3, 1e-2, 2e-2, 5e-2, 1e-1, 2e-1, 5e-1, 1.0,  2.0,  5.0,  10.0};

struct FoldedHistogram {
  // cumulative[i]: values at or below kLatencyBoundsSeconds[i]; +Inf is `count`.
  std::array<uint64_t, kLatencyBoundsSeconds.size()> cumulative{};
  uint64_t count = 0;
  double sum_seconds = 0;
};

FoldedHistogram Fold(const LatencyHistogram& histogram) noexcept;
FoldedHistogram Fold(const SparseHistogram& histogram) noexcept;

}  // namespace iofleet
