#include "core/base/sparse_histogram.h"

#include <algorithm>
#include <cmath>

namespace iofleet {

void SparseHistogram::Add(const SparseHistogram& other) {
  if (other.count_ == 0 && other.sum_ == 0) return;
  if (&other == this) {
    const SparseHistogram copy = other;  // the pass below writes what it reads
    Add(copy);
    return;
  }
  // Both ascending. How many of other's buckets are new here, then one pass from the back in
  // place: a merge into a histogram that holds them already (an aggregate's) allocates nothing.
  size_t fresh = 0;
  for (auto a = buckets_.cbegin(), b = other.buckets_.cbegin(); b != other.buckets_.cend(); ++b) {
    while (a != buckets_.cend() && a->first < b->first) ++a;
    if (a == buckets_.cend() || a->first != b->first) ++fresh;
  }
  size_t mine = buckets_.size(), theirs = other.buckets_.size(), out = mine + fresh;
  buckets_.resize(out);
  while (theirs > 0) {
    const auto& b = other.buckets_[theirs - 1];
    if (mine > 0 && buckets_[mine - 1].first > b.first) {
      buckets_[--out] = buckets_[--mine];
    } else if (mine > 0 && buckets_[mine - 1].first == b.first) {
      buckets_[--out] = {b.first, buckets_[--mine].second + b.second};
      --theirs;
    } else {
      buckets_[--out] = b;
      --theirs;
    }
  }
  count_ += other.count_;
  sum_ += other.sum_;
  if (other.count_) AddSummary(0, other.min(), other.max());
}

void SparseHistogram::Add(const LatencyHistogram& other) {
  for (uint32_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
    if (const uint64_t n = other.bucket_count(b)) AddBucket(b, n);
  }
  sum_ += other.sum();
  if (other.count()) AddSummary(0, other.min(), other.max());
}

void SparseHistogram::AddBucket(uint32_t bucket, uint64_t count) {
  if (bucket >= LatencyHistogram::kBuckets || count == 0) return;
  count_ += count;
  // Buckets mostly come in ascending order (from the wire, from a dense histogram): append.
  if (buckets_.empty() || buckets_.back().first < bucket) {
    buckets_.emplace_back(bucket, count);
    return;
  }
  auto it = std::lower_bound(buckets_.begin(), buckets_.end(), bucket, [](const auto& held, uint32_t b) { return held.first < b; });
  if (it != buckets_.end() && it->first == bucket) it->second += count;
  else buckets_.insert(it, {bucket, count});
}

void SparseHistogram::AddSummary(uint64_t sum, uint64_t min, uint64_t max) noexcept {
  sum_ += sum;
  max_ = std::max(max_, max);
  min_ = std::min(min_, min);
}

uint64_t SparseHistogram::bucket_count(uint32_t bucket) const noexcept {
  auto it = std::lower_bound(buckets_.begin(), buckets_.end(), bucket, [](const auto& held, uint32_t b) { return held.first < b; });
  return it != buckets_.end() && it->first == bucket ? it->second : 0;
}

double SparseHistogram::Mean() const noexcept {
  return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
}

uint64_t SparseHistogram::Quantile(double q) const noexcept {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // The rank of the wanted value, 1-based: the smallest value with at least q*n values <= it.
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (const auto& [bucket, n] : buckets_) {
    seen += n;
    if (seen >= rank) return std::clamp(LatencyHistogram::BucketMid(bucket), min(), max());
  }
  return max();
}

}  // namespace iofleet
