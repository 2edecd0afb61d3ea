// Runs built from round numbers for the console and summary.csv tests
// (tests/unit/controller/report/text_reports_test.cc, headline_table_test.cc). The renderers
// read the run's document, so the tests render ToDocument(run): RunReport -> report.json -> parsed.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "controller/report/report_document.h"
#include "controller/report/report_model.h"
#include "core/wire/proto_json.h"

namespace iofleet::controller::report_fixtures {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kSec = 1'000'000'000;

inline StepStats Stats(uint64_t ops, uint64_t bytes, uint64_t window_ns) {
  StepStats s;
  s.ops = ops;
  s.bytes = bytes;
  s.window_ns = window_ns;
  s.write.ops = ops;
  s.write.bytes = bytes;
  return s;
}

// One run of a step on one agent "a".
inline StepReport StepRun(int index, const std::string& name, const std::string& kind, int point, int cycle, StepStats stats,
                          std::vector<std::pair<std::string, std::string>> params = {}) {
  StepReport step;
  step.index = index;
  step.name = name;
  step.kind = kind;
  step.point = point;
  step.cycle = cycle;
  step.params = std::move(params);
  step.status = v1::STEP_STATUS_SUCCEEDED;
  step.aggregate = stats;
  step.agents.push_back({"a", stats});
  return step;
}

inline PhaseReport Phase(const std::string& op, uint64_t files, uint64_t window_ns) {
  PhaseReport p;
  p.op = op;
  p.aggregate = Stats(files, 0, window_ns);
  p.agents.push_back({"a", p.aggregate});
  return p;
}

inline RunReport Report(std::vector<StepReport> steps) {
  RunReport report;
  report.run_id = "r1";
  report.workload = "w";
  report.status = v1::RUN_STATUS_SUCCEEDED;
  report.agents.push_back({"a", "", ""});
  report.steps = std::move(steps);
  return report;
}

// total_jobs 1, 2, 4 at points 0, 1, 2: a drop_caches step, then a write of total_jobs x 100 MiB
// (1 MiB each) in one second.
inline RunReport ThreadSweep() {
  std::vector<StepReport> steps;
  const uint64_t jobs[] = {1, 2, 4};
  for (int p = 0; p < 3; ++p) {
    std::vector<std::pair<std::string, std::string>> params = {{"total_jobs", std::to_string(jobs[p])}};
    steps.push_back(StepRun(0, "drop", "drop_caches", p, 0, Stats(0, 0, kSec / 10), params));
    steps.push_back(StepRun(1, "write", "io", p, 0, Stats(100 * jobs[p], 100 * jobs[p] * kMiB, kSec), params));
  }
  return Report(steps);
}

// Three cycles: drop_caches, a copy of 1,000 files and 1 GB (10 dirs) in 1, 2 and 4 s, and a
// hook taking 0.5, 1 and 1.5 s.
inline RunReport CopyCycles() {
  std::vector<StepReport> steps;
  const uint64_t seconds[] = {1, 2, 4};
  for (int c = 0; c < 3; ++c) {
    steps.push_back(StepRun(0, "drop", "drop_caches", 0, c, Stats(0, 0, kSec / 10)));
    StepStats copy = Stats(1000, 1'000'000'000, seconds[c] * kSec);
    copy.dirs = 10;
    steps.push_back(StepRun(1, "copy-in", "copy", 0, c, copy));
    steps.push_back(StepRun(2, "fsck", "hook", 0, c, Stats(0, 0, (c + 1) * kSec / 2)));
  }
  return Report(steps);
}

// A files step at two points: create 1,000 files in 1 s, stat them in 0.25 s.
inline RunReport FilesSweep() {
  std::vector<StepReport> steps;
  for (int p = 0; p < 2; ++p) {
    StepReport files = StepRun(0, "tree", "files", p, 0, Stats(0, 0, 0), {{"steps[tree].files.files_per_dir", p ? "20" : "10"}});
    files.phases = {Phase("create", 1000, kSec), Phase("stat", 1000, kSec / 4)};
    files.aggregate = Stats(0, 0, 0);
    for (size_t i = 0; i < files.phases.size(); ++i) files.aggregate.AddPhase(files.phases[i].aggregate, i == 0);
    files.agents[0].stats = files.aggregate;
    steps.push_back(files);
  }
  return Report(steps);
}

}  // namespace iofleet::controller::report_fixtures

namespace iofleet::controller::report_fixtures {

// Two agents, "node1" and the slower "node2", reading for one second with latencies of 100 us
// to 1 ms; with a host for node1.
inline RunReport TwoAgentRead() {
  StepReport step = StepRun(0, "read", "io", 0, 0, Stats(0, 0, kSec));
  step.agents.clear();
  const uint64_t mib[] = {300, 100};
  for (int i = 0; i < 2; ++i) {
    StepStats s = Stats(mib[i] * 256, mib[i] * kMiB, kSec);  // 4 KiB reads
    s.read = s.write;
    s.write = OpFigures();
    for (uint64_t ns = 100'000; ns <= 1'000'000; ns += 100'000) s.latency->Record(ns);
    step.agents.push_back({i ? "node2" : "node1", s});
    step.aggregate.Add(s, i == 0);
  }
  step.slowest_agent = "node2";
  step.slowest_trails_median_pct = 50;  // 100 MiB/s against a median of 200
  RunReport report = Report({step});
  report.workload = "nightly-read";
  report.agents = {{"node1", "10.0.0.1:7070", "0.1.0"}, {"node2", "10.0.0.2:7070", "0.1.0"}};
  v1::HostInfo host;
  host.set_hostname("node1.example");
  host.set_kernel("6.18.0");
  host.set_cpus(8);
  host.set_fs_type("ext4");
  host.set_mount_point("/fs");
  report.agents[0].host = host;
  return report;
}

// `n` agents "node1".."nodeN" reading for one second, node i at i MiB/s: past the tables' limit
// of agent rows (controller/report/agent_rows.h) when n > 16.
inline RunReport ManyAgentRead(int n) {
  StepReport step = StepRun(0, "read", "io", 0, 0, Stats(0, 0, kSec));
  step.agents.clear();
  for (int i = 1; i <= n; ++i) {
    StepStats s = Stats(static_cast<uint64_t>(i) * 256, static_cast<uint64_t>(i) * kMiB, kSec);
    s.read = s.write;
    s.write = OpFigures();
    step.agents.push_back({"node" + std::to_string(i), s});
    step.aggregate.Add(s, i == 1);
  }
  RunReport report = Report({step});
  report.agents.clear();
  for (int i = 1; i <= n; ++i) report.agents.push_back({"node" + std::to_string(i), "10.0.0.1:7070", "0.1.0"});
  return report;
}

// The verdicts key as the run history writes it: a regression of bandwidth, and a figure with
// too little history.
inline ReportDocument WithVerdicts(ReportDocument doc) {
  const auto verdicts = nlohmann::ordered_json::parse(R"({"reference": "mean-of:5", "alpha": 0.05, "max_regression_pct": 5,
    "workload_changed": true, "forced": true, "workload_differs_from": "r0",
    "workload_differences": ["defaults.queue_depth: 32 -> 1"], "steps": [{"step": "read", "point": 0, "figures": [
      {"figure": "bandwidth", "unit": "bytes_per_sec", "better": "higher", "baseline": 440401920, "now": 419430400,
       "change_pct": -4.76, "p_value": 0.0123, "baseline_runs": 5, "verdict": "regression"},
      {"figure": "p99_latency", "unit": "ns", "better": "lower", "now": 1000000, "baseline_runs": 2,
       "verdict": "not enough history"}]}], "verdict": "regression"})");
  EXPECT_TRUE(wire::FromJson(verdicts, *doc.mutable_verdicts(), "verdicts").ok());
  return doc;
}

}  // namespace iofleet::controller::report_fixtures
