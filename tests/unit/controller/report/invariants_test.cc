// Each report invariant: holds on a consistent report, and a report breaking it fails the step
// and the run with a message naming the invariant, the step and the agent.
#include "controller/report/invariants.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

constexpr uint64_t kSec = 1'000'000'000;

AgentStep Row(const std::string& agent, uint64_t reads, uint64_t writes, uint64_t window_ns) {
  AgentStep a;
  a.agent = agent;
  a.stats.read.ops = reads;
  a.stats.read.bytes = reads * 4096;
  a.stats.write.ops = writes;
  a.stats.write.bytes = writes * 4096;
  a.stats.ops = reads + writes;
  a.stats.bytes = (reads + writes) * 4096;
  a.stats.window_ns = window_ns;
  return a;
}

// Two agents, a and b, one io step "mix" whose aggregate adds them up.
RunReport Consistent() {
  RunReport r;
  r.status = v1::RUN_STATUS_SUCCEEDED;
  r.agents = {{"a", "", ""}, {"b", "", ""}};
  StepReport s;
  s.name = "mix";
  s.kind = "io";
  s.status = v1::STEP_STATUS_SUCCEEDED;
  s.agents = {Row("a", 10, 5, kSec), Row("b", 20, 7, 2 * kSec)};
  for (size_t i = 0; i < s.agents.size(); ++i) s.aggregate.Add(s.agents[i].stats, i == 0);
  r.steps.push_back(std::move(s));
  return r;
}

void ExpectFailedWith(RunReport& r, const std::vector<std::string>& violations, const std::string& part) {
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_NE(violations[0].find(part), std::string::npos) << violations[0];
  EXPECT_NE(violations[0].find("step mix"), std::string::npos) << violations[0];
  EXPECT_EQ(r.steps[0].status, v1::STEP_STATUS_FAILED);
  EXPECT_EQ(r.status, v1::RUN_STATUS_FAILED);
  EXPECT_EQ(r.error, violations[0]);
}

TEST(CheckInvariants, AConsistentReportPasses) {
  RunReport r = Consistent();
  EXPECT_TRUE(CheckInvariants(r).empty());
  EXPECT_EQ(r.status, v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(r.steps[0].status, v1::STEP_STATUS_SUCCEEDED);
}

TEST(CheckInvariants, AggregateOpsAndBytesAreTheAgentsSum) {
  RunReport r = Consistent();
  r.steps[0].aggregate.bytes += 4096;
  ExpectFailedWith(r, CheckInvariants(r), "invariant \"aggregate = sum of agents\" broken: bytes");
  r = Consistent();
  r.steps[0].aggregate.ops -= 1;
  ExpectFailedWith(r, CheckInvariants(r), "ops 41 in the aggregate, 42 summed over agents");
}

TEST(CheckInvariants, EachDirectionIsTheAgentsSum) {
  RunReport r = Consistent();
  r.steps[0].aggregate.read.ops += 1;
  ExpectFailedWith(r, CheckInvariants(r), "read ops 31 in the aggregate, 30 summed over agents");
  r = Consistent();
  r.steps[0].aggregate.write.bytes = 0;
  ExpectFailedWith(r, CheckInvariants(r), "write bytes 0 in the aggregate");
}

TEST(CheckInvariants, EveryAgentsWindowLiesWithinTheSteps) {
  RunReport r = Consistent();
  r.steps[0].span_ns = 2 * kSec;  // start instant to the last stream's end, as the controller saw it
  EXPECT_TRUE(CheckInvariants(r).empty());
  r.steps[0].agents[0].stats.window_ns = 3 * kSec;
  r.steps[0].aggregate.window_ns = 3 * kSec;
  ExpectFailedWith(r, CheckInvariants(r), "invariant \"agent window within the step\" broken by agent a");
}

TEST(CheckInvariants, ASucceededStepHasARowForEveryAgent) {
  RunReport r = Consistent();
  r.agents.push_back({"c", "", ""});
  ExpectFailedWith(r, CheckInvariants(r), "invariant \"every agent has a result\" broken by agent c: no row");
  r = Consistent();
  r.steps[0].agents[1].agent = "a";  // a twice, b missing
  auto v = CheckInvariants(r);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].find("by agent a: 2 rows"), std::string::npos) << v[0];
  EXPECT_NE(v[1].find("by agent b: no row"), std::string::npos) << v[1];
  r = Consistent();
  r.steps[0].agents[1].agent = "z";  // not an agent of this run
  v = CheckInvariants(r);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].find("by agent b: no row"), std::string::npos) << v[0];
  EXPECT_NE(v[1].find("by agent z: a row for an agent not in the run"), std::string::npos) << v[1];
}

TEST(CheckInvariants, ASucceededStepsAgentsRanTheirCourseUnlessStonewallStoppedThem) {
  // An agent shut down mid-step returns what it did so far, stopped early.
  RunReport r = Consistent();
  r.steps[0].agents[1].stopped_early = true;
  ExpectFailedWith(r, CheckInvariants(r), "invariant \"agents ran their course\" broken by agent b: it was stopped");
  r = Consistent();
  r.steps[0].agents[1].stopped_early = true;
  r.steps[0].stonewall = true;  // stonewall: first_done stops the others by design
  r.steps[0].stonewalled = true;
  EXPECT_TRUE(CheckInvariants(r).empty());
}

TEST(CheckInvariants, AFailedStepMayLackRowsButKeepsItsError) {
  RunReport r = Consistent();
  r.status = v1::RUN_STATUS_FAILED;
  r.error = "step mix: agent b was lost";
  r.steps[0].status = v1::STEP_STATUS_FAILED;
  r.steps[0].agents.pop_back();  // the lost agent's row: the aggregate no longer adds up
  r.steps[0].aggregate = StepStats();
  r.steps[0].aggregate.Add(r.steps[0].agents[0].stats, true);
  EXPECT_TRUE(CheckInvariants(r).empty());
  r.steps[0].aggregate.ops += 1;
  EXPECT_EQ(CheckInvariants(r).size(), 1u);  // still reported, but the first error stays
  EXPECT_EQ(r.error, "step mix: agent b was lost");
  EXPECT_EQ(r.steps[0].status, v1::STEP_STATUS_FAILED);
}

TEST(CheckInvariants, ASucceededIoStepMovesBytes) {
  RunReport r = Consistent();
  StepReport& s = r.steps[0];
  s.agents = {Row("a", 0, 0, kSec), Row("b", 0, 0, kSec)};
  s.aggregate = StepStats();
  for (size_t i = 0; i < s.agents.size(); ++i) s.aggregate.Add(s.agents[i].stats, i == 0);
  ExpectFailedWith(r, CheckInvariants(r), "invariant \"an io step moves bytes\" broken: it moved none");
}

TEST(CheckInvariants, StepsThatMoveNoBytesByDesignPass) {
  RunReport r = Consistent();
  for (const char* kind : {"sync", "drop_caches", "hook", "readahead"}) {
    StepReport s;
    s.name = kind;
    s.kind = kind;
    s.status = v1::STEP_STATUS_SUCCEEDED;
    s.agents = {Row("a", 0, 0, 1000), Row("b", 0, 0, 2000)};
    for (size_t i = 0; i < s.agents.size(); ++i) s.aggregate.Add(s.agents[i].stats, i == 0);
    r.steps.push_back(s);
  }
  StepReport sleep;  // the controller's: no agent rows
  sleep.name = "pause";
  sleep.kind = "sleep";
  sleep.status = v1::STEP_STATUS_SUCCEEDED;
  sleep.aggregate.window_ns = kSec;
  r.steps.push_back(sleep);
  EXPECT_TRUE(CheckInvariants(r).empty());
  EXPECT_EQ(r.status, v1::RUN_STATUS_SUCCEEDED);
}

TEST(CheckInvariants, AnAgentStoppedEarlyMayMoveNoBytes) {
  // Only an agent that ran its course is held to moving bytes: one stopped early (stonewall)
  // ended when the controller said so.
  RunReport r = Consistent();
  StepReport& s = r.steps[0];
  s.agents[1] = Row("b", 0, 0, 0);
  s.agents[1].stopped_early = true;
  s.stonewall = true;
  s.aggregate = StepStats();
  for (size_t i = 0; i < s.agents.size(); ++i) s.aggregate.Add(s.agents[i].stats, i == 0);
  EXPECT_TRUE(CheckInvariants(r).empty());
}

TEST(CheckInvariants, EveryAgentGivenWorkMovesBytes) {
  RunReport r = Consistent();
  StepReport& s = r.steps[0];
  s.agents[1] = Row("b", 0, 0, kSec);
  s.aggregate = StepStats();
  for (size_t i = 0; i < s.agents.size(); ++i) s.aggregate.Add(s.agents[i].stats, i == 0);
  ExpectFailedWith(r, CheckInvariants(r), "invariant \"an io step moves bytes\" broken by agent b: it was given work and moved none");
  RunReport idle = Consistent();  // an agent the plan gave no job
  idle.steps[0].agents[1] = Row("b", 0, 0, 0);
  idle.steps[0].agents[1].has_work = false;
  idle.steps[0].aggregate = StepStats();
  for (size_t i = 0; i < 2; ++i) idle.steps[0].aggregate.Add(idle.steps[0].agents[i].stats, i == 0);
  EXPECT_TRUE(CheckInvariants(idle).empty());
  // An agent whose job's job_end ended its others may have ended one before it moved a byte.
  RunReport ended = Consistent();
  ended.steps[0].agents[1] = Row("b", 0, 0, kSec);
  ended.steps[0].agents[1].cut_by_job_end = true;
  ended.steps[0].aggregate = StepStats();
  for (size_t i = 0; i < 2; ++i) ended.steps[0].aggregate.Add(ended.steps[0].agents[i].stats, i == 0);
  EXPECT_TRUE(CheckInvariants(ended).empty());
}

TEST(CheckInvariants, AFilesStepsPhasesHoldThemToo) {
  RunReport r = Consistent();
  StepReport s;
  s.name = "tree";
  s.kind = "files";
  s.status = v1::STEP_STATUS_SUCCEEDED;
  PhaseReport create{"create", {}, {Row("a", 0, 3, kSec), Row("b", 0, 4, kSec)}, 0};
  for (size_t i = 0; i < create.agents.size(); ++i) create.aggregate.Add(create.agents[i].stats, i == 0);
  PhaseReport stat{"stat", {}, {Row("a", 3, 0, kSec)}, 0};  // b's row lost
  stat.aggregate.Add(stat.agents[0].stats, true);
  s.phases = {create, stat};
  s.agents = create.agents;
  s.aggregate.AddPhase(create.aggregate, true);
  s.aggregate.AddPhase(stat.aggregate, false);
  s.agents[0].stats.AddPhase(stat.agents[0].stats, false);
  r.steps.push_back(s);
  auto v = CheckInvariants(r);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("step tree, phase stat: invariant \"every agent has a result\" broken by agent b"), std::string::npos) << v[0];
  EXPECT_EQ(r.steps[1].status, v1::STEP_STATUS_FAILED);
}

TEST(CheckInvariants, NamesThePointAndCycleWhenThereAreSeveral) {
  RunReport r = Consistent();
  StepReport again = r.steps[0];
  again.cycle = 1;
  again.aggregate.bytes += 1;
  r.steps.push_back(again);
  auto v = CheckInvariants(r);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rfind("step mix (point 0, cycle 1): ", 0), 0u) << v[0];
  EXPECT_EQ(r.steps[0].status, v1::STEP_STATUS_SUCCEEDED);
  EXPECT_EQ(r.steps[1].status, v1::STEP_STATUS_FAILED);
}

// Thirty instances of a group's step differ only in their group cycle: the message names it.
TEST(CheckInvariants, NamesTheGroupCycleOfAGroupsStep) {
  RunReport r = Consistent();
  r.steps[0].group = "in";
  r.steps[0].group_cycle = 0;
  StepReport again = r.steps[0];
  again.group_cycle = 1;
  again.aggregate.bytes += 1;
  r.steps.push_back(again);
  auto v = CheckInvariants(r);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rfind("step mix (point 0, cycle 0, group in cycle 1): ", 0), 0u) << v[0];
}

// The mix step as two streams: "r" the reads and "w" the writes of each agent.
RunReport WithStreams() {
  RunReport r = Consistent();
  StepReport& s = r.steps[0];
  for (const char* name : {"r", "w"}) {
    StreamReport stream{name, StepStats(), {}};
    for (const AgentStep& a : s.agents) {
      const bool reads = std::string(name) == "r";
      stream.agents.push_back(Row(a.agent, reads ? a.stats.read.ops : 0, reads ? 0 : a.stats.write.ops, a.stats.window_ns));
    }
    for (size_t i = 0; i < stream.agents.size(); ++i) stream.aggregate.Add(stream.agents[i].stats, i == 0);
    s.streams.push_back(std::move(stream));
  }
  return r;
}

TEST(CheckInvariants, StreamsAddUpToTheStepAndEachToItsAgents) {
  RunReport r = WithStreams();
  EXPECT_TRUE(CheckInvariants(r).empty());
  auto says = [](const std::vector<std::string>& found, const std::string& part) {
    for (const auto& f : found) {
      if (f.find(part) != std::string::npos) return true;
    }
    return false;
  };
  r = WithStreams();
  r.steps[0].streams[1].aggregate.write.ops += 1;
  auto found = CheckInvariants(r);
  EXPECT_TRUE(says(found, "stream w: invariant \"aggregate = sum of agents\" broken: write ops")) << found.size();
  EXPECT_EQ(r.status, v1::RUN_STATUS_FAILED);
  r = WithStreams();
  r.steps[0].streams.pop_back();  // the writes are in no stream
  found = CheckInvariants(r);
  EXPECT_TRUE(says(found, "step mix: invariant \"step = sum of streams\" broken: ops")) << found.size();
  EXPECT_EQ(r.steps[0].status, v1::STEP_STATUS_FAILED);
}

// One stream that did nothing on an agent that had its jobs is a failed step, not a smaller sum.
TEST(CheckInvariants, AStreamThatMovedNothingOnAnAgentWithItsJobsFails) {
  RunReport r = WithStreams();
  StreamReport& w = r.steps[0].streams[1];
  w.agents[1] = Row("b", 0, 0, 2 * kSec);
  w.aggregate = StepStats();
  for (size_t i = 0; i < w.agents.size(); ++i) w.aggregate.Add(w.agents[i].stats, i == 0);
  StepReport& s = r.steps[0];
  s.agents[1] = Row("b", 20, 0, 2 * kSec);
  s.aggregate = StepStats();
  for (size_t i = 0; i < s.agents.size(); ++i) s.aggregate.Add(s.agents[i].stats, i == 0);
  const auto found = CheckInvariants(r);
  ASSERT_EQ(found.size(), 1u) << (found.empty() ? "" : found[0]);
  EXPECT_NE(found[0].find("stream w: invariant \"an io step moves bytes\" broken by agent b"), std::string::npos) << found[0];
  // Without jobs there (total_jobs gave them to other agents) it is no failure.
  r.steps[0].status = v1::STEP_STATUS_SUCCEEDED;
  r.status = v1::RUN_STATUS_SUCCEEDED;
  r.steps[0].streams[1].agents[1].has_work = false;
  EXPECT_TRUE(CheckInvariants(r).empty());
}

}  // namespace
}  // namespace iofleet::controller
