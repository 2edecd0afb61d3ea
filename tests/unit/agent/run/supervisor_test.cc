// The agent's run state machine with real files: verification, hole filling, busy and stale
// commands, injected I/O errors.
#include "agent/run/supervisor.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <thread>

#include "core/rules/defaults.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

v1::PlannedStep IoStep(const std::string& name, v1::Op op, uint64_t file_size, bool verify) {
  v1::PlannedStep step;
  step.set_name(name);
  v1::IoSpec io = rules::BuiltinIoDefaults();
  io.set_op(op);
  io.set_engine(v1::ENGINE_PSYNC);
  io.set_block_size(4096);
  io.set_file_size(file_size);
  io.set_verify(verify);
  *step.mutable_io() = io;
  return step;
}

class SupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_ / "root");
    auto roots = Roots::Open({(tmp_ / "root").string()});
    ASSERT_TRUE(roots.ok());
    roots_ = std::make_unique<Roots>(std::move(*roots));
    supervisor_ = std::make_unique<Supervisor>(*roots_, "node1");
  }
  Status Prepare(const std::vector<v1::PlannedStep>& steps, const std::string& run = "r1") {
    v1::PrepareRequest request;
    request.set_run_id(run);
    request.set_agent_name("node1");
    for (const auto& s : steps) *request.add_steps() = s;
    auto prepared = supervisor_->Prepare(request);
    if (prepared.ok()) token_ = prepared->session_token();
    return prepared.status();
  }
  Result<v1::StepResult> RunStep(uint32_t index, const std::string& run = "r1") {
    v1::SetupStepRequest setup;
    setup.set_run_id(run);
    setup.set_session_token(token_);
    setup.set_step_index(index);
    IOFLEET_RETURN_IF_ERROR(supervisor_->SetupStep(setup));
    v1::StartRequest request;
    request.set_run_id(run);
    request.set_session_token(token_);
    request.set_step_index(index);
    auto runner = supervisor_->BeginStep(request);
    if (!runner.ok()) return runner.status();
    (*runner)->Go();
    while (!(*runner)->WaitFor(std::chrono::milliseconds(100))) {
    }
    auto result = (*runner)->Finish();
    Status ended = supervisor_->StepEnded(*runner);
    if (!ended.ok()) return ended;
    return result;
  }
  fs::path File(const std::string& name = "job-0.dat") { return tmp_ / "root/iofleet/r1/node1" / name; }

  testing::TempDir tmp_;
  std::unique_ptr<Roots> roots_;
  std::unique_ptr<Supervisor> supervisor_;
  std::string token_;  // the session of the run prepared last
};

TEST_F(SupervisorTest, VerifyFailsTheStepAtTheCorruptedBlock) {
  ASSERT_TRUE(Prepare({IoStep("write", v1::OP_WRITE, 1 << 20, true), IoStep("read", v1::OP_READ, 1 << 20, true)}).ok());
  auto written = RunStep(0);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(written->write().ops(), 256u);
  // Flip bytes inside block 3, as a misbehaving storage system would.
  int fd = open(File().c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, "garbage", 7, 3 * 4096 + 1000), 7);
  close(fd);
  auto read = RunStep(1);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Code::kDataLoss);
  EXPECT_NE(read.status().message().find("agent node1: " + File().string() + ": offset 12288: verify failed: checksum mismatch"),
            std::string::npos) << read.status().message();
}

TEST_F(SupervisorTest, ReadAfterPartialWriteReadsNoHoles) {
  v1::PlannedStep partial = IoStep("write", v1::OP_RANDWRITE, 1 << 20, true);
  partial.mutable_io()->set_deadline(60'000'000);        // 60 ms ...
  partial.mutable_io()->mutable_rate()->set_iops(1000);  // ... at 1000 IOPS: about 60 of 256 blocks
  ASSERT_TRUE(Prepare({partial, IoStep("read", v1::OP_RANDREAD, 1 << 20, true)}).ok());
  auto written = RunStep(0);
  ASSERT_TRUE(written.ok()) << written.status().message();
  uint64_t blocks = written->write().ops();
  EXPECT_GT(blocks, 10u);
  EXPECT_LT(blocks, 200u);
  auto read = RunStep(1);  // verify: true reads every block; a hole or zero block would fail it
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->filled_bytes(), (256 - blocks) * 4096);
  EXPECT_EQ(read->read().ops(), 256u);
  EXPECT_EQ(fs::file_size(File()), 1u << 20);
}

TEST_F(SupervisorTest, BusyAndStaleCommandsAreRefused) {
  ASSERT_TRUE(Prepare({IoStep("write", v1::OP_WRITE, 1 << 16, false)}).ok());
  Status second = Prepare({IoStep("write", v1::OP_WRITE, 1 << 16, false)}, "r2");
  EXPECT_EQ(second.code(), Code::kUnavailable);
  EXPECT_NE(second.message().find("busy"), std::string::npos);
  EXPECT_FALSE(RunStep(0, "r2").ok());  // not this agent's run
  EXPECT_FALSE(RunStep(5).ok());        // no such step
  v1::StopRequest stale;
  stale.set_run_id("r0");
  stale.set_session_token(token_);
  EXPECT_FALSE(supervisor_->Stop(stale).ok());
  ASSERT_TRUE(RunStep(0).ok());
  v1::StopRequest stop;
  stop.set_run_id("r1");
  stop.set_session_token(token_);
  auto stopped = supervisor_->Stop(stop);
  ASSERT_TRUE(stopped.ok());
  EXPECT_EQ(stopped->removed_entries(), 4u);  // iofleet, r1, node1, job-0.dat
  EXPECT_EQ(testing::CountEntries(tmp_ / "root"), 0u);
  EXPECT_TRUE(Prepare({IoStep("write", v1::OP_WRITE, 1 << 16, false)}, "r2").ok());  // idle again
}

TEST_F(SupervisorTest, StepsRunOnlyInOrderAndOnce) {
  ASSERT_TRUE(Prepare({IoStep("write", v1::OP_WRITE, 1 << 16, false)}).ok());
  v1::StartRequest start;
  start.set_run_id("r1");
  start.set_session_token(token_);
  EXPECT_FALSE(supervisor_->BeginStep(start).ok());  // not set up
  v1::SetupStepRequest setup;
  setup.set_run_id("r1");
  setup.set_session_token(token_);
  ASSERT_TRUE(supervisor_->SetupStep(setup).ok());
  EXPECT_FALSE(supervisor_->SetupStep(setup).ok());  // duplicate
  auto runner = supervisor_->BeginStep(start);
  ASSERT_TRUE(runner.ok());
  EXPECT_FALSE(supervisor_->BeginStep(start).ok());  // duplicate start
  (*runner)->Go();
  while (!(*runner)->WaitFor(std::chrono::milliseconds(50))) {
  }
  ASSERT_TRUE((*runner)->Finish().ok());
  EXPECT_TRUE(supervisor_->StepEnded(*runner).ok());
}

TEST_F(SupervisorTest, LeaseExpiryEndsTheRunAndRemovesItsFiles) {
  v1::PrepareRequest request;
  request.set_run_id("r1");
  request.set_agent_name("node1");
  request.set_lease_ns(1'000'000'000);  // the shortest lease
  *request.add_steps() = IoStep("write", v1::OP_WRITE, 1 << 16, false);
  auto prepared = supervisor_->Prepare(request);
  ASSERT_TRUE(prepared.ok());
  token_ = prepared->session_token();
  ASSERT_TRUE(RunStep(0).ok());
  EXPECT_TRUE(fs::exists(File()));
  v1::RenewRequest renew;
  renew.set_run_id("r1");
  renew.set_session_token(token_);
  for (int i = 0; i < 4; ++i) {  // renewed: it lives past its lease
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    ASSERT_TRUE(supervisor_->Renew(renew).ok());
  }
  EXPECT_TRUE(fs::exists(File()));
  std::this_thread::sleep_for(std::chrono::milliseconds(1600));  // silence: the lease expires
  EXPECT_EQ(testing::CountEntries(tmp_ / "root"), 0u);
  EXPECT_FALSE(supervisor_->Renew(renew).ok());
  EXPECT_TRUE(Prepare({IoStep("write", v1::OP_WRITE, 1 << 16, false)}, "r2").ok());
}

// A host of thousands of simulated agents (bench/multi_agent) spent 1.3 of its 2 cores idle when
// each agent's lease watcher woke five times a second to poll: idle, it sleeps until a run
// begins; in a run, until the lease could run out (LeaseExpiryEndsTheRunAndRemovesItsFiles shows
// it still does).
TEST_F(SupervisorTest, AnIdleAgentsLeaseWatcherSleeps) {
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_LE(supervisor_->LeaseWakeupsForTest(), 1u) << "woke to poll while idle";
  v1::PrepareRequest request;
  request.set_run_id("r1");
  request.set_agent_name("node1");
  request.set_lease_ns(5'000'000'000);
  *request.add_steps() = IoStep("write", v1::OP_WRITE, 1 << 16, false);
  auto prepared = supervisor_->Prepare(request);
  ASSERT_TRUE(prepared.ok());
  const uint64_t at_prepare = supervisor_->LeaseWakeupsForTest();
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_LE(supervisor_->LeaseWakeupsForTest() - at_prepare, 2u) << "woke to poll before the lease could run out";
  EXPECT_EQ(supervisor_->state(), AgentState::kPrepared);
}

TEST_F(SupervisorTest, ANewSweepPointStartsWithoutThePreviousPointsFiles) {
  v1::PlannedStep two_jobs = IoStep("write", v1::OP_WRITE, 1 << 16, false);
  two_jobs.mutable_io()->set_jobs(2);
  v1::PlannedStep one_job = IoStep("write", v1::OP_WRITE, 1 << 16, false);
  one_job.set_point(1);
  ASSERT_TRUE(Prepare({two_jobs, one_job}).ok());
  ASSERT_TRUE(RunStep(0).ok());
  EXPECT_TRUE(fs::exists(File("job-1.dat")));
  ASSERT_TRUE(RunStep(1).ok());
  EXPECT_FALSE(fs::exists(File("job-1.dat")));  // point 0's file is gone
  EXPECT_TRUE(fs::exists(File("job-0.dat")));   // point 1 wrote its own
}

TEST_F(SupervisorTest, InjectedIoErrorNamesAgentFileOffsetAndErrno) {
  setenv("IOFLEET_FAULT_INJECT", "eio@5", 1);
  ASSERT_TRUE(Prepare({IoStep("write", v1::OP_WRITE, 1 << 20, false)}).ok());
  auto result = RunStep(0);
  unsetenv("IOFLEET_FAULT_INJECT");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("agent node1: " + File().string() + ": offset 16384: Input/output error (EIO)"),
            std::string::npos) << result.status().message();
}

TEST_F(SupervisorTest, ContinueOnErrorCountsInsteadOfFailing) {
  setenv("IOFLEET_FAULT_INJECT", "enospc@3,eio@7", 1);
  v1::PlannedStep step = IoStep("write", v1::OP_WRITE, 1 << 20, false);
  step.mutable_io()->set_continue_on_error(true);
  ASSERT_TRUE(Prepare({step}).ok());
  auto result = RunStep(0);
  unsetenv("IOFLEET_FAULT_INJECT");
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->write().ops(), 254u);
  ASSERT_EQ(result->errors_size(), 2);
  std::map<std::string, uint64_t> errors;
  for (const auto& e : result->errors()) errors[e.kind()] = e.count();
  EXPECT_EQ(errors["ENOSPC"], 1u);
  EXPECT_EQ(errors["EIO"], 1u);
}

// A write that failed under continue_on_error wrote nothing; a later read
// must not take its block for written (it would read a hole, here caught by verify).
TEST_F(SupervisorTest, FailedWritesAreNotTakenForWritten) {
  v1::PlannedStep write = IoStep("write", v1::OP_WRITE, 1 << 20, true);
  write.mutable_io()->set_continue_on_error(true);
  ASSERT_TRUE(Prepare({write, IoStep("read", v1::OP_READ, 1 << 20, true)}).ok());
  setenv("IOFLEET_FAULT_INJECT", "eio@3", 1);
  auto written = RunStep(0);
  unsetenv("IOFLEET_FAULT_INJECT");
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(written->write().ops(), 255u);
  auto read = RunStep(1);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_GE(read->filled_bytes(), 4096u);
  EXPECT_EQ(read->read().ops(), 256u);
}

size_t OpenDescriptors() { return static_cast<size_t>(std::distance(fs::directory_iterator("/proc/self/fd"), {})); }

// A step whose setup fails part-way leaves no descriptor open (an unlinked
// file's space would stay taken until the agent restarts) and no buffer allocated.
TEST_F(SupervisorTest, FailedSetupLeaksNoDescriptor) {
  v1::PlannedStep read = IoStep("read", v1::OP_READ, 1 << 20, false);
  read.set_read_from_agent("node2");
  read.mutable_io()->set_jobs(3);
  ASSERT_TRUE(Prepare({read}).ok());
  fs::create_directories(tmp_ / "root/iofleet/r1/node2");
  // node2's first two files are whole; its third holds 4 KiB of the 1 MiB to read: the setup
  // fails at job 2, after jobs 0 and 1 opened their files and engines and took their buffers.
  for (int j = 0; j < 3; ++j) {
    std::ofstream(tmp_ / "root/iofleet/r1/node2" / ("job-" + std::to_string(j) + ".dat")) << std::string(j < 2 ? 1 << 20 : 4096, 'x');
  }
  const size_t before = OpenDescriptors();
  v1::SetupStepRequest setup;
  setup.set_run_id("r1");
  setup.set_session_token(token_);
  Status status = supervisor_->SetupStep(setup);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("holds 4096 of the 1048576 bytes"), std::string::npos) << status.message();
  EXPECT_EQ(OpenDescriptors(), before);
  fs::remove_all(tmp_ / "root/iofleet/r1/node2");
}

// A run belongs to the controller that prepared it. Another caller that
// knows the run id gets the busy answer, which names no run, and changes nothing.
TEST_F(SupervisorTest, AnotherControllerCannotSteerOrEndTheRun) {
  ASSERT_TRUE(Prepare({IoStep("write", v1::OP_WRITE, 1 << 16, false)}).ok());
  const std::string mine = token_;
  token_ = "0123456789abcdef0123456789abcdef";  // a guess
  v1::StopRequest stop;
  stop.set_run_id("r1");
  stop.set_session_token(token_);
  auto stopped = supervisor_->Stop(stop);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().code(), Code::kUnavailable);
  EXPECT_EQ(stopped.status().message(), "agent node1 is busy with another run");
  v1::RenewRequest renew;
  renew.set_run_id("r1");
  EXPECT_EQ(supervisor_->Renew(renew).code(), Code::kUnavailable);  // no token at all
  EXPECT_FALSE(RunStep(0).ok());
  Status busy = Prepare({IoStep("write", v1::OP_WRITE, 1 << 16, false)}, "r2");
  EXPECT_EQ(busy.message().find("r1"), std::string::npos) << busy.message();
  token_ = mine;
  EXPECT_TRUE(RunStep(0).ok());  // the owner's run is untouched
}

// A controller started again after it was killed names the runs it lost. An
// agent still holding one of them says which in its busy answer (the controller then waits for
// that run's lease to end); to anyone who does not name it, it names nothing.
TEST_F(SupervisorTest, ABusyAnswerNamesTheHeldRunOnlyToWhoeverNamesIt) {
  ASSERT_TRUE(Prepare({IoStep("write", v1::OP_WRITE, 1 << 16, false)}).ok());
  v1::PrepareRequest request;
  request.set_run_id("r2");
  request.set_agent_name("node1");
  *request.add_steps() = IoStep("write", v1::OP_WRITE, 1 << 16, false);
  request.add_earlier_run_ids("r0");
  auto other = supervisor_->Prepare(request);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), Code::kUnavailable);
  EXPECT_EQ(other.status().message(), "agent node1 is busy with another run");
  request.add_earlier_run_ids("r1");
  auto lost = supervisor_->Prepare(request);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), Code::kUnavailable);
  EXPECT_NE(lost.status().message().find("agent node1 is busy with run r1"), std::string::npos) << lost.status().message();
  EXPECT_TRUE(RunStep(0).ok()) << "the run is untouched";
}

// Stop during a long fill (8 GiB) stops it between writes, and the agent is
// idle only when the fill has returned and the run's files are gone.
TEST_F(SupervisorTest, StopInterruptsAFillAndIdleMeansCleanedUp) {
  const fs::space_info space = fs::space(tmp_ / "root");
  if (space.available < (9ull << 30)) GTEST_SKIP() << "needs 9 GiB free for an 8 GiB fill (" << (space.available >> 20) << " MiB here)";
  v1::PlannedStep read = IoStep("read", v1::OP_READ, 8ull << 30, false);  // 8 GiB to fill first: far longer than 0.5 s
  read.mutable_io()->set_block_size(1 << 20);
  ASSERT_TRUE(Prepare({read}).ok());
  std::thread setup([&] {
    v1::SetupStepRequest request;
    request.set_run_id("r1");
    request.set_session_token(token_);
    Status status = supervisor_->SetupStep(request);
    EXPECT_EQ(status.code(), Code::kAborted) << status.message();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(supervisor_->state(), AgentState::kSettingUp);
  auto begin = std::chrono::steady_clock::now();
  v1::StopRequest stop;
  stop.set_run_id("r1");
  stop.set_session_token(token_);
  ASSERT_TRUE(supervisor_->Stop(stop).ok());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  setup.join();
  std::printf("stop during an 8 GiB fill took %.3f s\n", seconds);
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(supervisor_->state(), AgentState::kIdle);
  EXPECT_EQ(testing::CountEntries(tmp_ / "root"), 0u);  // nothing left when idle
}

// A run ended under a running step (agent shutdown, lease, Stop) yields no
// result for that step, however the step's own threads ended.
// A scrape must not wait while a long operation (files removed, workspace created) holds the
// supervisor's lock: it answers at once with the state the last scrape saw.
TEST_F(SupervisorTest, AScrapeWhileTheLockIsHeldAnswersAtOnceWithTheLastState) {
  ASSERT_TRUE(Prepare({IoStep("write", v1::OP_WRITE, 1 << 20, false)}).ok());
  EXPECT_EQ(supervisor_->ForMetrics().state, AgentState::kPrepared);
  auto held = supervisor_->LockForTest();
  auto scrape = std::async(std::launch::async, [&] { return supervisor_->ForMetrics(); });
  const bool prompt = scrape.wait_for(std::chrono::seconds(2)) == std::future_status::ready;
  held.unlock();
  ASSERT_TRUE(prompt) << "ForMetrics waited for the supervisor's lock";
  EXPECT_EQ(scrape.get().state, AgentState::kPrepared);
}

// The cached copy a blocked scrape answers with must not keep a finished step's runner (its
// files, buffers, engines) alive.
TEST_F(SupervisorTest, TheScrapeCacheDoesNotKeepAFinishedStepAlive) {
  ASSERT_TRUE(Prepare({IoStep("write", v1::OP_WRITE, 1 << 20, false)}).ok());
  v1::SetupStepRequest setup;
  setup.set_run_id("r1");
  setup.set_session_token(token_);
  ASSERT_TRUE(supervisor_->SetupStep(setup).ok());
  v1::StartRequest start;
  start.set_run_id("r1");
  start.set_session_token(token_);
  auto begun = supervisor_->BeginStep(start);
  ASSERT_TRUE(begun.ok());
  std::weak_ptr<StepRunner> runner = *begun;
  EXPECT_TRUE(supervisor_->ForMetrics().live) << "the running step is scraped";  // and cached
  (*begun)->Go();
  while (!(*begun)->WaitFor(std::chrono::milliseconds(50))) {
  }
  ASSERT_TRUE((*begun)->Finish().ok());
  ASSERT_TRUE(supervisor_->StepEnded(*begun).ok());
  v1::StopRequest stop;
  stop.set_run_id("r1");
  stop.set_session_token(token_);
  ASSERT_TRUE(supervisor_->Stop(stop).ok());
  begun = Status(Code::kCancelled, "dropped");  // the stream's reference goes
  EXPECT_TRUE(runner.expired()) << "a cached scrape holds the finished step's runner";
  auto held = supervisor_->LockForTest();
  EXPECT_FALSE(supervisor_->ForMetrics().live);  // answered from the cache, without it
}

TEST_F(SupervisorTest, AStepEndedByShutdownHasNoResult) {
  v1::PlannedStep step = IoStep("read", v1::OP_RANDREAD, 1 << 20, false);
  step.mutable_io()->set_runtime(30'000'000'000);
  ASSERT_TRUE(Prepare({step}).ok());
  v1::SetupStepRequest setup;
  setup.set_run_id("r1");
  setup.set_session_token(token_);
  ASSERT_TRUE(supervisor_->SetupStep(setup).ok());
  v1::StartRequest start;
  start.set_run_id("r1");
  start.set_session_token(token_);
  auto runner = supervisor_->BeginStep(start);
  ASSERT_TRUE(runner.ok());
  (*runner)->Go();
  std::thread shutdown([&] { supervisor_->Shutdown(); });
  while (!(*runner)->WaitFor(std::chrono::milliseconds(50))) {
  }
  EXPECT_TRUE((*runner)->Finish().ok());  // the runner's own view: stopped early ...
  Status ended = supervisor_->StepEnded(*runner);
  EXPECT_EQ(ended.code(), Code::kAborted) << ended.message();  // ... but no result to send
  shutdown.join();
  EXPECT_EQ(supervisor_->state(), AgentState::kIdle);
}

// A host step this agent's config allows but this process cannot do (not root,
// or /proc/sys and /sys read-only under the shipped unit's ProtectKernelTunables) is refused at
// Prepare with the fix, not minutes into the run when the step is reached. The probed paths are
// stand-ins that fail for root too: a directory cannot be opened for writing (EISDIR), a missing
// file not at all (ENOENT).
v1::PlannedStep HostStep(const std::string& name) {
  v1::PlannedStep step;
  step.set_name(name);
  return step;
}

TEST_F(SupervisorTest, DropCachesThatCannotBeWrittenIsRefusedAtPrepare) {
  AgentConfig config;
  config.allow_drop_caches = true;
  v1::PlannedStep drop = HostStep("drop");
  drop.mutable_drop_caches();
  const std::vector<v1::PlannedStep> steps = {IoStep("write", v1::OP_WRITE, 1 << 16, false), drop};
  HostPaths host;
  host.drop_caches = (tmp_ / "drop_caches_dir").string();
  fs::create_directories(host.drop_caches);
  supervisor_ = std::make_unique<Supervisor>(*roots_, "node1", config, host);
  Status refused = Prepare(steps);
  EXPECT_EQ(refused.code(), Code::kFailedPrecondition) << refused.message();
  const std::string& m = refused.message();
  EXPECT_NE(m.find("agent node1: step drop: drop_caches: " + host.drop_caches + " cannot be opened for writing: "), std::string::npos) << m;
  EXPECT_NE(m.find("(EISDIR)"), std::string::npos) << m;
  EXPECT_NE(m.find("deploy/systemd/iofleet-agent-privileged.conf"), std::string::npos) << m;
  EXPECT_NE(m.find("or remove the step"), std::string::npos) << m;
  EXPECT_EQ(supervisor_->state(), AgentState::kIdle);
  EXPECT_EQ(testing::CountEntries(tmp_ / "root"), 0u);  // nothing made, nothing run

  host.drop_caches = (tmp_ / "no-such-file").string();
  supervisor_ = std::make_unique<Supervisor>(*roots_, "node1", config, host);
  refused = Prepare(steps);
  EXPECT_EQ(refused.code(), Code::kFailedPrecondition) << refused.message();
  EXPECT_NE(refused.message().find("(ENOENT)"), std::string::npos) << refused.message();

  // A writable stand-in passes; the probe writes nothing, the step itself writes "3".
  host.drop_caches = (tmp_ / "drop_caches").string();
  std::ofstream(host.drop_caches).flush();
  supervisor_ = std::make_unique<Supervisor>(*roots_, "node1", config, host);
  ASSERT_TRUE(Prepare(steps).ok());
  EXPECT_EQ(testing::ReadAll(host.drop_caches), "");
  ASSERT_TRUE(RunStep(0).ok());
  auto dropped = RunStep(1);
  ASSERT_TRUE(dropped.ok()) << dropped.status().message();
  EXPECT_EQ(testing::ReadAll(host.drop_caches), "3");
}

TEST_F(SupervisorTest, ReadaheadThatCannotBeWrittenIsRefusedAtPrepare) {
  AgentConfig config;
  config.allow_readahead = true;
  config.state_dir = (tmp_ / "state").string();
  v1::PlannedStep ra = HostStep("ra");
  ra.mutable_readahead()->set_kib(300);
  const std::vector<v1::PlannedStep> steps = {ra, IoStep("write", v1::OP_WRITE, 1 << 16, false)};
  // A stand-in sysfs holding the target's device, whose read_ahead_kb is a directory.
  struct stat root {};
  ASSERT_EQ(stat((tmp_ / "root").c_str(), &root), 0);
  const fs::path queue = tmp_ / "sys/dev/block" / (std::to_string(major(root.st_dev)) + ":" + std::to_string(minor(root.st_dev))) / "queue";
  fs::create_directories(queue / "read_ahead_kb");
  HostPaths host;
  host.sysfs = (tmp_ / "sys").string();
  supervisor_ = std::make_unique<Supervisor>(*roots_, "node1", config, host);
  Status refused = Prepare(steps);
  EXPECT_EQ(refused.code(), Code::kFailedPrecondition) << refused.message();
  const std::string& m = refused.message();
  EXPECT_NE(m.find("agent node1: step ra: readahead: "), std::string::npos) << m;
  EXPECT_NE(m.find("/queue/read_ahead_kb cannot be opened for writing: "), std::string::npos) << m;
  EXPECT_NE(m.find("(EISDIR)"), std::string::npos) << m;
  EXPECT_NE(m.find("deploy/systemd/iofleet-agent-privileged.conf"), std::string::npos) << m;
  EXPECT_NE(m.find("or remove the step"), std::string::npos) << m;
  EXPECT_EQ(supervisor_->state(), AgentState::kIdle);
  EXPECT_EQ(testing::CountEntries(tmp_ / "root"), 0u);

  // A writable stand-in: set during the run, put back at its end.
  fs::remove(queue / "read_ahead_kb");
  std::ofstream(queue / "read_ahead_kb") << "128\n";
  supervisor_ = std::make_unique<Supervisor>(*roots_, "node1", config, host);
  ASSERT_TRUE(Prepare(steps).ok());
  auto set = RunStep(0);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(testing::ReadAll(queue / "read_ahead_kb"), "300");
  v1::StopRequest stop;
  stop.set_run_id("r1");
  stop.set_session_token(token_);
  ASSERT_TRUE(supervisor_->Stop(stop).ok());
  EXPECT_EQ(testing::ReadAll(queue / "read_ahead_kb"), "128");
}

uint64_t WallNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

// CutWindow comes from the wire: only the run's owner, only while a target_latency step runs,
// only an instant ahead and at most a minute ahead, and only in turn.
TEST_F(SupervisorTest, ACutIsTakenOnlyInTurnWhileATargetLatencyStepRuns) {
  v1::PlannedStep plain = IoStep("plain", v1::OP_RANDREAD, 1 << 20, false);
  plain.mutable_io()->set_engine(v1::ENGINE_NULL);
  plain.mutable_io()->set_runtime(5'000'000'000);
  v1::PlannedStep search = plain;
  search.set_name("search");
  search.mutable_io()->mutable_target_latency()->set_max_latency(1'000'000);
  ASSERT_TRUE(Prepare({plain, search}).ok());
  v1::CutWindowRequest cut;
  cut.set_run_id("r1");
  cut.set_session_token(token_);
  cut.set_cut(1);
  cut.set_at_unix_ns(WallNs() + 200'000'000);
  EXPECT_EQ(supervisor_->CutWindow(cut).code(), Code::kFailedPrecondition) << "no step runs";
  for (uint32_t index : {0u, 1u}) {
    v1::SetupStepRequest setup;
    setup.set_run_id("r1");
    setup.set_session_token(token_);
    setup.set_step_index(index);
    ASSERT_TRUE(supervisor_->SetupStep(setup).ok());
    v1::StartRequest start;
    start.set_run_id("r1");
    start.set_session_token(token_);
    start.set_step_index(index);
    auto runner = supervisor_->BeginStep(start);
    ASSERT_TRUE(runner.ok());
    (*runner)->Go();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // the jobs are released
    cut.set_step_index(index);
    cut.set_at_unix_ns(WallNs() + 200'000'000);
    if (index == 0) {
      EXPECT_NE(supervisor_->CutWindow(cut).message().find("not cut into windows"), std::string::npos);
    } else {
      v1::CutWindowRequest stranger = cut;
      stranger.set_session_token("0123456789abcdef0123456789abcdef");
      EXPECT_EQ(supervisor_->CutWindow(stranger).code(), Code::kUnavailable);
      v1::CutWindowRequest late = cut;
      late.set_at_unix_ns(WallNs() - 1);
      EXPECT_NE(supervisor_->CutWindow(late).message().find("already past"), std::string::npos);
      late.set_at_unix_ns(WallNs() + 61'000'000'000);
      EXPECT_NE(supervisor_->CutWindow(late).message().find("more than 60 s ahead"), std::string::npos);
      ASSERT_TRUE(supervisor_->CutWindow(cut).ok());
      cut.set_cut(2);
      cut.set_at_unix_ns(WallNs() + 400'000'000);
      EXPECT_NE(supervisor_->CutWindow(cut).message().find("before window 0 came back"), std::string::npos);
      std::optional<v1::WindowResult> window;
      for (int i = 0; i < 200 && !window; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        window = (*runner)->TakeWindow();
      }
      ASSERT_TRUE(window);
      EXPECT_EQ(window->window(), 0u);
      EXPECT_GT(window->result().ops(), 0u);
      // From the jobs' release to the cut, on the agent's clock: about 230 ms.
      EXPECT_GT(window->result().window_ns(), 150'000'000u);
      EXPECT_LT(window->result().window_ns(), 400'000'000u);
    }
    (*runner)->RequestStop();
    while (!(*runner)->WaitFor(std::chrono::milliseconds(50))) {
    }
    ASSERT_TRUE((*runner)->Finish().ok());
    ASSERT_TRUE(supervisor_->StepEnded(*runner).ok());
  }
}

}  // namespace
}  // namespace iofleet::agent
