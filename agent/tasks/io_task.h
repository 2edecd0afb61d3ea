// The task of an io step (agent/tasks/step_task.h): its jobs. Prepare opens the step's files,
// fills what it would read as holes (untimed), prepares each job's buffers, data and engine, and
// measures how much of what a buffered read touches is in the page cache. Launch starts one
// thread per job, each waiting on the step's StartGate; released, each runs the hot path's
// IoWorker (agent/worker/io_worker.h) over its own JobStats. Finish records what the step wrote
// (the run's coverage) and turns the jobs' counters into the step's exact result, or the first
// job's error naming agent, file and offset.
//
// Thread-safety: Prepare, Launch, JoinThreads and Finish from one thread (StepRunner's caller);
// Progress, MergeLatency, Sample and JobThreadIds from any thread (they read the jobs' counters:
// one writer each); JobsCpu once the jobs returned.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/engine/io_engine.h"
#include "agent/fs/coverage.h"
#include "agent/fs/workspace.h"
#include "agent/host/page_cache.h"
#include "agent/stats/job_stats.h"
#include "agent/tasks/step_task.h"
#include "agent/tasks/stream_shares.h"
#include "agent/tasks/window_cutter.h"
#include "agent/worker/data_generator.h"
#include "agent/worker/io_worker.h"
#include "core/base/unique_fd.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::agent {

// What an io step's jobs need: the step, and where its files are.
struct IoPlan {
  v1::IoSpec io;                    // resolved and planned: nothing left to default
  std::string read_from_agent;      // read_from: next_agent: whose files to read
  uint32_t global_first_job = 0;    // file_layout: shared_global: this agent's first job ...
  uint32_t global_jobs = 1;         // ... of all the jobs of the run
  uint32_t step_index = 0;
  // A step with streams: the stream's name and place in the step (its jobs' seeds differ from
  // every other stream's); empty and 0 for a step without.
  std::string stream;
  uint32_t stream_index = 0;
  std::shared_ptr<Workspace> workspace;
  std::string agent_name;
  uint64_t run_token = 0;           // unique per run: seeds data and tags verify headers
  std::shared_ptr<FileCoverage> coverage;  // what this run wrote so far; updated by Finish
  // Set when the run ends while the step is being set up: filling stops between writes.
  std::shared_ptr<const std::atomic<bool>> cancel;
  // fio's flow: the flow this stream's jobs are in, shared with the other streams' of the same
  // id (FlowSharesOf); null without flow.
  std::shared_ptr<FlowShare> flow;
  // data.dedupe_global: the agent's one working set for the step's streams that share it
  // (DedupeSetsOf): this stream's jobs' parts start at chunk `first` of a set of `chunks`.
  DedupeSetPlace dedupe_set;
};

class IoTask final : public StepTask {
 public:
  explicit IoTask(IoPlan plan) : plan_(std::move(plan)) {}
  // Joins the job threads: the gate they wait on must have been opened (StepRunner does).
  ~IoTask() override;

  Status Prepare() override;
  std::optional<uint32_t> Launch(StartGate& gate) override;
  void JoinThreads() override;
  // Not called: Launch starts the jobs' own threads.
  Status Run(const std::atomic<bool>& stop) override;
  TaskWindow Window() const override { return {plan_.io.start_delay() + plan_.io.ramp(), plan_.io.runtime()}; }
  const std::string& stream() const override { return plan_.stream; }
  uint32_t jobs() const override { return plan_.io.jobs(); }
  std::optional<StorageLoad> Storage() const override { return StorageUnder(v1::CutWindowRequest()); }
  std::optional<StorageLoad> StorageUnder(const v1::CutWindowRequest& cut) const override;
  Status OrderCut(uint32_t cut, uint64_t at_ns, const v1::CutWindowRequest& load) override;
  std::optional<v1::WindowResult> TakeWindow() override;
  bool cut_into_windows() const override { return cutter_ != nullptr; }

  v1::Progress Progress() const override;
  void MergeLatency(LatencyHistogram& read, LatencyHistogram& write) const override;
  std::optional<JobsCpuTime> JobsCpu() const override;
  void Sample(StepSample& out) const override;
  void JobThreadIds(std::vector<int>& out) const override;
  Result<v1::StepResult> Finish(const StepTiming& timing) override;

 private:
  // Members are destroyed in reverse order: the engine (which reaps what is in flight) before
  // the buffers and the file it uses.
  struct Job {
    std::string file;  // its name, the key of its coverage
    std::string path;  // where it is, for messages
    ByteSpan range{0, 0};  // the bytes of its file the job's range spans, holes between its blocks included
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
    // A stop reached it before its share was done (or before it began): ended by a job_end, its
    // window runs to the instant of that end (its last completion may lie a rate's gap before).
    bool stopped = false;
  };
  Status OpenJobs();
  void SpaceSequential(const v1::IoSpec& io, SequenceSpec& seq) const;
  Status Preallocate();
  Status Unlink();
  void PlanJob(const v1::IoSpec& io, bool writes, bool null_engine, Job& job) const;
  // What job j's writes carry: the step's data options, its own stream and working set.
  DataOptions DataOptionsFor(const v1::IoSpec& io, uint64_t job_seed, uint64_t seed_base, uint32_t j) const;
  Result<const OffsetDistribution*> DistributionFor(const DistributionSpec& spec, uint64_t slots, uint64_t seed_base);
  static Status SequenceFor(const DistributionSpec& distribution, const v1::IoSpec& io, const std::string& where, SequenceSpec& seq);
  Status FillHoles();
  void RunJob(Job& job, StartGate& gate);
  // A job finished its share: what its job_end ends with it (its stream's jobs, or the step).
  void EndOthers(StartGate& gate);
  void RecordCoverage();
  Status JobError(const Job& job) const;

  IoPlan plan_;
  uint64_t slot_size_ = 0;
  // A non-uniform distribution's tables, one per range size, read by the jobs' sequences (so
  // declared before them: destroyed after them).
  std::vector<std::shared_ptr<const OffsetDistribution>> distributions_;
  // A target_latency step: its cuts and the jobs' snapshots, which the jobs use (so declared
  // before them: destroyed after them).
  std::unique_ptr<WindowCutter> cutter_;
  std::vector<std::unique_ptr<Job>> jobs_;
  std::vector<std::thread> threads_;
  uint64_t filled_bytes_ = 0;
  std::optional<CacheResidency> cache_;  // measured at the end of setup (buffered reads)
  // What the jobs watch: set by the gate's stop (registered by Launch), or by a job whose
  // job_end is stream.
  std::atomic<bool> stop_{false};
  std::atomic<bool> ended_others_{false};  // a job's job_end stopped others
  std::atomic<uint64_t> stream_ended_ns_{0};  // when a job's job_end: stream stopped its stream (0: none did)
  const StartGate* gate_ = nullptr;         // Launch's: when a job_end: step ended the step
};

}  // namespace iofleet::agent
