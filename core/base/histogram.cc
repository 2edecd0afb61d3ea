#include "core/base/histogram.h"

#include <algorithm>
#include <cmath>

namespace iofleet {

LatencyHistogram& LatencyHistogram::operator=(const LatencyHistogram& other) {
  if (this == &other) return *this;
  for (auto& c : counts_) c.store(0, std::memory_order_relaxed);
  count_.store(0, std::memory_order_relaxed);
  sum_.store(0, std::memory_order_relaxed);
  max_.store(0, std::memory_order_relaxed);
  min_.store(UINT64_MAX, std::memory_order_relaxed);
  Add(other);
  return *this;
}

uint64_t LatencyHistogram::BucketLow(uint32_t bucket) noexcept {
  if (bucket < kSub) return bucket;
  uint32_t shift = bucket / kSub - 1;
  uint64_t sub = bucket % kSub;
  return (kSub + sub) << shift;
}

uint64_t LatencyHistogram::BucketHigh(uint32_t bucket) noexcept {
  if (bucket < kSub) return bucket;
  uint32_t shift = bucket / kSub - 1;
  return BucketLow(bucket) + ((uint64_t{1} << shift) - 1);
}

uint64_t LatencyHistogram::BucketMid(uint32_t bucket) noexcept {
  uint64_t low = BucketLow(bucket);
  return low + (BucketHigh(bucket) - low) / 2;
}

void LatencyHistogram::Add(const LatencyHistogram& other) noexcept {
  for (uint32_t b = 0; b < kBuckets; ++b) {
    uint64_t n = other.counts_[b].load(std::memory_order_relaxed);
    if (n) Bump(counts_[b], n);
  }
  Bump(count_, other.count());
  if (other.count()) AddSummary(0, other.min(), other.max());
  Bump(sum_, other.sum());
}

void LatencyHistogram::AddBucket(uint32_t bucket, uint64_t count) noexcept {
  if (bucket >= kBuckets) return;
  Bump(counts_[bucket], count);
  Bump(count_, count);
}

void LatencyHistogram::AddSummary(uint64_t sum, uint64_t min, uint64_t max) noexcept {
  Bump(sum_, sum);
  if (max > max_.load(std::memory_order_relaxed)) max_.store(max, std::memory_order_relaxed);
  if (min < min_.load(std::memory_order_relaxed)) min_.store(min, std::memory_order_relaxed);
}

double LatencyHistogram::Mean() const noexcept {
  uint64_t n = count();
  return n ? static_cast<double>(sum()) / static_cast<double>(n) : 0.0;
}

uint64_t LatencyHistogram::Quantile(double q) const noexcept {
  uint64_t n = count();
  if (n == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // The rank of the wanted value, 1-based: the smallest value with at least q*n values <= it.
  uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(n))));
  uint64_t seen = 0;
  for (uint32_t b = 0; b < kBuckets; ++b) {
    seen += counts_[b].load(std::memory_order_relaxed);
    if (seen >= rank) return std::clamp(BucketMid(b), min(), max());
  }
  return max();
}

}  // namespace iofleet
