// An agent's silence counts from its first sample due or its stream's opening, whichever is later,
// on the controller's own running time; a stream not yet open is never silent.
#include "controller/run/silence_watch.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

constexpr uint64_t kWatchSecond = 1'000'000'000;

TEST(SilenceWatch, QuietPastTheLimitAfterTheFirstSampleDueIsSilentOnce) {
  SilenceWatch watch(2);
  watch.Begin(2 * kWatchSecond, 5 * kWatchSecond, kWatchSecond);
  watch.Opened(0, 0);
  watch.Opened(1, 0);
  watch.Heard(1, 6 * kWatchSecond);
  EXPECT_FALSE(watch.TurnedSilent(0, 7 * kWatchSecond - 1));
  EXPECT_TRUE(watch.TurnedSilent(0, 7 * kWatchSecond));
  EXPECT_FALSE(watch.TurnedSilent(0, 8 * kWatchSecond)) << "found silent once; its stream is cancelled then";
  EXPECT_TRUE(watch.Silenced(0));
  EXPECT_FALSE(watch.TurnedSilent(1, 7 * kWatchSecond)) << "heard at 6 s";
  EXPECT_TRUE(watch.TurnedSilent(1, 11 * kWatchSecond));
}

// A thousand streams opened one after another on a busy host: the last opened 6 s into the step.
// It has had no time to send anything, and is not silent until the limit after its own opening.
TEST(SilenceWatch, AStreamOpenedLateCountsFromItsOpening) {
  SilenceWatch watch(1);
  watch.Begin(2 * kWatchSecond, 5 * kWatchSecond, kWatchSecond);
  EXPECT_FALSE(watch.TurnedSilent(0, 6 * kWatchSecond)) << "not open yet";
  watch.Opened(0, 6 * kWatchSecond);
  EXPECT_FALSE(watch.TurnedSilent(0, 6 * kWatchSecond));
  EXPECT_FALSE(watch.TurnedSilent(0, 12 * kWatchSecond - 1));
  EXPECT_TRUE(watch.TurnedSilent(0, 12 * kWatchSecond));
}

TEST(SilenceWatch, AMessageBeforeTheFirstSampleDueDoesNotBringTheDeadlineCloser) {
  SilenceWatch watch(1);
  watch.Begin(3 * kWatchSecond, 5 * kWatchSecond, kWatchSecond);
  watch.Opened(0, 0);
  watch.Heard(0, kWatchSecond);
  EXPECT_FALSE(watch.TurnedSilent(0, 8 * kWatchSecond - 1));
  EXPECT_TRUE(watch.TurnedSilent(0, 8 * kWatchSecond));
}

TEST(SilenceWatch, AClosedStreamIsNotSilent) {
  SilenceWatch watch(1);
  watch.Begin(0, 5 * kWatchSecond, kWatchSecond);
  watch.Opened(0, 0);
  watch.Closed(0);
  EXPECT_FALSE(watch.TurnedSilent(0, 60 * kWatchSecond));
}

TEST(SilenceWatch, BeginForgetsTheStepBefore) {
  SilenceWatch watch(1);
  watch.Begin(0, 5 * kWatchSecond, kWatchSecond);
  watch.Opened(0, 0);
  ASSERT_TRUE(watch.TurnedSilent(0, 6 * kWatchSecond));
  watch.Begin(10 * kWatchSecond, 5 * kWatchSecond, kWatchSecond);
  EXPECT_FALSE(watch.Silenced(0));
  watch.Opened(0, 10 * kWatchSecond);
  EXPECT_FALSE(watch.TurnedSilent(0, 14 * kWatchSecond));
}

}  // namespace
}  // namespace iofleet::controller
