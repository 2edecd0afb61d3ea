#include "agent/worker/arrival_gaps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/base/random.h"
#include "tests/support/ks_test.h"

namespace iofleet::agent {
namespace {

constexpr double kGapAlpha = 0.01;

using iofleet::ks::KsCritical;
using iofleet::ks::KsStatisticExp1;

std::vector<double> GapDraws(const ArrivalGaps& gaps, uint64_t seed, size_t n) {
  SplitMix64 rng(seed);
  std::vector<double> out(n);
  for (double& g : out) g = gaps.Gap(rng.Next());
  return out;
}

TEST(ArrivalGaps, FollowExp1ByKolmogorovSmirnovAndMean) {
  const ArrivalGaps gaps;
  const size_t n = size_t{1} << 20;
  std::vector<double> drawn = GapDraws(gaps, 2024, n);
  double sum = 0;
  for (double g : drawn) sum += g;
  // Exp(1) has mean 1 and standard deviation 1: the mean of n lies within z(0.995) / sqrt(n).
  const double z = boost::math::quantile(boost::math::normal(), 1 - kGapAlpha / 2);
  EXPECT_NEAR(sum / n, 1.0, z / std::sqrt(static_cast<double>(n)));
  const double critical = KsCritical(n, kGapAlpha);
  EXPECT_GT(critical, 1.5 / std::sqrt(static_cast<double>(n)));  // K(0.01) is about 1.63
  EXPECT_LT(critical, 1.7 / std::sqrt(static_cast<double>(n)));
  std::vector<double> sorted = drawn;
  EXPECT_LT(KsStatisticExp1(sorted), critical);
  // The test can fail: a mean 1% off is refused on the same draws.
  for (double& g : drawn) g *= 1.01;
  EXPECT_GT(KsStatisticExp1(drawn), critical);
}

// Every binade of 1 - u, from 1/2 down to 2^-64: within the interpolation's bound of -ln(1 - u).
TEST(ArrivalGaps, TracksMinusLogOfOneMinusUEverywhere) {
  const ArrivalGaps gaps;
  SplitMix64 rng(7);
  double worst = 0;
  for (int exponent = 0; exponent < 64; ++exponent) {
    for (int i = 0; i < 2000; ++i) {
      // rest = 1 - u in units of 2^-64 with `exponent` leading zeros; Gap reads ~r | 1 as rest.
      const uint64_t top = uint64_t{1} << (63 - exponent);
      const uint64_t rest = (top | (rng.Next() & (top - 1))) | 1;
      const uint64_t r = ~rest;
      const long double exact = -std::log(std::ldexp(static_cast<long double>(rest), -64));
      worst = std::max(worst, static_cast<double>(std::fabs(gaps.Gap(r) - exact)));
    }
  }
  // Linear pieces 1/8192 wide over -ln m, m in [1/2, 1): (1/8192)^2 / 8 * max 1/m^2 = 7.5e-9.
  EXPECT_LT(worst, 7.5e-9 + 1e-13);
  EXPECT_NEAR(gaps.Gap(0), 0.0, 1e-15);
  EXPECT_NEAR(gaps.Gap(~uint64_t{0}), 64 * std::log(2.0), 1e-12);
  EXPECT_LE(gaps.table_bytes(), size_t{64} << 10);
}

TEST(ArrivalGaps, NeverDecreaseAndStayFinite) {
  const ArrivalGaps gaps;
  SplitMix64 rng(11);
  std::vector<uint64_t> randoms{0, 1, ~uint64_t{0}, ~uint64_t{0} - 1, uint64_t{1} << 63};
  for (int i = 0; i < 100000; ++i) randoms.push_back(rng.Next());
  for (int shift = 0; shift < 64; ++shift) randoms.push_back(~uint64_t{0} << shift);  // each binade's edge
  std::sort(randoms.begin(), randoms.end());
  double before = -1;
  for (uint64_t r : randoms) {
    const double g = gaps.Gap(r);
    ASSERT_TRUE(std::isfinite(g)) << r;
    ASSERT_GE(g, 0.0) << r;
    ASSERT_GE(g, before) << r;
    before = g;
  }
}

// The share of the 2^64 numbers whose gap exceeds t is e^-t: exact in the tail, where sampling
// would need 10^13 draws. Gap never decreases, so the share is read off the least such number.
TEST(ArrivalGaps, TailMatchesTheExponentialBeyondAnySample) {
  const ArrivalGaps gaps;
  for (double t : {0.5, 1.0, 5.0, 10.0, 20.0, 30.0, 40.0}) {
    uint64_t lo = 0, hi = ~uint64_t{0};  // the least r with Gap(r) > t
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (gaps.Gap(mid) > t) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const long double numbers = std::ldexp(1.0L, 64) - static_cast<long double>(lo);
    const long double share = numbers / std::ldexp(1.0L, 64);
    // Off by the interpolation (7.5e-9 of t, so as much of the share) and by a number or two.
    EXPECT_NEAR(static_cast<double>(share / std::exp(-static_cast<long double>(t))), 1.0, 1e-8 + 2 / static_cast<double>(numbers))
        << t;
  }
  // And in a sample: the draws beyond t, within 4.5 standard deviations of n e^-t.
  const size_t n = size_t{1} << 22;
  const std::vector<double> drawn = GapDraws(gaps, 99, n);
  for (double t : {1.0, 3.0, 6.0, 10.0}) {
    const double beyond = static_cast<double>(std::count_if(drawn.begin(), drawn.end(), [t](double g) { return g > t; }));
    const double p = std::exp(-t);
    EXPECT_NEAR(beyond, n * p, 4.5 * std::sqrt(n * p * (1 - p))) << t;
  }
}

TEST(ArrivalGaps, SameNumbersSameGaps) {
  const ArrivalGaps a, b;
  EXPECT_EQ(GapDraws(a, 5, 10000), GapDraws(b, 5, 10000));
  EXPECT_NE(GapDraws(a, 5, 10000), GapDraws(a, 6, 10000));
}

}  // namespace
}  // namespace iofleet::agent
