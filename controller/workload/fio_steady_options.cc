// fio's steady state options (steadystate/ss, ss_dur, ss_ramp, ss_interval) as an io step's
// `steady`: the job runs until its figure is steady over the last ss_dur, or to its runtime.
// fio's slope limit is per sample (the least-squares slope in % of the mean, per ss_interval);
// iofleet's tolerance is the line's change over the whole window, so it is the limit times the
// window's samples less one. Part of the importer (fio_importer.h).
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "controller/workload/fio_importer.h"
#include "controller/workload/fio_values.h"
#include "core/base/units.h"
#include "core/rules/field_bounds.h"

namespace iofleet::controller::fio_detail {

namespace {

std::string SteadyDecimal(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

}  // namespace

std::vector<Importer::OptionRow> Importer::SteadyOptionRows() {
  return {
      {{{"steadystate", &Importer::SteadyCriterionOption}, {"ss", &Importer::SteadyCriterionOption}},
       "`steadystate` (`ss`) = `iops`, `bw` or `lat`, `_slope` or not, `:N%`",
       "the step's `steady`: `metric` iops, bandwidth or latency; `iops:N%` is `criterion: range` with `tolerance_pct` N, "
       "`iops_slope:N%` is `criterion: slope` with `tolerance_pct` N x (samples in the window - 1), rounded (fio's limit is "
       "per sample, iofleet's over the window); `require: false` and `timeout` = the job's runtime, as fio runs on when "
       "not steady. A limit not in percent is refused. The step's figures are the steady window's, where fio's cover the "
       "whole job"},
      {{{"steadystate_duration", &Importer::SteadyDuration}, {"ss_dur", &Importer::SteadyDuration}},
       "`steadystate_duration` (`ss_dur`)",
       "`steady.window` (0, fio's default, checks nothing)"},
      {{{"steadystate_ramp_time", &Importer::SteadyRamp}, {"ss_ramp", &Importer::SteadyRamp}},
       "`steadystate_ramp_time` (`ss_ramp`)",
       "the step's `ramp`, where it is longer than `ramp_time`: nothing is sampled before it"},
      {{{"steadystate_check_interval", &Importer::SteadyInterval}, {"ss_interval", &Importer::SteadyInterval}},
       "`steadystate_check_interval` (`ss_interval`)",
       "`steady.interval` (fio's default 1 s)"},
  };
}

void Importer::SteadyCriterionOption(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  const std::string value = LowerFio(o.value);
  const size_t colon = value.find(':');
  const std::string kind = value.substr(0, colon);
  const bool slope = kind.size() > 6 && kind.compare(kind.size() - 6, 6, "_slope") == 0;
  const std::string metric = slope ? kind.substr(0, kind.size() - 6) : kind;
  if (colon == std::string::npos || (metric != "iops" && metric != "bw" && metric != "lat")) {
    Error(ValueAt(o), "\"" + o.value + "\" is not iops, bw or lat (with _slope or not), a colon and a limit");
    return;
  }
  const std::string limit = value.substr(colon + 1);
  if (limit.empty() || limit.back() != '%') {
    Unsupported(ValueAt(o), "\"" + o.value + "\": a limit in the metric's own units is not supported: give it in percent of the mean (N%)");
    return;
  }
  char* end = nullptr;
  const std::string number = limit.substr(0, limit.size() - 1);
  const double pct = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !(pct > 0) || pct > 100) {
    Error(ValueAt(o), "\"" + o.value + "\": the limit is a percentage above 0 and at most 100");
    return;
  }
  l.steady = SteadySetting{metric == "iops" ? v1::STEADY_METRIC_IOPS : metric == "bw" ? v1::STEADY_METRIC_BANDWIDTH : v1::STEADY_METRIC_LATENCY,
                           slope ? v1::STEADY_CRITERION_SLOPE : v1::STEADY_CRITERION_RANGE, pct, KeyAt(o)};
}

void Importer::SteadyDuration(const Option& o, Level& l) {
  if (auto ns = Time(o)) l.steady_window = Setting<uint64_t>{*ns, ValueAt(o)};
}

void Importer::SteadyRamp(const Option& o, Level& l) {
  if (auto ns = Time(o)) l.steady_ramp = Setting<uint64_t>{*ns, ValueAt(o)};
}

void Importer::SteadyInterval(const Option& o, Level& l) {
  if (auto ns = Time(o)) l.steady_interval = Setting<uint64_t>{*ns, ValueAt(o)};
}

// Each job with a criterion and a duration becomes a steady step. Its runtime (the job's, or the
// [global] one it inherits) becomes the steady timeout, and the step's own runtime is left to
// the rules' bound for a steady step (0 overrides an inherited one).
void Importer::PlaceSteady(const Level& defaults, const std::vector<Job>& jobs) {
  auto OutOfSteadyBounds = [this](const google::protobuf::FieldDescriptor* field, uint64_t value, const Place& at) {
    const auto bound = rules::OutOfBounds(field, value);
    if (bound) Error(at, FormatDuration(value) + " " + rules::BoundText(field, *bound) + " (iofleet's steady." + field->name() + ")");
    return bound.has_value();
  };
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Level& l = jobs[i].level;
    const auto& criterion = l.steady ? l.steady : defaults.steady;
    const auto& window = Effective(l.steady_window, defaults.steady_window);
    if (!criterion) continue;
    if (!window || window->value == 0) {
      Warn(criterion->at, "has no effect without steadystate_duration (fio's default 0 checks nothing) (job " + step_labels_[i] + ")");
      continue;
    }
    const auto& tb = Effective(l.time_based, defaults.time_based);
    const auto& runtime = Effective(l.runtime, defaults.runtime);
    if (!tb || !tb->value || !runtime || runtime->value == 0) {
      Unsupported(criterion->at, "in a job without time_based and a runtime (job " + step_labels_[i] +
                                     ") is not supported: iofleet's steady step is time-based; add time_based=1 and a runtime");
      continue;
    }
    const auto& interval = Effective(l.steady_interval, defaults.steady_interval);
    const uint64_t interval_ns = interval ? interval->value : 1'000'000'000;  // fio's default
    const uint64_t samples = interval_ns ? window->value / interval_ns : 0;
    if (samples < 3) {
      Unsupported(window->at, FormatDuration(window->value) + " holds " + std::to_string(samples) + " samples of " +
                                  FormatDuration(interval_ns) + ": iofleet's steady window needs at least 3");
      continue;
    }
    double tolerance = criterion->limit_pct;
    if (criterion->criterion == v1::STEADY_CRITERION_SLOPE) tolerance *= static_cast<double>(samples - 1);
    const double whole = std::round(tolerance);
    if (whole < 1 || whole > 100) {
      Unsupported(criterion->at, "a limit of " + SteadyDecimal(criterion->limit_pct) + "% is a change of " + SteadyDecimal(tolerance) +
                                     "% over the window's " + std::to_string(samples) +
                                     " samples, and iofleet's tolerance_pct is 1 to 100: change the limit or ss_dur");
      continue;
    }
    if (std::fabs(whole - tolerance) > 1e-9) {
      Warn(criterion->at, "a limit of " + SteadyDecimal(criterion->limit_pct) + "% a sample over " + std::to_string(samples) +
                              " samples is a change of " + SteadyDecimal(tolerance) + "% over the window; iofleet's tolerance is " +
                              SteadyDecimal(whole) + "%");
    }
    // The steady step's own bounds (a window of at most 1 h, a timeout of at most a day).
    const auto* fields = v1::SteadyState::descriptor();
    if (OutOfSteadyBounds(fields->FindFieldByNumber(v1::SteadyState::kWindowFieldNumber), window->value, window->at) ||
        OutOfSteadyBounds(fields->FindFieldByNumber(v1::SteadyState::kTimeoutFieldNumber), runtime->value, runtime->at) ||
        (interval && OutOfSteadyBounds(fields->FindFieldByNumber(v1::SteadyState::kIntervalFieldNumber), interval_ns, interval->at))) {
      continue;
    }
    v1::IoSpec* io = out_.workload.mutable_steps(static_cast<int>(i))->mutable_io();
    v1::SteadyState* steady = io->mutable_steady();
    steady->set_metric(criterion->metric);
    steady->set_criterion(criterion->criterion);
    steady->set_tolerance_pct(static_cast<uint32_t>(whole));
    steady->set_window(window->value);
    steady->set_interval(interval_ns);
    steady->set_timeout(runtime->value);
    steady->set_require(false);  // fio runs on to its runtime when not steady, and succeeds
    origins_["steps[" + std::to_string(i) + "].io.steady"] = criterion->at;
    io->set_runtime(0);  // the steady step's own bound (core/rules), not the job's runtime
    const auto& ramp = Effective(l.steady_ramp, defaults.steady_ramp);
    const uint64_t ramp_now = io->has_ramp() ? io->ramp() : out_.workload.defaults().ramp();
    if (ramp && ramp->value > ramp_now) {
      io->set_ramp(ramp->value);
      origins_[l.path + ".ramp"] = ramp->at;
    }
    Warn(criterion->at, "job " + step_labels_[i] + "'s figures are its steady window's (the last " + FormatDuration(window->value) +
                            "), where fio's cover the whole job; iofleet judges the step's total over every job and agent, "
                            "as fio does with group_reporting");
  }
}

}  // namespace iofleet::controller::fio_detail
