// Which agent rows a step's tables show: every agent up to kAgentRowsShown, then each column's
// distribution and the slowest few. Agent i of n reads i MiB/s (i x 256 IOPS of 4 KiB) with a
// p99 of (n + 1 - i) ms, so every figure expected is worked out from i.
#include "controller/report/agent_rows.h"

#include <gtest/gtest.h>

#include <string>

namespace iofleet::controller {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

google::protobuf::RepeatedPtrField<v1::ReportAgentFigures> Agents(int n) {
  google::protobuf::RepeatedPtrField<v1::ReportAgentFigures> agents;
  for (int i = n; i >= 1; --i) {  // fastest first: the order shown must come from the figures
    v1::ReportAgentFigures* a = agents.Add();
    a->set_agent("n" + std::to_string(i));
    v1::ReportFigures* f = a->mutable_figures();
    f->set_bytes_per_sec(i * kMiB);
    f->set_iops(i * 256.0);
    f->set_seconds(1.0 + i);  // for a ranking by time, n1 is the quickest
    f->mutable_latency_ns()->set_p99(static_cast<uint64_t>(n + 1 - i) * 1'000'000);
  }
  return agents;
}

TEST(AgentRowsShown, EveryAgentUpToTheLimitInTheReportsOrder) {
  const auto agents = Agents(static_cast<int>(kAgentRowsShown));
  const auto rows = AgentRowsShown(agents, /*by_time=*/false);
  ASSERT_EQ(rows.size(), kAgentRowsShown);
  for (size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ(rows[k].label, agents[static_cast<int>(k)].agent());
    EXPECT_EQ(rows[k].agent, &agents[static_cast<int>(k)]);
  }
  EXPECT_TRUE(AgentRowsShown(Agents(1), false).empty());  // the step's own row is that agent's
}

TEST(AgentRowsShown, PastTheLimitEachColumnsDistributionThenTheSlowest) {
  const auto agents = Agents(20);
  const auto rows = AgentRowsShown(agents, /*by_time=*/false);
  ASSERT_EQ(rows.size(), 5 + kSlowestShown);
  // Nearest rank over 20: p10 is the 2nd value, the median the 10th, p90 the 18th.
  const char* labels[] = {"agent min", "agent p10", "agent median", "agent p90", "agent max"};
  const double mib[] = {1, 2, 10, 18, 20};
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(rows[k].label, labels[k]);
    EXPECT_EQ(rows[k].agent, nullptr);
    EXPECT_DOUBLE_EQ(rows[k].figures.bytes_per_sec(), mib[k] * kMiB) << labels[k];
    EXPECT_DOUBLE_EQ(rows[k].figures.iops(), mib[k] * 256) << labels[k];
    // Columns apart: the p99 column's own distribution (1 to 20 ms), not the slow agents' p99.
    EXPECT_EQ(rows[k].figures.latency_ns().p99(), static_cast<uint64_t>(mib[k]) * 1'000'000) << labels[k];
  }
  for (size_t k = 0; k < kSlowestShown; ++k) {
    EXPECT_EQ(rows[5 + k].label, "n" + std::to_string(k + 1));  // slowest first
    ASSERT_NE(rows[5 + k].agent, nullptr);
    EXPECT_EQ(rows[5 + k].agent->agent(), rows[5 + k].label);
  }
}

TEST(AgentRowsShown, StepsThatOnlyTakeTimeRankTheLongestFirst) {
  const auto rows = AgentRowsShown(Agents(20), /*by_time=*/true);
  ASSERT_EQ(rows.size(), 5 + kSlowestShown);
  EXPECT_DOUBLE_EQ(rows[0].figures.seconds(), 2.0);   // min
  EXPECT_DOUBLE_EQ(rows[4].figures.seconds(), 21.0);  // max
  EXPECT_EQ(rows[5].label, "n20");                    // took 21 s: the slowest
  EXPECT_EQ(rows[6].label, "n19");
}

TEST(AgentRowsShown, WithoutBytesAgentsRankByOps) {
  auto agents = Agents(20);
  for (auto& a : agents) {
    a.mutable_figures()->set_bytes_per_sec(0);
    a.mutable_figures()->set_iops(10000.0 - a.figures().iops());  // n20 now has the fewest ops
  }
  EXPECT_EQ(AgentRowsShown(agents, false)[5].label, "n20");
}

TEST(AgentRowsNote, SaysHowManyAndWhereTheRestIs) {
  EXPECT_EQ(AgentRowsNote(10'000), "10000 agents: each column's distribution over them (min to max, columns apart), then the 8 slowest; "
                                   "every agent's row is in report.json and summary.csv");
}

}  // namespace
}  // namespace iofleet::controller
