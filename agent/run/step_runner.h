// Runs one io step on this agent: opens the job files, fills what a read step would find
// missing (untimed), allocates buffers and engines, then runs one thread per job.
//
// Thread-safety: Start, WaitFor, Finish from one thread (the Start RPC); RequestStop and
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
#include "agent/run/workspace.h"
#include "agent/stats/job_stats.h"
#include "agent/worker/io_worker.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::agent {

class StepRunner {
 public:
  ~StepRunner();

  static Result<std::unique_ptr<StepRunner>> Prepare(const v1::IoSpec& io,
                                                     std::shared_ptr<Workspace> workspace,
                                                     const std::string& agent_name);

  void Start();
  // True once every job has returned.
  bool WaitFor(std::chrono::nanoseconds timeout);
  void RequestStop() { stop_.store(true, std::memory_order_relaxed); }
  v1::Progress Progress() const;
  // Joins the jobs; the exact result, or the first job's error naming agent, file and offset.
  Result<v1::StepResult> Finish();

 private:
  struct Job {
    std::string file;
    int fd = -1;
    JobPlan plan;
    std::unique_ptr<IoEngine> engine;
    std::vector<IoRequest> requests;
    std::vector<Completion> completions;
    std::byte* buffers = nullptr;
    JobStats stats;
    int fsync_error = 0;
  };
  StepRunner() = default;
  void RunJob(Job& job);

  v1::IoSpec io_;
  std::string agent_name_;
  std::shared_ptr<Workspace> workspace_;
  std::vector<std::unique_ptr<Job>> jobs_;
  std::vector<std::thread> threads_;
  uint64_t filled_bytes_ = 0;
  uint64_t start_ns_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable done_cv_;
  uint32_t jobs_done_ = 0;
};

// The file a job works on, the same name in every step so a read step reads what a write wrote.
std::string JobFileName(uint32_t job);

}  // namespace iofleet::agent
