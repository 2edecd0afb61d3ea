#include "controller/workload/field_settings.h"

#include <gtest/gtest.h>

#include "controller/workload/sweep.h"
#include "controller/workload/yaml_loader.h"
#include "core/rules/step_tree.h"

namespace iofleet::controller {
namespace {

std::string AllErrors(const LoadedWorkload& w) {
  std::string out;
  for (const auto& e : w.errors) out += e + "\n";
  return out;
}

constexpr const char* kTwoSteps = R"(name: t
agents:
  overrides:
    - match: "node*"
      set: { "steps[read].io.block_size": 64KiB, jobs: 3 }
sweep:
  "steps[read].once": [true, false]
  jobs: [1, 2]
steps:
  - name: write
    io: { op: write }
  - name: read
    io: { op: read }
)";

TEST(FieldSettings, TheLoaderParsesEveryValueOnceWithItsPathResolved) {
  auto w = LoadWorkloadText(kTwoSteps, "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  const v1::Workload& wl = w.workload;
  ASSERT_EQ(wl.sweep_axes_size(), 2);
  EXPECT_EQ(wl.sweep_axes(0).path(), "jobs");  // axes in path order
  EXPECT_EQ(wl.sweep_axes(1).path(), "steps[read].once");
  ASSERT_EQ(wl.sweep_axes(0).values_size(), 2);
  EXPECT_EQ(wl.sweep_axes(0).values(1).text(), "2");
  EXPECT_EQ(wl.sweep_axes(0).values(1).value().defaults().jobs(), 2u);  // typed, "jobs" is defaults.jobs

  const v1::FieldSetting& block = wl.agents().overrides(0).settings(1);
  EXPECT_EQ(block.path(), "steps[read].io.block_size");
  ASSERT_EQ(block.at_size(), 3);
  EXPECT_EQ(block.at(0).field(), uint32_t{v1::Workload::kStepsFieldNumber});
  EXPECT_EQ(block.at(0).index(), 1u);  // "read" is the second step
  EXPECT_EQ(block.at(1).field(), uint32_t{v1::Step::kIoFieldNumber});
  EXPECT_FALSE(block.at(1).has_index());
  EXPECT_EQ(block.at(2).field(), uint32_t{v1::IoSpec::kBlockSizeFieldNumber});
  EXPECT_EQ(block.value().steps(1).io().block_size(), 65536u);
  EXPECT_FALSE(block.value().steps(0).has_io());  // the value holds that one field only
}

TEST(FieldSettings, ExpandingAndOverridingReadTheParsedValuesNotTheText) {
  auto w = LoadWorkloadText(kTwoSteps, "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  v1::Workload wl = w.workload;
  // The text is what the workload said; once parsed, nothing reads it again.
  (*wl.mutable_sweep())["jobs"] = "[not, numbers]";
  (*wl.mutable_agents()->mutable_overrides(0)->mutable_set())["jobs"] = "many";
  auto points = ExpandSweep(wl);
  ASSERT_TRUE(points.ok()) << points.status().message();
  ASSERT_EQ(points->size(), 4u);
  EXPECT_EQ((*points)[2].workload.defaults().jobs(), 2u);
  EXPECT_EQ((*points)[2].params[0], (std::pair<std::string, std::string>{"jobs", "2"}));
  EXPECT_TRUE((*points)[0].workload.steps(1).once());
  EXPECT_FALSE((*points)[1].workload.steps(1).once());  // false, a zero, is set as written
  EXPECT_EQ((*points)[1].workload.sweep_axes_size(), 0);

  auto mine = ForAgent((*points)[3].workload, "node1", "10.0.0.1:7070");
  ASSERT_TRUE(mine.ok()) << mine.status().message();
  EXPECT_EQ(mine->defaults().jobs(), 3u);  // the override wins over the point's 2
  EXPECT_EQ(mine->steps(1).io().block_size(), 65536u);
  EXPECT_FALSE(mine->steps(0).io().has_block_size());
}

TEST(FieldSettings, AWorkloadWhoseSettingsWereNotParsedIsRefused) {
  auto w = LoadWorkloadText(kTwoSteps, "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  v1::Workload wl = w.workload;
  wl.clear_sweep_axes();
  EXPECT_EQ(ExpandSweep(wl).status().code(), Code::kInternal);
  wl.mutable_agents()->mutable_overrides(0)->clear_settings();
  EXPECT_EQ(ForAgent(wl, "node1", "a:1").status().code(), Code::kInternal);
}

TEST(FieldSettings, ASetParsesTheSettingsAgainAgainstTheStepsAsTheyAreNamedNow) {
  auto w = LoadWorkloadText(kTwoSteps, "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  v1::Workload wl = w.workload;
  ASSERT_TRUE(SetWorkloadPath(wl, "sweep.total_size", "[1GiB, 2GiB]", "--set").ok());
  ASSERT_EQ(wl.sweep_axes_size(), 3);
  EXPECT_EQ(wl.sweep_axes(2).path(), "total_size");
  EXPECT_EQ(wl.sweep_axes(2).values(1).value().defaults().total_size(), uint64_t{2} << 30);
  // Renaming the step that the sweep and the override name by "read" leaves them naming none.
  Status renamed = SetWorkloadPath(wl, "steps[1].name", "other", "--set");
  EXPECT_FALSE(renamed.ok());
  EXPECT_NE(renamed.message().find("steps[read].once"), std::string::npos) << renamed.message();
  EXPECT_NE(renamed.message().find("has no entry \"read\""), std::string::npos) << renamed.message();
}

TEST(FieldSettings, BadValuesAndPathsAreLoadErrorsAtTheirPlace) {
  auto sweep = LoadWorkloadText("name: t\nsweep:\n  jobs: [1, 0]\nsteps:\n  - io: { op: write }\n", "w.yaml");
  EXPECT_NE(AllErrors(sweep).find("w.yaml:3:3: sweep.jobs: value 0: defaults.jobs: 0 is below the minimum 1"),
            std::string::npos)
      << AllErrors(sweep);
  auto over = LoadWorkloadText(R"(name: t
agents:
  overrides:
    - match: "*"
      set: { sweep.jobs: "[1, 2]", agents.count: 2 }
steps:
  - io: { op: write }
)", "w.yaml");
  EXPECT_NE(AllErrors(over).find("agents.overrides[0].set.sweep.jobs: an override cannot set sweep"), std::string::npos)
      << AllErrors(over);
  EXPECT_NE(AllErrors(over).find("agents.overrides[0].set.agents.count: an override cannot set agents"), std::string::npos)
      << AllErrors(over);
  auto huge = LoadWorkloadText("name: t\nsweep:\n  jobs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n  runtime: [1s, 2s, 3s, 4s, 5s, 6s, 7s, 8s, 9s, 10s]\n"
                               "  queue_depth: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n  block_size: [4KiB, 8KiB, 16KiB, 32KiB, 64KiB, 128KiB, 256KiB, 512KiB, 1MiB, 2MiB, 4MiB]\n"
                               "steps:\n  - io: { op: read, engine: libaio }\n", "w.yaml");
  EXPECT_NE(AllErrors(huge).find("sweep: more than 10000 points"), std::string::npos) << AllErrors(huge);
}

TEST(FieldSettings, AListIndexTooLargeForAnyIntegerIsNoEntry) {
  // std::stoi threw out_of_range on 99999999999 and ended iofleet validate.
  auto w = LoadWorkloadText("name: t\nsweep:\n  \"steps[99999999999].io.jobs\": [1]\nsteps:\n  - io: { op: write }\n", "w.yaml");
  EXPECT_NE(AllErrors(w).find("has no entry \"99999999999\""), std::string::npos) << AllErrors(w);
  auto ok = LoadWorkloadText("name: t\nsteps:\n  - io: { op: write }\n", "w.yaml");
  ASSERT_TRUE(ok.errors.empty()) << AllErrors(ok);
  Status st = SetWorkloadPath(ok.workload, "steps[99999999999].io.jobs", "1", "--set");
  EXPECT_NE(st.message().find("has no entry"), std::string::npos) << st.message();
}

TEST(FieldSettings, CopyAtReplacesAWholeListElementAndRefusesAMissingOne) {
  auto w = LoadWorkloadText(kTwoSteps, "w.yaml");
  ASSERT_TRUE(w.errors.empty()) << AllErrors(w);
  auto whole = ParseSetting(w.workload, "steps[read]", "{ name: read, sleep: { duration: 1s } }", "x");
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  v1::Workload wl = w.workload;
  ASSERT_TRUE(ApplySetting(wl, *whole).ok());
  EXPECT_TRUE(wl.steps(1).has_sleep());
  EXPECT_FALSE(wl.steps(1).has_io());
  v1::Workload one_step = wl;
  one_step.mutable_steps()->RemoveLast();
  Status missing = ApplySetting(one_step, *whole);
  EXPECT_EQ(missing.code(), Code::kFailedPrecondition);
  EXPECT_NE(missing.message().find("steps[1]: no such entry"), std::string::npos) << missing.message();
}

TEST(StepShape, StepsCompareAsValuesWithAndWithoutTheGroupsRepeat) {
  auto a = LoadWorkloadText("name: t\nsteps:\n  - name: g\n    group: { repeat: 2, steps: [ { io: { op: read } } ] }\n", "a.yaml");
  ASSERT_TRUE(a.errors.empty()) << AllErrors(a);
  v1::Workload b = a.workload;
  b.mutable_steps(0)->mutable_group()->set_repeat(3);
  const rules::StepShape sa = rules::ShapeOf(a.workload);
  const rules::StepShape sb = rules::ShapeOf(b);
  EXPECT_TRUE(sa.SameSteps(sb));
  EXPECT_FALSE(sa == sb);
  EXPECT_EQ(sa.Text(true), "g (group) x2 [g-io-0 (io)]");
  EXPECT_EQ(sa.Text(false), "g (group) [g-io-0 (io)]");
  v1::Workload c = a.workload;
  c.mutable_steps(0)->mutable_group()->mutable_steps(0)->set_name("renamed");
  EXPECT_FALSE(sa.SameSteps(rules::ShapeOf(c)));
}

}  // namespace
}  // namespace iofleet::controller
