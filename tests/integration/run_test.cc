// End to end: real iofleet-agent processes on loopback, real O_DIRECT files on the build tree's
// file system, the real iofleet controller, and the report it writes.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kTwoStepWorkload = R"(name: it-two-step
defaults:
  engine: libaio
  direct: true
  block_size: 64KiB
  queue_depth: 4
  jobs: 2
  file_size: 8MiB
steps:
  - name: write
    io: { op: write, runtime: 2s }
  - name: read
    io: { op: read, engine: psync, queue_depth: 1 }
)";

TEST(Run, TwoAgentsAggregateExactlyAndCleanUp) {
  TempDir tmp;
  AgentProcess a1(tmp / "a1", "node1", tmp / "logs");
  AgentProcess a2(tmp / "a2", "node2", tmp / "logs");
  ASSERT_FALSE(a1.address().empty());
  ASSERT_FALSE(a2.address().empty());
  WriteText(tmp / "w.yaml", kTwoStepWorkload);

  Process run({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents",
               a1.address() + "," + a2.address(), "--out", (tmp / "out").string()},
              tmp / "logs");
  // While the time-based write runs, each agent's files are in its own run directory.
  std::set<std::string> seen;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (seen.size() < 4 && std::chrono::steady_clock::now() < deadline && run.Running()) {
    for (const char* agent : {"a1", "a2"}) {
      fs::path base = tmp / agent / "iofleet";
      if (!fs::exists(base)) continue;
      for (const auto& e : fs::recursive_directory_iterator(base)) {
        if (e.path().extension() == ".dat") seen.insert(fs::relative(e.path(), tmp.path()).string());
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  int code = run.Wait(std::chrono::seconds(60));
  ASSERT_EQ(code, 0) << run.Stderr() << run.Stdout();
  ASSERT_EQ(seen.size(), 4u);
  for (const auto& path : seen) {
    // a1/iofleet/<run-id>/node1/job-N.dat
    fs::path p(path);
    std::vector<std::string> parts(p.begin(), p.end());
    ASSERT_EQ(parts.size(), 5u) << path;
    EXPECT_EQ(parts[1], "iofleet");
    EXPECT_EQ(parts[3], parts[0] == "a1" ? "node1" : "node2") << path;
  }
  // Everything the run created is gone; the roots themselves stay.
  EXPECT_EQ(CountEntries(tmp / "a1"), 0u);
  EXPECT_EQ(CountEntries(tmp / "a2"), 0u);

  fs::path dir = OnlyRunDir(tmp / "out");
  json report = ReadJson(dir / "report.json");
  EXPECT_EQ(report["schema"], "iofleet.report/v1");
  EXPECT_EQ(report["status"], "succeeded");
  EXPECT_EQ(report["workload"], "it-two-step");
  EXPECT_EQ(report["run_id"], dir.filename().string());
  ASSERT_EQ(report["agents"].size(), 2u);
  ASSERT_EQ(report["steps"].size(), 2u);
  for (const auto& step : report["steps"]) {
    ASSERT_EQ(step["agents"].size(), 2u);
    uint64_t ops = 0, bytes = 0;
    double max_seconds = 0;
    for (const auto& a : step["agents"]) {
      ops += a["ops"].get<uint64_t>();
      bytes += a["bytes"].get<uint64_t>();
      max_seconds = std::max(max_seconds, a["seconds"].get<double>());
      EXPECT_GT(a["ops"].get<uint64_t>(), 0u);
      EXPECT_LE(a["latency_ns"]["p50"].get<double>(), a["latency_ns"]["p99"].get<double>());
      EXPECT_LE(a["latency_ns"]["p99"].get<double>(), a["latency_ns"]["max"].get<double>());
    }
    const json& agg = step["aggregate"];
    EXPECT_EQ(agg["ops"].get<uint64_t>(), ops);
    EXPECT_EQ(agg["bytes"].get<uint64_t>(), bytes);
    EXPECT_DOUBLE_EQ(agg["seconds"].get<double>(), max_seconds);
    EXPECT_NEAR(agg["bytes_per_sec"].get<double>(), bytes / max_seconds, 1e-6 * bytes / max_seconds);
    EXPECT_EQ(step["point"], 0);
    EXPECT_EQ(step["cycle"], 0);
    EXPECT_TRUE(step["params"].is_object());
  }
  const json& write = report["steps"][0];
  EXPECT_EQ(write["name"], "write");
  EXPECT_DOUBLE_EQ(write["aggregate"]["seconds"].get<double>(), 2.0);  // the time-based window
  const json& read = report["steps"][1];
  // Size-based read: exactly every byte of 2 jobs x 8 MiB on each of 2 agents, once.
  EXPECT_EQ(read["aggregate"]["bytes"].get<uint64_t>(), 2u * 2u * 8u * 1024 * 1024);
  EXPECT_EQ(read["aggregate"]["ops"].get<uint64_t>(), 2u * 2u * 128u);
  EXPECT_EQ(read["aggregate"]["filled_bytes"].get<uint64_t>(), 0u);

  std::ifstream csv(dir / "summary.csv");
  std::string line;
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 1 + 2 * 3);  // header, then aggregate + 2 agents per step
  CommandResult effective = RunCommand({BinPath("iofleet"), "validate", (dir / "workload.effective.yaml").string()}, tmp / "logs");
  EXPECT_EQ(effective.code, 0) << effective.err;
}

TEST(Run, LocalAgentRunsTheQuickstart) {
  TempDir tmp;
  CommandResult r = RunCommand({BinPath("iofleet"), "run", SourcePath("workloads/quickstart.yaml"),
                                "--create-local-root", "--local-root", (tmp / "data").string(), "--out", (tmp / "out").string()},
                               tmp / "logs");
  fs::create_directories(tmp / "data");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("MiB/s"), std::string::npos);
  json report = ReadJson(OnlyRunDir(tmp / "out") / "report.json");
  EXPECT_EQ(report["status"], "succeeded");
  ASSERT_EQ(report["agents"].size(), 1u);
  EXPECT_EQ(report["agents"][0]["name"], "local");
  EXPECT_EQ(report["steps"][1]["aggregate"]["bytes"].get<uint64_t>(), 1u << 30);
  EXPECT_EQ(CountEntries(tmp / "data"), 0u);
}

// A ramp in defaults reaches only the time-based step. Given to the
// size-based write as well, it opened that step's window after the write was done: 0 bytes,
// status succeeded. What ran, the effective YAML and the report agree.
TEST(Run, ARampFromDefaultsReachesOnlyTimeBasedSteps) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", R"(name: ramp
defaults: { engine: psync, block_size: 64KiB, file_size: 16MiB, ramp: 1s }
steps:
  - name: write
    io: { op: write }
  - name: randread
    io: { op: randread, runtime: 2s }
)");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--create-local-root", "--local-root",
                                (tmp / "data").string(), "--out", (tmp / "out").string()},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  fs::path run = OnlyRunDir(tmp / "out");
  json report = ReadJson(run / "report.json");
  EXPECT_EQ(report["steps"][0]["aggregate"]["bytes"].get<uint64_t>(), 16u << 20);
  EXPECT_GT(report["steps"][1]["aggregate"]["ops"].get<uint64_t>(), 0u);
  std::ifstream in(run / "workload.effective.yaml");
  std::string yaml((std::istreambuf_iterator<char>(in)), {});
  size_t write_at = yaml.find("name: \"write\""), read_at = yaml.find("name: \"randread\"");
  ASSERT_NE(write_at, std::string::npos);
  ASSERT_NE(read_at, std::string::npos);
  EXPECT_EQ(yaml.substr(write_at, read_at - write_at).find("ramp"), std::string::npos) << yaml;
  EXPECT_NE(yaml.substr(read_at).find("ramp: 1s"), std::string::npos) << yaml;
}

TEST(Run, ReadStepFillsWhatWasNeverWritten) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", "name: fill\ndefaults: { block_size: 64KiB, file_size: 4MiB }\nsteps:\n  - io: { op: read }\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--create-local-root", "--local-root",
                                (tmp / "data").string(), "--out", (tmp / "out").string()},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json step = ReadJson(OnlyRunDir(tmp / "out") / "report.json")["steps"][0];
  EXPECT_EQ(step["aggregate"]["filled_bytes"].get<uint64_t>(), 4u << 20);
  EXPECT_EQ(step["aggregate"]["bytes"].get<uint64_t>(), 4u << 20);
}

TEST(Run, CtrlCStopsAgentsAndWritesAbortedReport) {
  TempDir tmp;
  AgentProcess agent(tmp / "a1", "node1", tmp / "logs");
  WriteText(tmp / "w.yaml", "name: long\ndefaults: { block_size: 64KiB, file_size: 4MiB, runtime: 60s }\nsteps:\n  - io: { op: write }\n");
  Process run({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(), "--out",
               (tmp / "out").string()},
              tmp / "logs");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (!fs::exists(tmp / "a1" / "iofleet") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  run.Signal(SIGINT);
  EXPECT_EQ(run.Wait(std::chrono::seconds(10)), 1) << run.Stderr();
  json report = ReadJson(OnlyRunDir(tmp / "out") / "report.json");
  EXPECT_EQ(report["status"], "aborted");
  EXPECT_EQ(report["steps"][0]["status"], "aborted");
  EXPECT_EQ(CountEntries(tmp / "a1"), 0u);
  EXPECT_TRUE(agent.process().Running());  // and ready for the next run
}

TEST(Run, SweepAndRepeatReportEveryPointAndCycle) {
  TempDir tmp;
  AgentProcess agent(tmp / "a1", "node1", tmp / "logs");
  WriteText(tmp / "w.yaml", R"(name: sweep
defaults: { file_size: 1MiB }
sweep:
  defaults.block_size: [64KiB, 256KiB]
  jobs: [1, 2]
repeat: 2
steps:
  - name: write
    io: { op: write }
  - name: read
    io: { op: read }
)");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(),
                                "--out", (tmp / "out").string()}, tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  ASSERT_EQ(report["steps"].size(), 16u);  // 2 x 2 points, 2 cycles, 2 steps
  std::set<std::string> seen;
  for (const auto& step : report["steps"]) {
    const json& params = step["params"];
    ASSERT_EQ(params.size(), 2u);
    uint64_t jobs = params["jobs"].get<uint64_t>();
    uint64_t block = params["defaults.block_size"] == "64KiB" ? 65536 : 262144;
    EXPECT_EQ(step["aggregate"]["bytes"].get<uint64_t>(), jobs << 20) << step.dump();
    EXPECT_EQ(step["aggregate"]["ops"].get<uint64_t>(), jobs * (1u << 20) / block);
    seen.insert(std::to_string(step["point"].get<int>()) + "/" + std::to_string(step["cycle"].get<int>()) + "/" +
                step["name"].get<std::string>());
  }
  EXPECT_EQ(seen.size(), 16u);
  ASSERT_EQ(report["summaries"].size(), 8u);  // per point and step, over 2 cycles
  for (const auto& s : report["summaries"]) {
    EXPECT_EQ(s["bytes_per_sec"]["cycles"], 2);
    EXPECT_LE(s["bytes_per_sec"]["min"].get<double>(), s["bytes_per_sec"]["mean"].get<double>());
    EXPECT_LE(s["bytes_per_sec"]["ci95_low"].get<double>(), s["bytes_per_sec"]["mean"].get<double>());
  }
  EXPECT_EQ(CountEntries(tmp / "a1"), 0u);
}

// A sweep set on the command line one axis at a time, repeated: the console's headline table has
// a row per point and cycle with the swept value, and each point's spread; summary.csv has the
// swept path as a column.
TEST(Run, ASweepPrintsItsHeadlineTableAndSummaryCsvHasTheSweptColumn) {
  TempDir tmp;
  AgentProcess agent(tmp / "a1", "node1", tmp / "logs");
  WriteText(tmp / "w.yaml", "name: table\ndefaults: { file_size: 1MiB }\nsteps:\n  - name: write\n    io: { op: write }\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(), "--out",
                                (tmp / "out").string(), "--set", "sweep.total_jobs=[1,2]", "--set", "repeat=2"},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  size_t table = r.out.find("\nwrite (io) by total_jobs, 2 cycles per point\n  point   cycle  total_jobs  ");
  ASSERT_NE(table, std::string::npos) << r.out;
  std::istringstream rows(r.out.substr(table + 1));
  std::string line;
  std::getline(rows, line);  // the title
  std::getline(rows, line);
  EXPECT_NE(line.find("MiB/s"), std::string::npos) << line;
  EXPECT_NE(line.find("IOPS"), std::string::npos) << line;
  // point, cycle (or mean, stddev, 95% ci), total_jobs: 2 cycles and 3 spread rows per point
  const char* expected[] = {"0 0 1", "0 1 1", "0 mean 1", "0 stddev 1", "0 95% ci 1",
                            "1 0 2", "1 1 2", "1 mean 2", "1 stddev 2", "1 95% ci 2"};
  for (const char* want : expected) {
    ASSERT_TRUE(std::getline(rows, line)) << r.out;
    std::istringstream words(line);
    std::string word, collapsed;
    while (words >> word) collapsed += (collapsed.empty() ? "" : " ") + word;
    EXPECT_EQ(collapsed.substr(0, std::string(want).size() + 1), std::string(want) + " ") << line;
  }
  std::ifstream csv(OnlyRunDir(tmp / "out") / "summary.csv");
  std::getline(csv, line);
  EXPECT_EQ(line.substr(line.size() - std::string(",gbps,files_per_sec,group,group_cycle,total_jobs").size()),
            ",gbps,files_per_sec,group,group_cycle,total_jobs");
  int by_jobs[3] = {0, 0, 0};
  while (std::getline(csv, line)) ++by_jobs[std::stoi(line.substr(line.rfind(',') + 1))];
  EXPECT_EQ(by_jobs[1], 2 * 2);  // 2 cycles, aggregate and agent rows
  EXPECT_EQ(by_jobs[2], 2 * 2);
}

TEST(Run, IoErrorOnOneAgentFailsTheRunNamingAgentFileOffsetErrno) {
  TempDir tmp;
  AgentProcess healthy(tmp / "a1", "node1", tmp / "logs");
  AgentProcess faulty(tmp / "a2", "node2", tmp / "logs", {}, {"IOFLEET_FAULT_INJECT=eio@20"});
  WriteText(tmp / "w.yaml", "name: fault\ndefaults: { block_size: 64KiB, file_size: 8MiB }\nsteps:\n  - io: { op: write }\n  - io: { op: read }\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents",
                                healthy.address() + "," + faulty.address(), "--out", (tmp / "out").string()},
                               tmp / "logs");
  EXPECT_EQ(r.code, 1) << r.err;
  std::string where = "agent node2: " + (tmp / "a2").string();
  EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/node2/job-0.dat: offset 1245184: Input/output error (EIO)"), std::string::npos) << r.err;
  json report = ReadJson(OnlyRunDir(tmp / "out") / "report.json");
  EXPECT_EQ(report["status"], "failed");
  ASSERT_EQ(report["steps"].size(), 1u);  // the read step never ran
  EXPECT_EQ(report["steps"][0]["status"], "failed");
  EXPECT_NE(report["error"].get<std::string>().find("offset 1245184"), std::string::npos);
  EXPECT_EQ(CountEntries(tmp / "a1"), 0u);
  EXPECT_EQ(CountEntries(tmp / "a2"), 0u);
}

TEST(Run, EveryEngineAndAccessPatternEndToEnd) {
  TempDir tmp;
  AgentProcess agent(tmp / "a1", "node1", tmp / "logs");
  WriteText(tmp / "w.yaml", R"(name: patterns
defaults: { block_size: 4KiB, file_size: 4MiB, queue_depth: 8, jobs: 2 }
steps:
  - name: seq-write
    io: { op: write, engine: libaio, verify: true, data: { compressible_pct: 50, pattern: "0xdeadbeef" } }
  - name: rand-read
    io: { op: randread, engine: io_uring, verify: true, uring: { fixed_buffers: true, registered_files: true } }
  - name: mixed
    io: { op: randrw, read_pct: 70, engine: io_uring, runtime: 1s, ramp: 200ms, verify: true }
  - name: shared-strided
    io: { op: write, engine: psync, queue_depth: 1, file_layout: shared, shared_mode: strided }
  - name: shared-regions
    io: { op: readwrite, engine: libaio, file_layout: shared, block_size_split: [{ size: 4KiB, weight: 1 }, { size: 16KiB, weight: 1 }] }
  - name: buffered
    io: { op: write, direct: false, engine: psync, queue_depth: 1, fsync: { every: 64 } }
  - name: overhead
    io: { op: randread, engine: "null", runtime: 300ms }
)");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(),
                                "--out", (tmp / "out").string()},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  json steps = ReadJson(OnlyRunDir(tmp / "out") / "report.json")["steps"];
  ASSERT_EQ(steps.size(), 7u);
  auto agg = [&](int i) { return steps[i]["aggregate"]; };
  EXPECT_EQ(agg(0)["write"]["bytes"].get<uint64_t>(), 2u * 4 * 1024 * 1024);
  EXPECT_EQ(agg(1)["read"]["ops"].get<uint64_t>(), 2u * 1024);
  EXPECT_GT(agg(2)["read"]["ops"].get<uint64_t>(), agg(2)["write"]["ops"].get<uint64_t>());
  EXPECT_DOUBLE_EQ(agg(2)["seconds"].get<double>(), 1.0);
  EXPECT_EQ(agg(3)["write"]["bytes"].get<uint64_t>(), 4u * 1024 * 1024);  // one shared file, split over 2 jobs
  EXPECT_EQ(agg(4)["filled_bytes"].get<uint64_t>(), 0u);  // the strided step wrote it all
  EXPECT_EQ(agg(5)["fsyncs"].get<uint64_t>(), 2u * (1024 / 64 + 1));  // every 64 writes, and at the end
  EXPECT_GT(agg(6)["ops"].get<uint64_t>(), 10000u);
  EXPECT_GT(agg(6)["cpu"]["cpu_ns_per_io"].get<double>(), 0.0);
  for (const auto& step : steps) EXPECT_EQ(step["status"], "succeeded");
  EXPECT_EQ(CountEntries(tmp / "a1"), 0u);
}

}  // namespace
}  // namespace iofleet::testing
