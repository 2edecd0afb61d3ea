// The decisions of a target_latency search that varies each job's queue depth (vary:
// queue_depth, as fio's latency_target does), apart from the agents and the clock. The first
// window runs at the step's queue depth: if it meets the target, one more window confirms that
// depth. Otherwise each probe takes the middle of the depths between the highest that passed (at
// first none) and the lowest that failed, until the two are next to each other, and the highest
// that passed is confirmed by one more window. Depths are whole numbers, so the answer is exact:
// log2(queue_depth) + 2 windows at most (12 for 1024), within max_probes. A confirming window
// that fails is a failed probe and the search goes on below it; a depth of 1 that fails ends it.
// No rate is asked, so a window passes on its latency alone (from each request's submission).
//
// Thread-safety: none (the step executor's search thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "controller/report/report_model.h"

namespace iofleet::controller {

class DepthSearch {
 public:
  DepthSearch(uint64_t max_latency_ns, uint32_t max_probes, uint32_t queue_depth)
      : max_latency_ns_(max_latency_ns), max_probes_(max_probes), failed_(queue_depth + 1), queue_depth_(queue_depth) {}

  struct Next {
    bool done = false;
    uint32_t queue_depth = 0;  // each job's for the window
    bool confirm = false;
  };
  Next next() const;
  void Record(uint32_t queue_depth, bool confirm, double rate_achieved, uint64_t latency_ns, uint64_t window_ns, uint64_t ops);

  const std::vector<SearchProbe>& probes() const { return probes_; }
  bool met() const { return found_.has_value(); }
  std::optional<uint32_t> found() const { return found_; }
  // What the confirming window achieved (IOPS, or bytes per second), when met.
  std::optional<double> found_rate() const { return found_rate_; }
  // Once met: the lowest depth tried above the found one that failed; none when nothing above
  // it failed (the step's queue_depth met the target).
  std::optional<uint32_t> failed_above() const;
  // Met and exact: the depth one above it failed (or none did); false when the windows ran out.
  bool converged() const;
  // Why the search found nothing (after done without met).
  std::string Failure(const std::string& percentile) const;

 private:
  uint32_t HighestPassBelow(uint32_t depth) const;

  const uint64_t max_latency_ns_;
  const uint32_t max_probes_;
  uint32_t passed_ = 0;  // the highest depth that passed (0: none)
  uint32_t failed_;      // the lowest that failed (queue_depth + 1: none)
  const uint32_t queue_depth_;
  std::vector<SearchProbe> probes_;
  std::optional<uint32_t> found_;
  std::optional<double> found_rate_;
};

}  // namespace iofleet::controller
