// report.json's figures across agents (first_done, last_done) and across cycles (summaries[]),
// each checked against numbers worked out here independently of the code under test.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "controller/report/report_writers.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::controller {
namespace {

using nlohmann::json;
constexpr uint64_t kSec = 1'000'000'000;
constexpr uint64_t kMB = 1'000'000;

AgentStep Agent(const std::string& name, uint64_t bytes, uint64_t window_ns) {
  AgentStep a;
  a.agent = name;
  a.stats.ops = bytes / 4096 + (bytes % 4096 ? 1 : 0);
  a.stats.bytes = bytes;
  a.stats.window_ns = window_ns;
  a.stats.write.ops = a.stats.ops;
  a.stats.write.bytes = bytes;
  return a;
}

StepReport Step(const std::string& kind, std::vector<AgentStep> agents, int cycle = 0) {
  StepReport step;
  step.name = "write";
  step.kind = kind;
  step.cycle = cycle;
  step.status = v1::STEP_STATUS_SUCCEEDED;
  for (size_t i = 0; i < agents.size(); ++i) step.aggregate.Add(agents[i].stats, i == 0);
  step.agents = std::move(agents);
  return step;
}

json Render(std::vector<StepReport> steps) {
  RunReport report;
  report.run_id = "r";
  report.workload = "w";
  report.status = v1::RUN_STATUS_SUCCEEDED;
  for (const auto& a : steps.front().agents) report.agents.push_back({a.agent, "", ""});
  report.steps = std::move(steps);
  return json::parse(ReportJson(report));
}

// One agent per cycle moving `bytes` in `seconds[c]`: a step at point 0 over those cycles.
json RenderCycles(const std::string& kind, uint64_t bytes, const std::vector<double>& seconds) {
  std::vector<StepReport> steps;
  for (size_t c = 0; c < seconds.size(); ++c) {
    steps.push_back(Step(kind, {Agent("a", bytes, static_cast<uint64_t>(std::llround(seconds[c] * 1e9)))}, static_cast<int>(c)));
  }
  return Render(std::move(steps));
}

// --- first_done: the bytes every agent had done when the first finished, over that time ------

TEST(FirstDone, InterpolatesEachAgentsBytesAtTheFirstFinish) {
  // a finishes 100 MB at 1 s. b goes on to 2 s; its stream says 40 MB at 0.5 s, 80 MB at
  // 0.9 s and 150 MB at 1.4 s: at 1 s it had 80 + (150 - 80) * 0.1 / 0.5 = 94 MB.
  AgentStep b = Agent("b", 200 * kMB, 2 * kSec);
  b.samples = {{kSec / 2, 40 * kMB, 0}, {9 * kSec / 10, 80 * kMB, 0}, {14 * kSec / 10, 150 * kMB, 0}};
  json step = Render({Step("io", {Agent("a", 100 * kMB, kSec), b})})["steps"][0];
  ASSERT_TRUE(step.contains("first_done"));
  EXPECT_DOUBLE_EQ(step["first_done"]["seconds"].get<double>(), 1.0);
  EXPECT_NEAR(step["first_done"]["bytes"].get<double>(), 194e6, 1);
  EXPECT_NEAR(step["first_done"]["bytes_per_sec"].get<double>(), 194e6, 1);
  EXPECT_EQ(step["first_done"]["method"], "interpolated");
  // The last finisher's figure is all bytes over its time.
  EXPECT_DOUBLE_EQ(step["last_done"]["seconds"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(step["last_done"]["bytes_per_sec"].get<double>(), 150e6);
}

TEST(FirstDone, CountsFromTheWindowOpeningAfterRamp) {
  // Samples count from the common start; the window opens 1 s later (ramp). b: 30 MB at 1.5 s,
  // 90 MB at 2.5 s. a finished its window at 1 s into it (2 s after the start): b had 60 MB.
  AgentStep b = Agent("b", 120 * kMB, 3 * kSec);
  b.samples = {{kSec / 2, 0, 0}, {15 * kSec / 10, 30 * kMB, 0}, {25 * kSec / 10, 90 * kMB, 0}};
  StepReport s = Step("io", {Agent("a", 100 * kMB, kSec), b});
  s.ramp_ns = kSec;
  json step = Render({s})["steps"][0];
  EXPECT_NEAR(step["first_done"]["bytes"].get<double>(), 160e6, 1);
}

TEST(FirstDone, IsExactWhenStonewallStoppedTheOthers) {
  // Each stopped agent's own result is what it had done when the first finished.
  AgentStep b = Agent("b", 70 * kMB, 2 * kSec + 1000);
  b.stopped_early = true;
  StepReport s = Step("io", {Agent("a", 100 * kMB, 2 * kSec), b});
  s.stonewall = s.stonewalled = true;
  json step = Render({s})["steps"][0];
  EXPECT_DOUBLE_EQ(step["first_done"]["seconds"].get<double>(), 2.0);
  EXPECT_NEAR(step["first_done"]["bytes_per_sec"].get<double>(), 85e6, 1e-3);
  EXPECT_EQ(step["first_done"]["method"], "exact");
}

TEST(FirstDone, AnAgentTheStonewallStopDidNotReachIsInterpolated) {
  // Decided per agent: b was not stopped (its StopStep failed) and ran its whole share, so its
  // bytes at a's finish come from its samples (none here: a straight line), not its total.
  StepReport s = Step("io", {Agent("a", 100 * kMB, 2 * kSec), Agent("b", 120 * kMB, 3 * kSec)});
  s.stonewall = true;
  json step = Render({s})["steps"][0];
  EXPECT_NEAR(step["first_done"]["bytes_per_sec"].get<double>(), 90e6, 1e-3);
  EXPECT_EQ(step["first_done"]["method"], "interpolated");
}

TEST(FirstDone, IsExactWhenEveryAgentEndedTogether) {
  json step = Render({Step("io", {Agent("a", 100 * kMB, kSec), Agent("b", 50 * kMB, kSec)})})["steps"][0];
  EXPECT_DOUBLE_EQ(step["first_done"]["bytes_per_sec"].get<double>(), 150e6);
  EXPECT_EQ(step["first_done"]["method"], "exact");
}

TEST(FirstDone, IsLeftOutWhenTheFirstFinishersWindowIsZero) {
  // A zero window is a figure, not "unset": dividing by it has no meaning.
  json step = Render({Step("io", {Agent("a", 4096, 0), Agent("b", 50 * kMB, kSec)})})["steps"][0];
  EXPECT_FALSE(step.contains("first_done")) << step.dump();
  EXPECT_TRUE(step.contains("last_done"));
}

TEST(FirstDone, AnAgentWithNothingToDoDoesNotFinishFirst) {
  // total_jobs below the agent count: a has no job, no I/O and a zero window.
  json step = Render({Step("io", {Agent("a", 0, 0), Agent("b", 50 * kMB, kSec)})})["steps"][0];
  ASSERT_TRUE(step.contains("first_done")) << step.dump();
  EXPECT_DOUBLE_EQ(step["first_done"]["seconds"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(step["first_done"]["bytes_per_sec"].get<double>(), 50e6);
}

TEST(FirstDone, OnlyForStepsThatMoveBytesOverATimeline) {
  // A files step's phases end together (lockstep) and a host step moves nothing: no figure.
  for (const char* kind : {"files", "hook", "sync", "drop_caches", "readahead"}) {
    json step = Render({Step(kind, {Agent("a", 100 * kMB, kSec), Agent("b", 50 * kMB, 2 * kSec)})})["steps"][0];
    EXPECT_FALSE(step.contains("first_done")) << kind;
    EXPECT_FALSE(step.contains("last_done")) << kind;
  }
  json copy = Render({Step("copy", {Agent("a", 100 * kMB, kSec), Agent("b", 50 * kMB, 2 * kSec)})})["steps"][0];
  EXPECT_TRUE(copy.contains("first_done"));
  EXPECT_TRUE(copy.contains("last_done"));
}

// A group that runs once per cycle (its repeat set to 1) has no group cycles: its step is
// summarized over the repeat cycles, as a top-level step.
TEST(Summaries, AGroupOfOneRunIsSummarizedOverTheCycles) {
  std::vector<StepReport> steps;
  for (int c = 0; c < 4; ++c) {
    StepReport s = Step("copy", {Agent("a", 1000 * kMB, (c + 1) * kSec)}, c);
    s.group = "in";
    s.group_cycle = 0;
    steps.push_back(s);
  }
  json summaries = Render(std::move(steps))["summaries"];
  ASSERT_EQ(summaries.size(), 1u) << summaries.dump();
  EXPECT_EQ(summaries[0]["seconds"]["cycles"], 4);
}

// --- summaries[]: spread over the cycles of a step --------------------------------------------

TEST(Summaries, UseStudentsTForAnyNumberOfCycles) {
  // 41 cycles alternating 90 and 110 MB/s (the last 90): t(0.975, 40) = 2.021075 (tables), where
  // the normal quantile 1.96 would be too narrow.
  std::vector<double> seconds, rates;
  for (int c = 0; c < 41; ++c) {
    double rate = c % 2 ? 110e6 : 90e6;
    rates.push_back(rate);
    seconds.push_back(100e6 / rate);
  }
  json s = RenderCycles("io", 100 * kMB, seconds)["summaries"][0]["bytes_per_sec"];
  double got_mean = s["mean"].get<double>(), mean = 0, var = 0;
  for (double r : rates) mean += r / 41;
  for (double r : rates) var += (r - mean) * (r - mean) / 40;
  const double half = 2.021075 * std::sqrt(var) / std::sqrt(41.0);
  EXPECT_NEAR(got_mean, mean, 1);
  EXPECT_NEAR(s["ci95_high"].get<double>() - got_mean, half, half * 1e-6);
  EXPECT_NEAR(got_mean - s["ci95_low"].get<double>(), half, half * 1e-6);
}

TEST(Summaries, RatesGetAGeometricMeanWithAPositiveInterval) {
  // The copy-in of the issue: 3 cycles, the first far slower. The arithmetic interval of gbps
  // reaches below zero; the one on the logarithm cannot.
  const std::vector<double> seconds = {3.5, 0.25, 0.22};
  json summary = RenderCycles("copy", 1000 * kMB, seconds)["summaries"][0];
  json g = summary["gbps"];
  EXPECT_LT(g["ci95_low"].get<double>(), 0);  // mean and its interval keep their meaning
  double logs[3], mean_log = 0, var_log = 0;
  for (int i = 0; i < 3; ++i) {
    logs[i] = std::log(8.0 / seconds[i]);  // 1000 MB in s seconds = 8/s Gbps
    mean_log += logs[i] / 3;
  }
  for (double l : logs) var_log += (l - mean_log) * (l - mean_log) / 2;
  const double half = 4.302653 * std::sqrt(var_log) / std::sqrt(3.0);  // t(0.975, 2)
  EXPECT_NEAR(g["gmean"].get<double>(), std::exp(mean_log), 1e-9);
  EXPECT_NEAR(g["gmean_ci95_low"].get<double>(), std::exp(mean_log - half), std::exp(mean_log - half) * 1e-6);
  EXPECT_NEAR(g["gmean_ci95_high"].get<double>(), std::exp(mean_log + half), std::exp(mean_log + half) * 1e-6);
  EXPECT_GT(g["gmean_ci95_low"].get<double>(), 0);
  for (const char* rate : {"bytes_per_sec", "iops", "files_per_sec"}) {
    ASSERT_TRUE(summary.contains(rate)) << rate;
    EXPECT_GT(summary[rate]["gmean_ci95_low"].get<double>(), 0) << rate;
  }
  EXPECT_FALSE(summary["seconds"].contains("gmean"));  // a duration is not a rate
  EXPECT_FALSE(g.contains("outlier_cycles"));           // under 5 cycles: too few to tell
}

TEST(Summaries, FlagOutlierCyclesByTheMedianAbsoluteDeviation) {
  // seconds 3.5, 0.25, 0.22, 0.28, 0.24: median 0.25, MAD 0.03; cycle 0 scores
  // 3.25 / (1.4826 * 0.03) = 73 > 3.5, cycle 2 scores 0.03 / 0.0445 = 0.67.
  json summary = RenderCycles("copy", 1000 * kMB, {3.5, 0.25, 0.22, 0.28, 0.24})["summaries"][0];
  EXPECT_EQ(summary["seconds"]["outlier_cycles"], json::array({0}));
  EXPECT_EQ(summary["gbps"]["outlier_cycles"], json::array({0}));
  // Five cycles alike: the key is there, and empty.
  json even = RenderCycles("io", 100 * kMB, {1.0, 1.01, 0.99, 1.02, 0.98})["summaries"][0];
  EXPECT_EQ(even["bytes_per_sec"]["outlier_cycles"], json::array());
}

}  // namespace

// report.json and the console carry measurements or nothing: CPU only
// for steps that measured it, page-cache residency only where it was measured, and each agent's
// host facts as the agent gave them.
namespace {

v1::StepResult Result(uint64_t bytes) {
  v1::StepResult r;
  r.set_ops(bytes / 4096);
  r.set_bytes(bytes);
  r.set_window_ns(1'000'000'000);
  return r;
}

v1::StepResult WithCpu(v1::StepResult r, uint64_t host_busy, uint64_t host_total) {
  v1::CpuStats* c = r.mutable_cpu();
  c->set_worker_user_ns(100'000'000);
  c->set_worker_sys_ns(200'000'000);
  c->set_process_user_ns(150'000'000);
  c->set_process_sys_ns(250'000'000);
  c->set_host_busy_ticks(host_busy);
  c->set_host_total_ticks(host_total);
  c->set_max_worker_busy_permille(300);
  return r;
}

v1::StepResult WithCache(v1::StepResult r, uint64_t resident, uint64_t pages) {
  r.mutable_cache()->set_resident_pages(resident);
  r.mutable_cache()->set_pages(pages);
  return r;
}

// One step run by the given agents' results, merged as the step executor merges them.
RunReport Report(const std::string& kind, const std::vector<v1::StepResult>& results) {
  RunReport report;
  report.run_id = "r1";
  report.workload = "w";
  report.status = v1::RUN_STATUS_SUCCEEDED;
  StepReport step;
  step.name = kind + "-0";
  step.kind = kind;
  step.status = v1::STEP_STATUS_SUCCEEDED;
  for (size_t i = 0; i < results.size(); ++i) {
    StepStats stats = StepStats::FromProto(results[i]);
    step.aggregate.Add(stats, i == 0);
    step.agents.push_back({"node" + std::to_string(i), stats, 0});
    report.agents.push_back({"node" + std::to_string(i), "127.0.0.1:7070", "1"});
  }
  report.steps.push_back(step);
  return report;
}

nlohmann::json Json(const RunReport& report) { return nlohmann::json::parse(ReportJson(report)); }

// A group's steps carry `group` and `group_cycle`; their summaries run over the group cycles
// (one per point and cycle), the copy's in Gbps and GiB/s beside each other.
TEST(Summaries, AGroupsStepsAreSummarizedOverItsCycles) {
  std::vector<StepReport> steps;
  steps.push_back(Step("files", {Agent("a", 0, kSec)}));
  steps.back().name = "make";
  const std::vector<double> seconds = {1, 2, 4};
  for (int g = 0; g < 3; ++g) {
    steps.push_back(Step("drop_caches", {Agent("a", 0, kSec / 100)}));
    steps.back().name = "drop";
    steps.back().index = 1;
    steps.push_back(Step("copy", {Agent("a", 1ull << 30, static_cast<uint64_t>(seconds[g] * kSec))}));
    steps.back().name = "copy-in";
    steps.back().index = 2;
    for (int k : {1, 2}) {
      steps[steps.size() - k].group = "in";
      steps[steps.size() - k].group_cycle = g;
    }
    steps.back().aggregate.copy_method = "copy_file_range";
    steps.back().agents[0].stats.copy_method = "copy_file_range";
  }
  json j = Render(std::move(steps));
  EXPECT_FALSE(j["steps"][0].contains("group"));  // a top-level step: no keys that mean nothing
  EXPECT_FALSE(j["steps"][0].contains("group_cycle"));
  EXPECT_EQ(j["steps"][5]["group"], "in");
  EXPECT_EQ(j["steps"][5]["group_cycle"], 2);
  EXPECT_EQ(j["steps"][5]["cycle"], 0);
  const json& copy = j["steps"][2]["aggregate"];
  EXPECT_NEAR(copy["gib_per_sec"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(copy["gbps"].get<double>(), 8.589934592, 1e-9);  // the script's 8.58993 per GiB/s
  EXPECT_EQ(copy["copy_method"], "copy_file_range");
  EXPECT_EQ(j["steps"][2]["agents"][0]["copy_method"], "copy_file_range");

  ASSERT_EQ(j["summaries"].size(), 2u);  // drop and copy-in; make ran once
  const json& s = j["summaries"][1];
  EXPECT_EQ(s["name"], "copy-in");
  EXPECT_EQ(s["group"], "in");
  EXPECT_EQ(s["cycle"], 0);
  EXPECT_EQ(s["seconds"]["cycles"], 3);
  EXPECT_NEAR(s["seconds"]["mean"].get<double>(), 7.0 / 3, 1e-9);
  EXPECT_NEAR(s["gib_per_sec"]["mean"].get<double>(), (1 + 0.5 + 0.25) / 3, 1e-9);
  EXPECT_NEAR(s["gbps"]["mean"].get<double>(), (1 + 0.5 + 0.25) / 3 * 8.589934592, 1e-9);
}

TEST(JsonReportTest, AStepThatMeasuredNoCpuHasNoCpuKeys) {
  // sync, drop_caches, readahead and hook steps: the agent sends no cpu message.
  nlohmann::json j = Json(Report("drop_caches", {Result(0), Result(0)}));
  const nlohmann::json& step = j["steps"][0];
  for (const nlohmann::json* entry : {&step["aggregate"], &step["agents"][0], &step["agents"][1]}) {
    EXPECT_FALSE(entry->contains("cpu")) << *entry;
    EXPECT_FALSE(entry->contains("client_cpu_bound")) << *entry;
    EXPECT_FALSE(entry->contains("cache_resident")) << *entry;
    EXPECT_FALSE(entry->contains("cache_resident_pct")) << *entry;
  }
}

TEST(JsonReportTest, MeasuredCpuIsReported) {
  nlohmann::json j = Json(Report("files", {WithCpu(Result(1 << 20), 30, 100)}));
  const nlohmann::json& cpu = j["steps"][0]["aggregate"]["cpu"];
  EXPECT_DOUBLE_EQ(cpu["process_user_sec"].get<double>(), 0.15);
  EXPECT_DOUBLE_EQ(cpu["worker_sys_sec"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(cpu["host_busy_pct"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(cpu["busiest_worker_pct"].get<double>(), 30.0);
  EXPECT_EQ(j["steps"][0]["aggregate"]["client_cpu_bound"], false);
}

TEST(JsonReportTest, HostBusyIsLeftOutWhenTheWindowWasShorterThanATick) {
  nlohmann::json j = Json(Report("files", {WithCpu(Result(1 << 20), 0, 0)}));
  const nlohmann::json& cpu = j["steps"][0]["aggregate"]["cpu"];
  EXPECT_TRUE(cpu.contains("process_user_sec"));
  EXPECT_FALSE(cpu.contains("host_busy_pct"));
}

TEST(JsonReportTest, AHostAtFullLoadMarksTheFilesStepCpuBound) {
  nlohmann::json j = Json(Report("files", {WithCpu(Result(1 << 20), 95, 100)}));
  EXPECT_EQ(j["steps"][0]["aggregate"]["client_cpu_bound"], true);
  EXPECT_NE(ConsoleSummary(ToDocument(Report("files", {WithCpu(Result(1 << 20), 95, 100)}))).find("CPU-bound"), std::string::npos);
}

// Seed 004: a mkfs or fsck point carries the fill level of its file system (df's
// Use% and inodes used), the x-axis of the seed's table; a step that did not measure it has no key.
TEST(JsonReportTest, HookStepsCarryTheFillLevel) {
  v1::StepResult fsck = Result(0);
  v1::FileSystemFill* f = fsck.mutable_fill_at_start();
  f->set_use_pct(41);
  f->set_used_bytes(2952254708ull * 1024);
  f->set_available_bytes(4355621764ull * 1024);
  f->set_size_bytes(7308286072ull * 1024);
  f->set_inodes_used(3003020);
  f->set_inodes(114423808);
  *fsck.mutable_fill_at_end() = *f;
  nlohmann::json j = Json(Report("hook", {fsck, Result(0)}));
  const nlohmann::json& step = j["steps"][0];
  for (const nlohmann::json* entry : {&step["aggregate"], &step["agents"][0]}) {
    EXPECT_EQ((*entry)["fill_at_start"]["use_pct"], 41) << *entry;
    EXPECT_EQ((*entry)["fill_at_start"]["inodes_used"], 3003020) << *entry;
    EXPECT_EQ((*entry)["fill_at_start"]["inodes"], 114423808) << *entry;
    EXPECT_EQ((*entry)["fill_at_end"]["used_bytes"], 2952254708ull * 1024) << *entry;
  }
  EXPECT_FALSE(step["agents"][1].contains("fill_at_start"));
  EXPECT_FALSE(Json(Report("drop_caches", {Result(0)}))["steps"][0]["aggregate"].contains("fill_at_start"));
}

TEST(JsonReportTest, CacheResidencyOnlyWhereMeasured) {
  // A read step the agent measured 10% resident (right after drop_caches) and one it did not
  // measure (O_DIRECT): no flag is printed for either, and no key for the second.
  nlohmann::json j = Json(Report("read", {WithCache(Result(1 << 20), 100, 1000), Result(1 << 20)}));
  const nlohmann::json& step = j["steps"][0];
  EXPECT_DOUBLE_EQ(step["agents"][0]["cache_resident_pct"].get<double>(), 10.0);
  EXPECT_EQ(step["agents"][0]["cache_resident"], false);
  EXPECT_FALSE(step["agents"][1].contains("cache_resident_pct"));
  EXPECT_FALSE(step["agents"][1].contains("cache_resident"));
  // The aggregate covers the agents that measured.
  EXPECT_DOUBLE_EQ(step["aggregate"]["cache_resident_pct"].get<double>(), 10.0);
  EXPECT_EQ(ConsoleSummary(ToDocument(Report("read", {WithCache(Result(1 << 20), 100, 1000)}))).find("page cache"), std::string::npos);
}

TEST(JsonReportTest, AggregateResidencyIsWeightedByPages) {
  nlohmann::json j = Json(Report("read", {WithCache(Result(1 << 20), 1000, 1000), WithCache(Result(1 << 20), 0, 3000)}));
  const nlohmann::json& agg = j["steps"][0]["aggregate"];
  EXPECT_DOUBLE_EQ(agg["cache_resident_pct"].get<double>(), 25.0);
  EXPECT_EQ(agg["cache_resident"], false);
}

TEST(JsonReportTest, AMostlyResidentDataSetIsFlaggedAndWarned) {
  RunReport report = Report("read", {WithCache(Result(1 << 20), 990, 1000)});
  nlohmann::json j = Json(report);
  EXPECT_DOUBLE_EQ(j["steps"][0]["aggregate"]["cache_resident_pct"].get<double>(), 99.0);
  EXPECT_EQ(j["steps"][0]["aggregate"]["cache_resident"], true);
  std::string console = ConsoleSummary(ToDocument(report));
  EXPECT_NE(console.find("99% of the data was in the page cache"), std::string::npos) << console;
}

TEST(JsonReportTest, EachAgentSaysWhereItRan) {
  RunReport report = Report("read", {Result(1 << 20), Result(1 << 20)});
  v1::HostInfo disk;
  disk.set_hostname("node0.example");
  disk.set_kernel("6.18.0");
  disk.set_cpus(2);
  disk.set_memory_bytes(24ull << 30);
  disk.set_mount_point("/");
  disk.set_fs_type("ext4");
  disk.set_mount_options("rw,relatime,discard");
  disk.set_device("/dev/vda");
  disk.set_block_device("vda");
  disk.set_scheduler("mq-deadline");
  disk.set_read_ahead_kb(8192);
  report.agents[0].host = disk;
  v1::HostInfo tmpfs;  // no block device: no scheduler, no read-ahead
  tmpfs.set_kernel("6.18.0");
  tmpfs.set_cpus(2);
  tmpfs.set_fs_type("tmpfs");
  tmpfs.set_device("tmpfs");
  report.agents[1].host = tmpfs;
  nlohmann::json j = Json(report);
  const nlohmann::json& host = j["agents"][0]["host"];
  EXPECT_EQ(host["kernel"], "6.18.0");
  EXPECT_EQ(host["fs_type"], "ext4");
  EXPECT_EQ(host["mount_options"], "rw,relatime,discard");
  EXPECT_EQ(host["device"], "/dev/vda");
  EXPECT_EQ(host["block_device"], "vda");
  EXPECT_EQ(host["scheduler"], "mq-deadline");
  EXPECT_EQ(host["read_ahead_kb"], 8192);
  EXPECT_EQ(host["cpus"], 2);
  EXPECT_EQ(host["memory_bytes"], 24ull << 30);
  const nlohmann::json& other = j["agents"][1]["host"];
  EXPECT_EQ(other["fs_type"], "tmpfs");
  EXPECT_FALSE(other.contains("scheduler"));
  EXPECT_FALSE(other.contains("read_ahead_kb"));
  EXPECT_FALSE(other.contains("block_device"));
  EXPECT_FALSE(other.contains("memory_bytes"));
  // An agent that never prepared has no host key.
  report.agents[1].host.reset();
  EXPECT_FALSE(Json(report)["agents"][1].contains("host"));
}

}  // namespace
}  // namespace iofleet::controller

namespace iofleet::controller {
namespace {

TEST(JsonReportTest, LabelsAreAnObjectInTheOrderGiven) {
  RunReport report;
  report.run_id = "r";
  report.workload = "w";
  report.status = v1::RUN_STATUS_SUCCEEDED;
  nlohmann::json none = nlohmann::json::parse(ReportJson(report));
  ASSERT_TRUE(none.contains("labels"));
  EXPECT_TRUE(none["labels"].is_object());
  EXPECT_TRUE(none["labels"].empty());
  report.labels = {{"cluster", "lab1"}, {"fs", "/mnt/zeb"}};
  std::string text = ReportJson(report);
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["labels"], (nlohmann::json{{"cluster", "lab1"}, {"fs", "/mnt/zeb"}}));
  EXPECT_LT(text.find("\"cluster\""), text.find("\"fs\""));
}

}  // namespace
}  // namespace iofleet::controller
