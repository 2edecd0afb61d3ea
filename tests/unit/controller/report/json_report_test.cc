// report.json and the console carry measurements or nothing (issue 9 items 13 and 15): CPU only
// for steps that measured it, page-cache residency only where it was measured, and each agent's
// host facts as the agent gave them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "controller/report/report_writers.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::controller {
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
  report.status = "succeeded";
  StepReport step;
  step.name = kind + "-0";
  step.kind = kind;
  step.status = "succeeded";
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
  EXPECT_NE(ConsoleSummary(Report("files", {WithCpu(Result(1 << 20), 95, 100)})).find("CPU-bound"), std::string::npos);
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
  EXPECT_EQ(ConsoleSummary(Report("read", {WithCache(Result(1 << 20), 100, 1000)})).find("page cache"), std::string::npos);
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
  std::string console = ConsoleSummary(report);
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
  report.agents[0].host = HostFacts::FromProto(disk);
  v1::HostInfo tmpfs;  // no block device: no scheduler, no read-ahead
  tmpfs.set_kernel("6.18.0");
  tmpfs.set_cpus(2);
  tmpfs.set_fs_type("tmpfs");
  tmpfs.set_device("tmpfs");
  report.agents[1].host = HostFacts::FromProto(tmpfs);
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
