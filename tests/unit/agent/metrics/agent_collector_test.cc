// The collector against a real supervisor running real steps: counters add up across repeated
// steps of one name and never go back, the live step shows while it runs, and a run's series go
// with the run.
#include "agent/metrics/agent_collector.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "agent/metrics/thread_cpu_reader.h"
#include "core/rules/defaults.h"
#include "core/rules/non_io_steps.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

v1::PlannedStep WriteStep(uint32_t point, uint64_t file_size) {
  v1::PlannedStep step;
  step.set_name("write");
  step.set_point(point);
  v1::IoSpec io = rules::BuiltinIoDefaults();
  io.set_op(v1::OP_WRITE);
  io.set_engine(v1::ENGINE_PSYNC);
  io.set_direct(false);
  io.set_block_size(4096);
  io.set_file_size(file_size);
  *step.mutable_io() = io;
  return step;
}

size_t SeriesCount(const std::vector<prometheus::MetricFamily>& families) {
  size_t n = 0;
  for (const auto& f : families) n += f.metric.size();
  return n;
}

class AgentCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_ / "root");
    auto roots = Roots::Open({(tmp_ / "root").string()});
    ASSERT_TRUE(roots.ok());
    roots_ = std::make_unique<Roots>(std::move(*roots));
    supervisor_ = std::make_unique<Supervisor>(*roots_, "node1");
    collector_ = std::make_unique<AgentCollector>(*supervisor_, AgentIdentity{"node1", "0.1.0", "test"});
  }
  void Prepare(const std::string& run, const std::string& workload, const std::vector<v1::PlannedStep>& steps) {
    v1::PrepareRequest request;
    request.set_run_id(run);
    request.set_agent_name("node1");
    request.set_workload_name(workload);
    for (const auto& s : steps) *request.add_steps() = s;
    auto prepared = supervisor_->Prepare(request);
    ASSERT_TRUE(prepared.ok()) << prepared.status().message();
    token_ = prepared->session_token();
    run_ = run;
  }
  // Runs step `index`; `during` is called while its jobs run (before Finish).
  void RunStep(uint32_t index, uint32_t cycle, const std::function<void(StepRunner&)>& during = {},
               uint32_t phase = 0) {
    v1::SetupStepRequest setup;
    setup.set_run_id(run_);
    setup.set_session_token(token_);
    setup.set_step_index(index);
    setup.set_cycle(cycle);
    setup.set_phase(phase);
    ASSERT_TRUE(supervisor_->SetupStep(setup).ok());
    v1::StartRequest start;
    start.set_run_id(run_);
    start.set_session_token(token_);
    start.set_step_index(index);
    auto runner = supervisor_->BeginStep(start);
    ASSERT_TRUE(runner.ok());
    (*runner)->Go();
    if (during) during(**runner);
    while (!(*runner)->WaitFor(std::chrono::milliseconds(50))) {
    }
    ASSERT_TRUE((*runner)->Finish().ok());
    ASSERT_TRUE(supervisor_->StepEnded(*runner).ok());
  }
  void Stop() {
    v1::StopRequest stop;
    stop.set_run_id(run_);
    stop.set_session_token(token_);
    ASSERT_TRUE(supervisor_->Stop(stop).ok());
  }
  const IoSample* WriteSeries(const AgentMetrics& m) {
    if (!m.run) return nullptr;
    auto it = m.run->io.find({"write", "write", "psync"});
    return it == m.run->io.end() ? nullptr : &it->second;
  }

  testing::TempDir tmp_;
  std::unique_ptr<Roots> roots_;
  std::unique_ptr<Supervisor> supervisor_;
  std::unique_ptr<AgentCollector> collector_;
  std::string token_;
  std::string run_;
};

// A sweep runs step "write" at two points, and the second point twice (cycles): one series that
// only grows, then nothing of the run once it has ended.
TEST_F(AgentCollectorTest, RepeatedStepsAddUpAndTheRunsSeriesGoWithIt) {
  const size_t idle = SeriesCount(collector_->Collect());
  Prepare("r1", "sweep", {WriteStep(0, 64 * 4096), WriteStep(1, 32 * 4096)});
  AgentMetrics prepared = collector_->Gather();
  EXPECT_EQ(prepared.state, AgentState::kPrepared);
  ASSERT_TRUE(prepared.run);
  EXPECT_EQ(prepared.run->workload, "sweep");
  EXPECT_TRUE(prepared.run->io.empty());

  RunStep(0, 0);
  AgentMetrics after_first = collector_->Gather();
  ASSERT_TRUE(WriteSeries(after_first));
  EXPECT_EQ(WriteSeries(after_first)->ops, 64u);
  EXPECT_EQ(WriteSeries(after_first)->bytes, 64u * 4096);
  EXPECT_EQ(WriteSeries(after_first)->latency.count, 64u);
  EXPECT_EQ(WriteSeries(after_first)->inflight, 0u);
  EXPECT_FALSE(after_first.running);  // between steps: no run_info

  RunStep(1, 0);
  RunStep(1, 1);
  AgentMetrics after_three = collector_->Gather();
  EXPECT_EQ(WriteSeries(after_three)->ops, 64u + 32 + 32);
  EXPECT_EQ(WriteSeries(after_three)->latency.count, 128u);
  EXPECT_EQ(after_three.run->io.size(), 1u);  // one label set, not one per run of the step
  EXPECT_GT(SeriesCount(collector_->Collect()), idle);

  Stop();
  AgentMetrics ended = collector_->Gather();
  EXPECT_EQ(ended.state, AgentState::kIdle);
  EXPECT_FALSE(ended.run);
  EXPECT_EQ(SeriesCount(collector_->Collect()), idle);
}

// While a step runs, its live counters show on top of the finished steps', with run_info and
// the in-flight gauge; every scrape's counters are at least the previous one's.
TEST_F(AgentCollectorTest, TheLiveStepShowsAndCountersNeverGoBack) {
  v1::PlannedStep paced = WriteStep(0, 256 * 4096);
  paced.mutable_io()->mutable_rate()->set_iops(2000);  // about 130 ms
  Prepare("r2", "live", {WriteStep(0, 16 * 4096), paced});
  RunStep(0, 0);
  uint64_t last_ops = WriteSeries(collector_->Gather())->ops;
  uint64_t last_cpu = 0;
  bool saw_live = false;
  RunStep(1, 3, [&](StepRunner& runner) {
    while (!runner.WaitFor(std::chrono::milliseconds(10))) {
      AgentMetrics m = collector_->Gather();
      const IoSample* s = WriteSeries(m);
      ASSERT_TRUE(s);
      EXPECT_GE(s->ops, last_ops);
      EXPECT_GE(m.job_cpu_user_ns + m.job_cpu_sys_ns, last_cpu);
      last_ops = s->ops;
      last_cpu = m.job_cpu_user_ns + m.job_cpu_sys_ns;
      ASSERT_TRUE(m.running);
      EXPECT_EQ(m.running->step, "write");
      EXPECT_EQ(m.running->cycle, 3u);
      EXPECT_EQ(m.state, AgentState::kRunning);
      if (s->ops > 16) saw_live = true;
    }
  });
  EXPECT_TRUE(saw_live);
  AgentMetrics done = collector_->Gather();
  EXPECT_EQ(WriteSeries(done)->ops, 16u + 256);
  EXPECT_GE(WriteSeries(done)->ops, last_ops);
  EXPECT_GE(done.job_cpu_user_ns + done.job_cpu_sys_ns, last_cpu);
  EXPECT_FALSE(done.running);
  Stop();
}

// A files step's phases are series of their own, by phase; a second cycle adds to them.
TEST_F(AgentCollectorTest, FilesPhasesAreSeriesByPhase) {
  v1::PlannedStep tree;
  tree.set_name("tree");
  v1::FilesStep files;
  files.set_dirs(2);
  files.set_files_per_dir(3);
  files.set_file_size(1000);
  files.add_ops(v1::FILES_OP_MKDIR);
  files.add_ops(v1::FILES_OP_CREATE);
  files.add_ops(v1::FILES_OP_DELETE);
  files.add_ops(v1::FILES_OP_RMDIR);
  *tree.mutable_files() = rules::ResolveFiles(files);
  Prepare("r3", "meta", {tree});
  for (uint32_t cycle = 0; cycle < 2; ++cycle) {
    for (uint32_t phase = 0; phase < 4; ++phase) RunStep(0, cycle, {}, phase);
  }
  AgentMetrics m = collector_->Gather();
  ASSERT_TRUE(m.run);
  ASSERT_EQ(m.run->files.size(), 4u);
  EXPECT_EQ((m.run->files[{"tree", "mkdir"}].ops), 2u * 2);
  EXPECT_EQ((m.run->files[{"tree", "create"}].ops), 6u * 2);
  EXPECT_EQ((m.run->files[{"tree", "create"}].latency.count), 6u * 2);
  EXPECT_EQ((m.run->files[{"tree", "rmdir"}].ops), 2u * 2);
  EXPECT_TRUE(m.run->io.empty());
  EXPECT_GT(m.job_cpu_user_ns + m.job_cpu_sys_ns, 0u);  // the finished phases' job threads
  Stop();
}

TEST(ThreadCpuReader, ParsesStatAfterTheCommandName) {
  uint64_t utime = 0, stime = 0;
  // A command name with spaces and a parenthesis, as a thread may name itself.
  ASSERT_TRUE(ParseStatTimes("123 (a b) c) S 1 2 3 4 5 6 7 8 9 10 77 88 0 0 20 0 1 0", utime, stime));
  EXPECT_EQ(utime, 77u);
  EXPECT_EQ(stime, 88u);
  EXPECT_FALSE(ParseStatTimes("123 (x) S 1 2", utime, stime));
  // This very thread is found, and its CPU time is read.
  const int self = static_cast<int>(gettid());
  volatile uint64_t spin = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(60);
  while (std::chrono::steady_clock::now() < until) spin = spin + 1;
  ThreadsCpu cpu = ReadThreadsCpu(std::span<const int>(&self, 1));
  EXPECT_GT(cpu.user_ns + cpu.sys_ns, 0u);
  const int gone = 0x3fffffff;
  EXPECT_EQ(ReadThreadsCpu(std::span<const int>(&gone, 1)).user_ns, 0u);
}

}  // namespace
}  // namespace iofleet::agent
