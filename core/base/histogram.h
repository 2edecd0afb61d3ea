// A log-linear latency histogram in nanoseconds: values below 64 are exact; above, each power of
// two is split into 64 equal sub-buckets, so a bucket's midpoint is within 0.8% of any value in
// it. Histograms merge by adding counts, which is what makes merged percentiles exact.
//
// Thread-safety: one writer (Record) and any number of readers (Snapshot); counts are relaxed
// atomics written with plain load+store, which costs the same as plain integers on x86.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace iofleet {

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 6;
  static constexpr uint32_t kSub = 1u << kSubBits;                // 64
  static constexpr uint32_t kBuckets = (64 - kSubBits + 1) * kSub;  // covers all of uint64

  LatencyHistogram() = default;
  LatencyHistogram(const LatencyHistogram& other) { Add(other); }
  LatencyHistogram& operator=(const LatencyHistogram& other);

  static uint32_t BucketOf(uint64_t value) noexcept {
    if (value < kSub) return static_cast<uint32_t>(value);
    int exponent = 63 - __builtin_clzll(value);  // >= kSubBits
    int shift = exponent - kSubBits;
    uint32_t sub = static_cast<uint32_t>(value >> shift) & (kSub - 1);
    return static_cast<uint32_t>(shift + 1) * kSub + sub;
  }
  static uint64_t BucketLow(uint32_t bucket) noexcept;
  static uint64_t BucketHigh(uint32_t bucket) noexcept;  // inclusive
  static uint64_t BucketMid(uint32_t bucket) noexcept;

  // Hot path: single writer.
  void Record(uint64_t value) noexcept {
    Bump(counts_[BucketOf(value)], 1);
    Bump(count_, 1);
    Bump(sum_, value);
    if (value > max_.load(std::memory_order_relaxed)) max_.store(value, std::memory_order_relaxed);
    if (value < min_.load(std::memory_order_relaxed)) min_.store(value, std::memory_order_relaxed);
  }

  // Adds the counts of `other` (merging: exactly as if every value had been recorded here).
  void Add(const LatencyHistogram& other) noexcept;
  void AddBucket(uint32_t bucket, uint64_t count) noexcept;
  void AddSummary(uint64_t sum, uint64_t min, uint64_t max) noexcept;

  uint64_t count() const noexcept { return count_.load(std::memory_order_relaxed); }
  uint64_t sum() const noexcept { return sum_.load(std::memory_order_relaxed); }
  uint64_t max() const noexcept { return max_.load(std::memory_order_relaxed); }
  uint64_t min() const noexcept { return count() ? min_.load(std::memory_order_relaxed) : 0; }
  uint64_t bucket_count(uint32_t bucket) const noexcept {
    return counts_[bucket].load(std::memory_order_relaxed);
  }
  double Mean() const noexcept;
  // The value at quantile q in [0, 1]: the midpoint of the bucket holding it, clamped to the
  // recorded min and max (so p100 is the exact max).
  uint64_t Quantile(double q) const noexcept;

 private:
  static void Bump(std::atomic<uint64_t>& c, uint64_t n) noexcept {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  std::array<std::atomic<uint64_t>, kBuckets> counts_{};
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> sum_{0};
  std::atomic<uint64_t> max_{0};
  std::atomic<uint64_t> min_{UINT64_MAX};
};

}  // namespace iofleet
