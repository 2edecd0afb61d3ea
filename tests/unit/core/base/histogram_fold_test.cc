#include "core/base/histogram_fold.h"

#include <gtest/gtest.h>

namespace iofleet {
namespace {

TEST(HistogramFold, CountsEachValueUnderItsBound) {
  LatencyHistogram h;
  h.Record(500);            // 0.5 us: under the first bound
  h.Record(1'500);          // 1.5 us: under 2 us
  h.Record(3'000'000);      // 3 ms: under 5 ms
  h.Record(60'000'000'000); // 60 s: only +Inf
  FoldedHistogram f = Fold(h);
  EXPECT_EQ(f.cumulative[0], 1u);   // le 1e-6
  EXPECT_EQ(f.cumulative[1], 2u);   // le 2e-6
  EXPECT_EQ(f.cumulative[10], 2u);  // le 2e-3
  EXPECT_EQ(f.cumulative[11], 3u);  // le 5e-3
  EXPECT_EQ(f.cumulative.back(), 3u);
  EXPECT_EQ(f.count, 4u);
  EXPECT_DOUBLE_EQ(f.sum_seconds, (500 + 1'500 + 3'000'000 + 60'000'000'000.0) / 1e9);
}

TEST(HistogramFold, ValuesOnABoundAreCountedUnderIt) {
  LatencyHistogram h;
  h.Record(1'000);        // exactly 1 us
  h.Record(1'000'000);    // exactly 1 ms
  FoldedHistogram f = Fold(h);
  EXPECT_EQ(f.cumulative[0], 1u);
  EXPECT_EQ(f.cumulative[9], 2u);  // le 1e-3
}

TEST(HistogramFold, CumulativeCountsNeverDecrease) {
  LatencyHistogram h;
  for (uint64_t v = 1; v < 20'000'000'000; v = v * 3 + 7) h.Record(v);
  FoldedHistogram f = Fold(h);
  for (size_t i = 1; i < f.cumulative.size(); ++i) EXPECT_LE(f.cumulative[i - 1], f.cumulative[i]);
  EXPECT_LE(f.cumulative.back(), f.count);
}

TEST(HistogramFold, EmptyHistogramFoldsToZeros) {
  FoldedHistogram f = Fold(LatencyHistogram{});
  EXPECT_EQ(f.count, 0u);
  EXPECT_EQ(f.cumulative.back(), 0u);
  EXPECT_EQ(f.sum_seconds, 0.0);
}

}  // namespace
}  // namespace iofleet
