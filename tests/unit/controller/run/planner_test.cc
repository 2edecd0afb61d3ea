#include "controller/run/planner.h"

#include <gtest/gtest.h>

#include "controller/workload/yaml_loader.h"

namespace iofleet::controller {
namespace {

RunPlan PlanOf(const std::string& yaml, size_t agents = 1) {
  auto loaded = LoadWorkloadText(yaml, "t.yaml");
  EXPECT_TRUE(loaded.errors.empty()) << (loaded.errors.empty() ? "" : loaded.errors.front());
  std::vector<AgentId> ids;
  for (size_t i = 0; i < agents; ++i) ids.push_back({"a" + std::to_string(i), "127.0.0.1:" + std::to_string(7000 + i)});
  auto plan = MakePlan(loaded.workload, ids);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? *plan : RunPlan{};
}

// Issue 9, item 2: a ramp inherited from defaults reaches only time-based steps. Given to a
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

// Issue 9, item 1: total_jobs below... a job whose range holds no block never runs.
TEST(Planner, EveryPlannedJobHasAtLeastOneBlock) {
  auto loaded = LoadWorkloadText(R"(
name: t
defaults: { engine: "null", file_layout: shared, total_jobs: 2, file_size: 64KiB, block_size: 1MiB, runtime: 1s }
steps:
  - io: { op: randread }
)", "t.yaml");
  ASSERT_TRUE(loaded.errors.empty());
  auto plan = MakePlan(loaded.workload, {{"a0", "127.0.0.1:7000"}});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("block"), std::string::npos) << plan.status().message();
}

}  // namespace
}  // namespace iofleet::controller
