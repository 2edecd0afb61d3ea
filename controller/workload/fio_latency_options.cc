// fio's latency target (latency_target, latency_window, latency_percentile, latency_run) as an io
// step's `target_latency` with `vary: queue_depth`: both find the deepest queue whose window
// keeps the percentile of its latency (submission to completion, fio's `lat`) at or under the
// target, then measure that depth once more and report only that window. fio searches each job's
// depth alone, from its own completions; iofleet one depth for every job of the step on every
// agent, from their merged latency; a job beside others is its step's stream searched alone, as
// fio's is. Part of the importer (fio_importer.h).
#include <algorithm>
#include <cstdlib>

#include "controller/workload/fio_importer.h"
#include "controller/workload/fio_values.h"
#include "core/base/units.h"

namespace iofleet::controller::fio_detail {

std::vector<Importer::OptionRow> Importer::LatencyOptionRows() {
  return {
      {{{"latency_target", &Importer::LatencyTarget}},
       "`latency_target` (a bare number is microseconds)",
       "the step's `target_latency` with `vary: queue_depth` and that `max_latency`: the deepest queue up to `iodepth` "
       "(2 or more) whose window meets it, one depth for every job of the step on every agent, judged on their merged "
       "latency (fio judges and changes each job's depth alone). The step runs until its search is done (fio's `runtime` "
       "and `size` no longer end it) and its figures are the confirming window's at the depth found, as fio's are. A job "
       "that runs beside others (no stonewall) is a stream of their step, named in `target_latency.stream`: its depth is "
       "searched on its own latency while the others run as written for as long as the search; one such job per step"},
      {{{"latency_window", &Importer::LatencyWindow}},
       "`latency_window` (a bare number is microseconds)",
       "`target_latency.probe` (at least 100ms; without it, where fio judges every completion, 10s); each depth is "
       "measured after `settle` (1s) where fio waits for the requests in flight"},
      {{{"latency_percentile", &Importer::LatencyPercentile}},
       "`latency_percentile`",
       "`target_latency.percentile` (fio's default 100: every I/O of the window, its slowest)"},
      {{{"latency_run", &Importer::LatencyRun}}, "`latency_run=0`",
       "nothing: fio's default, the search ends at the depth found; `latency_run=1` (keep adjusting the depth to the "
       "end) is refused"},
  };
}

void Importer::LatencyTarget(const Option& o, Level& l) {
  if (auto ns = Microseconds(o)) l.latency_target = Setting<uint64_t>{*ns, KeyAt(o)};
}

void Importer::LatencyWindow(const Option& o, Level& l) {
  const std::optional<uint64_t> ns = Microseconds(o);
  if (!ns) return;
  // 0 is fio's default (every completion is judged): the search's own default window then.
  const auto* probe = v1::TargetLatency::descriptor()->FindFieldByNumber(v1::TargetLatency::kProbeFieldNumber);
  if (*ns > 0 && !InBounds(o, probe, *ns, FormatDuration(*ns))) return;
  l.latency_window = Setting<uint64_t>{*ns, ValueAt(o)};
}

void Importer::LatencyPercentile(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  char* end = nullptr;
  const double pct = std::strtod(o.value.c_str(), &end);
  if (end != o.value.c_str() + o.value.size() || !(pct > 0) || pct > 100 || o.value.find_first_not_of("0123456789.") != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\" is not a percentage above 0 and at most 100 (e.g. 99.9)");
    return;
  }
  l.latency_percentile = Setting<std::string>{o.value, ValueAt(o)};
}

void Importer::LatencyRun(const Option& o, Level&) {
  const std::optional<bool> on = Bool(o);
  if (on && *on) {
    Unsupported(KeyAt(o), "keeps changing the queue depth for the rest of the job; iofleet's search ends at the deepest queue "
                          "that meets the target and measures it once, as fio's default (latency_run=0) does");
  }
}

void Importer::PlaceLatencyTarget(const Level& defaults, const std::vector<Job>& jobs) {
  const std::vector<std::vector<int>> groups = JobGroups(defaults, jobs);
  // The group (jobs that run at once) of job i.
  auto GroupOf = [&groups](size_t i) -> const std::vector<int>& {
    for (const std::vector<int>& group : groups) {
      if (std::find(group.begin(), group.end(), static_cast<int>(i)) != group.end()) return group;
    }
    return groups.front();
  };
  std::vector<int> searched_in(groups.size(), -1);  // per group, the job whose depth is searched
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Level& l = jobs[i].level;
    const auto& target = Effective(l.latency_target, defaults.latency_target);
    const auto& window = Effective(l.latency_window, defaults.latency_window);
    const auto& percentile = Effective(l.latency_percentile, defaults.latency_percentile);
    const std::string job = " (job " + step_labels_[i] + ")";
    if (!target || target->value == 0) {
      if (window) Warn(window->at, "has no effect without latency_target" + job);
      if (percentile) Warn(percentile->at, "has no effect without latency_target" + job);
      continue;
    }
    const std::vector<int>& group = GroupOf(i);
    int& searched = searched_in[static_cast<size_t>(&group - groups.data())];
    if (searched >= 0) {
      Unsupported(target->at, "in a second job that runs at once with job " + step_labels_[static_cast<size_t>(searched)] +
                              ", whose queue depth is searched already: iofleet searches one stream's depth per step (fio "
                              "each job's alone); add stonewall to give this search a step of its own");
      continue;
    }
    const std::string path = "steps[" + std::to_string(i) + "].io";
    v1::IoSpec& io = *out_.workload.mutable_steps(static_cast<int>(i))->mutable_io();
    const v1::IoSpec& d = out_.workload.defaults();
    const uint32_t depth = io.has_queue_depth() ? io.queue_depth() : d.has_queue_depth() ? d.queue_depth() : 1;  // fio's iodepth
    if (depth < 2) {
      Unsupported(target->at, "with iodepth=" + std::to_string(depth) + job + " leaves no depth to search (fio would only check "
                              "that depth 1 meets the target): give iodepth=2 or more, with libaio or io_uring");
      continue;
    }
    searched = static_cast<int>(i);
    v1::TargetLatency& t = *io.mutable_target_latency();
    t.set_vary(v1::SEARCH_VARY_QUEUE_DEPTH);
    t.set_max_latency(target->value);
    t.set_percentile(percentile ? percentile->value : "100");  // fio's default: every I/O
    // Beside others, the job is a stream of its group's step (GroupStreams): the one searched.
    if (group.size() > 1) t.set_stream(out_.workload.steps(static_cast<int>(i)).name());
    origins_[path + ".target_latency"] = target->at;
    if (percentile) origins_[path + ".target_latency.percentile"] = percentile->at;
    if (window && window->value > 0) {
      t.set_probe(window->value);
      origins_[path + ".target_latency.probe"] = window->at;
    } else {
      Warn(target->at, "fio judges every completion without latency_window; iofleet measures each queue depth over a window: "
                       "target_latency's default probe, 10s" + job);
    }
    // The search's own bound: neither the job's runtime nor its size ends it, nor those of the
    // jobs beside it, which run as long as the search does.
    for (int k : group) RunWhileTheSearchDoes(defaults, jobs, static_cast<size_t>(k), i);
    const uint64_t jobs_per_agent = io.has_jobs() ? io.jobs() : d.has_jobs() ? d.jobs() : 1;
    if (jobs_per_agent > 1) {
      Warn(target->at, "fio searches each of the " + std::to_string(jobs_per_agent) + " jobs' queue depth alone" + job +
                           "; iofleet searches one depth for all of them, judged on their merged latency");
    }
  }
}

void Importer::RunWhileTheSearchDoes(const Level& defaults, const std::vector<Job>& jobs, size_t k, size_t searched) {
  const Level& l = jobs[k].level;
  const std::string job = " (job " + step_labels_[k] + ")";
  const auto& runtime = Effective(l.runtime, defaults.runtime);
  if (runtime && runtime->value > 0) {
    Warn(runtime->at, (k == searched ? "fio ends the latency search at " : "fio ends this job, beside job " + step_labels_[searched] +
                                                                              "'s latency search, at ") +
                          FormatDuration(runtime->value) + job + "; iofleet's step runs until its search is done (at most its windows' time)");
  }
  const std::string path = "steps[" + std::to_string(k) + "].io";
  v1::IoSpec& io = *out_.workload.mutable_steps(static_cast<int>(k))->mutable_io();
  io.set_runtime(0);
  for (int field : {v1::IoSpec::kDeadlineFieldNumber, v1::IoSpec::kIoSizeFieldNumber, v1::IoSpec::kLoopsFieldNumber}) {
    KeepDefaultOff(static_cast<int>(k), field);
    v1::IoSpec::GetReflection()->ClearField(&io, IoField(field));
    origins_.erase(path + "." + IoField(field)->name());
  }
}

}  // namespace iofleet::controller::fio_detail
