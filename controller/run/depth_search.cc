#include "controller/run/depth_search.h"

#include <fmt/format.h>

#include <algorithm>

#include "controller/report/report_writers.h"
#include "core/base/units.h"

namespace iofleet::controller {

DepthSearch::Next DepthSearch::next() const {
  if (probes_.empty()) return {false, queue_depth_, false};
  if (found_ || probes_.size() >= max_probes_) return {true, 0, false};
  const bool last_window = probes_.size() + 1 == max_probes_;
  if (passed_ > 0 && (failed_ == passed_ + 1 || last_window)) return {false, passed_, true};
  if (passed_ == 0 && (failed_ <= 1 || last_window)) return {true, 0, false};  // nothing passed, nothing lower
  return {false, passed_ + (failed_ - passed_) / 2, false};
}

std::optional<uint32_t> DepthSearch::failed_above() const {
  std::optional<uint32_t> lowest;
  for (const SearchProbe& p : probes_) {
    if (!p.passed && found_ && *p.queue_depth > *found_ && (!lowest || *p.queue_depth < *lowest)) lowest = *p.queue_depth;
  }
  return lowest;
}

bool DepthSearch::converged() const {
  const std::optional<uint32_t> above = failed_above();
  return found_ && (!above || *above == *found_ + 1);
}

uint32_t DepthSearch::HighestPassBelow(uint32_t depth) const {
  uint32_t best = 0;
  for (const SearchProbe& p : probes_) {
    if (p.passed && *p.queue_depth < depth && *p.queue_depth > best) best = *p.queue_depth;
  }
  return best;
}

void DepthSearch::Record(uint32_t queue_depth, bool confirm, double rate_achieved, uint64_t latency_ns, uint64_t window_ns,
                         uint64_t ops) {
  SearchProbe p;
  p.queue_depth = queue_depth;
  p.rate_achieved = rate_achieved;
  p.latency_ns = latency_ns;
  p.window_ns = window_ns;
  p.ops = ops;
  p.passed = latency_ns <= max_latency_ns_ && ops > 0;
  p.confirm = confirm;
  if (confirm && p.passed) {
    found_ = queue_depth;
    found_rate_ = rate_achieved;
  } else if (confirm) {
    failed_ = queue_depth;
    passed_ = HighestPassBelow(queue_depth);
  } else if (p.passed) {
    passed_ = std::max(passed_, queue_depth);
  } else {
    failed_ = std::min(failed_, queue_depth);
  }
  probes_.push_back(p);
}

std::string DepthSearch::Failure(const std::string& percentile) const {
  const std::string target = "p" + percentile + " <= " + FormatDuration(max_latency_ns_);
  if (probes_.size() >= max_probes_ && passed_ > 0) {
    return fmt::format("the search used its {} windows before a confirming window met {} (the highest queue depth that passed: {})",
                       max_probes_, target, passed_);
  }
  const SearchProbe* lowest = nullptr;
  for (const SearchProbe& p : probes_) {
    if (!lowest || *p.queue_depth < *lowest->queue_depth) lowest = &p;
  }
  if (!lowest) return "no window was measured";
  if (lowest->ops == 0) return fmt::format("queue depth {} completed nothing in its window", *lowest->queue_depth);
  return fmt::format("{} queue depth {} met {}: p{} {} at {:.0f} achieved", *lowest->queue_depth == 1 ? "not even" : "not the lowest tried,",
                     *lowest->queue_depth, target, percentile, FormatLatency(static_cast<double>(lowest->latency_ns)), lowest->rate_achieved);
}

}  // namespace iofleet::controller
