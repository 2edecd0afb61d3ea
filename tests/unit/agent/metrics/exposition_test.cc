// The agent's exposition, golden: every name, type, label and value a scrape shows for a
// hand-built run (DESIGN.md section 5b binds the names).
#include "agent/metrics/exposition.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <cerrno>
#include <fstream>
#include <set>
#include <sstream>

#include "agent/stats/step_sample.h"
#include "tests/support/test_paths.h"

namespace iofleet::agent {
namespace {

std::string Text(const AgentMetrics& m) { return prometheus::TextSerializer().Serialize(Expose(m)); }

FoldedHistogram Latencies(std::initializer_list<uint64_t> ns) {
  LatencyHistogram h;
  for (uint64_t v : ns) h.Record(v);
  return Fold(h);
}

AgentMetrics Running() {
  AgentMetrics m;
  m.identity = {"node01", "0.1.0", "abc1234"};
  m.state = AgentState::kRunning;
  RunTotals run;
  run.run_id = "20261130-120000-ab12";
  run.workload = "quickstart";
  IoSample write;
  write.ops = 3;
  write.bytes = 3 * 4096;
  write.fsyncs = 1;
  write.inflight = 2;
  write.errors[ErrorReasonOf(ENOSPC)] = 4;
  write.errors[ErrorReasonOf(0)] = 1;    // verify
  write.errors[ErrorReasonOf(EXDEV)] = 5;  // not in the fixed set: "other"
  write.latency = Latencies({1500, 40'000, 3'000'000});
  run.io[{"write", "write", "libaio"}] = write;
  FilesSample create;
  create.ops = 2;
  create.latency = Latencies({700, 20'000'000'000});  // the second above the last bound: +Inf only
  run.files[{"tree", "create"}] = create;
  run.copy["copy-in"] = CopySample{1 << 20, 7};
  m.run = run;
  m.running = RunningStep{"write", 2, 1};
  m.job_cpu_user_ns = 1'500'000'000;
  m.job_cpu_sys_ns = 250'000'000;
  return m;
}

TEST(Exposition, GoldenWhileAStepRuns) {
  const std::string text = Text(Running());
  const std::string golden_path = std::string(IOFLEET_SOURCE_DIR) + "/tests/unit/agent/metrics/exposition_golden.txt";
  if (std::getenv("IOFLEET_UPDATE_GOLDEN")) std::ofstream(golden_path) << text;
  std::ifstream in(golden_path);
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(text, golden.str()) << "run with IOFLEET_UPDATE_GOLDEN=1 to rewrite " << golden_path << " and review the diff";
}

// Idle: no run series at all, the agent's own series only, the same count every time.
TEST(Exposition, IdleHasOnlyTheAgentsOwnSeries) {
  AgentMetrics idle;
  idle.identity = {"node01", "0.1.0", "abc1234"};
  size_t series = 0;
  for (const auto& family : Expose(idle)) {
    series += family.metric.size();
    const bool agent_own = family.name.rfind("iofleet_agent_", 0) == 0;
    EXPECT_EQ(family.metric.empty(), !agent_own) << family.name;
  }
  EXPECT_EQ(series, 1u + 6u + 2u);  // info, one per state, user and system CPU
}

TEST(Exposition, ErrorReasonsAreBounded) {
  std::set<std::string_view> names;
  for (int e = 0; e < 4096; ++e) names.insert(ErrorReasonName(ErrorReasonOf(e)));
  EXPECT_EQ(names.size(), kErrorReasonCount);
  EXPECT_EQ(ErrorReasonName(ErrorReasonOf(EIO)), "EIO");
  EXPECT_EQ(ErrorReasonName(ErrorReasonOf(0)), "verify");
  EXPECT_EQ(ErrorReasonName(ErrorReasonOf(EXDEV)), "other");
}

}  // namespace
}  // namespace iofleet::agent
