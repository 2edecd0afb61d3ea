// The statistics behind summaries[], against values from published tables and worked by hand.
#include "controller/report/cycle_summary.h"

#include <gtest/gtest.h>

#include <cmath>

namespace iofleet::controller {
namespace {

TEST(StudentT975, MatchesTheTables) {
  // Student's t, two-sided 95% (one-sided 0.975), from the usual tables.
  EXPECT_NEAR(StudentT975(1), 12.706205, 1e-6);
  EXPECT_NEAR(StudentT975(2), 4.302653, 1e-6);
  EXPECT_NEAR(StudentT975(4), 2.776445, 1e-6);
  EXPECT_NEAR(StudentT975(30), 2.042272, 1e-6);
  EXPECT_NEAR(StudentT975(31), 2.039513, 1e-6);  // where the old table switched to 1.96
  EXPECT_NEAR(StudentT975(40), 2.021075, 1e-6);
  EXPECT_NEAR(StudentT975(1000), 1.962339, 1e-6);
}

TEST(SummarizeCycles, GivesTheMeanWithStudentsInterval) {
  // 2, 4, 4, 4, 5: mean 3.8, sample variance (3.24 + 0.04 * 3 + 1.44) / 4 = 1.2.
  CycleSummary s = SummarizeCycles({2, 4, 4, 4, 5}, {0, 1, 2, 3, 4}, false);
  const double half = 2.776445 * std::sqrt(1.2) / std::sqrt(5.0);
  EXPECT_EQ(s.cycles, 5u);
  EXPECT_DOUBLE_EQ(s.mean, 3.8);
  EXPECT_NEAR(s.stddev, std::sqrt(1.2), 1e-12);
  EXPECT_EQ(s.min, 2);
  EXPECT_EQ(s.max, 5);
  EXPECT_NEAR(s.ci95_low, 3.8 - half, 1e-6);
  EXPECT_NEAR(s.ci95_high, 3.8 + half, 1e-6);
  EXPECT_FALSE(s.gmean);  // not a rate
  ASSERT_TRUE(s.outlier_cycles);
  EXPECT_TRUE(s.outlier_cycles->empty());
}

TEST(SummarizeCycles, GivesARateItsGeometricMeanAndLogInterval) {
  // 10, 100, 1000: logs 1, 2, 3 (base 10), mean 2, sample sd 1 (in ln: ln 10).
  CycleSummary s = SummarizeCycles({10, 100, 1000}, {0, 1, 2}, true);
  const double half = 4.302653 * std::log(10.0) / std::sqrt(3.0);
  ASSERT_TRUE(s.gmean);
  EXPECT_NEAR(*s.gmean, 100, 1e-9);
  EXPECT_NEAR(*s.gmean_ci95_low, 100 * std::exp(-half), 1e-4);
  EXPECT_NEAR(*s.gmean_ci95_high, 100 * std::exp(half), 1e-1);
  EXPECT_GT(*s.gmean_ci95_low, 0);
  EXPECT_LT(s.ci95_low, 0);  // the arithmetic interval of the same figures
  EXPECT_FALSE(s.outlier_cycles);  // fewer than 5 cycles
}

TEST(SummarizeCycles, GivesNoGeometricMeanWhenACycleIsZero) {
  CycleSummary s = SummarizeCycles({0, 100, 110}, {0, 1, 2}, true);
  EXPECT_FALSE(s.gmean);
}

TEST(SummarizeCycles, OneCycleHasNoSpread) {
  CycleSummary s = SummarizeCycles({7}, {3}, true);
  EXPECT_EQ(s.mean, 7);
  EXPECT_EQ(s.stddev, 0);
  EXPECT_EQ(s.ci95_low, 7);
  EXPECT_EQ(s.ci95_high, 7);
  EXPECT_NEAR(*s.gmean, 7, 1e-12);
}

TEST(MadOutliers, FlagsWhatIsFarFromTheMedian) {
  // median 10, deviations 0, 1, 1, 2, 40: MAD 1, scale 1.4826; 40 / 1.4826 = 27 > 3.5 and
  // 2 / 1.4826 = 1.35 is not.
  EXPECT_EQ(MadOutliers({10, 11, 9, 12, 50}), std::vector<size_t>({4}));
  // Just either side of the cut-off: 5.18 / 1.4826 = 3.494, 5.20 / 1.4826 = 3.507.
  EXPECT_TRUE(MadOutliers({10, 11, 9, 10, 15.18}).empty());
  EXPECT_EQ(MadOutliers({10, 11, 9, 10, 15.20}), std::vector<size_t>({4}));
}

TEST(MadOutliers, FallsBackToTheMeanAbsoluteDeviationWhenMadIsZero) {
  // Four of five equal: MAD 0. Mean absolute deviation 200 / 5 = 40; 200 / (1.2533 * 40) = 3.99.
  EXPECT_EQ(MadOutliers({100, 100, 100, 100, 300}), std::vector<size_t>({4}));
  EXPECT_TRUE(MadOutliers({5, 5, 5, 5, 5}).empty());
}

TEST(SummarizeCycles, NamesOutliersByTheirCycle) {
  CycleSummary s = SummarizeCycles({10, 11, 9, 12, 50}, {2, 3, 4, 5, 6}, true);
  ASSERT_TRUE(s.outlier_cycles);
  EXPECT_EQ(*s.outlier_cycles, std::vector<int>({6}));
}

}  // namespace
}  // namespace iofleet::controller
