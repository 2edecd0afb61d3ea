// Each agent's bytes at a moment, from its progress samples: the interpolation behind
// first_done when stonewall did not stop the agents together.
#include "controller/report/first_done.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(BytesAt, JoinsTheBracketingSamplesByAStraightLine) {
  const std::vector<ProgressSample> samples = {{100, 10, 1}, {200, 30, 3}, {300, 60, 6}};
  EXPECT_DOUBLE_EQ(BytesAt(samples, 0, 400, 100, 150), 20);
  EXPECT_DOUBLE_EQ(BytesAt(samples, 0, 400, 100, 200), 30);   // on a sample
  EXPECT_DOUBLE_EQ(BytesAt(samples, 0, 400, 100, 250), 45);
  EXPECT_DOUBLE_EQ(BytesAt(samples, 0, 400, 100, 350), 80);   // towards the result at the close
  EXPECT_DOUBLE_EQ(BytesAt(samples, 0, 400, 100, 50), 5);     // from 0 at the opening
}

TEST(BytesAt, IsTheTotalFromTheCloseOnAndZeroBeforeTheOpening) {
  const std::vector<ProgressSample> samples = {{100, 10, 1}};
  EXPECT_DOUBLE_EQ(BytesAt(samples, 0, 400, 100, 400), 100);
  EXPECT_DOUBLE_EQ(BytesAt(samples, 0, 400, 100, 900), 100);
  EXPECT_DOUBLE_EQ(BytesAt(samples, 50, 400, 100, 50), 0);
  EXPECT_DOUBLE_EQ(BytesAt(samples, 50, 400, 100, 10), 0);
}

TEST(BytesAt, WithoutSamplesAssumesAnEvenRateOverTheWindow) {
  EXPECT_DOUBLE_EQ(BytesAt({}, 100, 500, 400, 300), 200);
}

TEST(BytesAt, IgnoresSamplesOutsideTheWindowAndTakesThemInAnyOrder) {
  // Samples during ramp (before 100) count nothing; one after the close is past the result.
  const std::vector<ProgressSample> samples = {{300, 120, 0}, {50, 999, 0}, {200, 40, 0}, {600, 999, 0}};
  EXPECT_DOUBLE_EQ(BytesAt(samples, 100, 500, 200, 250), 80);
  EXPECT_DOUBLE_EQ(BytesAt(samples, 100, 500, 200, 150), 20);
}

TEST(BytesAt, NeverFallsOrPassesTheTotal) {
  // A sample above the result (a count racing the final merge) is capped; a later smaller one
  // does not pull the line down.
  EXPECT_DOUBLE_EQ(BytesAt({{200, 500, 0}}, 0, 400, 100, 300), 100);
  EXPECT_DOUBLE_EQ(BytesAt({{100, 60, 0}, {300, 40, 0}}, 0, 400, 100, 200), 60);
}

StepReport TwoAgents(uint64_t a_window, uint64_t b_window) {
  StepReport step;
  step.kind = "io";
  step.agents.resize(2);
  step.agents[0].agent = "a";
  step.agents[0].stats.ops = 10;
  step.agents[0].stats.bytes = 1000;
  step.agents[0].stats.window_ns = a_window;
  step.agents[1].agent = "b";
  step.agents[1].stats.ops = 20;
  step.agents[1].stats.bytes = 2000;
  step.agents[1].stats.window_ns = b_window;
  return step;
}

TEST(FirstDone, TakesTheFirstFinishersTimeWhicheverAgentItIs) {
  auto f = FirstDone(TwoAgents(2000, 1000));  // b first: a at 1000 of 2000 ns, evenly: 500 bytes
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->seconds, 1e-6);
  EXPECT_DOUBLE_EQ(f->bytes, 2500);
  EXPECT_EQ(f->method, "interpolated");
  auto last = LastDone(TwoAgents(2000, 1000));
  ASSERT_TRUE(last);
  EXPECT_DOUBLE_EQ(last->bytes_per_sec, 3000 / 2e-6);
}

TEST(FirstDone, NeedsTwoAgentsAndATimeline) {
  StepReport one = TwoAgents(1000, 1000);
  one.agents.pop_back();
  EXPECT_FALSE(FirstDone(one));
  EXPECT_FALSE(LastDone(one));
  EXPECT_FALSE(FirstDone(TwoAgents(0, 1000)));
  EXPECT_FALSE(LastDone(TwoAgents(0, 0)));
}

TEST(KeepSamplesAroundFirstDone, KeepsOnlyTheBracketAndTheSameFigure) {
  StepReport step = TwoAgents(1000, 4000);  // a finishes at 1000 ns; b runs on to 4000
  step.ramp_ns = 100;                       // the first finish is at 1100 on the samples' clock
  step.agents[0].samples = {{600, 500, 5}, {1000, 900, 9}};
  step.agents[1].samples = {{1500, 700, 7}, {300, 100, 1}, {900, 400, 4}, {1100, 450, 4}, {2000, 900, 9}, {1300, 600, 6}};
  auto before = FirstDone(step);
  KeepSamplesAroundFirstDone(step);
  EXPECT_TRUE(step.agents[0].samples.empty());  // a's own result is its figure
  ASSERT_EQ(step.agents[1].samples.size(), 2u);
  EXPECT_EQ(step.agents[1].samples[0].elapsed_ns, 1100u);
  EXPECT_EQ(step.agents[1].samples[1].elapsed_ns, 1300u);
  auto after = FirstDone(step);
  ASSERT_TRUE(before && after);
  EXPECT_DOUBLE_EQ(before->bytes, 1450);  // 1000 + b's 450 at 1100
  EXPECT_DOUBLE_EQ(after->bytes, before->bytes);
}

TEST(KeepSamplesAroundFirstDone, DropsThemAllWhenStonewallMadeTheFigureExact) {
  StepReport step = TwoAgents(1000, 1200);
  step.stonewalled = true;
  step.agents[1].stopped_early = true;  // stopped when a finished: its result is its figure
  step.agents[1].samples = {{500, 10, 1}, {1100, 20, 2}};
  KeepSamplesAroundFirstDone(step);
  EXPECT_TRUE(step.agents[1].samples.empty());
}

}  // namespace
}  // namespace iofleet::controller
