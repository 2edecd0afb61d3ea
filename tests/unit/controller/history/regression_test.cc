#include "controller/history/regression.h"

#include <gtest/gtest.h>

#include <optional>

#include "controller/history/run_figures.h"
#include "core/wire/proto_json.h"
#include "tests/support/temp_dir.h"

namespace iofleet::controller {
namespace {

StoredRun MakeRun(const std::string& id, uint64_t started, double bandwidth, double p99) {
  StoredRun r;
  r.run_id = id;
  r.workload = "nightly";
  r.workload_hash = "h1";
  r.effective_workload = "name: nightly\ndefaults: { queue_depth: 32, block_size: 4KiB }\nsteps:\n  - io: { op: read }\n";
  r.started_at_unix_ns = started;
  r.status = v1::RUN_STATUS_SUCCEEDED;
  r.agents = {{"a1", "", "", ""}};
  // Two cycles: the run counts once, by their mean.
  for (int cycle = 0; cycle < 2; ++cycle) {
    const double wobble = cycle ? 1.01 : 0.99;
    r.figures.push_back({"read", 0, cycle, -1, "", "bandwidth", bandwidth * wobble});
    r.figures.push_back({"read", 0, cycle, -1, "", "p99_latency", p99 * wobble});
    r.figures.push_back({"read", 0, cycle, -1, "a1", "bandwidth", bandwidth * wobble});  // per agent: not judged
  }
  return r;
}

class JudgeRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = HistoryDb::Open((dir_.path() / "history.db").string());
    ASSERT_TRUE(opened.ok());
    db_ = std::move(*opened);
    const double bw[] = {1000, 1010, 990, 1005, 995};
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(db_->Insert(MakeRun("b" + std::to_string(i), 100 + i, bw[i], 0.002)).ok());
  }
  VerdictOptions MeanOf5() {
    VerdictOptions o;
    o.reference = *Reference::Parse("mean-of:5");
    return o;
  }
  testing::TempDir dir_;
  std::unique_ptr<HistoryDb> db_;
};

TEST_F(JudgeRunTest, ASlowerRunIsARegressionOfThatFigureOnly) {
  auto v = JudgeRun(*db_, MakeRun("now", 1000, 800, 0.002), MeanOf5());
  ASSERT_TRUE(v.ok()) << v.status().message();
  nlohmann::ordered_json vj = wire::ToJson(v->verdicts);  // as report.json holds them
  EXPECT_EQ(v->overall, v1::VERDICT_REGRESSION);
  EXPECT_EQ(v->regressions, 1);
  const auto& figures = vj["steps"][0]["figures"];
  ASSERT_EQ(figures.size(), 2u);
  for (const auto& f : figures) {
    if (f["figure"] == "bandwidth") {
      EXPECT_EQ(f["verdict"], "regression");
      EXPECT_NEAR(f["baseline"].get<double>(), 1000, 1e-9);
      EXPECT_NEAR(f["change_pct"].get<double>(), -20, 1e-9);
      EXPECT_EQ(f["baseline_runs"], 5);
      EXPECT_EQ(f["unit"], "bytes_per_sec");
    } else {
      EXPECT_EQ(f["figure"], "p99_latency");
      EXPECT_EQ(f["verdict"], "unchanged");
      EXPECT_EQ(f["better"], "lower");
    }
  }
  EXPECT_EQ(vj["baseline_runs"].size(), 5u);
  EXPECT_FALSE(vj["workload_changed"].get<bool>());
}

TEST_F(JudgeRunTest, LabelsSelectTheBaselineAndExcludedRunsAreLeftOut) {
  StoredRun labelled = MakeRun("now", 1000, 800, 0.002);
  labelled.labels = {{"fs", "xfs"}};
  auto v = JudgeRun(*db_, labelled, MeanOf5());
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->overall, v1::VERDICT_NOT_ENOUGH_HISTORY);  // no xfs run before it
  ASSERT_TRUE(db_->SetExcluded("b1", true).ok());
  ASSERT_TRUE(db_->SetExcluded("b2", true).ok());
  ASSERT_TRUE(db_->SetExcluded("b3", true).ok());
  auto few = JudgeRun(*db_, MakeRun("now", 1000, 800, 0.002), MeanOf5());
  ASSERT_TRUE(few.ok());
  nlohmann::ordered_json fewj = wire::ToJson(few->verdicts);
  EXPECT_EQ(few->overall, v1::VERDICT_NOT_ENOUGH_HISTORY);  // two runs left
  EXPECT_EQ(fewj["steps"][0]["figures"][0]["baseline_runs"], 2);
  EXPECT_FALSE(fewj["steps"][0]["figures"][0].contains("p_value"));
}

// `--set queue_depth=1 --set block_size=64KiB` under the same name was judged: "regression, iops
// +513% improvement", exit 3.
TEST_F(JudgeRunTest, AChangedWorkloadIsNotComparableNamingWhatDiffers) {
  StoredRun changed = MakeRun("now", 1000, 6000, 0.002);
  changed.workload_hash = "h2";
  changed.effective_workload = "name: nightly\ndefaults: { queue_depth: 1, block_size: 64KiB }\nsteps:\n  - io: { op: read }\n";
  auto v = JudgeRun(*db_, changed, MeanOf5());
  ASSERT_TRUE(v.ok()) << v.status().message();
  nlohmann::ordered_json vj = wire::ToJson(v->verdicts);
  EXPECT_EQ(v->overall, v1::VERDICT_NOT_COMPARABLE);
  EXPECT_EQ(v->regressions, 0);
  EXPECT_EQ(vj["verdict"], "not comparable");
  EXPECT_EQ(vj["workload_differs_from"], "b4");
  EXPECT_EQ(vj["workload_differences"],
            nlohmann::ordered_json::parse(R"(["defaults.block_size: 4KiB -> 64KiB", "defaults.queue_depth: 32 -> 1"])"));
  EXPECT_TRUE(vj["baseline_runs"].empty());
  for (const auto& f : vj["steps"][0]["figures"]) {
    EXPECT_EQ(f["verdict"], "not comparable");
    EXPECT_FALSE(f.contains("baseline"));
  }

  // Forced: judged across the change, and said so.
  VerdictOptions forced = MeanOf5();
  forced.force_comparable = true;
  auto f = JudgeRun(*db_, changed, forced);
  ASSERT_TRUE(f.ok());
  nlohmann::ordered_json fj = wire::ToJson(f->verdicts);
  EXPECT_EQ(f->overall, v1::VERDICT_IMPROVEMENT);
  EXPECT_TRUE(fj["forced"].get<bool>());
  EXPECT_TRUE(fj["workload_changed"].get<bool>());
  EXPECT_EQ(fj["workload_differences"].size(), 2u);
}

// The hash differs but no value does (another spelling of the same YAML): the differences are
// an empty list, still written, as the verdict says the workload changed.
TEST_F(JudgeRunTest, AnotherSpellingOfTheSameWorkloadListsNoDifferences) {
  StoredRun respelled = MakeRun("now", 1000, 1000, 0.002);
  respelled.workload_hash = "h2";
  respelled.effective_workload = "name: nightly\ndefaults: {block_size: 4KiB, queue_depth: 32}\nsteps:\n  - io: {op: read}\n";
  auto v = JudgeRun(*db_, respelled, MeanOf5());
  ASSERT_TRUE(v.ok()) << v.status().message();
  nlohmann::ordered_json vj = wire::ToJson(v->verdicts);
  ASSERT_TRUE(vj.contains("workload_differences")) << vj.dump();
  EXPECT_TRUE(vj["workload_differences"].empty());
}

TEST_F(JudgeRunTest, OnlyBaselinesOfTheSameEffectiveWorkloadCount) {
  for (int i = 0; i < 2; ++i) {  // two later runs under other settings, much faster
    StoredRun other = MakeRun("o" + std::to_string(i), 200 + i, 5000, 0.002);
    other.workload_hash = "h2";
    ASSERT_TRUE(db_->Insert(other).ok());
  }
  auto v = JudgeRun(*db_, MakeRun("now", 1000, 1000, 0.002), MeanOf5());
  ASSERT_TRUE(v.ok());
  nlohmann::ordered_json vj = wire::ToJson(v->verdicts);
  EXPECT_EQ(v->overall, v1::VERDICT_UNCHANGED);
  EXPECT_EQ(vj["baseline_runs"], nlohmann::ordered_json::parse(R"(["b0", "b1", "b2", "b3", "b4"])"));
  EXPECT_FALSE(vj["workload_changed"].get<bool>());
}

TEST_F(JudgeRunTest, ARunIdReferenceMustBeABaseline) {
  VerdictOptions o;
  o.reference = *Reference::Parse("b3");
  auto v = JudgeRun(*db_, MakeRun("now", 1000, 1000, 0.002), o);
  ASSERT_TRUE(v.ok()) << v.status().message();
  nlohmann::ordered_json vj = wire::ToJson(v->verdicts);
  EXPECT_NEAR(vj["steps"][0]["figures"][0]["baseline"].get<double>(), 1005, 1e-9);  // b3's bandwidth
  EXPECT_EQ(vj["steps"][0]["figures"][0]["baseline_runs"], 4);                     // b0..b3
  o.reference = *Reference::Parse("nope");
  auto missing = JudgeRun(*db_, MakeRun("now", 1000, 1000, 0.002), o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no run nope"), std::string::npos) << missing.status().message();
  StoredRun other = MakeRun("x", 500, 1000, 0.002);
  other.workload = "another";
  ASSERT_TRUE(db_->Insert(other).ok());
  o.reference = *Reference::Parse("x");
  auto foreign = JudgeRun(*db_, MakeRun("now", 1000, 1000, 0.002), o);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("no baseline"), std::string::npos);
}

TEST(HeadlineFigures, ReadsEachKindsFiguresFromTheReport) {
  v1::Report report;
  ASSERT_TRUE(wire::FromJson(nlohmann::ordered_json::parse(R"({
    "steps": [
      {"name": "w", "kind": "io", "point": 1, "cycle": 2, "status": "succeeded",
       "aggregate": {"ops": 10, "bytes_per_sec": 5e8, "iops": 1000, "latency_ns": {"p99": 2500000}},
       "agents": [{"agent": "a1", "ops": 10, "bytes_per_sec": 5e8, "iops": 1000, "latency_ns": {"p99": 2500000}}]},
      {"name": "bad", "kind": "io", "status": "failed", "aggregate": {"bytes_per_sec": 1}},
      {"name": "tree", "kind": "files", "point": 0, "cycle": 0, "status": "succeeded", "aggregate": {},
       "phases": [{"op": "create", "files_per_sec": 300, "agents": [{"agent": "a1", "files_per_sec": 300}]}]},
      {"name": "cp", "kind": "copy", "status": "succeeded", "group": "g", "group_cycle": 3,
       "aggregate": {"seconds": 4.5, "bytes_per_sec": 1e9, "files_per_sec": 20}},
      {"name": "mkfs", "kind": "hook", "status": "succeeded", "aggregate": {"seconds": 1.25}}
    ]})"), report, "report.json").ok());
  auto figures = HeadlineFigures(report);
  auto find = [&](const std::string& step, const std::string& agent, const std::string& name) -> const StoredFigure* {
    for (const auto& f : figures)
      if (f.step == step && f.agent == agent && f.figure == name) return &f;
    return nullptr;
  };
  ASSERT_NE(find("w", "", "bandwidth"), nullptr);
  EXPECT_EQ(find("w", "", "bandwidth")->point, 1);
  EXPECT_EQ(find("w", "", "bandwidth")->cycle, 2);
  EXPECT_DOUBLE_EQ(find("w", "", "p99_latency")->value, 0.0025);
  EXPECT_NE(find("w", "a1", "iops"), nullptr);
  EXPECT_EQ(find("bad", "", "bandwidth"), nullptr);
  EXPECT_DOUBLE_EQ(find("tree", "", "files_per_sec:create")->value, 300);
  EXPECT_NE(find("tree", "a1", "files_per_sec:create"), nullptr);
  EXPECT_DOUBLE_EQ(find("cp", "", "copy_seconds")->value, 4.5);
  EXPECT_EQ(find("cp", "", "copy_seconds")->group_cycle, 3);
  EXPECT_DOUBLE_EQ(find("mkfs", "", "seconds")->value, 1.25);
  EXPECT_EQ(BetterOf("copy_seconds"), Better::kLower);
  EXPECT_EQ(BetterOf("files_per_sec:create"), Better::kHigher);
}

// A report's fleet-wide figure (no agent) of a step, by name; none where there is none.
struct FleetFigure {
  std::vector<StoredFigure> figures;
  std::optional<double> operator()(const std::string& step, const std::string& name) const {
    for (const auto& f : figures)
      if (f.step == step && f.agent.empty() && f.figure == name) return f.value;
    return std::nullopt;
  }
};

// A target_latency step's found rate is a figure of its own, the fleet's; one that found none has none.
TEST(HeadlineFigures, ASearchsFoundRateIsAFigure) {
  v1::Report report;
  ASSERT_TRUE(wire::FromJson(nlohmann::ordered_json::parse(R"({
    "steps": [
      {"name": "knee", "kind": "io", "status": "succeeded", "aggregate": {"ops": 10, "iops": 1000},
       "search": {"unit": "iops", "found_rate": 1013, "met": true}},
      {"name": "seq", "kind": "io", "status": "succeeded", "aggregate": {"ops": 10},
       "search": {"unit": "bytes_per_sec", "found_rate": 4e6, "met": true}},
      {"name": "none", "kind": "io", "status": "succeeded", "aggregate": {"ops": 10}, "search": {"unit": "iops", "met": false}}
    ]})"), report, "report.json").ok());
  const FleetFigure value{HeadlineFigures(report)};
  EXPECT_EQ(value("knee", "iops_at_target"), 1013);
  EXPECT_EQ(value("seq", "bandwidth_at_target"), 4e6);
  EXPECT_FALSE(value("none", "iops_at_target"));
  EXPECT_EQ(UnitOf("iops_at_target"), "ops_per_sec");
  EXPECT_EQ(BetterOf("bandwidth_at_target"), Better::kHigher);
}

// A curve step: each level's achieved rate and p99 are figures of their own, the fleet's (the
// full-speed window has no level and is the step's own figures); lower latency is better.
TEST(HeadlineFigures, EachCurveLevelIsAFigure) {
  v1::Report report;
  ASSERT_TRUE(wire::FromJson(nlohmann::ordered_json::parse(R"({
    "steps": [
      {"name": "hockey", "kind": "io", "status": "succeeded", "aggregate": {"ops": 10, "iops": 24000},
       "curve": {"unit": "iops", "max_rate": 24000, "points": [
         {"rate_achieved": 24000, "latency_ns": {"p99": 900000}},
         {"level_pct": 50, "rate_asked": 12000, "rate_achieved": 11990, "latency_ns": {"p99": 250000}},
         {"level_pct": 100, "rate_asked": 24000, "rate_achieved": 23890, "latency_ns": {"p99": 1200000}}]}},
      {"name": "seq", "kind": "io", "status": "succeeded", "aggregate": {"ops": 10},
       "curve": {"unit": "bytes_per_sec", "points": [{"level_pct": 70, "rate_achieved": 7e8, "latency_ns": {"p99": 2000000}}]}}
    ]})"), report, "report.json").ok());
  const FleetFigure value{HeadlineFigures(report)};
  EXPECT_EQ(value("hockey", "curve_iops:50"), 11990);
  EXPECT_EQ(value("hockey", "curve_iops:100"), 23890);
  EXPECT_EQ(value("hockey", "curve_p99_latency:50"), 0.00025);
  EXPECT_EQ(value("hockey", "curve_p99_latency:100"), 0.0012);
  EXPECT_FALSE(value("hockey", "curve_iops:0")) << "the full-speed window is no level";
  EXPECT_EQ(value("seq", "curve_bandwidth:70"), 7e8);
  EXPECT_FALSE(value("seq", "curve_iops:70"));
  EXPECT_EQ(UnitOf("curve_iops:50"), "ops_per_sec");
  EXPECT_EQ(UnitOf("curve_bandwidth:70"), "bytes_per_sec");
  EXPECT_EQ(UnitOf("curve_p99_latency:50"), "seconds");
  EXPECT_EQ(BetterOf("curve_iops:50"), Better::kHigher);
  EXPECT_EQ(BetterOf("curve_p99_latency:50"), Better::kLower);
}

}  // namespace
}  // namespace iofleet::controller
