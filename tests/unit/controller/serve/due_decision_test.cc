#include "controller/serve/due_decision.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

constexpr uint64_t kS = 1'000'000'000;
// Every 10 s from 0.
uint64_t Every10(uint64_t after) { return (after / (10 * kS) + 1) * 10 * kS; }

TEST(DecideDue, ANewSuiteStartsItsScheduleNow) {
  DueDecision d = DecideDue(std::nullopt, 25 * kS, Every10, /*at_startup=*/true, /*run_missed=*/true, false);
  EXPECT_FALSE(d.queue_due);
  EXPECT_EQ(d.last_due, 25 * kS);
  EXPECT_EQ(d.next_due, 30 * kS);
}

TEST(DecideDue, NothingBeforeTheNextTime) {
  DueDecision d = DecideDue(20 * kS, 29 * kS, Every10, false, true, false);
  EXPECT_FALSE(d.queue_due);
  EXPECT_EQ(d.last_due, 20 * kS);
  EXPECT_EQ(d.next_due, 30 * kS);
}

TEST(DecideDue, OnTimeQueuesOnceForTheLatestTimePassed) {
  DueDecision d = DecideDue(20 * kS, 30 * kS, Every10, false, true, false);
  ASSERT_TRUE(d.queue_due);
  EXPECT_EQ(*d.queue_due, 30 * kS);
  EXPECT_EQ(d.reason, "schedule");
  EXPECT_EQ(d.last_due, 30 * kS);
  EXPECT_EQ(d.next_due, 40 * kS);
  // Busy for a while: three times passed, one run.
  d = DecideDue(20 * kS, 55 * kS, Every10, false, true, false);
  ASSERT_TRUE(d.queue_due);
  EXPECT_EQ(*d.queue_due, 50 * kS);
  EXPECT_EQ(d.next_due, 60 * kS);
}

TEST(DecideDue, MissedWhileDownRunsOnceOrIsSkipped) {
  DueDecision once = DecideDue(20 * kS, 1000 * kS, Every10, /*at_startup=*/true, /*run_missed=*/true, false);
  ASSERT_TRUE(once.queue_due);
  EXPECT_EQ(*once.queue_due, 1000 * kS);
  EXPECT_EQ(once.reason, "missed");
  DueDecision skip = DecideDue(20 * kS, 1005 * kS, Every10, true, /*run_missed=*/false, false);
  EXPECT_FALSE(skip.queue_due);
  EXPECT_EQ(skip.last_due, 1000 * kS) << "skipped times count as handled";
  EXPECT_EQ(skip.next_due, 1010 * kS);
  // Nothing passed while down: nothing missed.
  DueDecision none = DecideDue(20 * kS, 25 * kS, Every10, true, true, false);
  EXPECT_FALSE(none.queue_due);
}

TEST(DecideDue, APausedSuiteMovesOnWithoutQueueing) {
  DueDecision d = DecideDue(20 * kS, 95 * kS, Every10, false, true, /*paused=*/true);
  EXPECT_FALSE(d.queue_due);
  EXPECT_EQ(d.last_due, 90 * kS);
}

TEST(DecideDue, AClockThatWentBackQueuesNothing) {
  DueDecision d = DecideDue(100 * kS, 50 * kS, Every10, false, true, false);
  EXPECT_FALSE(d.queue_due);
  EXPECT_EQ(d.last_due, 100 * kS);
  EXPECT_EQ(d.next_due, 110 * kS);
}

TEST(DecideDue, AClockSetFarBackStartsTheScheduleAgainFromNow) {
  // Handled up to a year ahead (the clock had been wrong), now corrected.
  const uint64_t year = 366ull * 24 * 3600 * kS;
  DueDecision d = DecideDue(year, 1000 * kS, Every10, false, true, false);
  EXPECT_TRUE(d.restarted);
  EXPECT_FALSE(d.queue_due);
  EXPECT_EQ(d.last_due, 1000 * kS);
  EXPECT_EQ(d.next_due, 1010 * kS);
}

}  // namespace
}  // namespace iofleet::controller
