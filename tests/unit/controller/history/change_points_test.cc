#include "controller/history/change_points.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

namespace iofleet::controller {
namespace {

std::vector<double> Series(size_t n, size_t step_at, double step, uint64_t seed, double cv = 0.03) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0, cv);
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 1000 * (i >= step_at ? 1 - step : 1.0) * (1 + noise(random));
  return v;
}

TEST(FindChangePoints, FindsOneClearStepWithItsSize) {
  auto found = FindChangePoints(Series(30, 17, 0.20, 1));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 17u);
  EXPECT_NEAR(found[0].shift_pct, -20, 3);
  EXPECT_LE(found[0].p_value, 0.05);
}

TEST(FindChangePoints, FindsTwoSteps) {
  // Little noise: this is about finding a second split within the first one's segments.
  auto v = Series(40, 12, 0.20, 3, 0.01);
  for (size_t i = 28; i < v.size(); ++i) v[i] *= 1.5;  // recovers beyond the start
  auto found = FindChangePoints(v);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NEAR(static_cast<double>(found[0].index), 12, 1);
  EXPECT_NEAR(static_cast<double>(found[1].index), 28, 1);
  EXPECT_LT(found[0].shift_pct, 0);
  EXPECT_GT(found[1].shift_pct, 0);
}

TEST(FindChangePoints, ShortOrFlatSeriesHaveNone) {
  EXPECT_TRUE(FindChangePoints({}).empty());
  EXPECT_TRUE(FindChangePoints({1, 2, 3, 4, 5}).empty());
  EXPECT_TRUE(FindChangePoints(std::vector<double>(20, 7.0)).empty());
}

// The bar: a 10% step in a series of 30 runs with 3% noise is found within 1 run of the
// true one; and noise alone seldom gives a change point.
TEST(FindChangePointsStatistics, TenPercentStepInThirtyRuns) {
  const int trials = 200;
  int within_one = 0, false_series = 0;
  for (int t = 0; t < trials; ++t) {
    const size_t at = 8 + static_cast<size_t>(t % 15);  // 8 .. 22
    auto found = FindChangePoints(Series(30, at, 0.10, 100 + t));
    for (const auto& c : found) {
      if (c.index + 1 >= at && c.index <= at + 1) {
        ++within_one;
        break;
      }
    }
    if (!FindChangePoints(Series(30, 30, 0, 1000 + t)).empty()) ++false_series;
  }
  std::printf("10%% step found within 1 run: %d/%d; noise-only series with a change point: %d/%d\n", within_one, trials,
              false_series, trials);
  EXPECT_GE(within_one, trials * 90 / 100);
  EXPECT_LE(false_series, trials * 10 / 100);
}

}  // namespace
}  // namespace iofleet::controller
