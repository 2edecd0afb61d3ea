#include "agent/tasks/step_task.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>

#include "agent/worker/io_worker.h"
#include "core/base/clock.h"
#include "core/wire/histogram_proto.h"

namespace iofleet::agent {

const std::string& StepTask::stream() const {
  static const std::string kNone;
  return kNone;
}

Status StepTask::OrderCut(uint32_t, uint64_t, const v1::CutWindowRequest&) {
  return FailedPrecondition("the step is not cut into windows (only an io step with target_latency, curve or steady is)");
}

bool StartGate::Wait() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return open_; });
  return !stop_.load();
}

void StartGate::Returned() {
  std::lock_guard lock(mu_);
  ++returned_;
  cv_.notify_all();
}

void StartGate::Expect(uint32_t threads) {
  std::lock_guard lock(mu_);
  expected_ = threads;
}

void StartGate::Open(uint64_t start_ns) {
  {
    std::lock_guard lock(mu_);
    start_ns_ = start_ns;
    open_ = true;
  }
  cv_.notify_all();
}

void StartGate::SetStop() {
  std::lock_guard lock(mu_);
  stop_.store(true, std::memory_order_relaxed);
  for (std::atomic<bool>* flag : also_stop_) flag->store(true, std::memory_order_relaxed);
}

void StartGate::RequestStop() {
  requested_.store(true, std::memory_order_relaxed);
  SetStop();
}

void StartGate::EndStep() {
  uint64_t none = 0;
  ended_ns_.compare_exchange_strong(none, MonotonicNs(), std::memory_order_relaxed);  // the first end's instant
  SetStop();
}

void StartGate::AlsoStop(std::atomic<bool>& flag) {
  std::lock_guard lock(mu_);
  also_stop_.push_back(&flag);
  if (stop_.load(std::memory_order_relaxed)) flag.store(true, std::memory_order_relaxed);
}

void StartGate::Abort() {
  RequestStop();
  {
    std::lock_guard lock(mu_);
    open_ = true;  // threads still waiting return at once: stop is set
  }
  cv_.notify_all();
}

bool StartGate::WaitReturned(std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mu_);
  return cv_.wait_until(lock, until, [&] { return open_ && returned_ == expected_; });
}

v1::Progress StepTask::Progress() const {
  v1::Progress p;
  p.set_ops(ops());
  p.set_bytes(bytes());
  return p;
}

Result<v1::StepResult> StepTask::Finish(const StepTiming& timing) {
  v1::StepResult result;
  Report(result);
  result.set_window_ns(timing.end_ns > timing.start_ns ? timing.end_ns - timing.start_ns : 0);
  result.set_started_at_unix_ns(timing.start_unix_ns);
  result.set_stopped_early(timing.stopped);
  if (auto jobs_cpu = JobsCpu()) ReportTaskCpu(*jobs_cpu, timing.cpu_at_start, timing.cpu_at_end, result.window_ns(), *result.mutable_cpu());
  return result;
}

uint64_t SumOps(const std::vector<std::unique_ptr<TaskCounters>>& jobs) {
  uint64_t n = 0;
  for (const auto& j : jobs) n += j->ops.load(std::memory_order_relaxed);
  return n;
}

uint64_t SumBytes(const std::vector<std::unique_ptr<TaskCounters>>& jobs) {
  uint64_t n = 0;
  for (const auto& j : jobs) n += j->bytes.load(std::memory_order_relaxed);
  return n;
}

// getrusage(RUSAGE_THREAD) alone reads the running thread's runtime as of its last tick or
// switch: a short job (a mkdir phase of a few directories) reads 0. The thread's CPU clock is
// exact; getrusage gives the user/system split, which the kernel itself keeps by tick samples.
// Before the first sample the split is not known: a files or copy job spends its time in
// system calls, so the time counts as system time then.
ThreadCpuRecorder::ThreadCpuRecorder(TaskCounters& counters) : counters_(counters) {
  pthread_setname_np(pthread_self(), kJobThreadName);
  counters_.tid.store(static_cast<int32_t>(gettid()), std::memory_order_relaxed);
}

ThreadCpuRecorder::~ThreadCpuRecorder() {
  SplitThreadCpu({}, ReadThreadCpu(), counters_.cpu_user_ns, counters_.cpu_sys_ns);
  counters_.tid.store(0, std::memory_order_relaxed);
}

FilesSample SampleTaskJobs(const std::vector<std::unique_ptr<TaskCounters>>& jobs) {
  FilesSample s;
  for (const auto& j : jobs) {
    s.ops += j->ops.load(std::memory_order_relaxed);
    AddFolded(s.latency, Fold(j->latency));
  }
  return s;
}

void TaskThreadIds(const std::vector<std::unique_ptr<TaskCounters>>& jobs, std::vector<int>& out) {
  for (const auto& j : jobs) {
    if (int tid = j->tid.load(std::memory_order_relaxed)) out.push_back(tid);
  }
}

JobsCpuTime SumCpu(const std::vector<std::unique_ptr<TaskCounters>>& jobs) {
  JobsCpuTime t;
  for (const auto& j : jobs) {
    t.user_ns += j->cpu_user_ns;
    t.sys_ns += j->cpu_sys_ns;
    t.busiest_ns = std::max(t.busiest_ns, j->cpu_user_ns + j->cpu_sys_ns);
  }
  return t;
}

void ReportTaskCpu(const JobsCpuTime& jobs, const CpuSample& start, const CpuSample& end, uint64_t window_ns,
                   v1::CpuStats& out) {
  out.set_worker_user_ns(jobs.user_ns);
  out.set_worker_sys_ns(jobs.sys_ns);
  out.set_process_user_ns(end.process_user_ns - start.process_user_ns);
  out.set_process_sys_ns(end.process_sys_ns - start.process_sys_ns);
  out.set_host_busy_ticks(end.host_busy_ticks - start.host_busy_ticks);
  out.set_host_total_ticks(end.host_total_ticks - start.host_total_ticks);
  out.set_max_worker_busy_permille(
      window_ns ? static_cast<uint32_t>(std::min<uint64_t>(jobs.busiest_ns * 1000 / window_ns, 1000)) : 0);
}

void ReportCounters(const std::vector<std::unique_ptr<TaskCounters>>& jobs, v1::StepResult& result) {
  auto merged = std::make_unique<LatencyHistogram>();
  for (const auto& j : jobs) merged->Add(j->latency);
  result.set_ops(SumOps(jobs));
  result.set_bytes(SumBytes(jobs));
  wire::ToProto(*merged, result.mutable_latency_ns());
}

}  // namespace iofleet::agent
