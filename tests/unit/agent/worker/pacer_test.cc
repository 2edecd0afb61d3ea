#include "agent/worker/pacer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/support/ks_test.h"

namespace iofleet::agent {
namespace {

// The gaps of a paced job's schedule, in units of its mean gap.
std::vector<double> PacerGapsInMeans(Pacer& pacer, size_t n, uint32_t length, double mean_ns) {
  pacer.Start(1'000'000'000);
  std::vector<double> gaps;
  uint64_t last = pacer.Release(length);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t at = pacer.Release(length);
    gaps.push_back(static_cast<double>(at - last) / mean_ns);
    last = at;
  }
  return gaps;
}

// rate_process=poisson: at a fixed seed the schedule's gaps pass a Kolmogorov-Smirnov test
// against the exponential of the rate's mean, and fail it against a mean 2% off.
TEST(Pacer, PoissonScheduleHasExponentialGapsByKolmogorovSmirnov) {
  const double mean_ns = 1e9 / 5000;  // rate.iops 5000
  Pacer pacer(mean_ns, 0, &SharedArrivalGaps(), 42);
  const size_t n = 200'000;
  std::vector<double> gaps = PacerGapsInMeans(pacer, n, 4096, mean_ns);
  const double critical = ks::KsCritical(n, 0.01);
  std::vector<double> sorted = gaps;
  EXPECT_LT(ks::KsStatisticExp1(sorted), critical);
  for (double& g : gaps) g *= 1.02;
  EXPECT_GT(ks::KsStatisticExp1(gaps), critical);
}

// Another seed, another schedule; the same seed, the same schedule (randrepeat).
TEST(Pacer, PoissonScheduleFollowsItsSeed) {
  Pacer a(1000, 0, &SharedArrivalGaps(), 1), b(1000, 0, &SharedArrivalGaps(), 1), c(1000, 0, &SharedArrivalGaps(), 2);
  a.Start(0);
  b.Start(0);
  c.Start(0);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t at = a.Release(512);
    EXPECT_EQ(at, b.Release(512));
    differs |= at != c.Release(512);
  }
  EXPECT_TRUE(differs);
}

// linear: evenly spaced, and the fractions of a nanosecond are kept: 3 IOPS for 3 million
// requests ends where 1e6 seconds do, not 1 ms early; bytes per second by each request's length.
TEST(Pacer, LinearScheduleKeepsItsFractionsAndFollowsLength) {
  Pacer iops(1e9 / 3, 0, nullptr, 1);
  iops.Start(0);
  for (int i = 0; i < 3'000'000; ++i) iops.Release(4096);
  EXPECT_NEAR(static_cast<double>(iops.next_ns()), 1e15, 1.0);
  Pacer bytes(0, 1e9 / (1 << 20), nullptr, 1);  // 1 MiB/s
  bytes.Start(5);
  EXPECT_EQ(bytes.Release(1 << 19), 5u);
  EXPECT_EQ(bytes.next_ns(), 5u + 500'000'000u);
  EXPECT_FALSE(Pacer().limited());
  EXPECT_TRUE(bytes.limited());
}

}  // namespace
}  // namespace iofleet::agent
