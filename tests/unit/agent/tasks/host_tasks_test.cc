#include "agent/tasks/host_tasks.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Gone, or a zombie nobody has reaped yet: either way no longer running.
bool ProcessEnded(pid_t pid) {
  if (kill(pid, 0) < 0 && errno == ESRCH) return true;
  std::string stat = testing::ReadAll("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  return paren == std::string::npos || (paren + 2 < stat.size() && (stat[paren + 2] == 'Z' || stat[paren + 2] == 'X'));
}

bool WaitEnded(pid_t pid, double seconds) {
  auto t0 = Clock::now();
  while (SecondsSince(t0) < seconds) {
    if (ProcessEnded(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ProcessEnded(pid);
}

class HookTaskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_dir_ = tmp_ / "run dir";  // a space: the directory is never passed through a shell
    fs::create_directories(run_dir_);
  }

  HookRun Hook(const std::string& script, uint64_t timeout_ns = 60'000'000'000ull) {
    HookRun hook;
    hook.name = "mkfs";
    hook.command.argv = {"/bin/sh", "-c", script};
    hook.command.timeout_ns = timeout_ns;
    hook.run_id = "run-42";
    hook.run_dir = run_dir_.string();
    hook.agent_name = "node1";
    return hook;
  }

  Status Run(HookRun hook, std::string* note = nullptr) {
    auto task = MakeHookTask(std::move(hook));
    std::atomic<bool> stop{false};
    Status st = task->Run(stop);
    v1::StepResult result;
    task->Report(result);
    if (note) *note = result.note();
    return st;
  }

  testing::TempDir tmp_;
  fs::path run_dir_;
};

// Seed 004: a hook step reports the fill level of its file system at its start and
// end, in df's terms; where the directory is missing (before a mkfs hook mounts it) none.
TEST_F(HookTaskTest, ReportsTheFillLevelAtStartAndEnd) {
  HookRun hook = Hook("mkdir -p mnt");
  const fs::path mnt = run_dir_ / "mnt";
  hook.measure_fill = [mnt]() -> std::optional<v1::FileSystemFill> {
    int fd = open(mnt.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    auto fill = FillOf(fd);
    close(fd);
    return fill;
  };
  auto task = MakeHookTask(std::move(hook));
  std::atomic<bool> stop{false};
  ASSERT_TRUE(task->Run(stop).ok());
  v1::StepResult result;
  task->Report(result);
  EXPECT_FALSE(result.has_fill_at_start());  // mnt did not exist yet
  ASSERT_TRUE(result.has_fill_at_end());
  const v1::FileSystemFill& fill = result.fill_at_end();
  EXPECT_GT(fill.size_bytes(), 0u);
  EXPECT_GT(fill.used_bytes(), 0u);
  EXPECT_LE(fill.used_bytes(), fill.size_bytes());
  EXPECT_GE(fill.use_pct(), 1u);
  EXPECT_LE(fill.use_pct(), 100u);
  EXPECT_LE(fill.inodes_used(), fill.inodes());
}

TEST(FillOf, AgreesWithStatvfs) {
  int fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  auto fill = FillOf(fd);
  close(fd);
  ASSERT_TRUE(fill);
  struct statvfs fs {};
  ASSERT_EQ(statvfs(".", &fs), 0);
  EXPECT_EQ(fill->size_bytes(), uint64_t{fs.f_blocks} * fs.f_frsize);
  EXPECT_EQ(fill->inodes(), fs.f_files);
  uint64_t used = fs.f_blocks - fs.f_bfree;
  EXPECT_EQ(fill->use_pct(), (used * 100 + used + fs.f_bavail - 1) / (used + fs.f_bavail));
  EXPECT_FALSE(FillOf(-1));
}

TEST_F(HookTaskTest, ExitZeroIsOkWithANote) {
  std::string note;
  Status st = Run(Hook("echo working; exit 0"), &note);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(note, "hook mkfs: exit 0");
}

TEST_F(HookTaskTest, RunsInTheRunDirectoryWithItsEnvironment) {
  Status st = Run(Hook("pwd > pwd.txt; env > env.txt"));
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_TRUE(fs::exists(run_dir_ / "pwd.txt"));  // relative: written in the run directory
  EXPECT_EQ(testing::ReadAll(run_dir_ / "pwd.txt"), fs::canonical(run_dir_).string() + "\n");
  std::string env = testing::ReadAll(run_dir_ / "env.txt");
  EXPECT_NE(env.find("IOFLEET_RUN_ID=run-42\n"), std::string::npos) << env;
  EXPECT_NE(env.find("IOFLEET_RUN_DIR=" + run_dir_.string() + "\n"), std::string::npos) << env;
  EXPECT_NE(env.find("IOFLEET_AGENT=node1\n"), std::string::npos) << env;
  EXPECT_NE(env.find("IOFLEET_HOOK=mkfs\n"), std::string::npos) << env;
  EXPECT_NE(env.find("PATH="), std::string::npos) << env;
  // Only what the agent sets: nothing of the agent's own environment leaks in.
  setenv("IOFLEET_TEST_SECRET", "leak", 1);
  ASSERT_TRUE(Run(Hook("env > env2.txt")).ok());
  unsetenv("IOFLEET_TEST_SECRET");
  EXPECT_EQ(testing::ReadAll(run_dir_ / "env2.txt").find("IOFLEET_TEST_SECRET"), std::string::npos);
}

TEST_F(HookTaskTest, StdinIsDevNull) {
  auto t0 = Clock::now();
  ASSERT_TRUE(Run(Hook("cat > in.txt")).ok());  // would block if stdin were the agent's
  EXPECT_LT(SecondsSince(t0), 5.0);
  EXPECT_EQ(testing::ReadAll(run_dir_ / "in.txt"), "");
}

TEST_F(HookTaskTest, NonZeroExitFailsWithTheOutputTail) {
  Status st = Run(Hook("echo first line; echo 'mkfs: device busy' >&2; exit 3"));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Code::kAborted);
  EXPECT_NE(st.message().find("agent node1: hook mkfs"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("exited with status 3"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("mkfs: device busy"), std::string::npos) << st.message();  // stderr too
  EXPECT_NE(st.message().find("first line"), std::string::npos) << st.message();
}

TEST_F(HookTaskTest, OutputTailKeepsTheEnd) {
  // 100 KB of output, then the line that says what went wrong.
  Status st = Run(Hook("i=0; while [ $i -lt 2000 ]; do echo \"line $i padding padding padding padding\"; i=$((i+1)); done; "
                       "echo 'the real error'; exit 1"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("the real error"), std::string::npos);
  EXPECT_EQ(st.message().find("line 0 "), std::string::npos);
  EXPECT_LT(st.message().size(), 4096u);
}

TEST_F(HookTaskTest, KilledBySignal) {
  Status st = Run(Hook("kill -9 $$"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("was killed by signal 9"), std::string::npos) << st.message();
}

TEST_F(HookTaskTest, TimeoutKillsAndFails) {
  auto t0 = Clock::now();
  Status st = Run(Hook("echo started; sleep 30", 200'000'000));
  double took = SecondsSince(t0);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Code::kDeadlineExceeded);
  EXPECT_NE(st.message().find("still running after its timeout; killed"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("started"), std::string::npos) << st.message();
  EXPECT_GE(took, 0.2);
  EXPECT_LT(took, 3.0);
}

TEST_F(HookTaskTest, TimeoutKillsAHookThatClosedItsOutput) {
  // A hook script that sends its output to a log of its own (exec >log) must still be killed at
  // its timeout.
  auto t0 = Clock::now();
  Status st = Run(Hook("exec > hook.log 2>&1; sleep 30", 200'000'000));
  double took = SecondsSince(t0);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Code::kDeadlineExceeded) << st.message();
  EXPECT_LT(took, 3.0);
}

TEST_F(HookTaskTest, TimeoutKillsAHookThatKeepsWriting) {
  auto t0 = Clock::now();
  Status st = Run(Hook("while :; do echo progress; done", 200'000'000));
  double took = SecondsSince(t0);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Code::kDeadlineExceeded) << st.message();
  EXPECT_LT(took, 3.0);
  EXPECT_NE(st.message().find("progress"), std::string::npos);
}

TEST_F(HookTaskTest, ExitAfterClosingOutputIsSeen) {
  std::string note;
  Status st = Run(Hook("exec > hook.log 2>&1; echo logged; sleep 0.3; exit 0"), &note);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(note, "hook mkfs: exit 0");
  EXPECT_EQ(testing::ReadAll(run_dir_ / "hook.log"), "logged\n");
  st = Run(Hook("exec > hook.log 2>&1; sleep 0.2; exit 4"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("exited with status 4"), std::string::npos) << st.message();
}

TEST_F(HookTaskTest, StopKillsTheProcessGroupAndReturnsOk) {
  // The shell starts a child in the background: the whole group must go.
  auto task = MakeHookTask(Hook("sleep 30 & echo $! > child.pid; wait"));
  std::atomic<bool> stop{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.store(true);
  });
  auto t0 = Clock::now();
  Status st = task->Run(stop);
  double took = SecondsSince(t0);
  stopper.join();
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_GE(took, 0.2);
  EXPECT_LT(took, 3.0);
  std::string pid_text = testing::ReadAll(run_dir_ / "child.pid");
  ASSERT_FALSE(pid_text.empty());
  pid_t child = static_cast<pid_t>(std::stol(pid_text));
  ASSERT_GT(child, 1);
  EXPECT_TRUE(WaitEnded(child, 3.0)) << "the hook's background child " << child << " is still running";
}

TEST_F(HookTaskTest, MissingProgramCannotRun) {
  HookRun hook = Hook("");
  hook.command.argv = {(tmp_ / "no" / "such-program").string(), "--flag"};
  Status st = Run(hook);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("cannot run " + (tmp_ / "no" / "such-program").string()), std::string::npos)
      << st.message();
}

TEST_F(HookTaskTest, ArgumentsArePassedAsIs) {
  HookRun hook = Hook("");
  hook.command.argv = {"/bin/sh", "-c", "printf '%s|' \"$@\" > args.txt", "sh", "a b", "$HOME", "*"};
  ASSERT_TRUE(Run(hook).ok());
  EXPECT_EQ(testing::ReadAll(run_dir_ / "args.txt"), "a b|$HOME|*|");
}

TEST(SyncTask, RunsOk) {
  auto task = MakeSyncTask(false, "node1");
  std::atomic<bool> stop{false};
  Status st = task->Run(stop);
  EXPECT_TRUE(st.ok()) << st.message();
  v1::StepResult result;
  task->Report(result);
  EXPECT_EQ(result.ops(), 0u);
  EXPECT_TRUE(result.note().empty());
}

// The preflight of drop_caches and readahead steps: opens for writing, changes nothing, and says
// why not (paths that fail for root too: a directory, a missing file).
TEST(ProbeWritable, OpensWithoutWritingAndNamesTheErrno) {
  testing::TempDir tmp;
  const fs::path file = tmp / "drop_caches";
  std::ofstream(file) << "0\n";
  EXPECT_TRUE(ProbeWritable(file.string()).ok());
  EXPECT_EQ(testing::ReadAll(file), "0\n");  // neither truncated nor written

  Status missing = ProbeWritable((tmp / "missing").string());
  EXPECT_EQ(missing.code(), Code::kNotFound);
  EXPECT_EQ(missing.message(), (tmp / "missing").string() + " cannot be opened for writing: No such file or directory (ENOENT)");
  EXPECT_FALSE(fs::exists(tmp / "missing"));  // not made by the probe

  Status directory = ProbeWritable(tmp.path().string());
  EXPECT_FALSE(directory.ok());
  EXPECT_NE(directory.message().find("(EISDIR)"), std::string::npos) << directory.message();
}

TEST(SyncTask, DropCachesNamesTheFileItCouldNotWrite) {
  testing::TempDir tmp;
  auto task = MakeSyncTask(true, "node1", (tmp / "missing").string());
  std::atomic<bool> stop{false};
  Status st = task->Run(stop);
  EXPECT_EQ(st.message(), "agent node1: " + (tmp / "missing").string() + ": No such file or directory (ENOENT)");
}

TEST(ReadaheadTask, SetsThroughTheKeeperAndNotes) {
  testing::TempDir tmp;
  std::string sysfs = (tmp / "read_ahead_kb").string();
  std::ofstream(sysfs) << "128\n";
  ReadaheadKeeper keeper((tmp / "state").string());
  auto task = MakeReadaheadTask(keeper, sysfs, 2048, "node1");
  std::atomic<bool> stop{false};
  ASSERT_TRUE(task->Run(stop).ok());
  v1::StepResult result;
  task->Report(result);
  EXPECT_EQ(result.note(), sysfs + ": 128 -> 2048 KiB");
  EXPECT_EQ(testing::ReadAll(sysfs), "2048");
  keeper.RestoreAll();
  EXPECT_EQ(testing::ReadAll(sysfs), "128");

  auto missing = MakeReadaheadTask(keeper, (tmp / "missing").string(), 2048, "node1");
  Status st = missing->Run(stop);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("agent node1: read-ahead:"), std::string::npos) << st.message();
}

TEST_F(HookTaskTest, ABackgroundChildHoldingTheOutputDoesNotHoldUpTheStep) {
  auto start = std::chrono::steady_clock::now();
  Status st = Run(Hook("sleep 5 & echo started"));
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

}  // namespace
}  // namespace iofleet::agent
