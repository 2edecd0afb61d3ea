// A step that is not an io job: a host action (sync, drop_caches, readahead, hook), one phase
// of a files step, or a copy. StepRunner releases it at the step's start instant like io jobs
// and times it; the task does the work with its own threads and keeps its own counters.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/base/histogram.h"
#include "core/base/status.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::agent {

// One job's counters: a single writer, read by the progress stream.
struct TaskCounters {
  std::atomic<uint64_t> ops{0};
  std::atomic<uint64_t> bytes{0};
  LatencyHistogram latency;
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
};

// Sums counters and merges histograms of the jobs into `result`.
void ReportCounters(const std::vector<std::unique_ptr<TaskCounters>>& jobs, v1::StepResult& result);
uint64_t SumOps(const std::vector<std::unique_ptr<TaskCounters>>& jobs);
uint64_t SumBytes(const std::vector<std::unique_ptr<TaskCounters>>& jobs);

}  // namespace iofleet::agent
