#include "controller/run/latency_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "controller/report/report_writers.h"
#include "core/base/units.h"

namespace iofleet::controller {

LatencySearch::Next LatencySearch::next() const {
  if (probes_.empty()) return {false, std::nullopt, false};
  if (found_ || probes_.size() >= max_probes_) return {true, std::nullopt, false};
  const bool last_window = probes_.size() + 1 == max_probes_;
  if (passed_ > 0 && (failed_ <= passed_ * (1 + kSearchPrecision) || last_window)) return {false, passed_, true};
  if (passed_ == 0 && last_window) return {true, std::nullopt, false};  // nothing passed to confirm
  const bool paced_yet = std::any_of(probes_.begin(), probes_.end(), [](const SearchProbe& p) { return p.rate_asked.has_value(); });
  // Bisection on a log scale: the knee may sit at 5% of the ceiling as well as at 90%.
  const double rate = passed_ > 0 ? std::sqrt(passed_ * failed_) : failed_ / (paced_yet ? 4 : 2);
  if (rate < lowest_rate_) return {true, std::nullopt, false};
  return {false, rate, false};
}

std::optional<double> LatencySearch::failed_above() const {
  std::optional<double> lowest;
  for (const SearchProbe& p : probes_) {
    const double rate = p.rate_asked ? *p.rate_asked : p.rate_achieved;
    if (!p.passed && found_ && rate > *found_ && (!lowest || rate < *lowest)) lowest = rate;
  }
  return lowest;
}

bool LatencySearch::converged() const {
  const std::optional<double> above = failed_above();
  return found_ && (!above || *above <= *found_ * (1 + kSearchPrecision));
}

bool LatencySearch::Passes(std::optional<double> rate, double achieved, uint64_t latency_ns) const {
  if (latency_ns > max_latency_ns_) return false;
  return !rate || achieved >= kAchievedShare * *rate;
}

double LatencySearch::HighestPassBelow(double rate) const {
  double best = 0;
  for (const SearchProbe& p : probes_) {
    if (p.passed && p.rate_asked && *p.rate_asked < rate) best = std::max(best, *p.rate_asked);
  }
  return best;
}

void LatencySearch::Record(std::optional<double> rate_asked, bool confirm, double rate_achieved, uint64_t latency_ns,
                           uint64_t window_ns, uint64_t ops) {
  SearchProbe p{rate_asked, rate_achieved, latency_ns, window_ns, ops, Passes(rate_asked, rate_achieved, latency_ns), confirm, std::nullopt};
  if (!rate_asked) {
    failed_ = rate_achieved;  // the ceiling: no paced window achieves more
    if (p.passed) passed_ = rate_achieved;
  } else if (confirm && p.passed) {
    found_ = *rate_asked;
  } else if (confirm) {
    failed_ = *rate_asked;
    passed_ = HighestPassBelow(*rate_asked);
  } else if (p.passed) {
    passed_ = std::max(passed_, *rate_asked);
  } else {
    failed_ = failed_ > 0 ? std::min(failed_, *rate_asked) : *rate_asked;
  }
  probes_.push_back(p);
}

std::string LatencySearch::Failure(const std::string& percentile, const std::string& unit) const {
  const std::string target = "p" + percentile + " <= " + FormatDuration(max_latency_ns_);
  const SearchProbe* lowest = nullptr;
  for (const SearchProbe& p : probes_) {
    if (p.rate_asked && (!lowest || *p.rate_asked < *lowest->rate_asked)) lowest = &p;
  }
  if (probes_.size() >= max_probes_ && passed_ > 0) {
    return fmt::format("the search used its {} windows before a confirming window met {} (the highest rate that passed: {:.0f} {})",
                       max_probes_, target, passed_, unit);
  }
  if (!lowest) {
    return fmt::format("no rate met {}: the full-speed window achieved {:.0f} {}, under the least worth asking ({:.0f})", target,
                       probes_.empty() ? 0.0 : probes_.front().rate_achieved, unit, lowest_rate_);
  }
  return fmt::format("not even the lowest rate tried met {}: {:.0f} {} asked, {:.0f} achieved, p{} {}", target, *lowest->rate_asked,
                     unit, lowest->rate_achieved, percentile, FormatLatency(static_cast<double>(lowest->latency_ns)));
}

}  // namespace iofleet::controller
