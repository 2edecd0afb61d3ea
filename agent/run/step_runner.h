// Runs one step on this agent: its tasks (agent/tasks/step_task.h): an io step's IoTask
// (agent/tasks/io_task.h: its jobs' files, buffers, engines, threads and exact figures), one per
// stream for a step with streams, or the task of another kind of step (agent/tasks/task_factory.h). StepRunner only
// prepares them (untimed), has their threads wait on one StartGate (a task's own threads, or one
// it starts to run the task), releases them all at one instant, samples the process's and the
// host's CPU at the edges of each task's window, and finishes them into the step's result. Its
// progress, samples, latency and CPU add up every task's, and so do its result and, for a step
// cut into windows, each window.
//
// Thread-safety: Start, WaitFor, TakeWindow and Finish from one thread (the Start RPC);
// RequestStop, OrderCut and Progress from any thread.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "agent/host/host_stats.h"
#include "agent/host/resource_sample.h"
#include "agent/stats/step_sample.h"
#include "agent/tasks/step_task.h"
#include "core/base/histogram.h"
#include "core/base/status.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::agent {

class StepRunner {
 public:
  ~StepRunner();

  // Prepares every task (StepTask::Prepare: an io task opens and fills its files); the first
  // error, and then nothing was started.
  static Result<std::unique_ptr<StepRunner>> Prepare(std::vector<std::unique_ptr<StepTask>> tasks);

  // Starts the tasks' threads, which wait for Go: the step is then ready to begin at one instant.
  void Launch();
  // Releases every task: the work begins now.
  void Go();
  // True once every thread of every task has returned.
  bool WaitFor(std::chrono::nanoseconds timeout);
  void RequestStop() { gate_.RequestStop(); }
  // Stops the step whether or not it was released: waiting threads return without work.
  void Abort() { gate_.Abort(); }
  // Asked to stop (RequestStop, Abort), not ended by a job's job_end.
  bool stop_requested() const { return gate_.stop_requested(); }
  // Cumulative counters so far, every task's (agent/run/progress_sampler.h adds the latency
  // deltas).
  v1::Progress Progress() const;
  // For the metrics, from any thread: what the step did so far, read from its tasks' counters
  // (final once Finish has joined them), and the ids of its job threads still running.
  StepSample Sample() const;
  void JobThreadIds(std::vector<int>& out) const;
  // The job threads' exact CPU time: after Finish (written by each job as it returns).
  JobsCpuTime JobsCpu() const;
  // Adds every task's latency histograms so far into `read` and `write` (io tasks only).
  void MergeLatency(LatencyHistogram& read, LatencyHistogram& write) const;
  // An io step with streams: how many (a task each, in the step's order; 0 for a step without),
  // and stream k's latency so far.
  size_t streams() const;
  void MergeStreamLatency(size_t stream, LatencyHistogram& read, LatencyHistogram& write) const;
  // A step cut into windows (target_latency, curve, steady; every stream's task is): orders a
  // cut of every task (StepTask::OrderCut), and the window the last cut closed once every job
  // of every task made it, with each stream's window in its result's streams. TakeWindow from
  // one thread (the step's stream). A queue depth over streams is for the stream the cut names
  // (queue_depth_stream); the others keep their own.
  Status OrderCut(uint32_t cut, uint64_t at_ns, const v1::CutWindowRequest& load);
  std::optional<v1::WindowResult> TakeWindow();
  bool cut_into_windows() const;
  // Joins the threads; the exact result of every task together, or the first task's error (an
  // io job's names agent, file and offset).
  Result<v1::StepResult> Finish();

 private:
  // One task and what the runner measures of it.
  struct Slot {
    std::unique_ptr<StepTask> task;
    TaskWindow window;
    bool own_threads = false;
    Status status;        // Run's, for a task the runner runs
    uint64_t end_ns = 0;  // when Run returned
    uint64_t window_start_ns = 0;
    uint64_t window_end_ns = 0;  // time-based tasks only
    CpuSample cpu_at_start;
    CpuSample cpu_at_end;
    bool sampled_start = false;
    bool sampled_end = false;
  };
  StepRunner() = default;
  void RunTask(Slot& slot);
  void SampleWindowEdges();
  void ReadResourceEdges();
  void AddResources(v1::StepResult& step) const;
  // `host` with what the tasks of [from, to) asked of the storage together.
  // `loads` (parallel to [from, to)): each task's load under the cut its window runs under.
  static v1::ResourceStats WithLoad(const v1::ResourceStats& host, std::vector<Slot>::const_iterator from,
                                    std::vector<Slot>::const_iterator to, const v1::CutWindowRequest* loads = nullptr);
  // A window just taken: the host's counters since the last window's edge, with what each task
  // asked under its cut, as the window's resources (and each stream's).
  void AddWindowResources(v1::WindowResult& window);
  void RecordLoad(uint32_t cut, size_t slot, const v1::CutWindowRequest& load);
  uint64_t NextEdge() const;

  // Declared first: destroyed last, after the tasks whose threads wait on it.
  StartGate gate_;
  std::vector<Slot> slots_;
  std::vector<std::thread> threads_;  // one per task the runner runs
  // A step with streams cut into windows: each task's window of the pending cut, once it made it.
  std::vector<std::optional<v1::WindowResult>> pending_windows_;
  uint64_t start_ns_ = 0;
  uint64_t go_unix_ns_ = 0;  // the wall clock at Go, to report the first I/O on it
  // io steps: the storage under the tasks' files, read when the first window opens and when
  // the last one closes, for the step's resources.
  std::optional<ResourceTargets> targets_;
  ResourceReading resources_at_start_;
  ResourceReading resources_at_end_;
  // A step cut into windows: the counters where the window running now opened, and each cut's
  // order per task (window w runs under cut w's; window 0 under the plan), kept until its window
  // is taken. OrderCut writes it from the CutWindow call while the stream's thread takes windows.
  ResourceReading window_edge_;
  std::mutex loads_mu_;
  std::map<uint32_t, std::vector<v1::CutWindowRequest>> cut_loads_;
};

// Adds `from`, a task's progress, into `into`: counters add, per-op counters where `from` has
// them.
void AddProgress(const v1::Progress& from, v1::Progress& into);
// Adds `from`, a task's result, into `into`, the step's, for a step of several tasks: counts and
// histograms add; the window is the longest, passes the fewest, the start the earliest; stopped
// early or rate limited if any was; CPU adds the jobs' time and keeps `into`'s process and host
// figures (the same window's) and the busiest job.
void AddStepResult(const v1::StepResult& from, v1::StepResult& into);

}  // namespace iofleet::agent
