#include "core/base/sparse_histogram.h"

#include <gtest/gtest.h>

#include <random>

#include "core/base/histogram_fold.h"
#include "core/wire/histogram_proto.h"

namespace iofleet {
namespace {

// Latencies over many decades, as a step's are: a few hundred buckets of the 3,776.
uint64_t LatencyLike(std::mt19937_64& rng) { return 1000 + (rng() >> (rng() % 44 + 20)); }

void ExpectSame(const SparseHistogram& sparse, const LatencyHistogram& dense) {
  EXPECT_EQ(sparse.count(), dense.count());
  EXPECT_EQ(sparse.sum(), dense.sum());
  EXPECT_EQ(sparse.min(), dense.min());
  EXPECT_EQ(sparse.max(), dense.max());
  EXPECT_DOUBLE_EQ(sparse.Mean(), dense.Mean());
  for (uint32_t b = 0; b < LatencyHistogram::kBuckets; ++b) ASSERT_EQ(sparse.bucket_count(b), dense.bucket_count(b)) << b;
  for (double q = 0; q <= 1.0; q += 0.001) ASSERT_EQ(sparse.Quantile(q), dense.Quantile(q)) << q;
  EXPECT_EQ(sparse.Quantile(0.999999), dense.Quantile(0.999999));
}

TEST(SparseHistogram, HoldsWhatTheDenseOneHoldsAndGivesItsQuantiles) {
  std::mt19937_64 rng(7);
  LatencyHistogram dense;
  SparseHistogram recorded;
  for (int i = 0; i < 50'000; ++i) {
    const uint64_t v = LatencyLike(rng);
    dense.Record(v);
    recorded.Record(v);
  }
  ExpectSame(recorded, dense);
  ExpectSame(SparseHistogram(dense), dense);
  for (size_t i = 1; i < recorded.buckets().size(); ++i) ASSERT_LT(recorded.buckets()[i - 1].first, recorded.buckets()[i].first);
}

TEST(SparseHistogram, MergesAsTheDenseOnesDo) {
  std::mt19937_64 rng(11);
  LatencyHistogram dense_a, dense_b, dense_all;
  SparseHistogram a, b;
  for (int i = 0; i < 20'000; ++i) {
    const uint64_t v = LatencyLike(rng), w = LatencyLike(rng) * 3;
    dense_a.Record(v);
    dense_b.Record(w);
    a.Record(v);
    b.Record(w);
  }
  dense_all.Add(dense_a);
  dense_all.Add(dense_b);
  SparseHistogram merged;
  merged.Add(a);  // into an empty one
  merged.Add(b);  // interleaved buckets
  ExpectSame(merged, dense_all);
  SparseHistogram from_dense = a;
  from_dense.Add(dense_b);
  ExpectSame(from_dense, dense_all);
  merged.Add(SparseHistogram());  // adding nothing changes nothing
  ExpectSame(merged, dense_all);
  SparseHistogram again = merged;
  again.Add(a);  // every bucket held already: added in place
  dense_all.Add(dense_a);
  ExpectSame(again, dense_all);
  again.Add(again);  // itself: twice every count
  dense_all.Add(LatencyHistogram(dense_all));
  ExpectSame(again, dense_all);
}

TEST(SparseHistogram, BucketsInAnyOrderOutOfRangeIgnored) {
  SparseHistogram h;
  h.AddBucket(500, 2);
  h.AddBucket(100, 1);
  h.AddBucket(300, 4);
  h.AddBucket(100, 5);
  h.AddBucket(LatencyHistogram::kBuckets, 9);  // past the last bucket: ignored, as the dense one does
  h.AddBucket(200, 0);                        // nothing to hold
  ASSERT_EQ(h.buckets().size(), 3u);
  EXPECT_EQ(h.buckets()[0], (std::pair<uint32_t, uint64_t>{100, 6}));
  EXPECT_EQ(h.buckets()[1], (std::pair<uint32_t, uint64_t>{300, 4}));
  EXPECT_EQ(h.buckets()[2], (std::pair<uint32_t, uint64_t>{500, 2}));
  EXPECT_EQ(h.count(), 12u);
  LatencyHistogram dense;  // no summary given: min and max as the dense one's
  for (auto [b, n] : std::initializer_list<std::pair<uint32_t, uint64_t>>{{500, 2}, {100, 1}, {300, 4}, {100, 5}}) dense.AddBucket(b, n);
  ExpectSame(h, dense);
}

TEST(SparseHistogram, WireFormAndFoldAreTheDenseOnes) {
  std::mt19937_64 rng(3);
  LatencyHistogram dense;
  for (int i = 0; i < 10'000; ++i) dense.Record(LatencyLike(rng));
  const SparseHistogram sparse(dense);
  v1::Histogram from_dense, from_sparse;
  wire::ToProto(dense, &from_dense);
  wire::ToProto(sparse, &from_sparse);
  EXPECT_EQ(from_sparse.SerializeAsString(), from_dense.SerializeAsString());
  SparseHistogram back;
  wire::AddFromProto(from_sparse, back);
  ExpectSame(back, dense);
  const FoldedHistogram f_dense = Fold(dense), f_sparse = Fold(sparse);
  EXPECT_EQ(f_sparse.cumulative, f_dense.cumulative);
  EXPECT_EQ(f_sparse.count, f_dense.count);
  EXPECT_DOUBLE_EQ(f_sparse.sum_seconds, f_dense.sum_seconds);
}

TEST(SparseHistogram, EmptyIsZeroEverywhere) {
  SparseHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.Quantile(0.5), 0u);
  EXPECT_EQ(h.Mean(), 0.0);
  EXPECT_TRUE(h.buckets().empty());
}

}  // namespace
}  // namespace iofleet
