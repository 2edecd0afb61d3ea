#include "controller/run/planner.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "controller/workload/fio_import.h"
#include "controller/workload/yaml_loader.h"
#include "core/rules/planned_check.h"
#include "tests/support/test_paths.h"

namespace iofleet::controller {
namespace {

std::vector<AgentId> Agents(size_t n) {
  std::vector<AgentId> out;
  for (size_t i = 0; i < n; ++i) out.push_back({"node" + std::to_string(i + 1), "10.0.0." + std::to_string(i + 1) + ":7070"});
  return out;
}

// What RunManager sends each agent at Prepare (controller/run/run_manager.cc).
v1::PrepareRequest RequestFor(const RunPlan& plan, const std::vector<AgentId>& agents, size_t i) {
  v1::PrepareRequest request;
  request.set_run_id("20261130-141700-0a1b2c");
  request.set_agent_name(agents[i].name);
  request.set_lease_ns(10'000'000'000);
  *request.mutable_target() = plan.workloads[i].target();
  for (const auto& step : plan.steps[i]) *request.add_steps() = step;
  return request;
}

std::string Lines(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& e : list) out += e + "\n";
  return out;
}

// No valid plan is refused by the agent: every shipped workload, on fleets of several sizes
// (total_jobs below the agent count leaves agents without a job), passes the agent's check.
TEST(Planner, EveryShippedWorkloadPassesTheAgentsCheck) {
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(IOFLEET_SOURCE_DIR) + "/workloads")) {
    if (!entry.is_regular_file()) continue;
    const std::string path = entry.path().string();
    v1::Workload workload;
    if (IsFioJobFile(path)) {
      FioImport imported = ImportFioJobFile(path, false);
      ASSERT_TRUE(imported.errors.empty()) << path << "\n" << Lines(imported.errors);
      workload = imported.workload;
    } else {
      LoadedWorkload loaded = LoadWorkloadFile(path);
      ASSERT_TRUE(loaded.errors.empty()) << path << "\n" << Lines(loaded.errors);
      workload = loaded.workload;
    }
    for (size_t n : {1, 2, 3, 16}) {
      std::vector<AgentId> agents = Agents(n);
      auto plan = MakePlan(workload, agents);
      ASSERT_TRUE(plan.ok()) << path << " on " << n << " agents: " << plan.status().message();
      for (size_t i = 0; i < n; ++i) {
        Status st = rules::CheckPrepare(RequestFor(*plan, agents, i), agents[i].name);
        EXPECT_TRUE(st.ok()) << path << " on " << n << " agents: " << st.message();
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// A shared file holds a block for each job of an agent, and under total_jobs an agent's jobs are
// known only once they are spread: 4 jobs on one agent share 2 MiB of 1 MiB blocks (two get
// none, and their workers would spin forever), 2 on each of two agents do not.
TEST(Planner, RefusesAPlanWhereAJobGetsNoBlock) {
  LoadedWorkload loaded = LoadWorkloadText(R"(name: t
defaults: { engine: "null", file_layout: shared, total_jobs: 4, file_size: 2MiB, block_size: 1MiB }
steps:
  - io: { op: randread, runtime: 1s }
)", "t.yaml");
  ASSERT_TRUE(loaded.errors.empty()) << Lines(loaded.errors);
  auto one = MakePlan(loaded.workload, Agents(1));
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().code(), Code::kInvalidArgument);
  EXPECT_NE(one.status().message().find("agent node1: steps[0].io.file_size: file_size 2MiB is smaller than 4 jobs x the "
                                        "block size 1MiB"),
            std::string::npos)
      << one.status().message();
  EXPECT_TRUE(MakePlan(loaded.workload, Agents(2)).ok());
  // With a sweep, the point is named.
  ASSERT_TRUE(SetWorkloadPath(loaded.workload, "sweep", "{ total_jobs: [2, 8] }", "--set").ok());
  auto swept = MakePlan(loaded.workload, Agents(2));
  ASSERT_FALSE(swept.ok());
  EXPECT_NE(swept.status().message().find("agent node2: steps[0].io.file_size (at total_jobs=8): "), std::string::npos)
      << swept.status().message();
}

RunPlan PlanOf(const std::string& yaml, size_t agents = 1) {
  auto loaded = LoadWorkloadText(yaml, "t.yaml");
  EXPECT_TRUE(loaded.errors.empty()) << (loaded.errors.empty() ? "" : loaded.errors.front());
  std::vector<AgentId> ids;
  for (size_t i = 0; i < agents; ++i) ids.push_back({"a" + std::to_string(i), "127.0.0.1:" + std::to_string(7000 + i)});
  auto plan = MakePlan(loaded.workload, ids);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? *plan : RunPlan{};
}

// A ramp inherited from defaults reaches only time-based steps. Given to a
// size-based write, it opened the window after the write was done: 0 bytes, "succeeded".
TEST(Planner, InheritedFieldsReachOnlyStepsWhereTheyApply) {
  RunPlan plan = PlanOf(R"(
name: t
defaults: { engine: psync, queue_depth: 1, file_size: 256MiB, ramp: 5s }
steps:
  - name: write
    io: { op: write }
  - name: randread
    io: { op: randread, runtime: 6s }
)");
  ASSERT_EQ(plan.steps.size(), 1u);
  ASSERT_EQ(plan.steps[0].size(), 2u);
  EXPECT_EQ(plan.steps[0][0].io().ramp(), 0u);
  EXPECT_EQ(plan.steps[0][1].io().ramp(), 5'000'000'000u);
}

TEST(Planner, AnInheritedQueueDepthDoesNotReachPsync) {
  RunPlan plan = PlanOf(R"(
name: t
defaults: { queue_depth: 32, file_size: 1MiB, block_size: 4KiB }
steps:
  - name: deep
    io: { op: randread, engine: libaio }
  - name: sync
    io: { op: randread, engine: psync }
)");
  ASSERT_EQ(plan.steps[0].size(), 2u);
  EXPECT_EQ(plan.steps[0][0].io().queue_depth(), 32u);
  EXPECT_EQ(plan.steps[0][1].io().queue_depth(), 1u);
}

// A group's steps are planned once each (the agent gets a flat list; the run manager repeats
// them), with their group paths, in workload order.
TEST(Planner, AGroupsStepsArePlannedOnceEach) {
  const char* text = R"(
name: t
defaults: { file_size: 1MiB }
steps:
  - name: first
    sync: {}
  - name: in
    group:
      repeat: 30
      steps:
        - drop_caches: {}
        - io: { op: write }
  - name: last
    sync: {}
sweep:
  steps[in].group.repeat: [2, 3]
)";
  LoadedWorkload loaded = LoadWorkloadText(text, "w.yaml");
  ASSERT_TRUE(loaded.errors.empty()) << Lines(loaded.errors);
  std::vector<AgentId> agents = Agents(2);
  auto plan = MakePlan(loaded.workload, agents);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->leaves.size(), 4u);
  EXPECT_EQ(plan->leaves[1].path, "steps[1].group.steps[0]");
  EXPECT_EQ(plan->leaves[1].group, "in");
  EXPECT_EQ(plan->leaves[2].name, "in-io-1");
  EXPECT_EQ(plan->leaves[3].member, -1);
  ASSERT_EQ(plan->steps[0].size(), 2u * 4);  // two points x four leaves
  EXPECT_TRUE(plan->steps[1][1].has_drop_caches());
  EXPECT_EQ(plan->steps[1][2].name(), "in-io-1");
  EXPECT_EQ(plan->steps[1][6].point(), 1u);
  for (size_t i = 0; i < agents.size(); ++i) EXPECT_TRUE(rules::CheckPrepare(RequestFor(*plan, agents, i), agents[i].name).ok());

  std::string described = DescribePlan(loaded.workload, *plan, agents);
  EXPECT_NE(described.find("#   in (group: its steps 2 time(s) in order, then the next step)"), std::string::npos) << described;
  EXPECT_NE(described.find("#   in (group: its steps 3 time(s) in order, then the next step)"), std::string::npos) << described;
  EXPECT_NE(described.find("#     in-io-1 (io)"), std::string::npos) << described;
  // 2 + 3 runs of the size-based write over the two points.
  EXPECT_NE(described.find("plus 5 size-based step run(s)"), std::string::npos) << described;
}

// Steps run in lockstep: an override that gives one agent another repeat is refused.
TEST(Planner, OverridesMayNotChangeAGroupsRepeat) {
  LoadedWorkload loaded = LoadWorkloadText(R"(
name: t
agents:
  overrides:
    - match: node2
      set: { "steps[g].group.repeat": 3 }
steps:
  - name: g
    group: { repeat: 2, steps: [ { sync: {} } ] }
)", "w.yaml");
  ASSERT_TRUE(loaded.errors.empty()) << Lines(loaded.errors);
  auto plan = MakePlan(loaded.workload, Agents(2));
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("agent node2: its overrides would change the steps or a group's repeat"), std::string::npos)
      << plan.status().message();
}

}  // namespace
}  // namespace iofleet::controller
