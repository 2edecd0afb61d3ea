// The agent's run state machine with real files: verification, hole filling, busy and stale
// commands, injected I/O errors.
#include "agent/run/supervisor.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <thread>

#include "core/spec/defaults.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

v1::PlannedStep IoStep(const std::string& name, v1::Op op, uint64_t file_size, bool verify) {
  v1::PlannedStep step;
  step.set_name(name);
  v1::IoSpec io = spec::BuiltinIoDefaults();
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
    return supervisor_->Prepare(request).status();
  }
  Result<v1::StepResult> RunStep(uint32_t index, const std::string& run = "r1") {
    v1::SetupStepRequest setup;
    setup.set_run_id(run);
    setup.set_step_index(index);
    IOFLEET_RETURN_IF_ERROR(supervisor_->SetupStep(setup));
    v1::StartRequest request;
    request.set_run_id(run);
    request.set_step_index(index);
    auto runner = supervisor_->BeginStep(request);
    if (!runner.ok()) return runner.status();
    (*runner)->Go();
    while (!(*runner)->WaitFor(std::chrono::milliseconds(100))) {
    }
    auto result = (*runner)->Finish();
    supervisor_->StepEnded(*runner);
    return result;
  }
  fs::path File(const std::string& name = "job-0.dat") { return tmp_ / "root/iofleet/r1/node1" / name; }

  testing::TempDir tmp_;
  std::unique_ptr<Roots> roots_;
  std::unique_ptr<Supervisor> supervisor_;
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
  EXPECT_FALSE(supervisor_->Stop(stale).ok());
  ASSERT_TRUE(RunStep(0).ok());
  v1::StopRequest stop;
  stop.set_run_id("r1");
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
  EXPECT_FALSE(supervisor_->BeginStep(start).ok());  // not set up
  v1::SetupStepRequest setup;
  setup.set_run_id("r1");
  ASSERT_TRUE(supervisor_->SetupStep(setup).ok());
  EXPECT_FALSE(supervisor_->SetupStep(setup).ok());  // duplicate
  auto runner = supervisor_->BeginStep(start);
  ASSERT_TRUE(runner.ok());
  EXPECT_FALSE(supervisor_->BeginStep(start).ok());  // duplicate start
  (*runner)->Go();
  while (!(*runner)->WaitFor(std::chrono::milliseconds(50))) {
  }
  ASSERT_TRUE((*runner)->Finish().ok());
  supervisor_->StepEnded(*runner);
}

TEST_F(SupervisorTest, LeaseExpiryEndsTheRunAndRemovesItsFiles) {
  v1::PrepareRequest request;
  request.set_run_id("r1");
  request.set_agent_name("node1");
  request.set_lease_ns(1'000'000'000);  // the shortest lease
  *request.add_steps() = IoStep("write", v1::OP_WRITE, 1 << 16, false);
  ASSERT_TRUE(supervisor_->Prepare(request).ok());
  ASSERT_TRUE(RunStep(0).ok());
  EXPECT_TRUE(fs::exists(File()));
  v1::RenewRequest renew;
  renew.set_run_id("r1");
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

}  // namespace
}  // namespace iofleet::agent
