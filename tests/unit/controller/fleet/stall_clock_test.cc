#include "controller/fleet/stall_clock.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(StallCounter, CountsRunningTimeAndTakesALongGapForAStall) {
  StallCounter c(1'000'000'000);
  EXPECT_FALSE(c.Tick(1'050'000'000));
  EXPECT_FALSE(c.Tick(1'300'000'000)) << "250 ms late: slow, still counted in full";
  EXPECT_EQ(c.progress_ns(), 300'000'000u);
  // Stopped for 8 s: the clock moves by one counted gap, and the stall is the gap less a tick.
  auto stall = c.Tick(9'300'000'000);
  ASSERT_TRUE(stall);
  EXPECT_EQ(*stall, 7'950'000'000u);
  EXPECT_EQ(c.progress_ns(), 300'000'000u + StallCounter::kCountedGapNs);
  EXPECT_FALSE(c.Tick(9'200'000'000)) << "a clock that seems to go back adds nothing";
  EXPECT_EQ(c.progress_ns(), 300'000'000u + StallCounter::kCountedGapNs);
}

TEST(StallClock, RunsAndRecordsNothingWhileTheProcessRuns) {
  StallClock clock;
  const uint64_t before = clock.ProgressNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_GT(clock.ProgressNs(), before + 100'000'000);
  EXPECT_TRUE(clock.StallsSince(0).empty());
}

}  // namespace
}  // namespace iofleet::controller
