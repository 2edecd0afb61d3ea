// The live model: per agent and step figures from cumulative samples and histogram deltas,
// agents reporting, silent and lost, the live start skew, and /metrics series that keep
// counting over every instance of a step.
#include "controller/live/live_run.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/base/clock.h"

namespace iofleet::controller {
namespace {

int64_t g_now = 0;
int64_t FakeNow() { return g_now; }

v1::Progress Sample(uint64_t seconds, uint64_t write_ops, uint64_t latency_ns, uint64_t started_at = 1000 * kNsPerSecond) {
  v1::Progress p;
  p.set_elapsed_ns(seconds * kNsPerSecond);
  p.set_ops(write_ops);
  p.set_bytes(write_ops * 4096);
  p.set_started_at_unix_ns(started_at);
  p.mutable_read();
  p.mutable_write()->set_ops(write_ops);
  p.mutable_write()->set_bytes(write_ops * 4096);
  return p;
}

void AddLatency(v1::Progress& p, uint64_t latency_ns, uint64_t count) {
  auto* h = p.mutable_write()->mutable_latency_ns_delta();
  h->add_bucket(LatencyHistogram::BucketOf(latency_ns));
  h->add_count(count);
  h->set_sum(h->sum() + latency_ns * count);
}

class LiveRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_now = 0;
    live_.SetClockForTest(&FakeNow);
    LiveStepInfo info{"write", "io", "libaio", 0, 0, 0, 0, 10 * kNsPerSecond};
    // node2's clock runs 5 ms ahead of the controller's.
    live_.BeginStep(info, {{"node1"}, {"node2", false, 5'000'000}});
  }
  LiveRun live_{"run-1", "demo", kNsPerSecond};
};

TEST_F(LiveRunTest, RatesAreTheLastIntervalsAndAddUpOverAgents) {
  v1::Progress a1 = Sample(1, 100, 0), a2 = Sample(2, 300, 0);
  AddLatency(a1, 1000, 100);
  AddLatency(a2, 1000, 200);
  ASSERT_TRUE(live_.OnProgress(0, a1));
  ASSERT_TRUE(live_.OnProgress(0, a2));
  v1::Progress b = Sample(1, 50, 0, 1000 * kNsPerSecond + 7'000'000);
  AddLatency(b, 1'000'000, 50);
  ASSERT_TRUE(live_.OnProgress(1, b));
  LiveSnapshot s = live_.Snapshot();
  ASSERT_TRUE(s.rate.known);
  EXPECT_DOUBLE_EQ(s.rate.ops_per_sec, 200.0 + 50.0);
  EXPECT_DOUBLE_EQ(s.agents[0].rate.bytes_per_sec, 200.0 * 4096);
  EXPECT_EQ(s.reporting, 2u);
  EXPECT_EQ(s.ops, 350u);
  // p99 of the last interval: node1's 200 at 1 us and node2's 50 at 1 ms merged.
  ASSERT_TRUE(s.p99_ns);
  EXPECT_GT(*s.p99_ns, 900'000u);
  // node2 released 7 ms after node1 on its clock, which is 5 ms ahead: 2 ms apart.
  ASSERT_TRUE(s.start_skew_s);
  EXPECT_NEAR(*s.start_skew_s, 0.002, 1e-9);
  EXPECT_DOUBLE_EQ(*s.clock.expected_s, 10.0);
}

TEST_F(LiveRunTest, AnAgentNotHeardFromForTwoIntervalsIsSilentAndALostOneIsCounted) {
  ASSERT_TRUE(live_.OnProgress(0, Sample(1, 10, 0)));
  ASSERT_TRUE(live_.OnProgress(1, Sample(1, 10, 0)));
  g_now = static_cast<int64_t>(kNsPerSecond);
  ASSERT_TRUE(live_.OnProgress(0, Sample(2, 20, 0)));
  g_now = static_cast<int64_t>(3 * kNsPerSecond);  // node2 last heard 3 s ago
  ASSERT_TRUE(live_.OnProgress(0, Sample(4, 40, 0)));
  LiveSnapshot s = live_.Snapshot();
  EXPECT_FALSE(s.agents[0].silent);
  EXPECT_TRUE(s.agents[1].silent);
  EXPECT_EQ(s.reporting, 1u);
  EXPECT_DOUBLE_EQ(s.rate.ops_per_sec, 10.0);  // the silent agent's stale rate is left out
  live_.AgentLost(1);
  s = live_.Snapshot();
  EXPECT_EQ(s.lost, 1u);
  EXPECT_TRUE(s.agents[1].lost);
  EXPECT_FALSE(s.agents[1].silent);
  live_.AgentDone(0, nullptr);
  EXPECT_EQ(live_.Snapshot().reporting, 1u);  // done counts as reporting
}

TEST_F(LiveRunTest, AMalformedMessageIsRefusedCountedAndChangesNothing) {
  ASSERT_TRUE(live_.OnProgress(0, Sample(1, 10, 0)));
  v1::Progress bad = Sample(2, 20, 0);
  bad.mutable_write()->mutable_latency_ns_delta()->add_bucket(1u << 30);
  bad.mutable_write()->mutable_latency_ns_delta()->add_count(1);
  EXPECT_FALSE(live_.OnProgress(0, bad));
  EXPECT_FALSE(live_.OnProgress(0, Sample(0, 5, 0)));  // backwards
  EXPECT_FALSE(live_.OnProgress(7, Sample(2, 20, 0)));  // no such agent
  LiveSnapshot s = live_.Snapshot();
  EXPECT_EQ(s.agents[0].rejected, 2u);
  EXPECT_EQ(s.agents[0].ops, 10u);
}

TEST_F(LiveRunTest, SeriesCountOverEveryInstanceOfAStep) {
  v1::Progress p = Sample(1, 10, 0);
  AddLatency(p, 3000, 10);
  ASSERT_TRUE(live_.OnProgress(0, p));
  live_.EndStep(uint64_t{1'000'000});
  EXPECT_NEAR(*live_.Snapshot().start_skew_s, 0.001, 1e-12);  // the exact one, once known
  // The next cycle of the same step: its counters start at 0 on the agent, not here.
  live_.BeginStep({"write", "io", "libaio", 0, 0, 1, 0, 10 * kNsPerSecond}, {{"node1"}, {"node2"}});
  v1::Progress q = Sample(1, 5, 0);
  AddLatency(q, 3000, 5);
  ASSERT_TRUE(live_.OnProgress(0, q));
  auto series = live_.IoSeries();
  ASSERT_EQ(series.size(), 1u);  // node1's writes; no read series for a step that reads nothing
  EXPECT_EQ(series[0].op, "write");
  EXPECT_EQ(series[0].agent, "node1");
  EXPECT_EQ(series[0].engine, "libaio");
  EXPECT_EQ(series[0].ops, 15u);
  EXPECT_EQ(series[0].bytes, 15u * 4096);
  EXPECT_EQ(series[0].latency.count, 15u);
  EXPECT_DOUBLE_EQ(series[0].latency.sum_seconds, 15 * 3e-6);
  EXPECT_EQ(series[0].latency.cumulative[1], 0u);   // le 2 us
  EXPECT_EQ(series[0].latency.cumulative[2], 15u);  // le 5 us
}

TEST_F(LiveRunTest, ARampShowsAsRampWithoutARate) {
  live_.BeginStep({"read", "io", "psync", 1, 0, 0, 3 * kNsPerSecond, 10 * kNsPerSecond}, {{"node1"}});
  ASSERT_TRUE(live_.OnProgress(0, Sample(1, 0, 0)));
  LiveSnapshot s = live_.Snapshot();
  EXPECT_TRUE(s.clock.ramp);
  EXPECT_FALSE(s.rate.known);
  EXPECT_DOUBLE_EQ(*s.clock.expected_s, 13.0);
}

// Prometheus sees an increase only from an existing series: each agent's error series of an io
// step is there, at 0, from the step's start (a lost agent's is not).
TEST_F(LiveRunTest, AnIoStepsErrorSeriesStartAtZero) {
  LiveRun live("run-2", "demo", kNsPerSecond);
  live.BeginStep({"write", "io", "libaio", 0, 0, 0, 0, 0}, {{"node1"}, {"node2", true}});
  auto errors = live.ErrorSeries();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].agent, "node1");
  EXPECT_EQ(errors[0].step, "write");
  EXPECT_EQ(errors[0].engine, "libaio");
  EXPECT_EQ(errors[0].errors, 0u);
  live.BeginStep({"tree.create", "files", "", 1, 0, 0, 0, 0}, {{"node3"}});
  EXPECT_EQ(live.ErrorSeries().size(), 1u);  // no error series for a files step
}

TEST_F(LiveRunTest, RejectedMessagesCountOverTheWholeRun) {
  v1::Progress bad = Sample(1, 10, 0);
  bad.mutable_write()->mutable_latency_ns_delta()->add_bucket(1u << 30);
  bad.mutable_write()->mutable_latency_ns_delta()->add_count(1);
  EXPECT_FALSE(live_.OnProgress(1, bad));
  live_.BeginStep({"read", "io", "libaio", 1, 0, 0, 0, 0}, {{"node2"}, {"node1"}});
  EXPECT_FALSE(live_.OnProgress(0, bad));
  EXPECT_EQ(live_.Snapshot().agents[0].rejected, 2u);
  live_.BeginStep({"read", "io", "libaio", 2, 0, 0, 0, 0}, {{"node1"}});  // node2 not in this step
  auto rejected = live_.RejectedSeries();  // by agent name
  ASSERT_EQ(rejected.size(), 2u);
  EXPECT_EQ(rejected[0].agent, "node1");
  EXPECT_EQ(rejected[0].rejected, 0u);
  EXPECT_EQ(rejected[1].agent, "node2");
  EXPECT_EQ(rejected[1].rejected, 2u);
}

// The last interval comes only in the result: it is added to the series.
TEST_F(LiveRunTest, TheResultFoldsTheFinalIntervalIntoTheSeries) {
  ASSERT_TRUE(live_.OnProgress(0, Sample(1, 10, 0)));
  v1::StepResult r;
  r.mutable_write()->set_ops(25);
  r.mutable_write()->set_bytes(25 * 4096);
  r.add_errors()->set_count(2);
  live_.AgentDone(0, &r);
  // node2 sent no progress at all: a step shorter than one interval.
  v1::StepResult r2;
  r2.mutable_read()->set_ops(4);
  r2.mutable_read()->set_bytes(4 * 512);
  live_.AgentDone(1, &r2);
  auto series = live_.IoSeries();  // by step, op, engine, agent
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].agent, "node2");
  EXPECT_EQ(series[0].op, "read");
  EXPECT_EQ(series[0].ops, 4u);
  EXPECT_EQ(series[0].bytes, 4u * 512);
  EXPECT_EQ(series[1].agent, "node1");
  EXPECT_EQ(series[1].op, "write");
  EXPECT_EQ(series[1].ops, 25u);
  EXPECT_EQ(series[1].bytes, 25u * 4096);
  auto errors = live_.ErrorSeries();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].errors, 2u);
  EXPECT_EQ(errors[1].errors, 0u);
}

// With a ramp, progress counts the ramp and the result does not: never subtract.
TEST_F(LiveRunTest, AResultCountingLessThanTheProgressTakesNothingAway) {
  ASSERT_TRUE(live_.OnProgress(0, Sample(1, 10, 0)));
  v1::StepResult r;
  r.mutable_write()->set_ops(6);
  r.mutable_write()->set_bytes(6 * 4096);
  live_.AgentDone(0, &r);
  auto series = live_.IoSeries();
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].ops, 10u);
}

TEST_F(LiveRunTest, AFilesOrCopyResultFoldsItsTotals) {
  live_.BeginStep({"tree.create", "files", "", 0, 0, 0, 0, 0}, {{"node1"}});
  v1::Progress p;
  p.set_elapsed_ns(kNsPerSecond);
  p.set_ops(10);
  ASSERT_TRUE(live_.OnProgress(0, p));
  v1::StepResult r;
  r.set_ops(12);
  r.set_bytes(0);
  live_.AgentDone(0, &r);
  auto tasks = live_.TaskSeries();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].step, "tree");
  EXPECT_EQ(tasks[0].phase, "create");
  EXPECT_EQ(tasks[0].ops, 12u);
}

TEST(MetricStepName, AFilesPhaseGoesByItsStepsName) {
  EXPECT_EQ(MetricStepName({"tree.create", "files", ""}), "tree");
  EXPECT_EQ(MetricStepName({"tree", "files", ""}), "tree");
  EXPECT_EQ(MetricStepName({"write", "io", "libaio"}), "write");
}

// A start instant near INT64_MAX with a negative offset, or far from another agent's, must not
// overflow the skew's arithmetic.
TEST_F(LiveRunTest, TheLiveSkewDoesNotOverflow) {
  live_.BeginStep({"write", "io", "libaio", 0, 0, 0, 0, 0}, {{"node1", false, -5'000'000'000}, {"node2", false, 0}});
  ASSERT_TRUE(live_.OnProgress(0, Sample(1, 10, 0, static_cast<uint64_t>(INT64_MAX) - 1)));
  ASSERT_TRUE(live_.OnProgress(1, Sample(1, 10, 0, 1)));
  auto skew = live_.Snapshot().start_skew_s;
  ASSERT_TRUE(skew);
  EXPECT_GT(*skew, 9.2e9);
}

TEST_F(LiveRunTest, ALatencySumThatWouldOverflowIsRefused) {
  v1::Progress p = Sample(1, 10, 0);
  AddLatency(p, UINT64_MAX / 2, 1);
  ASSERT_TRUE(live_.OnProgress(0, p));
  v1::Progress q = Sample(2, 20, 0);
  AddLatency(q, UINT64_MAX / 2 + 10, 1);
  EXPECT_FALSE(live_.OnProgress(0, q));
  EXPECT_EQ(live_.Snapshot().agents[0].rejected, 1u);
}

// Stream threads feed the model while the view and a scrape read it: every accepted sample
// counts once, and the readers see consistent figures.
TEST(LiveRunConcurrency, StreamsFeedWhileViewAndScrapeRead) {
  LiveRun live_("run-1", "demo", kNsPerSecond);
  live_.BeginStep({"write", "io", "libaio", 0, 0, 0, 0, 0}, {{"node1"}, {"node2"}});
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done) {
      LiveSnapshot s = live_.Snapshot();
      EXPECT_LE(s.ops, 2000u);
      (void)live_.IoSeries();
    }
  });
  std::vector<std::thread> streams;
  for (size_t agent = 0; agent < 2; ++agent) {
    streams.emplace_back([&, agent] {
      for (uint64_t n = 1; n <= 1000; ++n) {
        v1::Progress p = Sample(n, n, 0);
        AddLatency(p, 1000, 1);
        EXPECT_TRUE(live_.OnProgress(agent, p));
      }
      live_.AgentDone(agent, nullptr);
    });
  }
  for (auto& t : streams) t.join();
  done = true;
  reader.join();
  LiveSnapshot s = live_.Snapshot();
  EXPECT_EQ(s.ops, 2000u);
  EXPECT_EQ(s.reporting, 2u);
  auto series = live_.IoSeries();
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].latency.count + series[1].latency.count, 2000u);
}

}  // namespace
}  // namespace iofleet::controller
