// The measuring loop of one job: keeps queue_depth requests in flight through an engine, reads
// the clock once per batch, records completions inside the measurement window. It allocates
// nothing, takes no lock, logs nothing, and returns (never throws) when done, stopped, past its
// time, or at the first error.
//
// Thread-safety: one thread; `stop` may be set from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "agent/engine/io_engine.h"
#include "agent/stats/job_stats.h"
#include "agent/stats/window_cuts.h"
#include "agent/worker/data_generator.h"
#include "agent/worker/flow_share.h"
#include "agent/worker/io_sequence.h"
#include "agent/worker/pacer.h"

namespace iofleet::agent {

struct JobPlan {
  int fd = -1;
  SequenceSpec sequence;
  uint32_t queue_depth = 1;
  uint64_t ramp_ns = 0;
  uint64_t runtime_ns = 0;    // 0: one pass (size-based)
  uint64_t deadline_ns = 0;   // size-based: stop issuing here; 0: none
  bool continue_on_error = false;
  bool verify = false;
  uint64_t run_token = 0;     // in every verify header
  uint32_t fsync_every = 0;   // fsync after every N writes
  bool fsync_at_end = false;  // one fsync when the job is done (buffered writes)
  bool fdatasync = false;     // both of the above with fdatasync instead
  // After every think_blocks completions, no request for think_ns, the first think_spin_ns of
  // it spent spinning (fio's thinktime, thinktime_blocks, thinktime_spin); 0: no pause.
  uint64_t think_ns = 0;
  uint64_t think_blocks = 1;
  uint64_t think_spin_ns = 0;
  double rate_ns_per_byte = 0;  // pacing: the gap to the next request's scheduled time
  double rate_ns_per_io = 0;
  const ArrivalGaps* poisson = nullptr;  // rate_process poisson: exponential gaps (else even)
  uint64_t pacer_seed = 1;
  // A size-based job does its range this many times (fio's loops).
  uint64_t loops = 1;
  // A size-based job stops once it has issued this many bytes, going around its range as often
  // as that takes (fio's io_size, times loops); 0: the range `loops` times.
  uint64_t io_limit_bytes = 0;
  // The job fails when, over a cycle of its window, it moves less than this per second (fio's
  // ratemin / rate_iops_min); 0: no minimum.
  uint64_t min_bytes_per_sec = 0;
  uint64_t min_iops = 0;
  uint64_t rate_cycle_ns = 1'000'000'000;
  // Requests staged before they are handed to the kernel together (fio's iodepth_batch_submit).
  // 1 hands each over as soon as it is ready, which keeps a device that serves requests one by
  // one busiest; larger batches save system calls.
  uint32_t submit_batch = 1;
  // Completions taken per reap at most (fio's iodepth_batch_complete_max): 1 replaces each
  // finished request at once, before looking at the next.
  uint32_t complete_batch = 1;
  // A step cut into windows (target_latency): the cuts the controller orders, and this job's
  // snapshot at each; both null otherwise. Both outlive the worker.
  const WindowCuts* cuts = nullptr;
  WindowSnapshot* snapshot = nullptr;
  // fio's flow: the job issues only while its share of the flow's requests is at most its
  // weight's share, looking again every flow_sleep_ns while ahead; null: no flow. Outlives the
  // worker; the job leaves it when it ends (IoTask).
  FlowShare* flow = nullptr;
  uint32_t flow_weight = 0;
  uint64_t flow_sleep_ns = 10'000;
};

class IoWorker {
 public:
  // `buffers` (one per slot) and `completions` hold at least plan.queue_depth entries; `data`
  // may be null for a job that never writes.
  IoWorker(const JobPlan& plan, IoEngine& engine, JobStats& stats, std::span<IoRequest> requests,
           std::span<Completion> completions, std::span<std::byte* const> buffers, DataGenerator* data);

  // Runs from `start_ns` (the step's start: ramp and window count from it).
  void Run(uint64_t start_ns, const std::atomic<bool>& stop) noexcept;
  // The requests the job counted in its flow (FlowShare::Leave takes them out at its end).
  uint64_t flow_issued() const noexcept { return flow_issued_; }

 private:
  bool IssueOne() noexcept;
  void Drain() noexcept;
  bool SubmitStaged() noexcept;
  void Complete(const Completion& c, uint64_t now) noexcept;
  void CountError(int err, uint64_t offset, OpCounters& op) noexcept;
  OpCounters& CountersOf(IoDir dir) noexcept { return dir == IoDir::kRead ? stats_.read : stats_.write; }
  void Fail(int err, uint64_t offset) noexcept;
  void Fsync(uint64_t& now) noexcept;
  // Until when the job may not issue: the pacer's next time and the end of a think pause.
  uint64_t HeldUntil() const noexcept {
    uint64_t until = think_until_ > flow_until_ ? think_until_ : flow_until_;
    if (rate_limited_ && pacer_.next_ns() > until) until = pacer_.next_ns();
    return until;
  }
  // fio's flow: counts the next request in the flow when the job's share allows it, else holds
  // the job for flow_sleep_ns.
  bool TakeFlowTurn(uint64_t now) noexcept {
    if (plan_.flow->MayIssue(flow_issued_, plan_.flow_weight)) {
      plan_.flow->Issued();
      ++flow_issued_;
      return true;
    }
    flow_until_ = now + plan_.flow_sleep_ns;
    return false;
  }
  // After a batch of `done` completions: a think pause begins when enough of them came.
  void Think(uint64_t done, uint64_t now) noexcept;
  // At the end of each rate cycle of the window: whether the job kept its minimum rate.
  void CheckRateMin(uint64_t now) noexcept;
  // A step cut into windows: takes the next cut's order once it is there, and makes the cut
  // once its instant has come (before the completions seen at `now` are counted).
  void LookForCut() noexcept;
  void MaybeCut(uint64_t now) noexcept {
    LookForCut();
    if (now >= cut_at_) MakeCut();
  }
  void MakeCut() noexcept;
  // The extremes of the window since the last cut, for its snapshot.
  struct WindowExtremes {
    uint64_t latency_min = UINT64_MAX;
    uint64_t latency_max = 0;
    uint64_t scheduled_min = UINT64_MAX;
    uint64_t scheduled_max = 0;
  };

  const JobPlan plan_;
  IoEngine& engine_;
  JobStats& stats_;
  std::span<IoRequest> requests_;
  std::span<Completion> completions_;
  DataGenerator* data_;
  IoSequence sequence_;
  std::vector<uint32_t> free_;         // sized in the constructor, never grows
  std::vector<uint64_t> scheduled_;    // per slot: the pacer's time for its request
  uint32_t free_count_ = 0;
  uint32_t inflight_ = 0;
  uint32_t depth_;       // requests in flight at most: the plan's, or a cut's lower one
  uint32_t staged_ = 0;  // enqueued, not yet submitted
  size_t reap_max_ = 1;
  uint64_t window_start_ = 0;
  uint64_t window_end_ = 0;
  Pacer pacer_;
  uint64_t writes_since_fsync_ = 0;
  uint64_t issued_bytes_ = 0;
  uint64_t think_until_ = 0;         // no request before this (a think pause)
  uint64_t spin_until_ = 0;          // ... and until this, spin rather than sleep
  uint64_t since_think_ = 0;         // completions since the last pause
  uint64_t flow_until_ = 0;          // a job ahead of its flow share looks again then
  uint64_t flow_issued_ = 0;         // requests counted in the flow
  uint64_t next_rate_check_ = UINT64_MAX;  // the end of the current rate cycle (with a minimum)
  uint64_t rate_check_ops_ = 0;            // ops and bytes done at its start
  uint64_t rate_check_bytes_ = 0;
  bool time_based_ = false;
  bool rate_limited_ = false;
  bool rate_min_ = false;
  bool think_ = false;
  bool flow_ = false;
  // Any of rate, minimum rate, think time and flow: one test on the loop's path for the jobs with none.
  bool paced_ = false;
  bool io_limited_ = false;  // a size-based job with io_size
  bool failed_ = false;
  bool submit_failed_ = false;
  uint32_t next_cut_ = 1;          // a step cut into windows: the next cut's number ...
  uint64_t cut_at_ = UINT64_MAX;   // ... its instant once ordered
  CutOrder cut_order_;
  WindowExtremes extremes_[2];     // read, write
};

// The calling thread's CPU time so far: the exact total, and getrusage's (tick-grained) user
// and system times, which split a difference of totals (SplitThreadCpu).
struct ThreadCpu {
  uint64_t total_ns = 0;
  uint64_t ru_user_ns = 0;
  uint64_t ru_sys_ns = 0;
};
ThreadCpu ReadThreadCpu() noexcept;
// The CPU time between two readings of one thread, as user and system nanoseconds.
void SplitThreadCpu(const ThreadCpu& from, const ThreadCpu& to, uint64_t& user, uint64_t& sys) noexcept;

}  // namespace iofleet::agent
