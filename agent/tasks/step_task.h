// A step that is not an io job: a host action (sync, drop_caches, readahead, hook), one phase
// of a files step, or a copy. StepRunner releases it at the step's start instant like io jobs
// and times it; the task does the work with its own threads and keeps its own counters.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "agent/stats/step_sample.h"
#include "agent/host/host_stats.h"
#include "core/base/histogram.h"
#include "core/base/status.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::agent {

// Every job thread's name (at most 15 characters), set as it starts.
inline constexpr const char* kJobThreadName = "iofleet-job";

// One job's counters: a single writer, read by the progress stream and the metrics collector.
struct TaskCounters {
  std::atomic<uint64_t> ops{0};
  std::atomic<uint64_t> bytes{0};
  LatencyHistogram latency;
  // The job thread's id while it runs (ThreadCpuRecorder): the collector reads its CPU time.
  std::atomic<int32_t> tid{0};
  // The job thread's CPU time, written once by that thread as it returns (ThreadCpuRecorder)
  // and read after it is joined.
  uint64_t cpu_user_ns = 0;
  uint64_t cpu_sys_ns = 0;
};

// Placed first in a job thread: publishes the thread's id, and records the thread's CPU time
// into its counters when the job returns, however it returns.
class ThreadCpuRecorder {
 public:
  explicit ThreadCpuRecorder(TaskCounters& counters);
  ~ThreadCpuRecorder();
  ThreadCpuRecorder(const ThreadCpuRecorder&) = delete;
  ThreadCpuRecorder& operator=(const ThreadCpuRecorder&) = delete;

 private:
  TaskCounters& counters_;
};

// The job threads' CPU time together, and the busiest one's.
struct JobsCpuTime {
  uint64_t user_ns = 0;
  uint64_t sys_ns = 0;
  uint64_t busiest_ns = 0;
};

class StepTask {
 public:
  virtual ~StepTask() = default;
  // The timed part. Returns early with Ok once `stop` is set; the first error otherwise.
  virtual Status Run(const std::atomic<bool>& stop) = 0;
  // What the task did, beyond the window StepRunner measured: ops, bytes, latency, note.
  virtual void Report(v1::StepResult& result) const = 0;
  // Cumulative, from any thread.
  virtual uint64_t ops() const { return 0; }
  virtual uint64_t bytes() const { return 0; }
  // Tasks that run jobs (files, copy): their threads' CPU time, after Run. None for a host
  // action (sync, drop_caches, readahead, hook): its step then reports no CPU at all.
  virtual std::optional<JobsCpuTime> JobsCpu() const { return std::nullopt; }
  // For the metrics, from any thread while it runs: what its jobs did so far (files and copy
  // tasks; nothing for a host action), and its job threads' ids.
  virtual void Sample(StepSample& out) const {}
  virtual void JobThreadIds(std::vector<int>& out) const {}
};

// Sums counters and merges histograms of the jobs into `result`.
void ReportCounters(const std::vector<std::unique_ptr<TaskCounters>>& jobs, v1::StepResult& result);
uint64_t SumOps(const std::vector<std::unique_ptr<TaskCounters>>& jobs);
uint64_t SumBytes(const std::vector<std::unique_ptr<TaskCounters>>& jobs);
JobsCpuTime SumCpu(const std::vector<std::unique_ptr<TaskCounters>>& jobs);
// The jobs' ops and latency folded for the metrics, and their running threads' ids.
FilesSample SampleTaskJobs(const std::vector<std::unique_ptr<TaskCounters>>& jobs);
void TaskThreadIds(const std::vector<std::unique_ptr<TaskCounters>>& jobs, std::vector<int>& out);

// A task step's CPU inside its window: its jobs', the agent process's and the host's, the
// latter two from samples at the window's edges (as io steps have them).
void ReportTaskCpu(const JobsCpuTime& jobs, const CpuSample& start, const CpuSample& end, uint64_t window_ns,
                   v1::CpuStats& out);

}  // namespace iofleet::agent
