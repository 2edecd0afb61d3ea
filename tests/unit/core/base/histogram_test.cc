#include "core/base/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

namespace iofleet {
namespace {

TEST(LatencyHistogram, BucketsCoverEveryValueContiguously) {
  for (uint32_t b = 0; b + 1 < LatencyHistogram::kBuckets; ++b) {
    ASSERT_EQ(LatencyHistogram::BucketHigh(b) + 1, LatencyHistogram::BucketLow(b + 1)) << b;
  }
  EXPECT_EQ(LatencyHistogram::BucketHigh(LatencyHistogram::kBuckets - 1), UINT64_MAX);
  for (uint64_t v : std::initializer_list<uint64_t>{0, 1, 63, 64, 65, 127, 128, 1000, 123456789, UINT64_MAX}) {
    uint32_t b = LatencyHistogram::BucketOf(v);
    EXPECT_LE(LatencyHistogram::BucketLow(b), v);
    EXPECT_GE(LatencyHistogram::BucketHigh(b), v);
  }
}

TEST(LatencyHistogram, RelativeErrorBelowOnePercent) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 100000; ++i) {
    uint64_t v = rng() >> (rng() % 60);
    if (v == 0) continue;
    double mid = static_cast<double>(LatencyHistogram::BucketMid(LatencyHistogram::BucketOf(v)));
    EXPECT_LT(std::abs(mid - static_cast<double>(v)) / static_cast<double>(v), 0.01) << v;
  }
}

TEST(LatencyHistogram, QuantilesMatchExactOrderStatistics) {
  auto h = std::make_unique<LatencyHistogram>();
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(11.0, 1.0);  // around 60 us, long tail
  std::vector<uint64_t> values;
  for (int i = 0; i < 200000; ++i) {
    uint64_t v = static_cast<uint64_t>(dist(rng)) + 1;
    values.push_back(v);
    h->Record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.99, 0.999, 0.9999}) {
    size_t rank = static_cast<size_t>(std::ceil(q * values.size()));
    double exact = static_cast<double>(values[rank - 1]);
    double got = static_cast<double>(h->Quantile(q));
    EXPECT_LT(std::abs(got - exact) / exact, 0.01) << "q=" << q;
  }
  EXPECT_EQ(h->max(), values.back());
  EXPECT_EQ(h->min(), values.front());
  EXPECT_EQ(h->Quantile(1.0), values.back());
  EXPECT_EQ(h->count(), values.size());
}

TEST(LatencyHistogram, MergeEqualsRecordingEverything) {
  auto all = std::make_unique<LatencyHistogram>();
  auto a = std::make_unique<LatencyHistogram>();
  auto b = std::make_unique<LatencyHistogram>();
  std::mt19937_64 rng(3);
  for (int i = 0; i < 50000; ++i) {
    uint64_t v = rng() % 10'000'000;
    all->Record(v);
    (i % 3 ? a : b)->Record(v);
  }
  auto merged = std::make_unique<LatencyHistogram>();
  merged->Add(*a);
  merged->Add(*b);
  for (uint32_t bucket = 0; bucket < LatencyHistogram::kBuckets; ++bucket) {
    ASSERT_EQ(merged->bucket_count(bucket), all->bucket_count(bucket)) << bucket;
  }
  EXPECT_EQ(merged->count(), all->count());
  EXPECT_EQ(merged->sum(), all->sum());
  EXPECT_EQ(merged->min(), all->min());
  EXPECT_EQ(merged->max(), all->max());
  for (double q : {0.5, 0.99, 0.9999}) EXPECT_EQ(merged->Quantile(q), all->Quantile(q));
}

TEST(LatencyHistogram, EmptyIsZero) {
  auto h = std::make_unique<LatencyHistogram>();
  EXPECT_EQ(h->count(), 0u);
  EXPECT_EQ(h->Quantile(0.99), 0u);
  EXPECT_EQ(h->min(), 0u);
  EXPECT_EQ(h->Mean(), 0.0);
}

}  // namespace
}  // namespace iofleet
