#include "controller/run/latency_search.h"

#include <gtest/gtest.h>

#include <cmath>

namespace iofleet::controller {
namespace {

constexpr uint64_t kTarget = 1'000'000;  // 1 ms

// A device with a sharp knee: under `knee` IOPS its p99 is 0.3 ms, above it 20 ms; it never
// does more than `ceiling`.
struct KneeDevice {
  double knee;
  double ceiling;
  double achieved(std::optional<double> rate) const { return rate ? std::min(*rate, ceiling) : ceiling; }
  uint64_t p99(std::optional<double> rate) const { return achieved(rate) <= knee ? 300'000 : 20'000'000; }
};

LatencySearch RunSearch(const KneeDevice& device, uint32_t max_probes = 12) {
  LatencySearch search(kTarget, max_probes, 1);
  for (auto next = search.next(); !next.done; next = search.next()) {
    const std::optional<double> asked = next.rate ? std::optional<double>(std::round(*next.rate)) : std::nullopt;
    search.Record(asked, next.confirm, device.achieved(asked), device.p99(asked), 10'000'000'000, 1000);
  }
  return search;
}

TEST(LatencySearch, FindsAKneeWithin2PercentInAtMost12WindowsWhereverItSits) {
  for (double share : {0.9, 0.5, 0.2, 0.08}) {
    const KneeDevice device{share * 100'000, 100'000};
    LatencySearch search = RunSearch(device);
    ASSERT_TRUE(search.met()) << "knee at " << share;
    EXPECT_LE(search.probes().size(), 12u);
    EXPECT_LE(*search.found(), device.knee) << "the found rate meets the target";
    EXPECT_GE(*search.found(), device.knee / (1 + kSearchPrecision) - 1) << "and is within 2% of the knee";
    EXPECT_TRUE(search.probes().back().confirm);
    EXPECT_TRUE(search.probes().back().passed);
    EXPECT_FALSE(search.probes().front().rate_asked) << "the first window runs at full speed";
    EXPECT_TRUE(search.converged());
    ASSERT_TRUE(search.failed_above());
    EXPECT_GT(*search.failed_above(), device.knee) << "the lowest rate that failed lies above the knee";
  }
}

TEST(LatencySearch, ADeviceThatMeetsTheTargetAtFullSpeedIsConfirmedThere) {
  const KneeDevice device{1e9, 50'000};
  LatencySearch search = RunSearch(device);
  ASSERT_TRUE(search.met());
  EXPECT_EQ(search.probes().size(), 2u);
  EXPECT_DOUBLE_EQ(*search.found(), 50'000);
  EXPECT_FALSE(search.failed_above()) << "nothing above the ceiling was tried";
  EXPECT_TRUE(search.converged());
}

TEST(LatencySearch, AProbeThatMissesItsRateFailsEvenUnderTheTarget) {
  LatencySearch search(kTarget, 12, 1);
  search.Record(std::nullopt, false, 1000, 5'000'000, 1, 1);
  const auto next = search.next();
  ASSERT_TRUE(next.rate);
  EXPECT_DOUBLE_EQ(*next.rate, 500) << "half the ceiling first";
  search.Record(500.0, false, 470, 100'000, 1, 1);  // 94% of the rate asked
  EXPECT_FALSE(search.probes().back().passed);
  EXPECT_DOUBLE_EQ(*search.next().rate, 125) << "a quarter of the last failure while none passed";
}

TEST(LatencySearch, AFailedConfirmationGoesOnBelowIt) {
  LatencySearch search(kTarget, 12, 1);
  search.Record(std::nullopt, false, 1000, 100'000, 1, 1);  // full speed passes: confirm it
  auto next = search.next();
  ASSERT_TRUE(next.confirm);
  search.Record(*next.rate, true, 900, 100'000, 1, 1);  // 90% achieved: not confirmed
  EXPECT_FALSE(search.met());
  next = search.next();
  ASSERT_FALSE(next.done);
  EXPECT_DOUBLE_EQ(*next.rate, 250);
}

TEST(LatencySearch, NothingMeetsTheTargetAndTheStepSaysSo) {
  const KneeDevice device{0, 1000};  // no rate is fast enough
  LatencySearch search = RunSearch(device);
  EXPECT_FALSE(search.met());
  EXPECT_LE(search.probes().size(), 12u);
  const std::string why = search.Failure("99", "iops");
  EXPECT_NE(why.find("not even the lowest rate tried met p99 <= 1ms"), std::string::npos) << why;
}

TEST(LatencySearch, RunningOutOfWindowsConfirmsTheBestSoFar) {
  const KneeDevice device{20'000, 100'000};
  // Full speed fails, 50k fails, 12.5k passes, 25k fails: the fifth and last window confirms 12.5k.
  LatencySearch search = RunSearch(device, 5);
  ASSERT_EQ(search.probes().size(), 5u);
  ASSERT_TRUE(search.met());
  EXPECT_DOUBLE_EQ(*search.found(), 12'500);
  EXPECT_TRUE(search.probes().back().confirm);
  // A rate that meets, not the highest within 2%: the report must say so.
  EXPECT_FALSE(search.converged());
  EXPECT_DOUBLE_EQ(*search.failed_above(), 25'000);
}

// With 12 windows a knee under about 8% of the ceiling is not bracketed within 2% (at 0.5%, the
// last window confirms about 3% under it): the search says it did not converge.
TEST(LatencySearch, AKneeFarBelowTheCeilingMayNotConvergeAndSaysSo) {
  const KneeDevice device{500, 100'000};
  LatencySearch search = RunSearch(device);
  ASSERT_TRUE(search.met());
  EXPECT_EQ(search.probes().size(), 12u);
  ASSERT_TRUE(search.failed_above());
  EXPECT_EQ(search.converged(), *search.failed_above() <= *search.found() * (1 + kSearchPrecision));
  EXPECT_FALSE(search.converged()) << *search.found() << " .. " << *search.failed_above();
}

}  // namespace
}  // namespace iofleet::controller
