// Many real agents, synchronized starts, exact merges, and what happens when things break:
// an agent killed, the controller killed, a busy agent, TLS, a cut network link.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdio>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

std::string Join(const std::vector<std::unique_ptr<AgentProcess>>& agents) {
  std::string list;
  for (const auto& a : agents) list += (list.empty() ? "" : ",") + a->address();
  return list;
}

std::vector<std::unique_ptr<AgentProcess>> StartAgents(const TempDir& tmp, int n, const fs::path& shared_root = {}) {
  std::vector<std::unique_ptr<AgentProcess>> agents;
  for (int i = 1; i <= n; ++i) {
    std::string name = "node" + std::string(i < 10 ? "0" : "") + std::to_string(i);
    fs::path root = shared_root.empty() ? tmp / name : shared_root;
    agents.push_back(std::make_unique<AgentProcess>(root, name, tmp / "logs"));
  }
  return agents;
}

// Polls until `done` holds or `timeout` passes.
template <typename Fn>
bool WaitFor(Fn done, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return done();
}

// The ZebClient multi-agent case, scaled down: six agents on one shared file system, each in
// its own directory, 64 KiB sequential O_DIRECT write then read.
TEST(Distributed, SixAgentsOnASharedFileSystem) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 6, tmp / "shared");
  WriteText(tmp / "w.yaml", R"(name: zebclient-six
defaults: { engine: libaio, direct: true, block_size: 64KiB, jobs: 2, file_size: 4MiB,
            data: { compressible_pct: 50, pattern: "0xdeadbeef" } }
steps:
  - name: write
    io: { op: write }
  - name: read
    io: { op: read }
)");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", Join(agents),
                                "--out", (tmp / "out").string()}, tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  ASSERT_EQ(report["agents"].size(), 6u);
  for (const auto& step : report["steps"]) {
    ASSERT_EQ(step["agents"].size(), 6u);
    uint64_t bytes = 0;
    int64_t latest = INT64_MIN;
    for (const auto& a : step["agents"]) {
      EXPECT_EQ(a["bytes"].get<uint64_t>(), 2u * 4 * 1024 * 1024) << a["agent"];
      bytes += a["bytes"].get<uint64_t>();
      // Each agent against its own start instant: never before it (its clock, no offset in it).
      ASSERT_TRUE(a.contains("start_lateness_ns")) << a.dump();
      EXPECT_GE(a["start_lateness_ns"].get<int64_t>(), 0) << a["agent"];
      latest = std::max(latest, a["start_lateness_ns"].get<int64_t>());
    }
    EXPECT_EQ(step["aggregate"]["bytes"].get<uint64_t>(), bytes);
    EXPECT_GE(step["start_skew_ns"].get<int64_t>(), 0);
    EXPECT_EQ(step["max_start_lateness_ns"].get<int64_t>(), latest);
    std::printf("%s: start skew %lld ns, latest agent %lld ns after its instant\n", step["name"].get<std::string>().c_str(),
                static_cast<long long>(step["start_skew_ns"].get<int64_t>()), static_cast<long long>(latest));
    EXPECT_TRUE(step.contains("slowest_agent"));
    EXPECT_LE(step["first_done"]["seconds"].get<double>(), step["last_done"]["seconds"].get<double>());
  }
  EXPECT_EQ(CountEntries(tmp / "shared"), 0u);  // every agent removed its own directory
}

// The seed's own fio command lines, as the shipped job file, on six agents: each agent runs both
// fio jobs in its own directory and the report merges them.
TEST(Distributed, FioJobFileOnSixAgents) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 6, tmp / "shared");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", SourcePath("workloads/zebclient-seq64k.fio"), "--agents",
                                Join(agents), "--out", (tmp / "out").string(), "--set", "defaults.jobs=2", "--set",
                                "defaults.file_size=2MiB", "--set", "defaults.runtime=500ms"},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  ASSERT_EQ(report["steps"].size(), 2u);
  EXPECT_EQ(report["steps"][0]["name"], "64kseqwrite");
  EXPECT_EQ(report["steps"][1]["name"], "64kseqread");
  for (const auto& step : report["steps"]) {
    ASSERT_EQ(step["agents"].size(), 6u);
    uint64_t ops = 0;
    for (const auto& a : step["agents"]) {
      EXPECT_GT(a["ops"].get<uint64_t>(), 0u) << a["agent"];
      EXPECT_EQ(a["bytes"].get<uint64_t>(), a["ops"].get<uint64_t>() * 65536) << a["agent"];  // bs=64k
      ops += a["ops"].get<uint64_t>();
    }
    EXPECT_EQ(step["aggregate"]["ops"].get<uint64_t>(), ops);
    EXPECT_DOUBLE_EQ(step["aggregate"]["seconds"].get<double>(), 0.5);  // time_based, runtime set
  }
  EXPECT_EQ(CountEntries(tmp / "shared"), 0u);
}

// A step of two streams on three agents: a QD1 random-read probe beside sequential writes, each
// stream merged exactly over its agents and the two adding up to the step; then the same as an fio
// job file whose two jobs run at once.
TEST(Distributed, TwoStreamsOnThreeAgentsMergeExactly) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 3);
  WriteText(tmp / "s.yaml", R"(name: two-streams
defaults: { engine: libaio, direct: true, file_size: 8MiB }
steps:
  - name: mixed
    io:
      runtime: 1s
      streams:
        - { name: probe, op: randread, block_size: 4KiB, queue_depth: 1 }
        - { name: load, op: write, block_size: 64KiB, queue_depth: 8, jobs: 2, file_prefix: load }
)");
  auto check = [&](const json& step, const std::string& reader, const std::string& writer) {
    ASSERT_EQ(step["streams"].size(), 2u) << step.dump();
    uint64_t stream_ops = 0, stream_bytes = 0;
    for (const auto& stream : step["streams"]) {
      ASSERT_EQ(stream["agents"].size(), 3u) << stream["name"];
      uint64_t ops = 0, bytes = 0;
      for (const auto& a : stream["agents"]) {
        EXPECT_GT(a["ops"].get<uint64_t>(), 0u) << stream["name"] << a["agent"];
        ops += a["ops"].get<uint64_t>();
        bytes += a["bytes"].get<uint64_t>();
      }
      EXPECT_EQ(stream["aggregate"]["ops"].get<uint64_t>(), ops) << stream["name"];
      EXPECT_EQ(stream["aggregate"]["bytes"].get<uint64_t>(), bytes) << stream["name"];
      EXPECT_DOUBLE_EQ(stream["aggregate"]["seconds"].get<double>(), 1.0) << stream["name"];
      stream_ops += ops;
      stream_bytes += bytes;
    }
    EXPECT_EQ(step["aggregate"]["ops"].get<uint64_t>(), stream_ops);
    EXPECT_EQ(step["aggregate"]["bytes"].get<uint64_t>(), stream_bytes);
    const json& probe = step["streams"][0];
    const json& load = step["streams"][1];
    EXPECT_EQ(probe["name"], reader);
    EXPECT_EQ(load["name"], writer);
    EXPECT_EQ(probe["aggregate"]["bytes"].get<uint64_t>(), probe["aggregate"]["ops"].get<uint64_t>() * 4096);
    EXPECT_EQ(probe["aggregate"]["read"]["ops"], probe["aggregate"]["ops"]);
    EXPECT_FALSE(probe["aggregate"].contains("write"));
    EXPECT_EQ(load["aggregate"]["bytes"].get<uint64_t>(), load["aggregate"]["ops"].get<uint64_t>() * 65536);
    EXPECT_EQ(load["aggregate"]["write"]["ops"], load["aggregate"]["ops"]);
    EXPECT_GT(probe["aggregate"]["latency_ns"]["p99"].get<uint64_t>(), 0u);
  };
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "s.yaml").string(), "--agents", Join(agents), "--out",
                                (tmp / "out").string(), "--progress", "none"},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  ASSERT_EQ(report["steps"].size(), 1u);
  check(report["steps"][0], "probe", "load");
  std::ifstream csv(OnlyRunDir(tmp / "out") / "summary.csv");
  std::string text((std::istreambuf_iterator<char>(csv)), {});
  EXPECT_NE(text.find(",stream:probe,node02,"), std::string::npos) << text;
  EXPECT_NE(text.find(",stream:load,,"), std::string::npos) << text;

  WriteText(tmp / "s.fio", "[global]\nioengine=libaio\ndirect=1\nsize=8m\ntime_based\nruntime=1\n"
                           "[probe]\nrw=randread\nbs=4k\niodepth=1\n[load]\nrw=write\nbs=64k\niodepth=8\nnumjobs=2\n");
  r = RunCommand({BinPath("iofleet"), "run", (tmp / "s.fio").string(), "--agents", Join(agents), "--out",
                  (tmp / "out-fio").string(), "--progress", "none"},
                 tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  report = ReadReport(tmp / "out-fio");
  ASSERT_EQ(report["steps"].size(), 1u);
  check(report["steps"][0], "probe", "load");
}

// The NFS 16-client case, scaled down: total_size split over the threads of all agents.
TEST(Distributed, SixteenAgentsSplitTheTotalSize) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 16);
  WriteText(tmp / "w.yaml", R"(name: nfs-sixteen
defaults: { block_size: 1MiB, total_size: 64MiB }
steps:
  - io: { op: write }
  - io: { op: read }
)");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", Join(agents),
                                "--out", (tmp / "out").string()}, tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  for (const auto& step : report["steps"]) {
    EXPECT_EQ(step["aggregate"]["bytes"].get<uint64_t>(), 64u << 20);
    ASSERT_EQ(step["agents"].size(), 16u);
    for (const auto& a : step["agents"]) EXPECT_EQ(a["bytes"].get<uint64_t>(), 4u << 20);
  }
}

// The IOzone rule on a cluster: total_jobs threads spread round-robin, total_size split over them.
TEST(Distributed, TotalJobsSpreadRoundRobinOverAgents) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 3);
  WriteText(tmp / "w.yaml", R"(name: threads
defaults: { block_size: 1MiB, total_size: 8MiB }
sweep:
  total_jobs: [4, 2]
steps:
  - io: { op: write }
)");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", Join(agents),
                                "--out", (tmp / "out").string()}, tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json steps = ReadReport(tmp / "out")["steps"];
  ASSERT_EQ(steps.size(), 2u);
  std::map<std::string, uint64_t> four, two;
  for (const auto& a : steps[0]["agents"]) four[a["agent"]] = a["bytes"].get<uint64_t>();
  for (const auto& a : steps[1]["agents"]) two[a["agent"]] = a["bytes"].get<uint64_t>();
  // 4 jobs of 2 MiB: 2 on node01, 1 each on node02 and node03.
  EXPECT_EQ(four["node01"], 4u << 20);
  EXPECT_EQ(four["node02"], 2u << 20);
  EXPECT_EQ(four["node03"], 2u << 20);
  // 2 jobs of 4 MiB: node03 sits the point out.
  EXPECT_EQ(two["node01"], 4u << 20);
  EXPECT_EQ(two["node02"], 4u << 20);
  EXPECT_EQ(two["node03"], 0u);
  EXPECT_EQ(steps[1]["aggregate"]["bytes"].get<uint64_t>(), 8u << 20);
}

TEST(Distributed, ValidatePrintsThePlanForTheGivenAgents) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 2);
  WriteText(tmp / "w.yaml", R"(name: plan
agents:
  overrides:
    - match: node02
      set: { defaults.jobs: 3 }
defaults: { block_size: 64KiB, file_size: 4MiB, jobs: 1 }
sweep:
  defaults.block_size: [64KiB, 1MiB]
steps:
  - io: { op: write, runtime: 30s }
)");
  CommandResult r = RunCommand({BinPath("iofleet"), "validate", (tmp / "w.yaml").string(), "--agents", Join(agents)},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("# plan: 2 point(s) x 1 step(s) x 1 cycle(s) on 2 agent(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#     node01: 1 job(s), 1 file(s) of 4MiB, 30s after 0s ramp"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#     node02: 3 job(s), 3 file(s) of 4MiB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# duration: at least 1m"), std::string::npos) << r.out;  // 2 points x 30 s
  EXPECT_EQ(CountEntries(tmp / "node01"), 0u);  // nothing ran
}

TEST(Distributed, AgentsCommandShowsVersionEnginesRootsAndClock) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 2);
  CommandResult r = RunCommand({BinPath("iofleet"), "agents", "--agents", Join(agents)}, tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("node01"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node02"), std::string::npos);
  EXPECT_NE(r.out.find("libaio"), std::string::npos);
  EXPECT_NE(r.out.find("default=" + (tmp / "node01").string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("clock offset"), std::string::npos);
}

TEST(Distributed, KilledAgentFailsTheRunKeepingHealthyFigures) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 3);
  WriteText(tmp / "w.yaml", "name: kill\ndefaults: { block_size: 64KiB, file_size: 8MiB, runtime: 30s }\nsteps:\n  - io: { op: write }\n");
  Process run({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", Join(agents), "--out",
               (tmp / "out").string()}, tmp / "logs");
  ASSERT_TRUE(WaitFor([&] { return fs::exists(tmp / "node02" / "iofleet"); }, 15s));
  std::this_thread::sleep_for(1500ms);
  agents[1]->process().Signal(SIGKILL);
  auto killed = std::chrono::steady_clock::now();
  int code = run.Wait(20s);
  double noticed = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  EXPECT_EQ(code, 1) << run.Stderr();
  EXPECT_LT(noticed, 5.0);
  EXPECT_NE(run.Stderr().find("agent node02"), std::string::npos) << run.Stderr();
  json report = ReadReport(tmp / "out");
  EXPECT_EQ(report["status"], "failed");
  EXPECT_NE(report["error"].get<std::string>().find("node02"), std::string::npos);
  // The healthy agents were stopped; what they measured until then is kept.
  EXPECT_EQ(report["steps"][0]["status"], "failed");
  EXPECT_TRUE(WaitFor([&] { return CountEntries(tmp / "node01") == 0 && CountEntries(tmp / "node03") == 0; }, 10s));
}

TEST(Distributed, KilledControllerLeavesAgentsCleanAndReady) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 2);
  WriteText(tmp / "w.yaml", "name: orphan\ndefaults: { block_size: 64KiB, file_size: 8MiB, runtime: 60s }\nsteps:\n  - io: { op: write }\n");
  {
    Process run({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", Join(agents), "--out",
                 (tmp / "out").string()}, tmp / "logs");
    ASSERT_TRUE(WaitFor([&] { return fs::exists(tmp / "node01" / "iofleet"); }, 15s));
    std::this_thread::sleep_for(1s);
    run.Signal(SIGKILL);
    EXPECT_EQ(run.Wait(5s), 128 + SIGKILL);
  }
  // I/O stops at once (the stream is cancelled); the lease (10 s) then removes the run's files.
  EXPECT_TRUE(WaitFor([&] { return CountEntries(tmp / "node01") == 0 && CountEntries(tmp / "node02") == 0; }, 20s))
      << agents[0]->process().Stderr();
  EXPECT_NE(agents[0]->process().Stderr().find("no word from the controller"), std::string::npos);
  WriteText(tmp / "short.yaml", "name: next\ndefaults: { block_size: 64KiB, file_size: 1MiB }\nsteps:\n  - io: { op: write }\n");
  CommandResult next = RunCommand({BinPath("iofleet"), "run", (tmp / "short.yaml").string(), "--agents", Join(agents),
                                   "--out", (tmp / "out2").string()}, tmp / "logs");
  EXPECT_EQ(next.code, 0) << next.err;
}

TEST(Distributed, SecondControllerGetsBusyAndTheRunningJobIsUntouched) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 1);
  WriteText(tmp / "w.yaml", "name: first\ndefaults: { block_size: 64KiB, file_size: 4MiB, runtime: 4s }\nsteps:\n  - io: { op: write }\n");
  Process first({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", Join(agents), "--out",
                 (tmp / "out").string()}, tmp / "logs");
  ASSERT_TRUE(WaitFor([&] { return fs::exists(tmp / "node01" / "iofleet"); }, 15s));
  CommandResult second = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", Join(agents),
                                     "--out", (tmp / "out2").string()}, tmp / "logs");
  EXPECT_EQ(second.code, 1);
  EXPECT_NE(second.err.find("busy"), std::string::npos) << second.err;
  EXPECT_EQ(first.Wait(30s), 0) << first.Stderr();
  EXPECT_EQ(ReadReport(tmp / "out")["status"], "succeeded");
}

TEST(Distributed, StonewallStopsEveryAgentWhenTheFirstIsDone) {
  TempDir tmp;
  AgentProcess fast(tmp / "fast", "fast", tmp / "logs");
  AgentProcess slow(tmp / "slow", "slow", tmp / "logs", {}, {"IOFLEET_FAULT_INJECT=delay=3s@4"});
  WriteText(tmp / "w.yaml", "name: stonewall\ndefaults: { block_size: 64KiB, file_size: 4MiB, stonewall: first_done }\n"
                            "steps:\n  - io: { op: write }\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents",
                                fast.address() + "," + slow.address(), "--out", (tmp / "out").string()}, tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json step = ReadReport(tmp / "out")["steps"][0];
  EXPECT_TRUE(step["stonewalled"].get<bool>());
  for (const auto& a : step["agents"]) {
    if (a["agent"] == "fast") EXPECT_EQ(a["ops"].get<uint64_t>(), 64u);
    if (a["agent"] == "slow") EXPECT_LT(a["ops"].get<uint64_t>(), 64u);
  }
  EXPECT_EQ(step["slowest_agent"], "slow");
}

// Three agents on one shared file system: one global file for every job (IOR N-1), per-agent
// overrides, and each agent reading what the next one wrote (IOR -C).
TEST(Distributed, SharedGlobalFileOverridesAndReadFromNextAgent) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 3, tmp / "shared");
  WriteText(tmp / "w.yaml", R"(name: shared-fs
agents:
  overrides:
    - match: node03
      set: { "steps[global-write].io.jobs": 2, "steps[global-read].io.jobs": 2 }
defaults: { block_size: 64KiB, jobs: 1 }
steps:
  - name: global-write
    io: { op: write, file_layout: shared_global, total_size: 8MiB }
  - name: global-read
    io: { op: read, file_layout: shared_global, total_size: 8MiB, verify: false }
  - name: own-write
    io: { op: write, file_size: 2MiB }
  - name: cross-read
    io: { op: read, file_size: 2MiB, read_from: next_agent }
)");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", Join(agents),
                                "--out", (tmp / "out").string()}, tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json steps = ReadReport(tmp / "out")["steps"];
  auto bytes_of = [&](const json& step, const std::string& agent) {
    for (const auto& a : step["agents"]) if (a["agent"] == agent) return a["bytes"].get<uint64_t>();
    return uint64_t{0};
  };
  // 4 jobs in all (node03 has 2) share one 8 MiB file: 2 MiB each.
  EXPECT_EQ(steps[0]["aggregate"]["bytes"].get<uint64_t>(), 8u << 20);
  EXPECT_EQ(bytes_of(steps[0], "node01"), 2u << 20);
  EXPECT_EQ(bytes_of(steps[0], "node03"), 4u << 20);
  EXPECT_EQ(steps[1]["aggregate"]["bytes"].get<uint64_t>(), 8u << 20);
  EXPECT_EQ(steps[1]["aggregate"]["filled_bytes"].get<uint64_t>(), 0u);  // every region was written
  EXPECT_EQ(steps[3]["aggregate"]["bytes"].get<uint64_t>(), 3u * (2u << 20));
  EXPECT_EQ(steps[3]["aggregate"]["filled_bytes"].get<uint64_t>(), 0u);
  EXPECT_EQ(CountEntries(tmp / "shared"), 0u);
}

TEST(Distributed, ReadFromNextAgentNeedsItsFilesWritten) {
  TempDir tmp;
  auto agents = StartAgents(tmp, 2, tmp / "shared");
  WriteText(tmp / "w.yaml", "name: cross\ndefaults: { block_size: 64KiB, file_size: 1MiB }\nsteps:\n  - io: { op: read, read_from: next_agent }\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", Join(agents),
                                "--out", (tmp / "out").string()}, tmp / "logs");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
  EXPECT_EQ(CountEntries(tmp / "shared"), 0u);
}

}  // namespace
}  // namespace iofleet::testing
