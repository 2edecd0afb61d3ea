// Bad input is rejected with exit code 2 and a message naming the place, before any I/O.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "tests/support/http_client.h"
#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override { agent_ = std::make_unique<AgentProcess>(tmp_ / "root", "node1", tmp_ / "logs"); }

  CommandResult Run(const std::string& yaml, const std::string& command = "run") {
    std::ofstream(tmp_ / "w.yaml") << yaml;
    std::vector<std::string> argv = {BinPath("iofleet"), command, (tmp_ / "w.yaml").string()};
    if (command == "run") {
      argv.insert(argv.end(), {"--agents", agent_->address(), "--out", (tmp_ / "out").string()});
    }
    return RunCommand(argv, tmp_ / "logs", std::chrono::seconds(30));
  }
  void ExpectNothingStarted() {
    EXPECT_EQ(CountEntries(tmp_ / "root"), 0u);
    EXPECT_FALSE(fs::exists(tmp_ / "out"));
    EXPECT_TRUE(agent_->process().Running());
  }

  TempDir tmp_;
  std::unique_ptr<AgentProcess> agent_;
};

constexpr const char* kSteps = "steps:\n  - io: { op: write, file_size: 1MiB }\n";

TEST_F(BadInput, UnknownKey) {
  for (const char* command : {"run", "validate"}) {
    auto r = Run(std::string("name: t\ndefaults:\n  queue_dept: 4\n") + kSteps, command);
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_NE(r.err.find("w.yaml:3:3: defaults.queue_dept: unknown key (did you mean queue_depth?)"), std::string::npos) << r.err;
  }
  ExpectNothingStarted();
}

TEST_F(BadInput, BadSize) {
  auto r = Run(std::string("name: t\ndefaults:\n  block_size: 4kb\n") + kSteps);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("w.yaml:3:15: defaults.block_size: \"4kb\" is not a size (did you mean 4KiB?)"), std::string::npos) << r.err;
  ExpectNothingStarted();
}

TEST_F(BadInput, NegativeCount) {
  auto r = Run(std::string("name: t\ndefaults:\n  jobs: -2\n") + kSteps);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("w.yaml:3:9: defaults.jobs: \"-2\" must not be negative"), std::string::npos) << r.err;
  ExpectNothingStarted();
}

// Issue 21's fields, each refused at its place with exit 2 before anything starts: bounds first
// (a file with a value out of bounds gets no further), then the rules between fields.
TEST_F(BadInput, PacingAndOrderFieldsAreRefusedWhereWritten) {
  auto bounds = Run("name: t\n"
                    "steps:\n"
                    "  - name: c\n"
                    "    io: { op: write, file_size: 1MiB, rate: { cycle: 50ms }, io_size: 0 }\n");
  EXPECT_EQ(bounds.code, 2) << bounds.out << bounds.err;
  for (const char* said : {"w.yaml:4:54: steps[0].io.rate.cycle: 50ms is below the minimum 100ms",
                           "w.yaml:4:71: steps[0].io.io_size: 0B is below the minimum 1B"}) {
    EXPECT_NE(bounds.err.find(said), std::string::npos) << said << "\n" << bounds.err;
  }
  auto rules = Run("name: t\n"
                   "steps:\n"
                   "  - name: a\n"
                   "    io: { op: read, block_size: 4KiB, file_size: 1MiB, skip: 3KiB, rate: { iops: 10, min_iops: 20 } }\n"
                   "  - name: b\n"
                   "    io: { op: randread, file_size: 1MiB, runtime: 1s, loops: 2, think: { time: 1ms, spin: 2ms } }\n");
  EXPECT_EQ(rules.code, 2) << rules.out << rules.err;
  for (const char* said : {"w.yaml:4:56: steps[0].io.skip: skip 3KiB is not a multiple of the block size 4KiB",
                           "w.yaml:4:86: steps[0].io.rate.min_iops: 20 is above the cap rate.iops 10",
                           "w.yaml:6:55: steps[1].io.loops: has no effect here: loops applies to size-based steps",
                           "w.yaml:6:85: steps[1].io.think.spin: 2ms is longer than think.time 1ms"}) {
    EXPECT_NE(rules.err.find(said), std::string::npos) << said << "\n" << rules.err;
  }
  ExpectNothingStarted();
}

// fio's flow as a workload field: its bounds, then a flow id without a weight.
TEST_F(BadInput, FlowFieldsAreRefusedWhereWritten) {
  auto bounds = Run("name: t\n"
                    "steps:\n"
                    "  - name: c\n"
                    "    io: { op: read, file_size: 1MiB, flow: { weight: 1001, sleep: 10ns } }\n");
  EXPECT_EQ(bounds.code, 2) << bounds.out << bounds.err;
  for (const char* said : {"w.yaml:4:54: steps[0].io.flow.weight: 1001 is above the maximum 1000",
                           "w.yaml:4:67: steps[0].io.flow.sleep: 10ns is below the minimum 1us"}) {
    EXPECT_NE(bounds.err.find(said), std::string::npos) << said << "\n" << bounds.err;
  }
  auto rules = Run("name: t\n"
                   "steps:\n"
                   "  - name: c\n"
                   "    io: { op: read, file_size: 1MiB, flow: { id: 2 } }\n");
  EXPECT_EQ(rules.code, 2) << rules.out << rules.err;
  const char* said = "w.yaml:4:38: steps[0].io.flow: flow.id and flow.sleep belong to a job in a flow: set flow.weight as well";
  EXPECT_NE(rules.err.find(said), std::string::npos) << said << "\n" << rules.err;
  ExpectNothingStarted();
}

TEST_F(BadInput, DedupeWorkingSetFieldsAreRefusedWhereWritten) {
  auto bounds = Run("name: t\n"
                    "steps:\n"
                    "  - name: c\n"
                    "    io: { op: write, file_size: 1MiB, data: { dedupe_pct: 50, dedupe_working_set_pct: 0 } }\n");
  EXPECT_EQ(bounds.code, 2) << bounds.out << bounds.err;
  const char* below = "w.yaml:4:87: steps[0].io.data.dedupe_working_set_pct: 0 is below the minimum 1";
  EXPECT_NE(bounds.err.find(below), std::string::npos) << below << "\n" << bounds.err;
  auto rules = Run("name: t\n"
                   "steps:\n"
                   "  - name: c\n"
                   "    io: { op: write, file_size: 1MiB, data: { dedupe_pct: 50, dedupe_global: true } }\n");
  EXPECT_EQ(rules.code, 2) << rules.out << rules.err;
  const char* said = "w.yaml:4:63: steps[0].io.data.dedupe_global: shares a working set among the jobs: set data.dedupe_working_set_pct as well";
  EXPECT_NE(rules.err.find(said), std::string::npos) << said << "\n" << rules.err;
  ExpectNothingStarted();
}

TEST_F(BadInput, AnOffsetOffABlockIsRefusedWhereWritten) {
  auto r = Run("name: t\n"
               "steps:\n"
               "  - name: c\n"
               "    io: { op: read, block_size: 64KiB, file_size: 1MiB, offset: 4KiB }\n");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  const char* said = "w.yaml:4:57: steps[0].io.offset: 4KiB is not a multiple of the block size 64KiB";
  EXPECT_NE(r.err.find(said), std::string::npos) << said << "\n" << r.err;
  ExpectNothingStarted();
}

TEST_F(BadInput, SetOverridesAreCheckedLikeTheFile) {
  std::ofstream(tmp_ / "w.yaml") << std::string("name: t\n") + kSteps;
  auto validate = [&](std::vector<std::string> sets) {
    std::vector<std::string> argv = {BinPath("iofleet"), "validate", (tmp_ / "w.yaml").string()};
    for (auto& s : sets) argv.insert(argv.end(), {"--set", s});
    return RunCommand(argv, tmp_ / "logs");
  };
  auto ok = validate({"jobs=3", "steps[0].io.block_size=64KiB"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("jobs: 3"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("block_size: 64KiB"), std::string::npos) << ok.out;
  auto typo = validate({"defaults.jbos=3"});
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find("--set defaults.jbos=3: defaults.jbos: no field defaults.jbos (did you mean jobs?)"), std::string::npos) << typo.err;
  auto bad_value = validate({"block_size=4kb"});
  EXPECT_EQ(bad_value.code, 2);
  EXPECT_NE(bad_value.err.find("\"4kb\" is not a size (did you mean 4KiB?)"), std::string::npos) << bad_value.err;
  auto invalid = validate({"steps[0].io.file_size=1KiB"});  // smaller than the 1 MiB block
  EXPECT_EQ(invalid.code, 2);
  EXPECT_NE(invalid.err.find("with --set"), std::string::npos) << invalid.err;
  // A --set that every step overrides ran as before, silently.
  std::ofstream(tmp_ / "w.yaml") << "name: t\nsteps:\n  - io: { op: write, file_size: 1MiB, runtime: 2s }\n";
  auto overridden = validate({"runtime=3s", "block_size=64KiB"});
  EXPECT_EQ(overridden.code, 0) << overridden.err;
  EXPECT_NE(overridden.err.find("iofleet: warning: --set runtime=3s changes nothing any step runs: steps[0] (io-0) sets its own runtime"),
            std::string::npos)
      << overridden.err;
  EXPECT_EQ(overridden.err.find("block_size=64KiB"), std::string::npos) << overridden.err;
  ExpectNothingStarted();
}

TEST_F(BadInput, SetTakesOneSweptPathOrTheWholeSweep) {
  std::ofstream(tmp_ / "w.yaml") << std::string("name: t\n") + kSteps;
  for (const char* set : {"sweep.total_jobs=[1,2,4,8]", "sweep={total_jobs: [1,2,4,8]}"}) {
    auto r = RunCommand({BinPath("iofleet"), "validate", (tmp_ / "w.yaml").string(), "--set", set}, tmp_ / "logs");
    EXPECT_EQ(r.code, 0) << set << ": " << r.err;
    EXPECT_NE(r.out.find("# plan: 4 point(s)"), std::string::npos) << set << ": " << r.out;
  }
  auto bad = RunCommand({BinPath("iofleet"), "validate", (tmp_ / "w.yaml").string(), "--set", "sweep.total_jobs=[1,0]"},
                        tmp_ / "logs");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("below the minimum 1"), std::string::npos) << bad.err;
  ExpectNothingStarted();
}

// The local agent is started by this controller with --local-config, a remote one by its owner
// with --config: the refusal names the flag that applies.
TEST_F(BadInput, DropCachesRefusalNamesTheFlagThatStartsTheAgent) {
  std::ofstream(tmp_ / "w.yaml") << std::string("name: t\nsteps:\n  - drop_caches: {}\n  - io: { op: write, file_size: 1MiB }\n");
  fs::create_directories(tmp_ / "local");
  auto local = RunCommand({BinPath("iofleet"), "run", (tmp_ / "w.yaml").string(), "--local-root", (tmp_ / "local").string(),
                           "--out", (tmp_ / "out").string()},
                          tmp_ / "logs");
  EXPECT_EQ(local.code, 2);
  EXPECT_NE(local.err.find("the workload drops caches, which this agent's config does not allow (start it with "
                           "--local-config holding allow_drop_caches: true)"),
            std::string::npos)
      << local.err;
  EXPECT_EQ(CountEntries(tmp_ / "local"), 0u);
  auto remote = Run(std::string("name: t\nsteps:\n  - drop_caches: {}\n  - io: { op: write, file_size: 1MiB }\n"));
  EXPECT_EQ(remote.code, 2);
  EXPECT_NE(remote.err.find("agent node1: the workload drops caches, which this agent's config does not allow (start it with "
                            "--config holding allow_drop_caches: true)"),
            std::string::npos)
      << remote.err;
  ExpectNothingStarted();
}

// `validate` takes the local agent's options as `run` does, so a command line can be checked
// before it is run: --local-root's names are the roots target.root may name.
TEST_F(BadInput, ValidateTakesTheLocalAgentsOptions) {
  std::ofstream(tmp_ / "w.yaml") << std::string("name: t\ntarget: { root: scratch }\n") + kSteps;
  std::ofstream(tmp_ / "agent.yaml") << "allow_drop_caches: true\n";
  auto validate = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {BinPath("iofleet"), "validate", (tmp_ / "w.yaml").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, tmp_ / "logs");
  };
  auto named = validate({"--local-root", (tmp_ / "d").string(), "--local-root", "scratch=" + (tmp_ / "s").string(),
                         "--local-config", (tmp_ / "agent.yaml").string()});
  EXPECT_EQ(named.code, 0) << named.err;
  EXPECT_NE(named.out.find("root: \"scratch\""), std::string::npos) << named.out;
  auto unnamed = validate({"--local-root", (tmp_ / "d").string()});
  EXPECT_EQ(unnamed.code, 2);
  EXPECT_NE(unnamed.err.find("the workload uses root \"scratch\", which is not one of the local agent's roots (default; "
                             "add --local-root scratch=DIR)"),
            std::string::npos)
      << unnamed.err;
  // A copy step's ROOT:path counts too (the cuno workloads copy from a `local` root).
  auto cuno = RunCommand({BinPath("iofleet"), "validate", SourcePath("workloads/cuno-large-files.yaml"), "--local-root",
                          (tmp_ / "d").string(), "--local-config", SourcePath("deploy/agent.example.yaml")},
                         tmp_ / "logs");
  EXPECT_EQ(cuno.code, 2);
  EXPECT_NE(cuno.err.find("the workload uses root \"local\""), std::string::npos) << cuno.err;
  auto remote = validate({"--agents", agent_->address(), "--local-root", (tmp_ / "d").string()});
  EXPECT_EQ(remote.code, 2);
  EXPECT_NE(remote.err.find("--local-root and --local-config are for the local agent"), std::string::npos) << remote.err;
  EXPECT_FALSE(fs::exists(tmp_ / "d"));  // validate makes no directory
  ExpectNothingStarted();
}

TEST_F(BadInput, DirectoryOutsideTheRoot) {
  auto r = Run(std::string("name: t\ntarget: { dir: ../../etc }\n") + kSteps);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("w.yaml:2:11: target.dir"), std::string::npos) << r.err;
  ExpectNothingStarted();
}

TEST_F(BadInput, RootTheAgentDoesNotHave) {
  auto r = Run(std::string("name: t\ntarget: { root: scratch }\n") + kSteps);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("agent node1: target.root \"scratch\" is not one of its roots"), std::string::npos) << r.err;
  ExpectNothingStarted();
}

TEST_F(BadInput, SymlinkOutOfTheRootIsRefusedAndCanaryUntouched) {
  fs::create_directories(tmp_ / "outside");
  std::ofstream(tmp_ / "outside" / "canary") << "canary";
  fs::create_directory_symlink(tmp_ / "outside", tmp_ / "root" / "escape");
  auto r = Run(std::string("name: t\ntarget: { dir: escape }\n") + kSteps);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("agent node1: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("escape"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("refused"), std::string::npos) << r.err;
  EXPECT_EQ(CountEntries(tmp_ / "outside"), 1u);
  std::ifstream canary(tmp_ / "outside" / "canary");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(canary)), {}), "canary");
  EXPECT_EQ(CountEntries(tmp_ / "root"), 1u);  // only the symlink itself
}

// After `run --out DIR`, `history`, `compare` and `report` read another database and said only
// "no run": they name the database they read and how to read another.
TEST_F(BadInput, ARunIdNotFoundNamesTheDatabaseRead) {
  auto run = Run(std::string("name: t\n") + kSteps);
  ASSERT_EQ(run.code, 0) << run.err;
  std::string id;
  for (const auto& e : fs::directory_iterator(tmp_ / "out")) {
    if (e.is_directory()) id = e.path().filename().string();
  }
  ASSERT_FALSE(id.empty());
  fs::create_directories(tmp_ / "other");
  // A second database, of another run, that does not hold this one.
  auto other = RunCommand({BinPath("iofleet"), "run", (tmp_ / "w.yaml").string(), "--agents", agent_->address(), "--out",
                           (tmp_ / "other").string(), "--progress", "none"},
                          tmp_ / "logs");
  ASSERT_EQ(other.code, 0) << other.err;
  const std::string db = (tmp_ / "other" / "history.db").string();
  for (std::vector<std::string> args : {std::vector<std::string>{"compare", id, id}, {"report", id}, {"history", "--exclude", id}}) {
    args.insert(args.begin(), BinPath("iofleet"));
    args.insert(args.end(), {"--db", db});
    auto r = RunCommand(args, tmp_ / "logs");
    EXPECT_EQ(r.code, 2) << args[1] << ": " << r.err;
    EXPECT_NE(r.err.find("history database " + db + " has no run " + id + " (--db FILE reads another; a run with --out DIR keeps DIR/history.db)"),
              std::string::npos)
        << args[1] << ": " << r.err;
  }
  auto missing = RunCommand({BinPath("iofleet"), "history", "--db", (tmp_ / "nowhere.db").string()}, tmp_ / "logs");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("--db FILE reads another"), std::string::npos) << missing.err;
}

// A mistyped --local-root was made and benchmarked on whatever disk held it.
TEST_F(BadInput, AMissingLocalRootIsRefusedUnlessAskedToMakeIt) {
  std::ofstream(tmp_ / "w.yaml") << std::string("name: t\n") + kSteps;
  const fs::path missing = tmp_ / "mnt" / "nsf" / "deep";
  auto r = RunCommand({BinPath("iofleet"), "run", (tmp_ / "w.yaml").string(), "--local-root", missing.string(), "--out",
                       (tmp_ / "out").string(), "--progress", "none"},
                      tmp_ / "logs", std::chrono::seconds(30));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("iofleet: --local-root " + missing.string() + ": " + missing.string() +
                       ": No such file or directory (ENOENT): create it, or pass --create-local-root"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(tmp_ / "mnt"));
  EXPECT_FALSE(fs::exists(tmp_ / "out"));

  std::ofstream(tmp_ / "file") << "x";
  auto file = RunCommand({BinPath("iofleet"), "run", (tmp_ / "w.yaml").string(), "--local-root", (tmp_ / "file").string(),
                          "--out", (tmp_ / "out").string(), "--progress", "none"},
                         tmp_ / "logs", std::chrono::seconds(30));
  EXPECT_EQ(file.code, 2) << file.err;
  EXPECT_NE(file.err.find("is not a directory (ENOTDIR)"), std::string::npos) << file.err;

  auto made = RunCommand({BinPath("iofleet"), "run", (tmp_ / "w.yaml").string(), "--local-root", missing.string(),
                          "--create-local-root", "--out", (tmp_ / "out").string(), "--progress", "none"},
                         tmp_ / "logs", std::chrono::seconds(60));
  EXPECT_EQ(made.code, 0) << made.err;
  EXPECT_TRUE(fs::is_directory(missing));
}

// gRPC's SO_REUSEPORT let a second agent start on a port in use and take half the connections;
// for unix: it unlinked the first agent's socket and took the path over.
TEST(Listeners, EveryListenerRefusesAnAddressInUse) {
  TempDir tmp;
  AgentProcess first(tmp / "root1", "first", tmp / "logs1");
  fs::create_directories(tmp / "root2");
  auto second = RunCommand({BinPath("iofleet-agent"), "--listen", first.address(), "--insecure", "--root", (tmp / "root2").string(),
                            "--name", "second"},
                           tmp / "logs2", std::chrono::seconds(10));
  EXPECT_EQ(second.code, 2) << second.err;
  EXPECT_NE(second.err.find("iofleet-agent: --listen " + first.address() + ": cannot listen there: Address already in use (EADDRINUSE)"),
            std::string::npos)
      << second.err;
  for (int i = 0; i < 4; ++i) {  // every connection still reaches the first agent
    auto shown = RunCommand({BinPath("iofleet"), "agents", "--agents", first.address()}, tmp / "logs");
    EXPECT_EQ(shown.code, 0) << shown.err;
    EXPECT_NE(shown.out.find("first "), std::string::npos) << shown.out;
  }

  const std::string unix_socket = "unix:" + (tmp / "agent.sock").string();
  Process unix_first({BinPath("iofleet-agent"), "--listen", unix_socket, "--insecure", "--root", (tmp / "root1").string(), "--name", "ufirst"},
                     tmp / "logs3");
  ASSERT_TRUE(unix_first.WaitForStdout("listening on", std::chrono::seconds(10))) << unix_first.Stderr();
  auto unix_second = RunCommand({BinPath("iofleet-agent"), "--listen", unix_socket, "--insecure", "--root", (tmp / "root2").string(),
                                 "--name", "usecond"},
                                tmp / "logs4", std::chrono::seconds(10));
  EXPECT_EQ(unix_second.code, 2) << unix_second.err;
  EXPECT_NE(unix_second.err.find("--listen " + unix_socket + ": cannot listen there: Address already in use (EADDRINUSE)"), std::string::npos)
      << unix_second.err;
  auto shown = RunCommand({BinPath("iofleet"), "agents", "--agents", unix_socket}, tmp / "logs");
  EXPECT_NE(shown.out.find("ufirst "), std::string::npos) << shown.out << shown.err;
  unix_first.Signal(SIGTERM);
  EXPECT_EQ(unix_first.Wait(std::chrono::seconds(10)), 0);

  // The agent's --metrics and the controller's run --metrics on a port another listener holds.
  int held_port = 0;
  const int held = ListenOnLoopback(4, held_port);
  ASSERT_GE(held, 0);
  const std::string taken = "127.0.0.1:" + std::to_string(held_port);
  auto metrics = RunCommand({BinPath("iofleet-agent"), "--listen", "127.0.0.1:0", "--insecure", "--root", (tmp / "root2").string(),
                             "--metrics", taken},
                            tmp / "logs5", std::chrono::seconds(10));
  EXPECT_EQ(metrics.code, 2) << metrics.err;
  EXPECT_NE(metrics.err.find("--metrics " + taken + ": cannot serve metrics there: Address already in use (EADDRINUSE)"), std::string::npos)
      << metrics.err;
  std::ofstream(tmp / "w.yaml") << std::string("name: t\n") + kSteps;
  auto run = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", first.address(), "--metrics", taken,
                         "--out", (tmp / "out").string(), "--progress", "none"},
                        tmp / "logs", std::chrono::seconds(30));
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_NE(run.err.find("iofleet: --metrics " + taken + ": cannot serve metrics there: Address already in use (EADDRINUSE)"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(CountEntries(tmp / "root1"), 0u) << "nothing started";
  close(held);
}

TEST_F(BadInput, UnreachableAgentExitsOneNamingTheAddress) {
  std::string dead = "127.0.0.1:" + std::to_string(FreeLoopbackPort());  // nobody listens on this port now
  std::ofstream(tmp_ / "w.yaml") << std::string("name: t\n") + kSteps;
  auto r = RunCommand({BinPath("iofleet"), "run", (tmp_ / "w.yaml").string(), "--agents",
                       agent_->address() + "," + dead, "--out", (tmp_ / "out").string()},
                      tmp_ / "logs");
  EXPECT_EQ(r.code, 1);
  EXPECT_LT(r.seconds, 8.0);
  EXPECT_NE(r.err.find("agent " + dead + ": unreachable: nothing listens at " + dead + " (connection refused, ECONNREFUSED)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Deadline Exceeded"), std::string::npos) << "the cause, not gRPC's word for it: " << r.err;
  ExpectNothingStarted();

  // `iofleet agents` shows the agent that answered and names the one that did not.
  auto shown = RunCommand({BinPath("iofleet"), "agents", "--agents", agent_->address() + "," + dead}, tmp_ / "logs");
  EXPECT_EQ(shown.code, 1);
  EXPECT_NE(shown.out.find("node1 "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find(agent_->address()), std::string::npos) << shown.out;
  EXPECT_NE(shown.err.find("agent " + dead + ": unreachable: nothing listens at"), std::string::npos) << shown.err;
  EXPECT_NE(shown.err.find("1 of 2 agent(s) did not answer"), std::string::npos) << shown.err;
}

// Preflight at Prepare: files that cannot fit are refused before any agent starts (exit 2).
TEST(Preflight, NotEnoughFreeSpaceExitsTwoBeforeAnyIo) {
  TempDir tmp;
  fs::create_directories(tmp / "small");
  if (RunCommand({"/bin/mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", (tmp / "small").string()}, tmp / "logs").code != 0) {
    GTEST_SKIP() << "cannot mount a size-limited tmpfs here";
  }
  {
    AgentProcess agent(tmp / "small", "node1", tmp / "logs");
    std::ofstream(tmp / "w.yaml") << "name: big\ndefaults: { file_size: 64MiB, jobs: 2 }\nsteps:\n  - io: { op: write }\n";
    auto r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(), "--out",
                         (tmp / "out").string()}, tmp / "logs");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("agent node1: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("need 128MiB but the file system has"), std::string::npos) << r.err;
    EXPECT_EQ(CountEntries(tmp / "small"), 0u);
  }
  RunCommand({"/bin/umount", (tmp / "small").string()}, tmp / "logs");
}

// O_DIRECT on tmpfs (this kernel accepts it) reported RAM speed without a word.
TEST(MemoryBackedTarget, IsSaidInTheConsoleAndTheReport) {
  TempDir tmp;
  fs::create_directories(tmp / "ram");
  if (RunCommand({"/bin/mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", (tmp / "ram").string()}, tmp / "logs").code != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here";
  }
  {
    AgentProcess agent(tmp / "ram", "node1", tmp / "logs");
    std::ofstream(tmp / "w.yaml") << "name: ram\ndefaults: { file_size: 4MiB, block_size: 64KiB, direct: true }\nsteps:\n  - io: { op: write }\n";
    auto r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(), "--out", (tmp / "out").string(),
                         "--progress", "none"},
                        tmp / "logs");
    if (r.code == 2 && r.err.find("O_DIRECT") != std::string::npos) {
      RunCommand({"/bin/umount", (tmp / "ram").string()}, tmp / "logs");
      GTEST_SKIP() << "this kernel refuses O_DIRECT on tmpfs: " << r.err;
    }
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("warning: agent node1: its run directory is in memory (tmpfs): the figures show RAM speed, not storage's"),
              std::string::npos)
        << r.out;
    const nlohmann::json report = ReadReport(tmp / "out");
    EXPECT_EQ(report["agents"][0]["host"]["memory_backed"], "tmpfs") << report["agents"].dump();
    EXPECT_NE(ReadAll(OnlyRunDir(tmp / "out") / "report.md").find("its run directory is in memory (tmpfs)"), std::string::npos);
  }
  RunCommand({"/bin/umount", (tmp / "ram").string()}, tmp / "logs");
}

TEST(AgentCommandLine, RefusesInsecureOffLoopbackAndMissingRoots) {
  TempDir tmp;
  auto agent = [&](std::vector<std::string> args) {
    args.insert(args.begin(), BinPath("iofleet-agent"));
    return RunCommand(args, tmp / "logs", std::chrono::seconds(10));
  };
  auto open = agent({"--listen", "0.0.0.0:0", "--insecure", "--root", tmp.path().string()});
  EXPECT_EQ(open.code, 2);
  EXPECT_NE(open.err.find("only on loopback or a unix socket"), std::string::npos) << open.err;
  EXPECT_EQ(agent({"--listen", "127.0.0.1:0", "--root", tmp.path().string()}).code, 2);
  auto missing = agent({"--listen", "127.0.0.1:0", "--insecure", "--root", (tmp / "nope").string()});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
  EXPECT_EQ(agent({"--bogus"}).code, 2);
}

// Controller and agents must run the same major.minor version: a mixed fleet is refused before
// anything starts, naming the agent and both versions.
TEST(VersionCheck, AnAgentOfAnotherVersionIsRefused) {
  TempDir tmp;
  AgentProcess same(tmp / "a", "node1", tmp / "logs-a");
  AgentProcess other(tmp / "b", "node2", tmp / "logs-b", {}, {"IOFLEET_TEST_POSE_VERSION=0.0.1-old"});
  WriteText(tmp / "w.yaml", std::string("name: t\n") + kSteps);
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents",
                                same.address() + "," + other.address(), "--out", (tmp / "out").string()},
                               tmp / "logs", std::chrono::seconds(30));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("agent node2 (" + other.address() + ") runs version 0.0.1-old, this controller "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "out"));
  EXPECT_EQ(CountEntries(tmp / "a"), 0u);
  EXPECT_EQ(CountEntries(tmp / "b"), 0u);
}

// A rolling upgrade: an agent of another patch release (same major.minor) takes part, and its
// version and revision are shown, not compared.
TEST(VersionCheck, AnAgentOfAnotherPatchReleaseRuns) {
  TempDir tmp;
  AgentProcess same(tmp / "a", "node1", tmp / "logs-a");
  AgentProcess patched(tmp / "b", "node2", tmp / "logs-b", {}, {"IOFLEET_TEST_POSE_VERSION=0.1.99"});
  WriteText(tmp / "w.yaml", std::string("name: t\n") + kSteps);
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents",
                                same.address() + "," + patched.address(), "--out", (tmp / "out").string()},
                               tmp / "logs", std::chrono::seconds(60));
  EXPECT_EQ(r.code, 0) << r.err;
  CommandResult shown = RunCommand({BinPath("iofleet"), "agents", "--agents", patched.address()}, tmp / "logs");
  EXPECT_EQ(shown.code, 0) << shown.err;
  EXPECT_NE(shown.out.find("0.1.99 ("), std::string::npos) << shown.out;  // with its revision
}

TEST(VersionFlag, BothBinariesPrintVersionAndRevision) {
  TempDir tmp;
  for (const char* binary : {"iofleet", "iofleet-agent"}) {
    CommandResult r = RunCommand({BinPath(binary), "--version"}, tmp.path());
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.rfind(std::string(binary) + " " + IOFLEET_VERSION + " (", 0), 0u) << r.out;
    EXPECT_EQ(r.out.find("(unknown)"), std::string::npos) << "built from a git checkout: " << r.out;
  }
}

}  // namespace
}  // namespace iofleet::testing
