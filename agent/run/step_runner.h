// Runs one step on this agent. An io step: opens the step's files, fills what it would read as
// holes (untimed), prepares buffers, data and engines, then runs one thread per job and turns
// their counters into the step's exact result. Any other step is a StepTask, released and
// timed the same way.
//
// Thread-safety: Start, WaitFor and Finish from one thread (the Start RPC); RequestStop and
// Progress from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/engine/io_engine.h"
#include "agent/fs/coverage.h"
#include "agent/host/host_stats.h"
#include "agent/host/page_cache.h"
#include "agent/tasks/step_task.h"
#include "agent/fs/workspace.h"
#include "agent/stats/job_stats.h"
#include "agent/worker/data_generator.h"
#include "agent/worker/io_worker.h"
#include "core/base/unique_fd.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::agent {

struct StepContext {
  std::unique_ptr<StepTask> task;   // set: not an io step
  v1::IoSpec io;                    // resolved and planned: nothing left to default
  std::string read_from_agent;      // read_from: next_agent: whose files to read
  uint32_t global_first_job = 0;    // file_layout: shared_global: this agent's first job ...
  uint32_t global_jobs = 1;         // ... of all the jobs of the run
  uint32_t step_index = 0;
  std::shared_ptr<Workspace> workspace;
  std::string agent_name;
  uint64_t run_token = 0;           // unique per run: seeds data and tags verify headers
  std::shared_ptr<FileCoverage> coverage;  // what this run wrote so far; updated by Finish
  // Set when the run ends while the step is being set up: filling stops between writes.
  std::shared_ptr<const std::atomic<bool>> cancel;
};

class StepRunner {
 public:
  ~StepRunner();

  static Result<std::unique_ptr<StepRunner>> Prepare(StepContext context);

  // Starts the job threads, which wait for Go: the step is then ready to begin at one instant.
  void Launch();
  // Releases the jobs: I/O begins now.
  void Go();
  // True once every job has returned.
  bool WaitFor(std::chrono::nanoseconds timeout);
  void RequestStop() { stop_.store(true, std::memory_order_relaxed); }
  // Stops the step whether or not it was released: waiting jobs return without I/O.
  void Abort();
  bool stop_requested() const { return stop_.load(std::memory_order_relaxed); }
  // Cumulative counters so far (agent/run/progress_sampler.h adds the latency deltas).
  v1::Progress Progress() const;
  // For the metrics, from any thread: what the step did so far, read from its jobs' counters
  // (final once Finish has joined them), and the ids of its job threads still running.
  StepSample Sample() const;
  void JobThreadIds(std::vector<int>& out) const;
  // The job threads' exact CPU time: after Finish (written by each job as it returns).
  JobsCpuTime JobsCpu() const;
  // Adds every job's latency histogram so far into `read` and `write` (io steps; none for a task).
  void MergeLatency(LatencyHistogram& read, LatencyHistogram& write) const;
  // Joins the jobs; the exact result, or the first job's error naming agent, file and offset.
  Result<v1::StepResult> Finish();

 private:
  // Members are destroyed in reverse order: the engine (which reaps what is in flight) before
  // the buffers and the file it uses.
  struct Job {
    std::string file;  // its name, the key of its coverage
    std::string path;  // where it is, for messages
    UniqueFd fd;
    AlignedBuffer buffer_block;  // queue_depth slots of slot_size bytes, aligned
    JobPlan plan;
    std::unique_ptr<IoEngine> engine;
    std::vector<IoRequest> requests;
    std::vector<Completion> completions;
    std::vector<std::byte*> buffers;
    std::vector<iovec> iovecs;
    DataOptions data_options;
    DataGenerator data;
    JobStats stats;
  };
  StepRunner() = default;
  Status OpenJobs();
  Status FillHoles();
  void RunJob(Job& job);
  void RunTask();
  size_t Expected() const { return jobs_.size() + (ctx_.task ? 1 : 0); }
  void SampleWindowEdges();
  void RecordCoverage();
  Status JobError(const Job& job) const;

  StepContext ctx_;
  uint64_t slot_size_ = 0;
  std::vector<std::unique_ptr<Job>> jobs_;
  std::vector<std::thread> threads_;
  uint64_t filled_bytes_ = 0;
  uint64_t start_ns_ = 0;
  uint64_t go_unix_ns_ = 0;  // the wall clock at Go, to report the first I/O on it
  bool released_ = false;     // guarded by mu_
  uint64_t window_start_ns_ = 0;
  uint64_t window_end_ns_ = 0;  // time-based steps only
  CpuSample cpu_at_start_;
  CpuSample cpu_at_end_;
  bool sampled_start_ = false;
  bool sampled_end_ = false;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable done_cv_;
  uint32_t jobs_done_ = 0;
  Status task_status_;
  uint64_t task_end_ns_ = 0;
  std::optional<CacheResidency> cache_;  // measured at the end of setup (buffered reads)
};

}  // namespace iofleet::agent
