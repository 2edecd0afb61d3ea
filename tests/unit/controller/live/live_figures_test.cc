// The live view's arithmetic: rates over the last interval (not since the step began, not
// counting the ramp), ETA and the bar, and the exact merge of histogram deltas.
#include "controller/live/live_figures.h"

#include <gtest/gtest.h>

#include "core/base/clock.h"

namespace iofleet::controller {
namespace {

TEST(RateBetween, IsTheLastIntervalsRateNotTheAverageSinceTheStart) {
  // 100 MiB in the first second, 200 MiB in the next: the live rate is 200 MiB/s, not 150.
  IntervalRate r = RateBetween({1 * kNsPerSecond, 100, 100ull << 20}, {2 * kNsPerSecond, 300, 300ull << 20}, 0);
  ASSERT_TRUE(r.known);
  EXPECT_DOUBLE_EQ(r.bytes_per_sec, 200.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(r.ops_per_sec, 200.0);
}

TEST(RateBetween, TheFirstIntervalAfterTheRampCountsFromTheRampsEnd) {
  // Ramp 1.5 s; samples at 1 s (nothing counted yet) and 2 s: 0.5 s of window, 50 ops in it.
  IntervalRate r = RateBetween({1 * kNsPerSecond, 0, 0}, {2 * kNsPerSecond, 50, 50 << 20}, 1'500'000'000);
  ASSERT_TRUE(r.known);
  EXPECT_DOUBLE_EQ(r.ops_per_sec, 100.0);
  // Still inside the ramp: no rate at all, rather than a 0 that reads as a stall.
  EXPECT_FALSE(RateBetween({0, 0, 0}, {1 * kNsPerSecond, 0, 0}, 2 * kNsPerSecond).known);
  // The ramp ended 4 ms before the sample: too little window for a rate (it read 0 MiB/s).
  EXPECT_FALSE(RateBetween({0, 0, 0}, {1'004'000'000, 0, 0}, kNsPerSecond).known);
}

TEST(RateBetween, NoTimeOrCountersGoingBackIsNoRate) {
  EXPECT_FALSE(RateBetween({kNsPerSecond, 5, 5}, {kNsPerSecond, 6, 6}, 0).known);
  EXPECT_FALSE(RateBetween({kNsPerSecond, 5, 5}, {2 * kNsPerSecond, 4, 6}, 0).known);
}

TEST(ClockOf, ARuntimeBoundStepTakesRampPlusRuntime) {
  StepClock c = ClockOf(4 * kNsPerSecond, 2 * kNsPerSecond, 8 * kNsPerSecond, 0, 0, 0);
  EXPECT_FALSE(c.ramp);
  EXPECT_DOUBLE_EQ(*c.expected_s, 10.0);
  EXPECT_DOUBLE_EQ(*c.eta_s, 6.0);
  EXPECT_DOUBLE_EQ(*c.fraction, 0.4);
  EXPECT_TRUE(ClockOf(1 * kNsPerSecond, 2 * kNsPerSecond, 8 * kNsPerSecond, 0, 0, 0).ramp);
  EXPECT_DOUBLE_EQ(*ClockOf(12 * kNsPerSecond, 2 * kNsPerSecond, 8 * kNsPerSecond, 0, 0, 0).eta_s, 0.0);  // draining
}

TEST(ClockOf, ASizeBoundStepsEtaIsWhatIsLeftAtTheCurrentRate) {
  StepClock c = ClockOf(3 * kNsPerSecond, 0, 0, 250, 1000, 50);
  EXPECT_DOUBLE_EQ(*c.fraction, 0.25);
  EXPECT_DOUBLE_EQ(*c.eta_s, 15.0);
  EXPECT_DOUBLE_EQ(*c.expected_s, 18.0);
  StepClock stalled = ClockOf(3 * kNsPerSecond, 0, 0, 250, 1000, 0);
  EXPECT_FALSE(stalled.eta_s);  // no rate: no guess
  EXPECT_DOUBLE_EQ(*stalled.fraction, 0.25);
  EXPECT_FALSE(ClockOf(3 * kNsPerSecond, 0, 0, 250, 0, 50).fraction);  // total unknown (files, copy)
}

TEST(AddDelta, MergesDeltasExactlyAndP99ComesFromTheMerge) {
  LatencyHistogram exact;
  SparseHistogram merged;
  v1::Histogram first, second;
  for (uint64_t v = 1; v <= 990; ++v) exact.Record(1000);
  for (uint64_t v = 1; v <= 10; ++v) exact.Record(1'000'000);
  first.add_bucket(LatencyHistogram::BucketOf(1000));
  first.add_count(990);
  first.set_sum(990'000);
  second.add_bucket(LatencyHistogram::BucketOf(1'000'000));
  second.add_count(10);
  second.set_sum(10'000'000);
  AddDelta(first, merged);
  AddDelta(second, merged);
  EXPECT_EQ(merged.count(), exact.count());
  EXPECT_EQ(merged.sum(), exact.sum());
  for (uint32_t b = 0; b < LatencyHistogram::kBuckets; ++b) ASSERT_EQ(merged.bucket_count(b), exact.bucket_count(b)) << b;
  EXPECT_EQ(merged.Quantile(0.99), exact.Quantile(0.99));
  // A delta carries no min and max (the agent has only the step's): the top quantile is its
  // bucket's, at most one bucket width (0.8%) from the exact histogram's clamped maximum.
  EXPECT_EQ(LatencyHistogram::BucketOf(merged.Quantile(0.999)), LatencyHistogram::BucketOf(exact.Quantile(0.999)));
}

TEST(LiveFormat, BarDurationAndLatency) {
  EXPECT_EQ(Bar(0.25, 8), "[##......]");
  EXPECT_EQ(Bar(1.7, 4), "[####]");
  EXPECT_EQ(ShortDuration(9.4), "9s");
  EXPECT_EQ(ShortDuration(65), "1m05s");
  EXPECT_EQ(ShortDuration(3720), "1h02m");
  EXPECT_EQ(ShortLatency(850), "850 ns");
  EXPECT_EQ(ShortLatency(85'000), "85 us");
  EXPECT_EQ(ShortLatency(1'240'000), "1.24 ms");
  EXPECT_EQ(ShortLatency(2'500'000'000), "2.50 s");
}

}  // namespace
}  // namespace iofleet::controller
