// The measuring loop of one job: keeps queue_depth requests in flight through an engine,
// timestamps each batch, records completions in the job's stats. It allocates nothing, takes
// no lock, logs nothing, and returns (never throws) on error or when asked to stop.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

#include "agent/engine/io_engine.h"
#include "agent/stats/job_stats.h"

namespace iofleet::agent {

struct JobPlan {
  int fd = -1;
  IoDir dir = IoDir::kRead;
  uint64_t file_size = 0;   // a multiple of block_size
  uint32_t block_size = 0;
  uint32_t queue_depth = 1;
  uint64_t runtime_ns = 0;  // 0: one pass over the file; else wrap until the time is up
  std::byte* buffers = nullptr;  // queue_depth * block_size bytes, aligned for O_DIRECT
};

// Everything the loop needs, allocated before the step starts.
class IoWorker {
 public:
  // `requests` and `completions` must hold at least plan.queue_depth entries.
  IoWorker(const JobPlan& plan, IoEngine& engine, JobStats& stats,
           std::span<IoRequest> requests, std::span<Completion> completions)
      : plan_(plan), engine_(engine), stats_(stats), requests_(requests),
        completions_(completions) {}

  // Runs from `start_ns` until done, stopped, or the first error (left in stats.error).
  void Run(uint64_t start_ns, const std::atomic<bool>& stop) noexcept;

 private:
  bool NextOffset(uint64_t& offset) noexcept;
  bool Issue(uint32_t slot, uint64_t now_ns) noexcept;
  void Fail(int err, uint64_t offset) noexcept;

  const JobPlan plan_;
  IoEngine& engine_;
  JobStats& stats_;
  std::span<IoRequest> requests_;
  std::span<Completion> completions_;
  uint64_t next_block_ = 0;
  uint64_t blocks_ = 0;
  bool time_based_ = false;
  bool failed_ = false;
  uint32_t inflight_ = 0;
};

}  // namespace iofleet::agent
