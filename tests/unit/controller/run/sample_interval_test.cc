#include "controller/run/sample_interval.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

constexpr uint64_t kMs = 1'000'000;

// A 1.2 s step sampled once a second got one sample and empty charts.
TEST(AutoSampleInterval, AboutTwentySamplesPerStepBetweenATenthAndOneSecond) {
  EXPECT_EQ(AutoSampleIntervalNs(1200 * kMs, 1), 100 * kMs);     // 12 samples: the floor
  EXPECT_EQ(AutoSampleIntervalNs(2000 * kMs, 1), 100 * kMs);     // 20
  EXPECT_EQ(AutoSampleIntervalNs(10'000 * kMs, 1), 500 * kMs);   // 20
  EXPECT_EQ(AutoSampleIntervalNs(7'000 * kMs, 1), 300 * kMs);    // 350 ms, in whole 100 ms: 23
  EXPECT_EQ(AutoSampleIntervalNs(600'000 * kMs, 1), 1000 * kMs); // a 10 minute step: once a second
  EXPECT_EQ(AutoSampleIntervalNs(0, 1), 100 * kMs) << "unknown length: as often as allowed";
}

TEST(AutoSampleInterval, ALargeFleetSamplesLessOften) {
  EXPECT_EQ(AutoSampleIntervalNs(2000 * kMs, 100), 100 * kMs);
  EXPECT_EQ(AutoSampleIntervalNs(2000 * kMs, 500), 500 * kMs);   // 1000 messages a second at most
  EXPECT_EQ(AutoSampleIntervalNs(0, 10'000), 1000 * kMs);
  for (uint64_t len : std::initializer_list<uint64_t>{0, 1, 1000 * kMs, 30'000 * kMs, 3'600'000 * kMs}) {
    for (size_t agents : std::initializer_list<size_t>{1, 16, 1000, 10'000}) {
      const uint64_t i = AutoSampleIntervalNs(len, agents);
      EXPECT_GE(i, kMinSampleIntervalNs);
      EXPECT_LE(i, kMaxAutoSampleIntervalNs);
      EXPECT_EQ(i % (100 * kMs), 0u);
    }
  }
}

}  // namespace
}  // namespace iofleet::controller
