// LatencyHistogram's buckets, kept as the ones that hold a count: for what the controller keeps
// per agent (report rows, the live model) and merges per sample.
//
// A LatencyHistogram is 3,776 dense counters (30 KB), right for an agent's hot path (one store a
// value, nothing allocated). A step's latencies fill a few hundred buckets, and the controller
// kept six dense histograms per agent row and two in the live model, and walked all 3,776
// buckets for every merge: about 0.3 MB and 140-220 us of controller time per agent-sample at
// 1,000 agents. Same buckets, same values and quantiles (Quantile is LatencyHistogram's), so the
// figures do not change; merging walks the buckets held.
//
// Thread-safety: none (the live model holds its lock; a report is built on one thread). Adding a
// bucket not held yet may allocate: not for the hot path.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/base/histogram.h"

namespace iofleet {

class SparseHistogram {
 public:
  SparseHistogram() = default;
  explicit SparseHistogram(const LatencyHistogram& dense) { Add(dense); }

  void Record(uint64_t value) {
    AddBucket(LatencyHistogram::BucketOf(value), 1);
    AddSummary(value, value, value);
  }
  void Add(const SparseHistogram& other);
  void Add(const LatencyHistogram& other);
  void AddBucket(uint32_t bucket, uint64_t count);  // a bucket out of range is ignored, as LatencyHistogram does
  void AddSummary(uint64_t sum, uint64_t min, uint64_t max) noexcept;

  uint64_t count() const noexcept { return count_; }
  uint64_t sum() const noexcept { return sum_; }
  uint64_t max() const noexcept { return max_; }
  uint64_t min() const noexcept { return count_ ? min_ : 0; }
  uint64_t bucket_count(uint32_t bucket) const noexcept;
  double Mean() const noexcept;
  // As LatencyHistogram::Quantile: the midpoint of the bucket holding quantile q in [0, 1],
  // clamped to the recorded min and max.
  uint64_t Quantile(double q) const noexcept;
  // The buckets held, ascending, each with its count (never 0).
  const std::vector<std::pair<uint32_t, uint64_t>>& buckets() const noexcept { return buckets_; }

 private:
  std::vector<std::pair<uint32_t, uint64_t>> buckets_;  // ascending by bucket
  uint64_t count_ = 0, sum_ = 0, max_ = 0, min_ = UINT64_MAX;
};

}  // namespace iofleet
