// The Progress messages of one Start stream: the step runner's cumulative counters, plus each
// op's latency as a sparse histogram of what completed since the previous message (merged
// exactly on the controller, which turns them into a live p99 and Prometheus histograms).
//
// Thread-safety: one per stream, used by the stream's thread only; it only reads the job
// threads' counters (one writer each, nobody resets: readers copy and subtract).
#pragma once

#include <memory>
#include <vector>

#include "agent/run/step_runner.h"
#include "core/base/histogram.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::agent {

class ProgressSampler {
 public:
  explicit ProgressSampler(const StepRunner& runner) : runner_(runner) {}

  v1::Progress Next();

 private:
  const StepRunner& runner_;
  // What the previous message covered (30 KiB each: on the heap).
  std::unique_ptr<LatencyHistogram> sent_read_ = std::make_unique<LatencyHistogram>();
  std::unique_ptr<LatencyHistogram> sent_write_ = std::make_unique<LatencyHistogram>();
  // The same per stream (an io step with streams), made at the first message.
  std::vector<std::unique_ptr<LatencyHistogram>> sent_stream_read_, sent_stream_write_;
};

// The buckets of `now` not yet in `before`, and their sum: `now` was read later than `before`
// from the same monotonic counters, so no bucket goes down (one that seems to is skipped).
void HistogramDelta(const LatencyHistogram& before, const LatencyHistogram& now, v1::Histogram& out);

}  // namespace iofleet::agent
