#include "core/base/histogram_fold.h"

namespace iofleet {
namespace {

// The bounds in nanoseconds, exact integers.
constexpr std::array<uint64_t, kLatencyBoundsSeconds.size()> kBoundsNs = {
    1'000, 2'000, 5'000, 10'000, 20'000, 50'000, 100'000, 200'000, 500'000, 1'000'000, 2'000'000,
    5'000'000, 10'000'000, 20'000'000, 50'000'000, 100'000'000, 200'000'000, 500'000'000,
    1'000'000'000, 2'000'000'000, 5'000'000'000, 10'000'000'000};

// `each(add)` calls add(bucket, count) for every bucket with a count, ascending.
template <typename ForEachBucket>
FoldedHistogram FoldBuckets(ForEachBucket each, uint64_t sum) noexcept {
  FoldedHistogram out;
  std::array<uint64_t, kBoundsNs.size()> per_bound{};
  uint64_t total = 0;
  size_t bound = 0;
  each([&](uint32_t b, uint64_t n) {
    total += n;
    const uint64_t low = LatencyHistogram::BucketLow(b);
    while (bound < kBoundsNs.size() && kBoundsNs[bound] < low) ++bound;
    if (bound < kBoundsNs.size()) per_bound[bound] += n;
  });
  uint64_t running = 0;
  for (size_t i = 0; i < kBoundsNs.size(); ++i) {
    running += per_bound[i];
    out.cumulative[i] = running;
  }
  // The total of the buckets, not count(): a scrape racing the writer then still gives a
  // histogram whose +Inf count is at least every bound's.
  out.count = total;
  out.sum_seconds = static_cast<double>(sum) / 1e9;
  return out;
}

}  // namespace

FoldedHistogram Fold(const LatencyHistogram& histogram) noexcept {
  return FoldBuckets([&](auto add) {
    for (uint32_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
      if (const uint64_t n = histogram.bucket_count(b)) add(b, n);
    }
  }, histogram.sum());
}

FoldedHistogram Fold(const SparseHistogram& histogram) noexcept {
  return FoldBuckets([&](auto add) {
    for (const auto& [b, n] : histogram.buckets()) add(b, n);
  }, histogram.sum());
}


}  // namespace iofleet
