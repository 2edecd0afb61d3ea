// The step kinds beyond io (files, copy, readahead, hook) and the shipped workloads that use
// them, run for real: local and remote agent processes, a loop-mounted ext4 file system for the
// device read-ahead and mkfs/fsck, and the agent's own config granting each permission.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "tests/support/loop_fs.h"
#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ReadFirstLine(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

struct LocalRun {
  std::string workload;  // a path below the source tree, or an absolute path
  std::vector<std::string> roots;
  std::string config;
  std::vector<std::string> sets;
};

CommandResult RunLocal(const TempDir& tmp, const LocalRun& run) {
  std::string workload = run.workload[0] == '/' ? run.workload : SourcePath(run.workload);
  std::vector<std::string> argv = {BinPath("iofleet"), "run", workload, "--out", (tmp / "out").string()};
  // The tests' roots are made on first use, as the flag asks.
  argv.push_back("--create-local-root");
  for (const auto& r : run.roots) argv.insert(argv.end(), {"--local-root", r});
  if (!run.config.empty()) argv.insert(argv.end(), {"--local-config", run.config});
  for (const auto& s : run.sets) argv.insert(argv.end(), {"--set", s});
  return RunCommand(argv, tmp / "logs", std::chrono::seconds(180));
}

const json* Phase(const json& step, const std::string& op) {
  for (const auto& p : step["phases"]) {
    if (p["op"] == op) return &p;
  }
  return nullptr;
}

TEST(FilesStep, EveryPhaseInLockstepOnTwoAgentsWithExactCounts) {
  TempDir tmp;
  AgentProcess a(tmp / "a", "node1", tmp / "logs-a"), b(tmp / "b", "node2", tmp / "logs-b");
  WriteText(tmp / "w.yaml", R"(name: md
steps:
  - name: tree
    files: { dirs: 6, files_per_dir: 25, file_size: 12KiB, jobs: 3, block_size: 4KiB }
)");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents",
                                a.address() + "," + b.address(), "--out", (tmp / "out").string()},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  const json& step = report["steps"][0];
  EXPECT_EQ(step["kind"], "files");
  ASSERT_EQ(step["phases"].size(), 6u);
  const std::vector<std::string> ops = {"mkdir", "create", "stat", "read", "delete", "rmdir"};
  for (size_t k = 0; k < ops.size(); ++k) {
    const json& p = step["phases"][k];
    EXPECT_EQ(p["op"], ops[k]);
    const bool dirs = ops[k] == "mkdir" || ops[k] == "rmdir";
    EXPECT_EQ(p["ops"].get<uint64_t>(), dirs ? 2u * 6 : 2u * 150) << ops[k];
    EXPECT_GT(p["files_per_sec"].get<double>(), 0.0) << ops[k];
    EXPECT_GT(p["latency_ns"]["p99"].get<double>(), 0.0) << ops[k];
    ASSERT_EQ(p["agents"].size(), 2u);
    EXPECT_EQ(p["agents"][0]["ops"].get<uint64_t>(), dirs ? 6u : 150u);
    // Each phase's rows hold that phase's latency alone (the step's rows add them up).
    for (const auto& a : p["agents"]) {
      EXPECT_LE(a["latency_ns"]["max"].get<double>(), p["latency_ns"]["max"].get<double>()) << ops[k];
    }
    EXPECT_LT(p["start_skew_ns"].get<int64_t>(), 1'000'000'000);
  }
  EXPECT_EQ((*Phase(step, "create"))["bytes"].get<uint64_t>(), 2u * 150 * 12 * 1024);
  EXPECT_EQ((*Phase(step, "read"))["bytes"].get<uint64_t>(), 2u * 150 * 12 * 1024);
  EXPECT_EQ(step["aggregate"]["ops"].get<uint64_t>(), 2u * (6 + 150 * 4 + 6));
  EXPECT_EQ(CountEntries(tmp / "a"), 0u);
  EXPECT_EQ(CountEntries(tmp / "b"), 0u);
}

// A tree per job (mdtest -u) with each file fsynced in the create phase, from the
// workload to the report, and nothing left after the run.
TEST(FilesStep, PerJobTreesWithCountedSync) {
  TempDir tmp;
  fs::create_directories(tmp / "data");
  WriteText(tmp / "w.yaml", R"(name: md
steps:
  - name: tree
    files: { dirs: 4, files_per_dir: 10, file_size: 4KiB, jobs: 2, layout: per_job, sync: fsync }
)");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--create-local-root", "--local-root",
                                (tmp / "data").string(), "--out", (tmp / "out").string()},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  const json& step = report["steps"][0];
  ASSERT_EQ(step["phases"].size(), 6u);
  EXPECT_EQ((*Phase(step, "mkdir"))["ops"].get<uint64_t>(), 4u);
  const json& create = *Phase(step, "create");
  EXPECT_EQ(create["ops"].get<uint64_t>(), 40u);
  EXPECT_EQ(create["fsyncs"].get<uint64_t>(), 40u);
  EXPECT_EQ((*Phase(step, "read"))["fsyncs"].get<uint64_t>(), 0u);
  EXPECT_EQ((*Phase(step, "rmdir"))["ops"].get<uint64_t>(), 4u);
  EXPECT_EQ(CountEntries(tmp / "data"), 0u);
}

TEST(FilesStep, OverridesMayNotChangeThePhases) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", R"(name: md
agents: { overrides: [ { match: "node2*", set: { "steps[tree].files.ops": "[mkdir, rmdir]" } } ] }
steps:
  - name: tree
    files: { dirs: 2, files_per_dir: 2 }
)");
  AgentProcess a(tmp / "a", "node1", tmp / "logs-a"), b(tmp / "b", "node2", tmp / "logs-b");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents",
                                a.address() + "," + b.address(), "--out", (tmp / "out").string()},
                               tmp / "logs");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("steps[0].files.ops: agent node2 would run other phases than agent node1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "out"));  // refused before anything started
  EXPECT_EQ(CountEntries(tmp / "a") + CountEntries(tmp / "b"), 0u);
}

TEST(FilesStep, TreeLeftForCleanupAndSizesFromTheDistribution) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", R"(name: sizes
steps:
  - name: make
    files: { dirs: 2, files_per_dir: 200, sizes: [{ size: 1KiB, weight: 1 }, { size: 9KiB, weight: 1 }], ops: [mkdir, create] }
  - name: look
    files: { dirs: 2, files_per_dir: 200, ops: [stat, read] }
)");
  CommandResult r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string()}, "", {}});
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  uint64_t written = (*Phase(report["steps"][0], "create"))["bytes"];
  EXPECT_EQ((*Phase(report["steps"][1], "read"))["bytes"].get<uint64_t>(), written);
  // 400 files of 1 or 9 KiB, about half each: far from all-small and all-large.
  EXPECT_GT(written, 400u * 3 * 1024);
  EXPECT_LT(written, 400u * 7 * 1024);
  EXPECT_EQ(CountEntries(tmp / "data"), 0u);  // the tree the run made is gone, and nothing else
}

TEST(FilesStep, ReadingATreeThatWasNeverMadeFailsNamingThePlace) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", "name: t\nsteps:\n  - files: { dir: nowhere, dirs: 1, files_per_dir: 1, ops: [stat] }\n");
  CommandResult r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string()}, "", {}});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("/nowhere"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ENOENT"), std::string::npos) << r.err;
}

TEST(CopyStep, CopiesATreeBetweenRootsAndReplacesOnlyItsOwnEarlierCopy) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", R"(name: cp
steps:
  - name: src
    once: true
    files: { dir: "local:src", dirs: 3, files_per_dir: 40, file_size: 20000, ops: [mkdir, create] }
  - name: in
    copy: { from: "local:src", to: a/dst, jobs: 3, block_size: 8KiB }
  - name: out
    copy: { from: a/dst, to: "local:back" }
repeat: 2
)");
  CommandResult r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string(), "local=" + (tmp / "local").string()}, "", {}});
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  ASSERT_EQ(report["steps"].size(), 5u);  // src once, then in and out in both cycles
  for (int i = 1; i < 5; ++i) {
    const json& agg = report["steps"][i]["aggregate"];
    EXPECT_EQ(report["steps"][i]["kind"], "copy");
    EXPECT_EQ(agg["files"].get<uint64_t>(), 120u);
    EXPECT_EQ(agg["dirs"].get<uint64_t>(), 4u);  // the top and its 3 directories
    EXPECT_EQ(agg["bytes"].get<uint64_t>(), 120u * 20000);
    EXPECT_NEAR(agg["gbps"].get<double>(), agg["bytes_per_sec"].get<double>() * 8 / 1e9, 1e-9);
  }
  EXPECT_TRUE(report["steps"][3]["aggregate"].contains("notes"));  // cycle 1 removed cycle 0's copy first
  EXPECT_EQ(report["summaries"].size(), 2u);
  EXPECT_TRUE(report["summaries"][0].contains("gbps"));
  EXPECT_EQ(CountEntries(tmp / "data"), 0u);
  EXPECT_EQ(CountEntries(tmp / "local"), 0u);
}

// copy.method end to end: copy_file_range between two roots on one file system copies the
// same bytes and says so in report.json; to a tmpfs root (EXDEV) the run fails naming the
// method, never falling back to read/write.
TEST(CopyStep, CopyFileRangeIsUsedAsAskedOrTheStepFails) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", R"(name: cfr
steps:
  - name: src
    files: { dir: "local:src", dirs: 2, files_per_dir: 10, file_size: 100000, ops: [mkdir, create] }
  - name: in
    copy: { from: "local:src", to: dst, method: copy_file_range }
)");
  CommandResult r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string(), "local=" + (tmp / "local").string()}, "", {}});
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  const json& agg = report["steps"][1]["aggregate"];
  EXPECT_EQ(agg["copy_method"], "copy_file_range");
  EXPECT_EQ(agg["bytes"].get<uint64_t>(), 20u * 100000);
  EXPECT_EQ(report["steps"][1]["agents"][0]["copy_method"], "copy_file_range");

  char shm[] = "/dev/shm/iofleet-cfr-XXXXXX";
  if (!mkdtemp(shm)) GTEST_SKIP() << "no /dev/shm here";
  CommandResult cross = RunLocal(tmp, {(tmp / "w.yaml").string(), {std::string(shm), "local=" + (tmp / "local").string()}, "", {}});
  std::error_code ec;
  fs::remove_all(shm, ec);
  // Kernels 5.3 to 5.18 copy across file systems by a splice fallback: nothing to refuse there.
  if (cross.code == 0) GTEST_SKIP() << "this kernel's copy_file_range copies between ext4 and tmpfs";
  EXPECT_EQ(cross.code, 1);
  EXPECT_NE(cross.err.find("copy: method copy_file_range is not supported between these file systems"), std::string::npos)
      << cross.err;
}

TEST(CopyStep, RefusesToOverwriteWhatTheRunDidNotMakeAndSymlinksInTheSource) {
  TempDir tmp;
  // A symlink planted in the source tree by a hook: the copy neither follows nor skips it.
  WriteText(tmp / "agent.yaml", "hooks:\n  plant:\n    command: [/bin/sh, -c, 'mkdir src && ln -s /etc src/escape']\n");
  WriteText(tmp / "w.yaml", "name: t\nsteps:\n  - hook: { name: plant }\n  - copy: { from: src, to: dst }\n");
  CommandResult r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string()}, (tmp / "agent.yaml").string(), {}});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("src/escape: copy: not a regular file or directory"), std::string::npos) << r.err;

  // What a files step made is not a copy: a copy onto it is refused, and the tree stays.
  WriteText(tmp / "w2.yaml", "name: t\nsteps:\n  - files: { dir: tree, dirs: 1, files_per_dir: 2, ops: [mkdir, create] }\n"
                             "  - files: { dir: src, dirs: 1, files_per_dir: 1, ops: [mkdir, create] }\n"
                             "  - copy: { from: src, to: tree }\n");
  r = RunLocal(tmp, {(tmp / "w2.yaml").string(), {(tmp / "data").string()}, "", {}});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("tree: copy: already exists and this run did not make it; refused"), std::string::npos) << r.err;

  WriteText(tmp / "agent.yaml", "hooks:\n  plant:\n    command: [/bin/sh, -c, 'mkdir src dst']\n");
  r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string()}, (tmp / "agent.yaml").string(), {}});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("dst: copy: already exists and this run did not make it; refused"), std::string::npos) << r.err;
}

TEST(HookStep, TimedNamedCommandsFromTheAgentConfigOnly) {
  TempDir tmp;
  WriteText(tmp / "agent.yaml", "hooks:\n  ok:\n    command: [/bin/sh, -c, 'sleep 0.2; echo \"$IOFLEET_HOOK\" > \"" + (tmp / "hook-ran").string() + "\"']\n"
                                "  bad:\n    command: [/bin/sh, -c, 'echo disk on fire >&2; exit 3']\n"
                                "  slow:\n    command: [/bin/sleep, '30']\n    timeout: 300ms\n");
  WriteText(tmp / "w.yaml", "name: t\nsteps:\n  - hook: { name: ok }\n  - io: { op: write, file_size: 1MiB }\n");
  CommandResult r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string()}, (tmp / "agent.yaml").string(), {}});
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  EXPECT_EQ(report["steps"][0]["kind"], "hook");
  EXPECT_GE(report["steps"][0]["aggregate"]["seconds"].get<double>(), 0.2);
  EXPECT_EQ(report["steps"][0]["aggregate"]["notes"][0], "hook ok: exit 0");
  EXPECT_EQ(ReadFirstLine(tmp / "hook-ran"), "ok");

  WriteText(tmp / "w.yaml", "name: t\nsteps:\n  - hook: { name: bad }\n");
  fs::remove_all(tmp / "out");
  r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string()}, (tmp / "agent.yaml").string(), {}});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("hook bad (/bin/sh) exited with status 3: output: disk on fire"), std::string::npos) << r.err;

  WriteText(tmp / "w.yaml", "name: t\nsteps:\n  - hook: { name: slow }\n");
  r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string()}, (tmp / "agent.yaml").string(), {}});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("hook slow: still running after its timeout; killed"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 10.0);

  // A name the config does not define: refused before anything starts.
  WriteText(tmp / "w.yaml", "name: t\nsteps:\n  - io: { op: write, file_size: 1MiB }\n  - hook: { name: rm-rf }\n");
  fs::remove_all(tmp / "out");
  r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string()}, (tmp / "agent.yaml").string(), {}});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no hook named \"rm-rf\" in this agent's config (hooks: bad, ok, slow)"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "out"));
  EXPECT_EQ(CountEntries(tmp / "data"), 0u);
}

TEST(AgentConfig, BadHookConfigNamesTheLine) {
  TempDir tmp;
  WriteText(tmp / "agent.yaml", "hooks:\n  mkfs:\n    command: [mkfs.ext4, /dev/sdz]\n");
  CommandResult r = RunCommand({BinPath("iofleet-agent"), "--listen", "127.0.0.1:0", "--insecure", "--root",
                                tmp.path().string(), "--config", (tmp / "agent.yaml").string()},
                               tmp / "logs", std::chrono::seconds(10));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("agent.yaml:3:14: hooks.mkfs.command: the program must be an absolute path"), std::string::npos) << r.err;
}

TEST(ReadaheadStep, SetDuringTheRunRestoredAtItsEndAndRefusedWithoutPermission) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for a loop device";
  TempDir tmp;
  LoopFs loop(tmp / "img", tmp / "mnt");
  if (!loop.ok()) GTEST_SKIP() << "cannot make a loop-mounted ext4 here (losetup/mount refused)";
  const std::string original = ReadFirstLine(loop.ReadaheadFile());
  WriteText(tmp / "agent.yaml", "allow_readahead: true\nstate_dir: " + (tmp / "state").string() + "\n");
  WriteText(tmp / "w.yaml", R"(name: ra
steps:
  - name: ra
    readahead: { kib: 300 }
  - io: { op: read, direct: false, engine: psync, file_size: 4MiB }
sweep:
  steps[ra].readahead.kib: [300, 1200]
)");
  CommandResult r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "mnt").string()}, (tmp / "agent.yaml").string(), {}});
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  const std::string first = report["steps"][0]["aggregate"]["notes"][0];
  EXPECT_NE(first.find(": " + original + " -> 300 KiB"), std::string::npos) << first;
  const std::string second = report["steps"][2]["aggregate"]["notes"][0];
  EXPECT_NE(second.find(": 300 -> 1200 KiB"), std::string::npos) << second;
  EXPECT_EQ(ReadFirstLine(loop.ReadaheadFile()), original);
  EXPECT_FALSE(fs::exists(tmp / "state/readahead-local.record"));

  WriteText(tmp / "agent.yaml", "allow_readahead: false\n");
  fs::remove_all(tmp / "out");
  r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "mnt").string()}, (tmp / "agent.yaml").string(), {}});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("allow_readahead: true"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "out"));
}

TEST(ReadaheadStep, AKilledAgentRestoresTheOriginalWhenItStartsAgain) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for a loop device";
  TempDir tmp;
  LoopFs loop(tmp / "img", tmp / "mnt");
  if (!loop.ok()) GTEST_SKIP() << "cannot make a loop-mounted ext4 here (losetup/mount refused)";
  const std::string original = ReadFirstLine(loop.ReadaheadFile());
  const std::string changed = original == "4000" ? "4004" : "4000";
  WriteText(tmp / "agent.yaml", "allow_readahead: true\nstate_dir: " + (tmp / "state").string() + "\n");
  WriteText(tmp / "w.yaml", "name: ra\nsteps:\n  - readahead: { kib: " + changed + " }\n  - sleep: { duration: 60s }\n");
  auto agent = std::make_unique<AgentProcess>(tmp / "mnt", "node1", tmp / "logs-agent", std::vector<std::string>{},
                                              std::vector<std::string>{},
                                              std::vector<std::string>{"--config", (tmp / "agent.yaml").string()});
  Process controller({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent->address(), "--out",
                      (tmp / "out").string()},
                     tmp / "logs");
  for (int i = 0; i < 100 && ReadFirstLine(loop.ReadaheadFile()) != changed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(ReadFirstLine(loop.ReadaheadFile()), changed);
  agent->process().Signal(SIGKILL);
  agent->process().Wait(std::chrono::seconds(5));
  controller.Signal(SIGKILL);
  controller.Wait(std::chrono::seconds(5));
  EXPECT_EQ(ReadFirstLine(loop.ReadaheadFile()), changed);  // nobody put it back yet
  EXPECT_TRUE(fs::exists(tmp / "state/readahead-node1.record"));

  AgentProcess again(tmp / "mnt", "node1", tmp / "logs-again", {}, {}, {"--config", (tmp / "agent.yaml").string()});
  EXPECT_EQ(ReadFirstLine(loop.ReadaheadFile()), original);
  EXPECT_FALSE(fs::exists(tmp / "state/readahead-node1.record"));
  EXPECT_NE(again.process().Stderr().find("restored read-ahead " + original + " KiB"), std::string::npos) << again.process().Stderr();
}

// `argv` in a mount namespace of its own where each of `read_only` is
// bind-mounted read-only over itself, as the shipped unit's ProtectKernelTunables makes /proc/sys
// and /sys for the agent; the local agent the controller starts is in it too.
std::vector<std::string> WithReadOnly(const std::vector<std::string>& read_only, const std::vector<std::string>& argv) {
  std::string script;
  for (const auto& path : read_only) script += "mount --bind '" + path + "' '" + path + "' && mount -o remount,bind,ro '" + path + "' && ";
  std::vector<std::string> out = {"/usr/bin/unshare", "-m", "/bin/sh", "-c", script + "exec \"$0\" \"$@\""};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

// Whether this kernel lets a test make `path` read-only in a mount namespace (root, no seccomp).
bool CanMakeReadOnly(const std::string& path, const TempDir& tmp) {
  return geteuid() == 0 && RunCommand(WithReadOnly({path}, {"/bin/true"}), tmp / "logs-probe", std::chrono::seconds(10)).code == 0;
}

// drop_caches allowed by the agent's config but not writable by the agent process: refused at
// Prepare (exit 2, nothing run), naming the agent, the step, the file, errno and the fix.
TEST(DropCachesStep, RefusedAtPrepareWhereTheAgentCannotWriteIt) {
  TempDir tmp;
  const std::string drop_caches = "/proc/sys/vm/drop_caches";
  if (!CanMakeReadOnly(drop_caches, tmp)) GTEST_SKIP() << "needs root and mount namespaces (unshare -m) to make " << drop_caches << " read-only";
  fs::create_directories(tmp / "data");
  WriteText(tmp / "agent.yaml", "allow_drop_caches: true\n");
  WriteText(tmp / "w.yaml", R"(name: dc
steps:
  - io: { op: write, direct: false, engine: psync, file_size: 1MiB }
  - name: drop
    drop_caches: {}
  - io: { op: read, direct: false, engine: psync, file_size: 1MiB }
)");
  CommandResult r = RunCommand(WithReadOnly({drop_caches}, {BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--local-root",
                                                            (tmp / "data").string(), "--local-config", (tmp / "agent.yaml").string(),
                                                            "--out", (tmp / "out").string()}),
                               tmp / "logs");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("agent local: step drop: drop_caches: /proc/sys/vm/drop_caches cannot be opened for writing: "
                       "Read-only file system (EROFS)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("deploy/systemd/iofleet-agent-privileged.conf"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "out"));  // refused before any step ran
  EXPECT_EQ(CountEntries(tmp / "data"), 0u);
}

TEST(ReadaheadStep, RefusedAtPrepareWhereTheAgentCannotWriteIt) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for a loop device";
  TempDir tmp;
  LoopFs loop(tmp / "img", tmp / "mnt");
  if (!loop.ok()) GTEST_SKIP() << "cannot make a loop-mounted ext4 here (losetup/mount refused)";
  const std::string file = fs::canonical(loop.ReadaheadFile()).string();
  if (!CanMakeReadOnly(file, tmp)) GTEST_SKIP() << "needs mount namespaces (unshare -m) to make " << file << " read-only";
  const std::string original = ReadFirstLine(file);
  WriteText(tmp / "agent.yaml", "allow_readahead: true\nstate_dir: " + (tmp / "state").string() + "\n");
  WriteText(tmp / "w.yaml", R"(name: ra
steps:
  - name: ra
    readahead: { kib: 300 }
  - io: { op: read, direct: false, engine: psync, file_size: 1MiB }
)");
  CommandResult r = RunCommand(WithReadOnly({file}, {BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--local-root",
                                                     (tmp / "mnt").string(), "--local-config", (tmp / "agent.yaml").string(),
                                                     "--out", (tmp / "out").string()}),
                               tmp / "logs");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("agent local: step ra: readahead: " + file + " cannot be opened for writing: Read-only file system (EROFS)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("deploy/systemd/iofleet-agent-privileged.conf"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "out"));
  EXPECT_EQ(ReadFirstLine(file), original);
}

// The shipped workloads of seeds 000 and 004, scaled down with --set.

// Where a run ran, and page-cache residency measured before each read
// step (so none right after drop_caches), CPU for files steps and none for host steps, and each
// agent's kernel, file system and device in report.json.
TEST(Measurements, CacheResidencyCpuAndHostAreMeasuredOrLeftOut) {
  if (geteuid() != 0) GTEST_SKIP() << "drop_caches needs root";
  TempDir tmp;
  WriteText(tmp / "agent.yaml", "allow_drop_caches: true\n");
  WriteText(tmp / "w.yaml", R"(name: measured
defaults: { engine: psync, block_size: 1MiB, file_size: 16MiB, direct: false }
steps:
  - io: { op: write, fsync: { at_end: true } }
  - drop_caches: {}
  - name: cold
    io: { op: read }
  - name: warm
    io: { op: read }
  - sync: {}
  - sleep: { duration: 100ms }
  - files: { dirs: 4, files_per_dir: 500, file_size: 4KiB, jobs: 2, ops: [mkdir, create] }
)");
  CommandResult r = RunLocal(tmp, {(tmp / "w.yaml").string(), {(tmp / "data").string()}, (tmp / "agent.yaml").string(), {}});
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  json report = ReadReport(tmp / "out");
  const json& steps = report["steps"];
  ASSERT_EQ(steps.size(), 7u);
  const json& cold = steps[2]["aggregate"];
  ASSERT_TRUE(cold.contains("cache_resident_pct")) << cold;
  EXPECT_LT(cold["cache_resident_pct"].get<double>(), 10.0);
  EXPECT_EQ(cold["cache_resident"], false);
  const json& warm = steps[3]["aggregate"];
  ASSERT_TRUE(warm.contains("cache_resident_pct")) << warm;
  EXPECT_GT(warm["cache_resident_pct"].get<double>(), 90.0);
  EXPECT_EQ(warm["cache_resident"], true);
  EXPECT_NE(r.out.find("in the page cache when the step started"), std::string::npos) << r.out;
  EXPECT_FALSE(steps[0]["aggregate"].contains("cache_resident")) << "a write step reads nothing";
  for (int host_step : {1, 4, 5}) {  // drop_caches, sync, sleep (the controller's: no agent rows)
    std::vector<json> entries = {steps[host_step]["aggregate"]};
    for (const auto& row : steps[host_step]["agents"]) entries.push_back(row);
    for (const json& entry : entries) {
      EXPECT_FALSE(entry.contains("cpu")) << steps[host_step]["kind"] << entry;
      EXPECT_FALSE(entry.contains("client_cpu_bound")) << steps[host_step]["kind"];
    }
  }
  const json& files = steps[6];
  ASSERT_TRUE(files["aggregate"].contains("cpu")) << files["aggregate"];
  const json& cpu = files["aggregate"]["cpu"];
  EXPECT_GT(cpu["process_user_sec"].get<double>() + cpu["process_sys_sec"].get<double>(), 0.0);
  EXPECT_GT(cpu["worker_user_sec"].get<double>() + cpu["worker_sys_sec"].get<double>(), 0.0);
  for (const auto& phase : files["phases"]) EXPECT_TRUE(phase.contains("cpu")) << phase["op"];

  const json& agent = report["agents"][0];
  ASSERT_TRUE(agent.contains("host")) << agent.dump();
  const json& host = agent["host"];
  EXPECT_FALSE(host["kernel"].get<std::string>().empty());
  EXPECT_GE(host["cpus"].get<int>(), 1);
  EXPECT_GT(host["memory_bytes"].get<uint64_t>(), 0u);
  EXPECT_FALSE(host["fs_type"].get<std::string>().empty());
  EXPECT_NE(host["fs_type"], "tmpfs");  // the build tree's file system
  EXPECT_TRUE(host.contains("mount_options"));
}

// The cuno script's procedure, read back from report.json: the setup, then `in_cycles` copy-in
// cycles (each a drop_caches right before the timed copy), the local source deleted, then
// `out_cycles` copy-out cycles the same way; every copy with Gbps and GiB/s. Returns the
// index of the first step after the copy-out cycles.
size_t ExpectCunoProcedure(const json& report, int in_cycles, int out_cycles) {
  const json& steps = report["steps"];
  size_t at = 0;
  auto expect = [&](const std::string& name, const std::string& kind, const std::string& group, int group_cycle) {
    EXPECT_LT(at, steps.size()) << "missing step " << name;
    if (at >= steps.size()) return;
    const json& step = steps[at];
    EXPECT_EQ(step["name"], name) << "step " << at;
    EXPECT_EQ(step["kind"], kind) << "step " << at;
    EXPECT_EQ(step["status"], "succeeded") << "step " << at;
    if (group.empty()) {
      EXPECT_FALSE(step.contains("group")) << "step " << at;
    } else {
      EXPECT_EQ(step.value("group", ""), group) << "step " << at;
      EXPECT_EQ(step.value("group_cycle", -1), group_cycle) << "step " << at;
    }
    ++at;
  };
  expect("make-source", "files", "", 0);
  expect("upload-source", "copy", "", 0);
  for (int g = 0; g < in_cycles; ++g) {
    expect("clear-cache-in", "drop_caches", "local-to-remote", g);  // right before each timed copy
    expect("copy-in", "copy", "local-to-remote", g);
  }
  expect("delete-local-source", "files", "", 0);
  for (int g = 0; g < out_cycles; ++g) {
    expect("clear-cache-out", "drop_caches", "remote-to-local", g);
    expect("copy-out", "copy", "remote-to-local", g);
  }
  for (const auto& step : steps) {
    if (step["kind"] != "copy") continue;
    const json& agg = step["aggregate"];
    EXPECT_GT(agg["gbps"].get<double>(), 0.0) << step["name"];
    EXPECT_GT(agg["gib_per_sec"].get<double>(), 0.0) << step["name"];
    // The script's own conversion: Gbps = GiB/s x 8.58993.
    EXPECT_NEAR(agg["gbps"].get<double>() / agg["gib_per_sec"].get<double>(), 8.589934592, 1e-6) << step["name"];
    EXPECT_EQ(agg["copy_method"], "read_write") << step["name"];  // cp 8.30's, and the default
  }
  // The local source was deleted between the two phases, all of it.
  const json* deleted = nullptr;
  for (const auto& step : steps) {
    if (step["name"] == "delete-local-source") deleted = &step;
  }
  EXPECT_NE(deleted, nullptr);
  if (deleted) {
    const json* made = Phase(steps[0], "create");
    const json* gone = Phase(*deleted, "delete");
    EXPECT_TRUE(made && gone);
    if (made && gone) EXPECT_EQ((*gone)["ops"], (*made)["ops"]);
  }
  // Summaries over each group's cycles: copy-in over in_cycles, copy-out over out_cycles.
  std::map<std::string, int> summarized;
  for (const auto& s : report["summaries"]) {
    if (s["name"] != "copy-in" && s["name"] != "copy-out") continue;
    summarized[s["name"]] = s["gib_per_sec"]["cycles"].get<int>();
    EXPECT_EQ(s["gbps"]["cycles"], s["gib_per_sec"]["cycles"]);
    EXPECT_GT(s["seconds"]["mean"].get<double>(), 0.0);
    EXPECT_LE(s["gbps"]["ci95_low"].get<double>(), s["gbps"]["mean"].get<double>());
  }
  EXPECT_EQ(summarized["copy-in"], in_cycles);
  EXPECT_EQ(summarized["copy-out"], out_cycles);
  return at;
}

TEST(ShippedWorkloads, CunoLargeFiles) {
  TempDir tmp;
  CommandResult r = RunLocal(tmp, {"workloads/cuno-large-files.yaml",
                                   {(tmp / "data").string(), "local=" + (tmp / "local").string()},
                                   SourcePath("deploy/agent.example.yaml"),
                                   {"steps[make-source].files.file_size=3MiB", "steps[local-to-remote].group.repeat=3",
                                    "steps[remote-to-local].group.repeat=2"}});
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  EXPECT_EQ(ExpectCunoProcedure(report, 3, 2), report["steps"].size());
  for (const auto& step : report["steps"]) {
    if (step["kind"] != "copy") continue;
    EXPECT_EQ(step["aggregate"]["files"].get<uint64_t>(), 5u) << step["name"];
    EXPECT_EQ(step["aggregate"]["bytes"].get<uint64_t>(), 5u * 3 << 20) << step["name"];
  }
  EXPECT_NE(r.out.find("Gbps"), std::string::npos);
  EXPECT_EQ(CountEntries(tmp / "data"), 0u);
  EXPECT_EQ(CountEntries(tmp / "local"), 0u);
}

TEST(ShippedWorkloads, CunoSmallFiles) {
  TempDir tmp;
  std::vector<std::string> sets = {"steps[local-to-remote].group.repeat=2", "steps[remote-to-local].group.repeat=3"};
  for (const char* step : {"make-source", "delete-local-source", "delete-remote-copy", "delete-remote-source"}) {
    sets.push_back(std::string("steps[") + step + "].files.dirs=3");
    sets.push_back(std::string("steps[") + step + "].files.files_per_dir=100");
  }
  CommandResult r = RunLocal(tmp, {"workloads/cuno-small-files.yaml",
                                   {(tmp / "data").string(), "local=" + (tmp / "local").string()},
                                   SourcePath("deploy/agent.example.yaml"), sets});
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  const json& steps = report["steps"];
  size_t after = ExpectCunoProcedure(report, 2, 3);
  // Then deleted from the storage under test: the last copy-in's tree and the uploaded source.
  ASSERT_EQ(steps.size(), after + 2);
  EXPECT_EQ(steps[after]["name"], "delete-remote-copy");
  EXPECT_EQ(steps[after + 1]["name"], "delete-remote-source");
  for (size_t i : {after, after + 1}) EXPECT_EQ((*Phase(steps[i], "delete"))["ops"], 300) << steps[i]["name"];
  uint64_t source_bytes = (*Phase(steps[0], "create"))["bytes"];
  for (const auto& step : steps) {
    if (step["kind"] != "copy") continue;
    EXPECT_EQ(step["aggregate"]["files"].get<uint64_t>(), 300u) << step["name"];
    EXPECT_EQ(step["aggregate"]["bytes"].get<uint64_t>(), source_bytes) << step["name"];
    EXPECT_GT(step["aggregate"]["files_per_sec"].get<double>(), 0.0);
  }
  EXPECT_EQ(CountEntries(tmp / "data"), 0u);
  EXPECT_EQ(CountEntries(tmp / "local"), 0u);
}

TEST(ShippedWorkloads, BonnieReadaheadSweep) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for a loop device";
  TempDir tmp;
  LoopFs loop(tmp / "img", tmp / "mnt");
  if (!loop.ok()) GTEST_SKIP() << "cannot make a loop-mounted ext4 here (losetup/mount refused)";
  const std::string original = ReadFirstLine(loop.ReadaheadFile());
  WriteText(tmp / "agent.yaml", "allow_readahead: true\nallow_drop_caches: true\nstate_dir: " + (tmp / "state").string() + "\n");
  CommandResult r = RunLocal(tmp, {"workloads/bonnie-readahead-sweep.yaml", {(tmp / "mnt").string()}, (tmp / "agent.yaml").string(),
                                   {"file_size=4MiB", "sweep={defaults.block_size: [8KiB, 256KiB], 'steps[readahead].readahead.kib': [0, 1024]}"}});
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  ASSERT_EQ(report["steps"].size(), 4u * 4);
  for (const auto& step : report["steps"]) {
    if (step["kind"] == "readahead") {
      std::string kib = std::to_string(step["params"]["steps[readahead].readahead.kib"].get<int>());
      EXPECT_NE(step["aggregate"]["notes"][0].get<std::string>().find("-> " + kib + " KiB"), std::string::npos);
    }
    if (step["kind"] == "io") {
      EXPECT_EQ(step["aggregate"]["bytes"].get<uint64_t>(), 4u << 20);
      EXPECT_GT(step["aggregate"]["bytes_per_sec"].get<double>(), 0.0);
    }
  }
  EXPECT_EQ(ReadFirstLine(loop.ReadaheadFile()), original);
}

TEST(ShippedWorkloads, BonnieMkfsFsck) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for a loop device";
  TempDir tmp;
  // The device the hooks format: a second loop device, so the target root itself stays.
  LoopFs target(tmp / "img", tmp / "mnt");
  if (!target.ok()) GTEST_SKIP() << "cannot make a loop-mounted ext4 here (losetup/mount refused)";
  LoopFs scratch(tmp / "scratch.img", tmp / "unused");
  if (!scratch.ok()) GTEST_SKIP() << "cannot make a second loop device";
  umount2((tmp / "unused").c_str(), 0);
  // The example config with the test's device in place of /dev/sdc, and a reserve that fits
  // its 128 MiB (the seed's 102400 blocks are 400 MB).
  std::ifstream in(SourcePath("deploy/agent.mkfs-fsck.example.yaml"));
  std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t at; (at = config.find("/dev/sdc")) != std::string::npos;) config.replace(at, 8, scratch.device());
  for (size_t at; (at = config.find("-r 102400")) != std::string::npos;) config.replace(at, 9, "-r 1024");
  WriteText(tmp / "agent.yaml", config);
  // The file-system variant is a hook chosen by sweeping its name.
  CommandResult r = RunLocal(tmp, {"workloads/bonnie-mkfs-fsck.yaml", {(tmp / "mnt").string()}, (tmp / "agent.yaml").string(),
                                   {"steps[fill].files.files_per_dir=20", "steps[fill].files.file_size=64KiB",
                                    "sweep={'steps[fill].files.dirs': [5, 40], 'steps[mkfs].hook.name': [mkfs, mkfs_ext3_writeback]}"}});
  ASSERT_EQ(r.code, 0) << r.err;
  json report = ReadReport(tmp / "out");
  ASSERT_EQ(report["steps"].size(), 4u * 5);
  std::set<std::string> hooks;
  std::map<uint64_t, uint64_t> fsck_inodes_by_dirs;
  for (const auto& step : report["steps"]) {
    if (step["name"] == "mkfs" || step["name"] == "fsck") {
      EXPECT_GT(step["aggregate"]["seconds"].get<double>(), 0.0);
      EXPECT_EQ(step["status"], "succeeded");
      ASSERT_TRUE(step["aggregate"].contains("fill_at_end")) << step;
    }
    if (step["name"] == "mkfs") {
      std::string hook = step["params"]["steps[mkfs].hook.name"];
      hooks.insert(hook);
      EXPECT_NE(step["aggregate"]["notes"][0].get<std::string>().find("hook " + hook + ":"), std::string::npos) << step;
      EXPECT_FALSE(step["aggregate"].contains("fill_at_start"));  // mnt is made by the hook
      EXPECT_LE(step["aggregate"]["fill_at_end"]["use_pct"].get<int>(), 10);  // an empty file system
    }
    if (step["name"] == "fsck") {
      // The point's fill level: its files (40 x 20 x 64 KiB = 50 MiB of 128 MiB) and inodes.
      const json& fill = step["aggregate"]["fill_at_start"];
      uint64_t dirs = step["params"]["steps[fill].files.dirs"];
      EXPECT_GE(fill["used_bytes"].get<uint64_t>(), dirs * 20 * 65536) << fill;
      EXPECT_GE(fill["inodes_used"].get<uint64_t>(), dirs * 21) << fill;
      if (dirs == 40) EXPECT_GE(fill["use_pct"].get<int>(), 40) << fill;
    }
    if (step["name"] == "fill") {
      uint64_t dirs = step["params"]["steps[fill].files.dirs"];
      EXPECT_EQ((*Phase(step, "mkdir"))["ops"].get<uint64_t>(), dirs);
      EXPECT_EQ((*Phase(step, "create"))["ops"].get<uint64_t>(), dirs * 20);
    }
  }
  EXPECT_EQ(hooks, (std::set<std::string>{"mkfs", "mkfs_ext3_writeback"}));
  EXPECT_EQ(CountEntries(tmp / "mnt") - (fs::exists(tmp / "mnt/lost+found") ? 1 : 0), 0u);
}

}  // namespace
}  // namespace iofleet::testing
