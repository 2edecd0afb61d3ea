#include "controller/run/steady_driver.h"

#include <fmt/format.h>

#include "controller/run/steady_state.h"
#include "core/base/units.h"
#include "core/rules/defaults.h"

namespace iofleet::controller {

SteadyDriver::SteadyDriver(Fleet& fleet, std::string run_id, int step_index, const v1::IoSpec& io, uint64_t start_ns,
                           uint64_t window_open_ns)
    : cuts_(fleet, std::move(run_id), step_index, io.steady().metric() == v1::STEADY_METRIC_BANDWIDTH, start_ns, window_open_ns, StreamNames(io)),
      steady_(io.steady()), window_open_ns_(window_open_ns) {
  const v1::SteadyMetric metric = steady_.metric();
  report_.metric = metric == v1::STEADY_METRIC_BANDWIDTH ? "bandwidth" : metric == v1::STEADY_METRIC_LATENCY ? "latency" : "iops";
  report_.criterion = steady_.criterion() == v1::STEADY_CRITERION_RANGE ? "range" : "slope";
  report_.tolerance_pct = steady_.has_tolerance_pct() ? steady_.tolerance_pct() : 5;
  report_.window_ns = rules::SteadyWindowNs(steady_);
  report_.interval_ns = rules::SteadyIntervalNs(steady_);
}

void SteadyDriver::Run(const std::function<bool()>& give_up) {
  if (!cuts_.WaitReleased(give_up)) return;
  const size_t per_window = static_cast<size_t>(report_.window_ns / report_.interval_ns);
  const uint64_t timeout = steady_.has_timeout() ? steady_.timeout() : 600'000'000'000;
  const v1::SteadyCriterion criterion = steady_.criterion() == v1::STEADY_CRITERION_RANGE ? v1::STEADY_CRITERION_RANGE
                                                                                         : v1::STEADY_CRITERION_SLOPE;
  std::vector<uint64_t> starts;  // each sample's start, after the window opened
  while (true) {
    const uint64_t from = cuts_.last_cut_ns();
    std::optional<FleetWindow> w = cuts_.Cut(from + report_.interval_ns, 0, give_up);
    if (!w) return;
    starts.push_back(from - window_open_ns_);
    report_.samples.push_back(report_.metric == "latency" ? w->latency->Mean() : w->rate);
    last_.push_back(std::move(w->agents));
    if (last_.size() > per_window) last_.pop_front();
    if (report_.samples.size() >= per_window) {
      const std::vector<double> window(report_.samples.end() - static_cast<std::ptrdiff_t>(per_window), report_.samples.end());
      report_.change_pct = SteadyChangePct(window, criterion);
      if (report_.change_pct <= report_.tolerance_pct) {
        report_.reached = true;
        report_.steady_from_ns = starts[starts.size() - per_window];
        usable_ = true;
        return;
      }
    }
    if (cuts_.last_cut_ns() + report_.interval_ns > window_open_ns_ + timeout) break;
  }
  const bool required = !steady_.has_require() || steady_.require();
  usable_ = !required && last_.size() == per_window;
  if (required) {
    cuts_.Fail(fmt::format("not steady within {}: the last {} of {} changed {:.1f}% ({} criterion, tolerance {}%)", FormatDuration(timeout),
                           FormatDuration(report_.window_ns), report_.metric, report_.change_pct, report_.criterion,
                           report_.tolerance_pct));
  }
}

std::vector<std::vector<v1::StepResult>> SteadyDriver::FigureWindows() const {
  if (!usable_) return {};
  return {last_.begin(), last_.end()};
}

}  // namespace iofleet::controller
