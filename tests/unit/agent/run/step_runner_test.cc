// What StepRunner measures around a step's tasks rather than guesses: CPU for every step kind
// that runs jobs, while a host step measures no CPU and says so by leaving the figures out; and
// a step of several tasks, released together, adds up their figures. What an io task measures
// itself is in tests/unit/agent/tasks/io_task_test.cc.
#include "agent/run/step_runner.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "agent/tasks/files_task.h"
#include "agent/tasks/host_tasks.h"
#include "agent/tasks/io_task.h"
#include "core/base/clock.h"
#include "core/rules/defaults.h"
#include "core/rules/non_io_steps.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

class StepRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(tmp_ / "root");
    auto roots = Roots::Open({(tmp_ / "root").string()});
    ASSERT_TRUE(roots.ok()) << roots.status().message();
    roots_ = std::make_unique<Roots>(std::move(*roots));
    auto ws = Workspace::Create(*roots_->Find("default"), "", "run-1", "node1");
    ASSERT_TRUE(ws.ok()) << ws.status().message();
    ws_ = *ws;
  }

  Result<v1::StepResult> Run(std::vector<std::unique_ptr<StepTask>> tasks) {
    auto runner = StepRunner::Prepare(std::move(tasks));
    if (!runner.ok()) return runner.status();
    (*runner)->Launch();
    (*runner)->Go();
    while (!(*runner)->WaitFor(std::chrono::milliseconds(100))) {
    }
    return (*runner)->Finish();
  }
  Result<v1::StepResult> Run(std::unique_ptr<StepTask> task) {
    std::vector<std::unique_ptr<StepTask>> tasks;
    tasks.push_back(std::move(task));
    return Run(std::move(tasks));
  }
  // A write step of 4 MiB in 64 KiB blocks, to files named `prefix`.
  std::unique_ptr<StepTask> WriteTask(uint32_t step_index, const std::string& prefix) {
    IoPlan plan;
    plan.step_index = step_index;
    plan.workspace = ws_;
    plan.agent_name = "node1";
    plan.run_token = 7;
    plan.coverage = coverage_;
    plan.io = rules::BuiltinIoDefaults();
    plan.io.set_op(v1::OP_WRITE);
    plan.io.set_engine(v1::ENGINE_PSYNC);
    plan.io.set_direct(false);
    plan.io.set_block_size(64 << 10);
    plan.io.set_file_size(4 << 20);
    plan.io.set_file_prefix(prefix);
    return std::make_unique<IoTask>(std::move(plan));
  }

  // Stream `index` of step 0, named `name`, with the builtin defaults.
  IoPlan StreamPlan(const std::string& name, uint32_t index) {
    IoPlan plan;
    plan.step_index = 0;
    plan.stream = name;
    plan.stream_index = index;
    plan.workspace = ws_;
    plan.agent_name = "node1";
    plan.run_token = 7;
    plan.coverage = coverage_;
    plan.io = rules::BuiltinIoDefaults();
    plan.io.set_name(name);
    return plan;
  }
  // A time-based stream of 4 KiB I/O on the null engine: the first reads at random, others write.
  IoPlan NullStreamPlan(const std::string& name, uint32_t index, uint64_t runtime_ns) {
    IoPlan plan = StreamPlan(name, index);
    plan.io.set_op(index == 0 ? v1::OP_RANDREAD : v1::OP_WRITE);
    plan.io.set_engine(v1::ENGINE_NULL);
    plan.io.set_block_size(4096);
    plan.io.set_file_size(1 << 20);
    plan.io.set_runtime(runtime_ns);
    return plan;
  }

  // A size-based stream on the null engine: `jobs` jobs of `blocks` 4 KiB blocks each, at
  // `iops` a job (0: flat out), ending what `end` says when the first finishes its share.
  std::unique_ptr<StepTask> NullStream(const std::string& name, uint32_t index, uint32_t jobs, uint64_t blocks, uint64_t iops,
                                       v1::JobEnd end) {
    IoPlan plan = StreamPlan(name, index);
    plan.io.set_op(v1::OP_READ);
    plan.io.set_engine(v1::ENGINE_NULL);
    plan.io.set_jobs(jobs);
    plan.io.set_block_size(4096);
    plan.io.set_file_size(blocks * 4096);
    if (iops) plan.io.mutable_rate()->set_iops(iops);
    plan.io.set_job_end(end);
    return std::make_unique<IoTask>(std::move(plan));
  }

  testing::TempDir tmp_;
  std::unique_ptr<Roots> roots_;
  std::shared_ptr<Workspace> ws_;
  std::shared_ptr<FileCoverage> coverage_ = std::make_shared<FileCoverage>();
};

TEST_F(StepRunnerTest, FilesStepMeasuresCpu) {
  v1::FilesStep files;
  files.set_dirs(4);
  files.set_files_per_dir(500);
  files.set_file_size(4096);
  files.set_jobs(2);
  files.set_block_size(4096);
  files = rules::ResolveFiles(files);
  for (v1::FilesOp op : {v1::FILES_OP_MKDIR, v1::FILES_OP_CREATE}) {
    FilesPlan plan;
    plan.files = files;
    plan.op = op;
    plan.workspace = ws_;
    plan.relative = "tree";
    plan.agent_name = "node1";
    auto task = MakeFilesTask(plan);
    ASSERT_TRUE(task.ok()) << task.status().message();
    auto result = Run(std::move(*task));
    ASSERT_TRUE(result.ok()) << result.status().message();
    ASSERT_TRUE(result->has_cpu()) << rules::FilesOpName(op);
    const v1::CpuStats& cpu = result->cpu();
    EXPECT_GT(cpu.process_user_ns() + cpu.process_sys_ns(), 0u) << rules::FilesOpName(op);
    EXPECT_GT(cpu.worker_user_ns() + cpu.worker_sys_ns(), 0u) << rules::FilesOpName(op);
    // Host ticks (USER_HZ, 10 ms) may be 0 over a phase this short: the report then leaves
    // host_busy_pct out.
    EXPECT_LE(cpu.host_busy_ticks(), cpu.host_total_ticks());
    EXPECT_LE(cpu.max_worker_busy_permille(), 1000u);
    EXPECT_FALSE(result->has_cache());
  }
}

TEST_F(StepRunnerTest, HostStepMeasuresNoCpu) {
  auto result = Run(MakeSyncTask(false, "node1"));
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_FALSE(result->has_cpu());
  EXPECT_FALSE(result->has_cache());
}

// Not streams yet (one task per step today): the runner assumes no single task. Two io tasks
// released at one instant are one step whose figures add up.
TEST_F(StepRunnerTest, TasksReleasedTogetherAddUp) {
  std::vector<std::unique_ptr<StepTask>> tasks;
  tasks.push_back(WriteTask(0, "a"));
  tasks.push_back(WriteTask(1, "b"));
  auto prepared = StepRunner::Prepare(std::move(tasks));
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  StepRunner& runner = **prepared;
  runner.Launch();
  runner.Go();
  while (!runner.WaitFor(std::chrono::milliseconds(100))) {
  }
  const v1::Progress progress = runner.Progress();
  EXPECT_EQ(progress.write().ops(), 2u * 64u);
  EXPECT_EQ(progress.expected_ops(), 2u * 64u);
  EXPECT_EQ(progress.bytes(), 2u * (4u << 20));
  LatencyHistogram read, write;
  runner.MergeLatency(read, write);
  EXPECT_EQ(write.count(), 2u * 64u);
  auto result = runner.Finish();
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->bytes(), 2u * (4u << 20));
  EXPECT_EQ(result->write().ops(), 2u * 64u);
  uint64_t counted = 0;
  for (uint64_t n : result->write().latency_ns().count()) counted += n;
  EXPECT_EQ(counted, 2u * 64u);
  EXPECT_EQ(result->passes(), 1u);
  EXPECT_GT(result->window_ns(), 0u);
  EXPECT_GT(result->cpu().worker_user_ns() + result->cpu().worker_sys_ns(), 0u);
  const StepSample sample = runner.Sample();
  ASSERT_TRUE(sample.write);
  EXPECT_EQ(sample.write->ops, 2u * 64u);
  EXPECT_EQ(fs::file_size(fs::path(ws_->run_dir()) / "a-0.dat"), 4u << 20);
  EXPECT_EQ(fs::file_size(fs::path(ws_->run_dir()) / "b-0.dat"), 4u << 20);
}

// An io step with streams: one task per stream, released together; the result keeps each
// stream's own figures beside the step's, and a start_delay shifts its stream's window.
TEST_F(StepRunnerTest, StreamsKeepTheirOwnFiguresAndADelayShiftsTheirWindow) {
  auto stream = [&](const std::string& name, uint32_t index, uint64_t delay_ns) {
    IoPlan plan = NullStreamPlan(name, index, 200'000'000);
    plan.io.set_start_delay(delay_ns);
    return std::make_unique<IoTask>(std::move(plan));
  };
  std::vector<std::unique_ptr<StepTask>> tasks;
  tasks.push_back(stream("probe", 0, 0));
  tasks.push_back(stream("load", 1, 150'000'000));
  auto prepared = StepRunner::Prepare(std::move(tasks));
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  StepRunner& runner = **prepared;
  runner.Launch();
  runner.Go();
  while (!runner.WaitFor(std::chrono::milliseconds(100))) {
  }
  const v1::Progress progress = runner.Progress();
  ASSERT_EQ(progress.streams_size(), 2);
  EXPECT_EQ(progress.streams(0).ops() + progress.streams(1).ops(), progress.ops());
  EXPECT_EQ(progress.streams(0).read().ops(), progress.streams(0).ops());
  EXPECT_EQ(progress.streams(1).write().ops(), progress.streams(1).ops());
  auto result = runner.Finish();
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->streams_size(), 2);
  const v1::StepResult& probe = result->streams(0).result();
  const v1::StepResult& load = result->streams(1).result();
  EXPECT_EQ(result->streams(0).name(), "probe");
  EXPECT_EQ(result->streams(1).name(), "load");
  EXPECT_GT(probe.read().ops(), 0u);
  EXPECT_EQ(probe.write().ops(), 0u);
  EXPECT_GT(load.write().ops(), 0u);
  EXPECT_EQ(probe.ops() + load.ops(), result->ops());
  EXPECT_EQ(probe.read().ops(), result->read().ops());
  EXPECT_EQ(load.write().ops(), result->write().ops());
  // Each stream's window is its runtime; the step's spans both: the delay plus a runtime.
  // (A time-based window ends at its runtime or at the last completion after it.)
  EXPECT_GE(probe.window_ns(), 200'000'000u);
  EXPECT_LT(probe.window_ns(), 220'000'000u);
  EXPECT_GE(load.window_ns(), 200'000'000u);
  EXPECT_EQ(result->window_ns(), 150'000'000u + std::max(load.window_ns(), probe.window_ns() - 150'000'000u));
  // Both count from the one release: the probe's first I/O a wake-up after it, the load's 150 ms.
  EXPECT_GE(load.started_at_unix_ns() + 10'000'000u, probe.started_at_unix_ns() + 150'000'000u);
  EXPECT_LT(load.started_at_unix_ns(), probe.started_at_unix_ns() + 200'000'000u);
  EXPECT_EQ(result->started_at_unix_ns(), probe.started_at_unix_ns());
  EXPECT_EQ(probe.streams_size(), 0);
}

// total_jobs spread over more agents than it has jobs leaves some with none: their io task starts
// no thread, and the step is done as soon as it is released.
TEST_F(StepRunnerTest, AnIoTaskWithNoJobsHereIsDoneAtItsStart) {
  auto prepared = [&] {
    IoPlan plan;
    plan.step_index = 0;
    plan.workspace = ws_;
    plan.agent_name = "node1";
    plan.coverage = coverage_;
    plan.io = rules::BuiltinIoDefaults();
    plan.io.set_op(v1::OP_WRITE);
    plan.io.set_jobs(0);
    std::vector<std::unique_ptr<StepTask>> tasks;
    tasks.push_back(std::make_unique<IoTask>(std::move(plan)));
    return StepRunner::Prepare(std::move(tasks));
  }();
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  StepRunner& runner = **prepared;
  runner.Launch();
  std::vector<int> tids;
  runner.JobThreadIds(tids);
  EXPECT_TRUE(tids.empty());
  runner.Go();
  EXPECT_TRUE(runner.WaitFor(std::chrono::seconds(5)));
  auto result = runner.Finish();
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->ops(), 0u);
  EXPECT_EQ(result->passes(), 0u);
}


// job_end: step (fio's exit_what=stonewall): the short stream's job finishing its share ends the
// long stream's job there. The step ran the course its plan gave it: not stopped early, and its
// result says a job's end ended others.
TEST_F(StepRunnerTest, JobEndStepEndsTheOtherStreamsWhenItsJobIsDone) {
  std::vector<std::unique_ptr<StepTask>> tasks;
  tasks.push_back(NullStream("short", 0, 1, 64, 0, v1::JOB_END_STEP));
  tasks.push_back(NullStream("long", 1, 1, 1 << 20, 1000, v1::JOB_END_JOB));  // 1,048,576 I/Os at 1000 a second
  auto prepared = StepRunner::Prepare(std::move(tasks));
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  StepRunner& runner = **prepared;
  runner.Launch();
  runner.Go();
  while (!runner.WaitFor(std::chrono::milliseconds(100))) {
  }
  EXPECT_FALSE(runner.stop_requested());
  auto result = runner.Finish();
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->streams_size(), 2);
  const v1::StepResult& short_stream = result->streams(0).result();
  const v1::StepResult& long_stream = result->streams(1).result();
  EXPECT_EQ(short_stream.ops(), 64u);
  EXPECT_LT(long_stream.ops(), 1u << 20);
  EXPECT_EQ(short_stream.ops() + long_stream.ops(), result->ops());
  EXPECT_TRUE(short_stream.ended_others());
  EXPECT_FALSE(long_stream.ended_others());
  EXPECT_TRUE(result->ended_others());
  EXPECT_FALSE(result->stopped_early());
  EXPECT_FALSE(long_stream.stopped_early());
  // The long stream ran until the short one's end ended it: its window reaches that instant.
  EXPECT_GE(long_stream.window_ns(), short_stream.window_ns()) << long_stream.ops() << " ops; started " << long_stream.started_at_unix_ns();
  EXPECT_EQ(result->window_ns(), long_stream.window_ns());
}

// job_end: stream ends the stream's own jobs, not another stream's: the other stream (rate
// limited, 64 I/Os) still does its whole share after the first stream is done.
TEST_F(StepRunnerTest, JobEndStreamLeavesTheOtherStreamsRunning) {
  std::vector<std::unique_ptr<StepTask>> tasks;
  tasks.push_back(NullStream("quick", 0, 2, 64, 0, v1::JOB_END_STREAM));
  tasks.push_back(NullStream("paced", 1, 1, 64, 400, v1::JOB_END_JOB));  // 160 ms
  auto result = Run(std::move(tasks));
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->streams_size(), 2);
  EXPECT_EQ(result->streams(1).result().ops(), 64u);
  EXPECT_FALSE(result->streams(1).result().ended_others());
  EXPECT_LE(result->streams(0).result().ops(), 2u * 64u);
  EXPECT_GE(result->streams(0).result().ops(), 64u);  // the first of its jobs did its whole share
  EXPECT_FALSE(result->stopped_early());
}

// A step with streams cut into windows (issue 22): every stream's task is cut at the one instant
// with the same pace per job, and the step's window is all of theirs added up with each stream's
// own beside it; a window waits for every stream's jobs, so no stream's figures are left out.
TEST_F(StepRunnerTest, AStepWithStreamsIsCutAsOneWithEachStreamsWindowInside) {
  auto stream = [&](const std::string& name, uint32_t index, uint32_t jobs) {
    IoPlan plan = NullStreamPlan(name, index, 5'000'000'000);
    plan.io.set_jobs(jobs);
    plan.io.mutable_steady();
    return std::make_unique<IoTask>(std::move(plan));
  };
  std::vector<std::unique_ptr<StepTask>> tasks;
  tasks.push_back(stream("probe", 0, 1));
  tasks.push_back(stream("load", 1, 2));
  auto prepared = StepRunner::Prepare(std::move(tasks));
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  StepRunner& runner = **prepared;
  ASSERT_TRUE(runner.cut_into_windows());
  runner.Launch();
  runner.Go();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // the jobs are released
  auto take = [&] {
    std::optional<v1::WindowResult> window;
    for (int i = 0; i < 300 && !window; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      window = runner.TakeWindow();
    }
    return window;
  };
  v1::CutWindowRequest flat_out;
  ASSERT_TRUE(runner.OrderCut(1, MonotonicNs() + 200'000'000, flat_out).ok());
  std::optional<v1::WindowResult> first = take();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->window(), 0u);
  v1::CutWindowRequest paced;
  paced.set_rate_iops(500);  // each job of each stream
  ASSERT_TRUE(runner.OrderCut(2, MonotonicNs() + 100'000'000, paced).ok());
  EXPECT_TRUE(take()) << "the window the pacing cut closed";
  ASSERT_TRUE(runner.OrderCut(3, MonotonicNs() + 400'000'000, paced).ok());
  std::optional<v1::WindowResult> second = take();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->window(), 2u);
  for (const v1::WindowResult* w : {&*first, &*second}) {
    const v1::StepResult& r = w->result();
    ASSERT_EQ(r.streams_size(), 2);
    EXPECT_EQ(r.streams(0).name(), "probe");
    EXPECT_EQ(r.streams(1).name(), "load");
    EXPECT_EQ(r.streams(1).jobs(), 2u);
    EXPECT_EQ(r.streams(0).result().ops() + r.streams(1).result().ops(), r.ops());
    EXPECT_EQ(r.streams(0).result().read().ops(), r.read().ops());
    EXPECT_EQ(r.streams(1).result().write().ops(), r.write().ops());
    EXPECT_EQ(r.streams(0).result().write().ops(), 0u);
    EXPECT_EQ(r.streams(0).result().streams_size(), 0);
    EXPECT_EQ(r.window_ns(), std::max(r.streams(0).result().window_ns(), r.streams(1).result().window_ns()));
  }
  // 400 ms at 500 IOPS a job: about 200 I/Os for the probe's one job, 400 for the load's two.
  const v1::StepResult& probe = second->result().streams(0).result();
  const v1::StepResult& load = second->result().streams(1).result();
  EXPECT_TRUE(second->result().rate_limited());
  EXPECT_NEAR(static_cast<double>(probe.ops()), 200.0, 30.0);
  EXPECT_NEAR(static_cast<double>(load.ops()), 400.0, 50.0);
  EXPECT_GT(probe.read().scheduled_latency_ns().count_size(), 0);
  // Flat out, the null engine does far more than that.
  EXPECT_GT(first->result().ops(), 4 * second->result().ops());
  // A pace per stream (each keeping its share of the load): one entry per stream, in one unit,
  // in place of the every-job rate; anything else is refused before any stream is cut.
  v1::CutWindowRequest mixed;
  mixed.add_stream_rate_iops(500);
  mixed.add_stream_rate_iops(100);
  v1::CutWindowRequest bad = mixed;
  bad.add_stream_rate_bytes_per_sec(1 << 20);
  EXPECT_NE(runner.OrderCut(4, MonotonicNs() + 100'000'000, bad).message().find("in IOPS and in bytes"), std::string::npos);
  bad = mixed;
  bad.set_rate_iops(500);
  EXPECT_NE(runner.OrderCut(4, MonotonicNs() + 100'000'000, bad).message().find("a rate for every job and one per stream"), std::string::npos);
  bad = mixed;
  bad.add_stream_rate_iops(7);
  EXPECT_NE(runner.OrderCut(4, MonotonicNs() + 100'000'000, bad).message().find("3 stream rates for a step of 2 streams"), std::string::npos);
  ASSERT_TRUE(runner.OrderCut(4, MonotonicNs() + 100'000'000, mixed).ok());
  EXPECT_TRUE(take());
  ASSERT_TRUE(runner.OrderCut(5, MonotonicNs() + 400'000'000, mixed).ok());
  std::optional<v1::WindowResult> third = take();
  ASSERT_TRUE(third);
  // 400 ms: the probe's job at 500 IOPS, about 200 I/Os; the load's two at 100, about 80.
  EXPECT_NEAR(static_cast<double>(third->result().streams(0).result().ops()), 200.0, 30.0);
  EXPECT_NEAR(static_cast<double>(third->result().streams(1).result().ops()), 80.0, 20.0);
  runner.RequestStop();
  while (!runner.WaitFor(std::chrono::milliseconds(50))) {
  }
  ASSERT_TRUE(runner.Finish().ok());
}

// A queue depth search over streams (target_latency.stream): each cut's queue depth is for the
// stream it names; a depth that names none, or a stream the step does not have, is refused
// before any stream is cut.
TEST_F(StepRunnerTest, AQueueDepthOverStreamsIsForTheStreamItNames) {
  auto stream = [&](const std::string& name, uint32_t index) {
    IoPlan plan = NullStreamPlan(name, index, 5'000'000'000);
    plan.io.set_queue_depth(8);
    plan.io.mutable_steady();
    return std::make_unique<IoTask>(std::move(plan));
  };
  std::vector<std::unique_ptr<StepTask>> tasks;
  tasks.push_back(stream("probe", 0));
  tasks.push_back(stream("load", 1));
  auto prepared = StepRunner::Prepare(std::move(tasks));
  ASSERT_TRUE(prepared.ok()) << prepared.status().message();
  StepRunner& runner = **prepared;
  runner.Launch();
  runner.Go();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  v1::CutWindowRequest depth;
  depth.set_queue_depth(2);
  EXPECT_NE(runner.OrderCut(1, MonotonicNs() + 100'000'000, depth).message().find("names the stream it is for"), std::string::npos);
  depth.set_queue_depth_stream("other");
  EXPECT_NE(runner.OrderCut(1, MonotonicNs() + 100'000'000, depth).message().find("queue_depth_stream is not a stream of the step"),
            std::string::npos);
  v1::CutWindowRequest no_depth;
  no_depth.set_queue_depth_stream("probe");
  EXPECT_NE(runner.OrderCut(1, MonotonicNs() + 100'000'000, no_depth).message().find("queue_depth_stream is not a stream of the step given"),
            std::string::npos);
  depth.set_queue_depth_stream("probe");
  ASSERT_TRUE(runner.OrderCut(1, MonotonicNs() + 100'000'000, depth).ok());
  std::optional<v1::WindowResult> window;
  for (int i = 0; i < 300 && !window; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    window = runner.TakeWindow();
  }
  ASSERT_TRUE(window) << "every stream made the cut";
  EXPECT_EQ(window->result().streams_size(), 2);
  runner.RequestStop();
  while (!runner.WaitFor(std::chrono::milliseconds(50))) {
  }
  ASSERT_TRUE(runner.Finish().ok());
}

}  // namespace
}  // namespace iofleet::agent
