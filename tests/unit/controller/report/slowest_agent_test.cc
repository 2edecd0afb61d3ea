#include "controller/report/slowest_agent.h"

#include <gtest/gtest.h>

#include "controller/report/report_writers.h"
#include "tests/unit/controller/report/report_fixtures.h"

namespace iofleet::controller {
namespace {

using namespace report_fixtures;  // NOLINT

AgentStep Agent(const std::string& name, uint64_t bytes, uint64_t window_ns, bool has_work = true) {
  AgentStep a{name, Stats(bytes / 4096, bytes, window_ns)};
  a.has_work = has_work;
  return a;
}

// drop_caches and sync steps move no bytes: the first agent was always "slowest".
TEST(SlowestAgent, AHostStepsSlowestIsTheOneThatTookLongest) {
  std::vector<AgentStep> agents = {Agent("vm-17071", 0, 53'000'000), Agent("vm-17072", 0, 54'000'000),
                                   Agent("vm-17073", 0, 56'000'000)};
  auto slowest = FindSlowestAgent(agents, RanksByTime("drop_caches"));
  ASSERT_TRUE(slowest);
  EXPECT_EQ(slowest->agent, "vm-17073");
  EXPECT_NEAR(slowest->trails_median_pct, (56.0 - 54.0) / 54.0 * 100, 1e-9);
  EXPECT_TRUE(RanksByTime("files"));
  EXPECT_TRUE(RanksByTime("sync"));
  EXPECT_FALSE(RanksByTime("io"));
  EXPECT_FALSE(RanksByTime("copy"));
}

// total_jobs=1 on 3 agents: the two without a job were "(slowest)" at 0 MiB/s.
TEST(SlowestAgent, AnAgentWithoutWorkIsNeverTheSlowest) {
  std::vector<AgentStep> agents = {Agent("a", 100 << 20, 1'000'000'000), Agent("b", 0, 0, false), Agent("c", 0, 0, false)};
  auto slowest = FindSlowestAgent(agents, false);
  ASSERT_TRUE(slowest);
  EXPECT_EQ(slowest->agent, "a");
  EXPECT_EQ(slowest->trails_median_pct, 0);
  EXPECT_FALSE(FindSlowestAgent({Agent("b", 0, 0, false)}, false));
}

TEST(SlowestAgent, AThroughputStepsSlowestTrailsTheMedian) {
  std::vector<AgentStep> agents = {Agent("a", 300ull << 20, 1'000'000'000), Agent("b", 100ull << 20, 1'000'000'000),
                                   Agent("c", 200ull << 20, 1'000'000'000), Agent("d", 250ull << 20, 1'000'000'000)};
  auto slowest = FindSlowestAgent(agents, false);
  ASSERT_TRUE(slowest);
  EXPECT_EQ(slowest->agent, "b");
  EXPECT_NEAR(slowest->trails_median_pct, (225.0 - 100.0) / 225.0 * 100, 1e-9);  // median of 100, 200, 250, 300
}

// report.html painted the slowest bar red for a 0.7% difference; the console marked it too.
TEST(SlowestAgent, ALeadWithinNoiseIsNotMarked) {
  RunReport report = TwoAgentRead();
  report.steps[0].slowest_trails_median_pct = 0.7;
  const std::string md = ReportMarkdown(ToDocument(report));
  EXPECT_EQ(md.find("(slowest"), std::string::npos) << md;
  report.steps[0].slowest_trails_median_pct = kMarkSlowestAbovePct + 1;
  EXPECT_NE(ReportMarkdown(ToDocument(report)).find("node2 (slowest, 11% below the median)"), std::string::npos);
}

}  // namespace
}  // namespace iofleet::controller
