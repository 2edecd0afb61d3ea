// One part of a step that StepRunner (agent/run/step_runner.h) prepares, releases at the step's
// start instant and finishes: an io step's jobs (IoTask, agent/tasks/io_task.h), or the work of a
// step that is not an io job: a host action (sync, drop_caches, readahead, hook), one phase of a
// files step, or a copy (task_factory.h). A step holds a list of tasks (today one), released
// together through one StartGate; the runner adds up their progress, samples and CPU.
//
// A task runs in one of two ways. Most are run: StepRunner calls Run on a thread of its own that
// waits on the gate, and times it. A task with threads of its own (io: one per job, started at
// setup so that every job's first I/O follows the start by a wake-up, not a thread creation)
// starts them in Launch, each waiting on the gate, and times itself in Finish.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/stats/step_sample.h"
#include "agent/host/host_stats.h"
#include "core/base/histogram.h"
#include "core/base/status.h"
#include "iofleet/v1/agent.pb.h"
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

// The one release of a step: every thread of every task of the step waits on it, so one notify
// lets them all go at the start instant. It also holds the step's stop flag, and counts the
// threads that have returned, by which StepRunner learns that the step is done.
//
// Thread-safety: all of it, from any thread.
class StartGate {
 public:
  // Task threads: blocks until the step is released or aborted. False when stop was set by then
  // (aborted, or stopped before the start): the thread then does no work.
  bool Wait();
  // The start instant, monotonic (core/base/clock.h): valid once Wait returned true.
  uint64_t start_ns() const { return start_ns_; }
  const std::atomic<bool>& stop() const { return stop_; }
  // Called once by every thread that waited, as the last thing it does.
  void Returned();

  // StepRunner's side. How many threads will wait (set before any of them can return).
  void Expect(uint32_t threads);
  // Releases the step at `start_ns`: Wait returns in every thread.
  void Open(uint64_t start_ns);
  // Asked from outside (the controller's StopStep, a cancelled run): the step's result says
  // stopped early.
  void RequestStop();
  // Stops the step whether or not it was released: waiting threads return without work.
  void Abort();
  bool stop_requested() const { return requested_.load(std::memory_order_relaxed); }

  // A task's jobs watch a flag of their own (to stop one stream's jobs alone, job_end: stream):
  // registered before the gate opens, it is set whenever stop is.
  void AlsoStop(std::atomic<bool>& flag);
  // A job's end ended the step (job_end: step): every thread stops, but the step ran the
  // course its plan gave it (not stop_requested).
  void EndStep();
  // When EndStep was first called (monotonic ns; 0: it was not).
  uint64_t ended_ns() const { return ended_ns_.load(std::memory_order_relaxed); }
  // True once the gate is open and every expected thread has returned; waits until `until`.
  bool WaitReturned(std::chrono::steady_clock::time_point until);

 private:
  void SetStop();

  std::atomic<bool> stop_{false};
  std::atomic<bool> requested_{false};
  std::atomic<uint64_t> ended_ns_{0};
  uint64_t start_ns_ = 0;  // written under mu_ before open_, read after Wait
  std::mutex mu_;
  std::vector<std::atomic<bool>*> also_stop_;  // under mu_
  std::condition_variable cv_;
  bool open_ = false;
  uint32_t expected_ = 0;
  uint32_t returned_ = 0;
};

// A task's measurement window: it opens `ramp_ns` after the start and, for a time-based task,
// closes `runtime_ns` later (0: when the task is done). StepRunner samples the process's and
// the host's CPU at its edges.
// A stream's start_delay is part of `ramp_ns`: its window opens that much later.
struct TaskWindow {
  uint64_t ramp_ns = 0;
  uint64_t runtime_ns = 0;
};

// What StepRunner measured around a task, for its Finish.
struct StepTiming {
  uint64_t start_ns = 0;       // the release, monotonic (0: never released)
  uint64_t start_unix_ns = 0;  // the same instant on the wall clock
  uint64_t end_ns = 0;         // when Run returned (a task that is run; 0 for one with own threads)
  bool stopped = false;        // stopped early: stop was requested
  CpuSample cpu_at_start;      // at the edges of the task's window
  CpuSample cpu_at_end;
};

// What an io task asks of the storage, for its window's resources (agent/host/resource_sample.h).
struct StorageLoad {
  std::string dir;  // where its files are
  uint32_t in_flight = 0;  // jobs x queue depth (psync: jobs)
  uint64_t rate_iops = 0;  // its jobs' rate caps together; 0: none
  uint64_t rate_bytes_per_sec = 0;
  bool direct = false;
  bool buffered = false;  // reaches the storage through the page cache (not direct, not the null engine)
};

class StepTask {
 public:
  virtual ~StepTask() = default;

  // Setup, untimed, once, before Launch (StepRunner::Prepare): an io task opens its files and
  // fills what it would read as holes here. The default has nothing to do.
  virtual Status Prepare() { return Status::Ok(); }
  // A task with threads of its own starts them here, each waiting on `gate` (gate.Wait) and
  // calling gate.Returned() as it returns, and answers how many it started (0 is one: an io step
  // with no jobs on this agent). The default, none, means StepRunner runs Run on a thread of
  // its own.
  virtual std::optional<uint32_t> Launch(StartGate& gate) { return std::nullopt; }
  // Joins the threads Launch started, once the gate is open (Finish, the runner's destructor).
  virtual void JoinThreads() {}
  // The timed part of a task that is run. Returns early with Ok once `stop` is set; the first
  // error otherwise.
  virtual Status Run(const std::atomic<bool>& stop) = 0;
  virtual TaskWindow Window() const { return {}; }
  // The stream of its step this task runs (an io step with streams); empty for a step without.
  virtual const std::string& stream() const;
  // The jobs it runs on this agent (io tasks; 0 by default).
  virtual uint32_t jobs() const { return 0; }
  // io tasks: the storage it works on and what it asks of it; none by default.
  virtual std::optional<StorageLoad> Storage() const { return std::nullopt; }
  // The same while a window runs under `cut`'s order (its pace and queue depth per job, or the
  // plan's where it sets none): what a window's limit is judged with.
  virtual std::optional<StorageLoad> StorageUnder(const v1::CutWindowRequest& cut) const {
    (void)cut;
    return Storage();
  }
  // A step cut into windows (an io step with target_latency, curve or steady:
  // agent/tasks/window_cutter.h):
  // orders cut `cut` at `at_ns` (monotonic) with the pace and queue depth per job that `load`
  // asks (its rate_iops, rate_bytes_per_sec, queue_depth), and hands out each window once every
  // job made its cut. Others refuse the cut and have no window.
  virtual Status OrderCut(uint32_t cut, uint64_t at_ns, const v1::CutWindowRequest& load);
  virtual std::optional<v1::WindowResult> TakeWindow() { return std::nullopt; }
  virtual bool cut_into_windows() const { return false; }

  // Cumulative, from any thread.
  virtual uint64_t ops() const { return 0; }
  virtual uint64_t bytes() const { return 0; }
  // Cumulative counters so far (not elapsed_ns nor started_at_unix_ns: StepRunner's). The
  // default has ops() and bytes() only; an io task adds per-op counters, errors, ramp and
  // expected ops.
  virtual v1::Progress Progress() const;
  // Adds the latency recorded so far into `read` and `write` (io tasks; nothing by default).
  virtual void MergeLatency(LatencyHistogram& read, LatencyHistogram& write) const {}
  // Tasks that run jobs (io, files, copy): their threads' CPU time, once they returned. None for
  // a host action (sync, drop_caches, readahead, hook): its step then reports no CPU at all.
  virtual std::optional<JobsCpuTime> JobsCpu() const { return std::nullopt; }
  // For the metrics, from any thread while it runs: adds what its jobs did so far into `out`
  // (io, files and copy tasks; nothing for a host action), and its job threads' ids.
  virtual void Sample(StepSample& out) const {}
  virtual void JobThreadIds(std::vector<int>& out) const {}

  // The task's result once its threads returned, or its first error. The default: Report, plus
  // the window StepRunner measured (start to end_ns), the start, stopped early and CPU.
  virtual Result<v1::StepResult> Finish(const StepTiming& timing);
  // What the task did, for the default Finish: ops, bytes, latency, note.
  virtual void Report(v1::StepResult& result) const {}
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
