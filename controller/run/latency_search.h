// The decisions of a target_latency search (workload.proto's TargetLatency), apart from the
// agents and the clock: which rate each window asks, whether a window passed, when the search
// is done and what it found. The first window runs at full speed: what it achieves is the
// ceiling (no paced window can achieve more). Then each probe asks a rate between the highest
// that passed and the lowest that failed (the ceiling at first): half the ceiling first, a
// quarter of the last failure while none has passed, and once one has, their geometric mean,
// until the two are within 2%; the highest that passed is then confirmed by one more window.
// A confirming window that fails is a failed probe, and the search goes on below it.
//
// Thread-safety: none (the step executor's search thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "controller/report/report_model.h"

namespace iofleet::controller {

inline constexpr double kSearchPrecision = 0.02;   // done when failed / passed - 1 is at most this
inline constexpr double kAchievedShare = 0.95;     // a probe passes only at 95% of its rate or more

class LatencySearch {
 public:
  // `lowest_rate`: the least rate worth asking (one I/O, or one block, per second per job).
  LatencySearch(uint64_t max_latency_ns, uint32_t max_probes, double lowest_rate)
      : max_latency_ns_(max_latency_ns), max_probes_(max_probes), lowest_rate_(lowest_rate) {}

  struct Next {
    bool done = false;
    std::optional<double> rate;  // absent: full speed (the first window)
    bool confirm = false;
  };
  Next next() const;
  // The window asked by next(): `rate_asked` as the agents were given it (rounded per job).
  void Record(std::optional<double> rate_asked, bool confirm, double rate_achieved, uint64_t latency_ns,
              uint64_t window_ns, uint64_t ops);

  const std::vector<SearchProbe>& probes() const { return probes_; }
  bool met() const { return found_.has_value(); }
  std::optional<double> found() const { return found_; }
  // Once met: the lowest rate tried above the found one that failed (the full-speed window's,
  // what it achieved), the limit lying between the two; none when nothing above it failed.
  std::optional<double> failed_above() const;
  // Met, and within kSearchPrecision of the lowest rate that failed above (or none did): false
  // when the windows ran out first, and the found rate is a rate that meets, not the highest.
  bool converged() const;
  // Why the search found nothing (after done without met).
  std::string Failure(const std::string& percentile, const std::string& unit) const;

 private:
  bool Passes(std::optional<double> rate, double achieved, uint64_t latency_ns) const;
  double HighestPassBelow(double rate) const;

  const uint64_t max_latency_ns_;
  const uint32_t max_probes_;
  const double lowest_rate_;
  std::vector<SearchProbe> probes_;
  double passed_ = 0;  // the highest rate that passed (0: none)
  double failed_ = 0;  // the lowest that failed, or the ceiling
  bool below_lowest_ = false;  // the next rate would be under lowest_rate
  std::optional<double> found_;
};

}  // namespace iofleet::controller
