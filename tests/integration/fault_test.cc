// The fault suite (ctest label `fault`): real agent processes, real files, real signals. Each
// case prints what happened and how long it took (docs/RELIABILITY.md holds the table). In every
// case nothing outside an agent's root is touched (a canary tree is checked before and after)
// and no run that lost an agent or data reports success.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdio>
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

template <typename Fn>
bool WaitFor(Fn done, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return done();
}

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A tree outside every root that no case may change.
class Canary {
 public:
  explicit Canary(const fs::path& dir) : dir_(dir) {
    fs::create_directories(dir_ / "sub");
    WriteText(dir_ / "canary", "canary");
    WriteText(dir_ / "sub" / "canary", "canary");
  }
  void ExpectUntouched() const {
    EXPECT_EQ(CountEntries(dir_), 3u);
    for (const auto& f : {dir_ / "canary", dir_ / "sub" / "canary"}) {
      std::ifstream in(f);
      std::string text((std::istreambuf_iterator<char>(in)), {});
      EXPECT_EQ(text, "canary") << f;
    }
  }
  fs::path file() const { return dir_ / "canary"; }

 private:
  fs::path dir_;
};

struct Fleet2 {
  explicit Fleet2(const TempDir& tmp)
      : a(tmp / "node01", "node01", tmp / "logs"), b(tmp / "node02", "node02", tmp / "logs") {}
  std::string agents() const { return a.address() + "," + b.address(); }
  AgentProcess a, b;
};

Process StartRun(const TempDir& tmp, const std::string& agents, const std::string& yaml) {
  WriteText(tmp / "w.yaml", yaml);
  return Process({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agents, "--out", (tmp / "out").string()},
                 tmp / "logs");
}

const char* kLongRandread = R"(name: fault
defaults: { engine: libaio, block_size: 4KiB, queue_depth: 4, file_size: 16MiB }
steps:
  - name: read
    io: { op: randread, runtime: 8s }
)";

// An agent stopped mid-step (SIGTERM) fails the run, whatever order its
// stream's end and its connection's loss arrive in; the healthy agent's figures are kept.
TEST(Fault, AgentTerminatedMidStepFailsTheRunKeepingTheOthersFigures) {
  for (int round = 0; round < 3; ++round) {
    TempDir tmp;
    Canary canary(tmp / "outside");
    Fleet2 fleet(tmp);
    Process run = StartRun(tmp, fleet.agents(), kLongRandread);
    ASSERT_TRUE(WaitFor([&] { return run.Stderr().find("[read] 2s") != std::string::npos; }, 30s)) << run.Stderr();
    fleet.b.process().Signal(SIGTERM);
    auto signalled = std::chrono::steady_clock::now();
    int code = run.Wait(30s);
    double took = SecondsSince(signalled);
    std::printf("round %d: SIGTERM to an agent mid-step: exit %d after %.2f s\n", round, code, took);
    EXPECT_EQ(code, 1) << run.Stderr();
    json report = ReadReport(tmp / "out");
    EXPECT_EQ(report["status"], "failed");
    ASSERT_EQ(report["steps"].size(), 1u);
    const json& step = report["steps"][0];
    EXPECT_EQ(step["status"], "failed");
    ASSERT_EQ(step["agents"].size(), 1u) << step.dump();  // the healthy agent's row, and only it
    EXPECT_EQ(step["agents"][0]["agent"], "node01");
    EXPECT_GT(step["agents"][0]["ops"].get<uint64_t>(), 0u);
    EXPECT_EQ(step["aggregate"]["ops"], step["agents"][0]["ops"]);
    EXPECT_TRUE(WaitFor([&] { return CountEntries(tmp / "node01") == 0 && CountEntries(tmp / "node02") == 0; }, 15s));
    canary.ExpectUntouched();
  }
}

// A frozen agent (SIGSTOP) is taken for lost once its stream has been silent for 5 s of the
// controller's running time; the others' figures stay in the report.
TEST(Fault, AgentFrozenMidStepIsLostAndTheOthersFiguresKept) {
  TempDir tmp;
  Canary canary(tmp / "outside");
  Fleet2 fleet(tmp);
  Process run = StartRun(tmp, fleet.agents(), R"(name: fault
defaults: { engine: libaio, block_size: 4KiB, queue_depth: 4, file_size: 16MiB }
steps:
  - name: read
    io: { op: randread, runtime: 30s }
)");
  ASSERT_TRUE(WaitFor([&] { return run.Stderr().find("[read] 2s") != std::string::npos; }, 30s)) << run.Stderr();
  fleet.b.process().Signal(SIGSTOP);
  auto frozen = std::chrono::steady_clock::now();
  int code = run.Wait(40s);
  double took = SecondsSince(frozen);
  fleet.b.process().Signal(SIGCONT);
  std::printf("SIGSTOP to an agent mid-step: exit %d after %.2f s\n", code, took);
  EXPECT_EQ(code, 1) << run.Stderr();
  EXPECT_LT(took, 10.0) << run.Stderr();  // 5 s of silence after its last progress, then the others stop
  EXPECT_NE(run.Stderr().find("its stream sent nothing for 5.0 s"), std::string::npos) << run.Stderr();
  // Before it is declared lost, the live line names the frozen agent (two sample intervals).
  EXPECT_NE(run.Stderr().find("1/2 agents  silent: node02"), std::string::npos) << run.Stderr();
  json report = ReadReport(tmp / "out");
  EXPECT_EQ(report["status"], "failed");
  const json& step = report["steps"][0];
  ASSERT_EQ(step["agents"].size(), 1u) << step.dump();
  EXPECT_EQ(step["agents"][0]["agent"], "node01");
  EXPECT_GT(step["agents"][0]["ops"].get<uint64_t>(), 0u);
  EXPECT_TRUE(WaitFor([&] { return CountEntries(tmp / "node01") == 0 && CountEntries(tmp / "node02") == 0; }, 20s));
  canary.ExpectUntouched();
}

// A controller that could not run for 8 s (SIGSTOP: a busy or swapped host), less than the
// agents' lease, blames nobody: the agents keep their run and stream, the controller takes up
// their streams again, and the run succeeds with every agent's figures and says it stalled
// (issue 23; before, both agents were "lost: keepalive watchdog timeout").
TEST(Fault, ControllerStalledForEightSecondsLosesNoAgent) {
  TempDir tmp;
  Fleet2 fleet(tmp);
  Process run = StartRun(tmp, fleet.agents(), R"(name: stall
defaults: { engine: libaio, block_size: 4KiB, queue_depth: 4, file_size: 16MiB }
steps:
  - name: read
    io: { op: randread, runtime: 12s }
)");
  ASSERT_TRUE(WaitFor([&] { return run.Stderr().find("[read] 2s") != std::string::npos; }, 30s)) << run.Stderr();
  run.Signal(SIGSTOP);
  std::this_thread::sleep_for(8s);
  run.Signal(SIGCONT);
  const int code = run.Wait(40s);
  std::printf("controller stopped for 8 s mid-step: exit %d\n", code);
  ASSERT_EQ(code, 0) << run.Stderr();
  json report = ReadReport(tmp / "out");
  EXPECT_EQ(report["status"], "succeeded") << report.dump();
  const json& step = report["steps"][0];
  ASSERT_EQ(step["agents"].size(), 2u) << step.dump();
  for (const json& a : step["agents"]) EXPECT_GT(a["ops"].get<uint64_t>(), 0u) << a.dump();
  ASSERT_TRUE(step.contains("controller_stall_ns")) << step.dump();
  EXPECT_NEAR(step["controller_stall_ns"].get<double>() / 1e9, 8.0, 1.0);
  EXPECT_NE(run.Stdout().find("the controller could not run for"), std::string::npos) << run.Stdout();
}

// Ctrl-C 0.5 s into a 2 GiB fill ends the run within seconds.
TEST(Fault, CtrlCDuringAFillEndsTheRunWithinSeconds) {
  TempDir tmp;
  Canary canary(tmp / "outside");
  AgentProcess agent(tmp / "node01", "node01", tmp / "logs");
  Process run = StartRun(tmp, agent.address(), R"(name: fault
defaults: { engine: libaio, block_size: 1MiB, file_size: 2GiB }
steps:
  - name: read
    io: { op: read }
)");
  ASSERT_TRUE(WaitFor([&] { return fs::exists(tmp / "node01/iofleet"); }, 15s));
  std::this_thread::sleep_for(500ms);
  run.Signal(SIGINT);
  auto interrupted = std::chrono::steady_clock::now();
  int code = run.Wait(30s);
  double took = SecondsSince(interrupted);
  std::printf("Ctrl-C 0.5 s into a 2 GiB fill: exit %d after %.2f s\n", code, took);
  EXPECT_EQ(code, 1) << run.Stderr();
  EXPECT_LT(took, 5.0);
  EXPECT_EQ(ReadReport(tmp / "out")["status"], "aborted");
  EXPECT_TRUE(WaitFor([&] { return CountEntries(tmp / "node01") == 0; }, 10s));
  canary.ExpectUntouched();
}

// Ctrl-C mid-step keeps what was measured up to the interrupt, as fio does.
TEST(Fault, CtrlCMidStepKeepsTheFiguresSoFar) {
  TempDir tmp;
  Fleet2 fleet(tmp);
  Process run = StartRun(tmp, fleet.agents(), kLongRandread);
  ASSERT_TRUE(WaitFor([&] { return run.Stderr().find("[read] 2s") != std::string::npos; }, 30s)) << run.Stderr();
  run.Signal(SIGINT);
  auto interrupted = std::chrono::steady_clock::now();
  int code = run.Wait(30s);
  std::printf("Ctrl-C mid-step: exit %d after %.2f s\n", code, SecondsSince(interrupted));
  EXPECT_EQ(code, 1) << run.Stderr();
  json report = ReadReport(tmp / "out");
  EXPECT_EQ(report["status"], "aborted");
  const json& step = report["steps"][0];
  EXPECT_EQ(step["status"], "aborted");
  ASSERT_EQ(step["agents"].size(), 2u) << step.dump();
  for (const auto& a : step["agents"]) EXPECT_GT(a["ops"].get<uint64_t>(), 0u) << a.dump();
  EXPECT_GT(step["aggregate"]["ops"].get<uint64_t>(), 0u);
}

// An agent killed (SIGKILL) or stopped (SIGTERM) while it sets a step up (filling 2 GiB) fails
// the run at once: the other agent's fill is cancelled, not waited for.
TEST(Fault, AgentSignalledDuringSetupFailsTheRun) {
  for (int sig : {SIGKILL, SIGTERM}) {
    TempDir tmp;
    Canary canary(tmp / "outside");
    Fleet2 fleet(tmp);
    Process run = StartRun(tmp, fleet.agents(), R"(name: fault
defaults: { engine: libaio, block_size: 1MiB, file_size: 2GiB }
steps:
  - name: read
    io: { op: read }
)");
    ASSERT_TRUE(WaitFor([&] { return fs::exists(tmp / "node02/iofleet"); }, 15s));
    std::this_thread::sleep_for(200ms);
    fleet.b.process().Signal(sig);
    auto signalled = std::chrono::steady_clock::now();
    int code = run.Wait(30s);
    double took = SecondsSince(signalled);
    std::printf("%s to an agent during setup: exit %d after %.2f s\n", sig == SIGKILL ? "SIGKILL" : "SIGTERM", code, took);
    EXPECT_EQ(code, 1) << run.Stderr();
    EXPECT_LT(took, 5.0) << run.Stderr();
    EXPECT_EQ(ReadReport(tmp / "out")["status"], "failed");
    EXPECT_TRUE(WaitFor([&] { return CountEntries(tmp / "node01") == 0; }, 15s));
    if (sig == SIGTERM) EXPECT_TRUE(WaitFor([&] { return CountEntries(tmp / "node02") == 0; }, 15s));
    canary.ExpectUntouched();
  }
}

// Swaps in the run directory between steps too: a hard link or a symlink to
// a file outside the root put where the agent writes, and the file deleted. The agent writes
// only into the files it created; nothing outside changes.
TEST(Fault, PlantedLinksAndDeletedFilesBetweenStepsNeverLeadOutside) {
  for (const std::string what : {"hardlink", "symlink", "delete"}) {
    TempDir tmp;
    Canary canary(tmp / "outside");
    AgentProcess agent(tmp / "node01", "node01", tmp / "logs");
    Process run = StartRun(tmp, agent.address(), R"(name: fault
defaults: { engine: psync, block_size: 64KiB, file_size: 1MiB }
steps:
  - name: first
    io: { op: write }
  - name: pause
    sleep: { duration: 3s }
  - name: second
    io: { op: write }
)");
    fs::path file;
    ASSERT_TRUE(WaitFor([&] {
      std::error_code ec;
      for (fs::recursive_directory_iterator it(tmp / "node01", ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().filename() == "job-0.dat") file = it->path();
      }
      return !file.empty() && fs::file_size(file, ec) == (1u << 20);
    }, 15s));
    std::this_thread::sleep_for(500ms);  // the first write is done: inside the pause
    fs::remove(file);
    if (what == "hardlink") fs::create_hard_link(canary.file(), file);
    if (what == "symlink") fs::create_symlink(canary.file(), file);
    int code = run.Wait(30s);
    std::printf("%s at job-0.dat between two write steps: exit %d\n", what.c_str(), code);
    EXPECT_EQ(code, 0) << run.Stderr();  // the agent goes on writing its own (now unnamed) file
    canary.ExpectUntouched();
    if (what == "delete") {
      EXPECT_TRUE(WaitFor([&] { return CountEntries(tmp / "node01") == 0; }, 10s));
    } else {
      // What was put at the name is not the agent's: it stays (and so do the directories
      // holding it); the agent removed only what it made.
      EXPECT_TRUE(fs::is_symlink(file) || fs::exists(file)) << what;
      EXPECT_EQ(CountEntries(tmp / "node01"), 4u);  // iofleet/<run>/node01/job-0.dat
    }
  }
}

// ENOSPC after preflight: the file system fills up (someone else's file) while the run pauses;
// the next write step fails naming the agent, the file and ENOSPC, and the run is failed.
TEST(Fault, FileSystemFullMidRunFailsTheStep) {
  TempDir tmp;
  Canary canary(tmp / "outside");
  fs::create_directories(tmp / "small");
  if (RunCommand({"/bin/mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", (tmp / "small").string()}, tmp / "logs").code != 0) {
    GTEST_SKIP() << "cannot mount a size-limited tmpfs here";
  }
  fs::create_directories(tmp / "small/root");
  int code = -1;
  {
    AgentProcess agent(tmp / "small/root", "node01", tmp / "logs");
    Process run = StartRun(tmp, agent.address(), R"(name: fault
defaults: { engine: psync, direct: false, block_size: 64KiB, file_size: 8MiB }
steps:
  - name: first
    io: { op: write }
  - name: pause
    sleep: { duration: 3s }
  - name: second
    io: { op: write, jobs: 2 }
)");
    ASSERT_TRUE(WaitFor([&] { return fs::exists(tmp / "small/root/iofleet"); }, 15s));
    std::this_thread::sleep_for(1500ms);  // inside the pause: fill what is left
    std::ofstream junk(tmp / "small/junk");
    std::string mib(1 << 20, 'x');
    for (int i = 0; i < 24 && junk; ++i) junk << mib;
    junk.close();
    code = run.Wait(30s);
    std::printf("file system full between two write steps: exit %d\n", code);
    EXPECT_EQ(code, 1) << run.Stderr();
    EXPECT_NE(run.Stderr().find("(ENOSPC)"), std::string::npos) << run.Stderr();
    EXPECT_EQ(ReadReport(tmp / "out")["status"], "failed");
    fs::remove(tmp / "small/junk");
    EXPECT_TRUE(WaitFor([&] { return CountEntries(tmp / "small/root") == 0; }, 10s));
  }
  RunCommand({"/bin/umount", (tmp / "small").string()}, tmp / "logs");
  canary.ExpectUntouched();
}

// I/O errors from the storage (injected EIO) fail the step, naming agent, file, offset, errno.
TEST(Fault, InjectedEioFailsTheRun) {
  TempDir tmp;
  AgentProcess agent(tmp / "node01", "node01", tmp / "logs", {}, {"IOFLEET_FAULT_INJECT=eio@50"});
  Process run = StartRun(tmp, agent.address(), "name: fault\ndefaults: { block_size: 64KiB, file_size: 8MiB }\nsteps:\n  - io: { op: write }\n");
  int code = run.Wait(30s);
  std::printf("EIO on the 50th request: exit %d\n", code);
  EXPECT_EQ(code, 1);
  EXPECT_NE(run.Stderr().find("(EIO)"), std::string::npos) << run.Stderr();
  EXPECT_EQ(ReadReport(tmp / "out")["status"], "failed");
}

}  // namespace
}  // namespace iofleet::testing
