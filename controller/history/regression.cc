#include "controller/history/regression.h"

#include <algorithm>

#include "controller/history/run_figures.h"
#include "controller/history/workload_diff.h"

namespace iofleet::controller {

std::map<FigureKey, double> RunMeans(const std::vector<StoredFigure>& figures) {
  std::map<FigureKey, std::pair<double, int>> sums;
  for (const StoredFigure& f : figures) {
    if (!f.agent.empty()) continue;
    auto& [sum, n] = sums[{f.step, f.point, f.figure}];
    sum += f.value;
    ++n;
  }
  std::map<FigureKey, double> means;
  for (const auto& [key, s] : sums) means[key] = s.first / s.second;
  return means;
}

Result<RunVerdicts> JudgeRun(HistoryDb& db, const StoredRun& now, const VerdictOptions& options) {
  RunFilter filter;
  filter.workload = now.workload;
  filter.labels = now.labels;
  filter.exact_labels = true;
  filter.agent_count = now.agents.size();
  filter.succeeded_only = true;
  filter.include_excluded = false;
  filter.before_unix_ns = now.started_at_unix_ns;
  auto candidates = db.Runs(filter);
  if (!candidates.ok()) return candidates.status();
  std::vector<StoredRun>& runs = *candidates;
  runs.erase(std::remove_if(runs.begin(), runs.end(), [&](const StoredRun& r) { return r.run_id == now.run_id; }), runs.end());

  const Reference& ref = options.reference;
  if (ref.kind == Reference::Kind::kRun) {
    auto it = std::find_if(runs.begin(), runs.end(), [&](const StoredRun& r) { return r.run_id == ref.run_id; });
    if (it == runs.end()) {
      auto stored = db.Load(ref.run_id);
      if (!stored.ok()) return Status(Code::kInvalidArgument, "--compare-to " + ref.run_id + ": " + stored.status().message());
      return Status(Code::kInvalidArgument,
                    "--compare-to " + ref.run_id + ": that run is no baseline of this one (a baseline has the same workload "
                    "name, agent count and --labels, succeeded, is not excluded and started earlier)");
    }
    runs.erase(it + 1, runs.end());
  }
  // Baselines share the effective workload's hash (DESIGN.md §5): a run of the same name under
  // other settings is another test. The newest such run names what differs.
  std::optional<StoredRun> unlike;
  if (!options.force_comparable) {
    for (const StoredRun& r : runs) {
      if (r.workload_hash != now.workload_hash) unlike = r;
    }
    const bool reference_unlike = ref.kind == Reference::Kind::kRun && !runs.empty() && runs.back().workload_hash != now.workload_hash;
    runs.erase(std::remove_if(runs.begin(), runs.end(), [&](const StoredRun& r) { return r.workload_hash != now.workload_hash; }),
               runs.end());
    if (reference_unlike) runs.clear();  // the run asked for is the baseline, or none is
  }
  const size_t keep = ref.kind == Reference::Kind::kLast || ref.kind == Reference::Kind::kRun ? kSpreadRuns : ref.n;
  if (runs.size() > keep) runs.erase(runs.begin(), runs.end() - static_cast<long>(keep));
  const bool not_comparable = runs.empty() && unlike.has_value();

  std::vector<std::map<FigureKey, double>> baseline_means;
  bool workload_changed = false;
  const StoredRun* changed_run = nullptr;
  nlohmann::ordered_json baseline_ids = nlohmann::ordered_json::array();
  for (const StoredRun& r : runs) {
    auto figures = db.Figures(r.run_id);
    if (!figures.ok()) return figures.status();
    baseline_means.push_back(RunMeans(*figures));
    if (r.workload_hash != now.workload_hash) {
      workload_changed = true;
      changed_run = &r;
    }
    baseline_ids.push_back(r.run_id);
  }
  // The fields that differ from the newest baseline of another effective workload: the reason a
  // verdict is "not comparable", or what a forced comparison compared across.
  const StoredRun* differing = not_comparable ? &*unlike : changed_run;
  nlohmann::ordered_json differences = nlohmann::ordered_json::array();
  if (differing) {
    auto stored = db.Load(differing->run_id);
    if (!stored.ok()) return stored.status();
    for (const std::string& d : WorkloadDifferences(stored->effective_workload, now.effective_workload)) differences.push_back(d);
  }

  // The new run's step instances in the order it ran them, each with its figures.
  const std::map<FigureKey, double> now_means = RunMeans(now.figures);
  std::vector<std::pair<std::string, int>> instances;
  for (const StoredFigure& f : now.figures) {
    if (f.agent.empty() && std::find(instances.begin(), instances.end(), std::pair{f.step, f.point}) == instances.end()) {
      instances.emplace_back(f.step, f.point);
    }
  }

  RunVerdicts out;
  out.json["reference"] = ref.ToString();
  out.json["alpha"] = options.alpha;
  out.json["max_regression_pct"] = options.max_regression_pct;
  out.json["workload_changed"] = workload_changed;
  out.json["baseline_runs"] = baseline_ids;
  if (not_comparable || workload_changed) {
    out.json["workload_differs_from"] = differing->run_id;
    out.json["workload_differences"] = differences;
  }
  if (options.force_comparable) out.json["forced"] = true;
  out.json["steps"] = nlohmann::ordered_json::array();
  bool any_judged = false, any_improvement = false;
  for (const auto& [step, point] : instances) {
    std::vector<FigureHistory> figures;
    for (const auto& [key, value] : now_means) {
      if (key.step != step || key.point != point) continue;
      FigureHistory h{key.figure, BetterOf(key.figure), value, {}};
      for (const auto& means : baseline_means) {
        if (auto it = means.find(key); it != means.end()) h.baseline.push_back(it->second);
      }
      figures.push_back(std::move(h));
    }
    nlohmann::ordered_json entry;
    entry["step"] = step;
    entry["point"] = point;
    entry["figures"] = nlohmann::ordered_json::array();
    std::vector<FigureVerdict> judged = JudgeStep(figures, options);
    if (not_comparable) {
      for (FigureVerdict& v : judged) v = FigureVerdict{v.figure, v.better, v.now, 0, std::nullopt, std::nullopt, std::nullopt, "not comparable"};
    }
    for (const FigureVerdict& v : judged) {
      nlohmann::ordered_json f;
      f["figure"] = v.figure;
      f["unit"] = UnitOf(v.figure);
      f["better"] = v.better == Better::kHigher ? "higher" : "lower";
      if (v.baseline) f["baseline"] = *v.baseline;
      f["now"] = v.now;
      if (v.change_pct) f["change_pct"] = *v.change_pct;
      if (v.p_value) f["p_value"] = *v.p_value;
      f["baseline_runs"] = v.baseline_runs;
      f["verdict"] = v.verdict;
      entry["figures"].push_back(f);
      if (v.verdict == "regression") ++out.regressions;
      any_improvement = any_improvement || v.verdict == "improvement";
      any_judged = any_judged || (v.verdict != "not enough history" && v.verdict != "not comparable");
    }
    out.json["steps"].push_back(entry);
  }
  out.overall = not_comparable     ? "not comparable"
                : out.regressions  ? "regression"
                : any_improvement  ? "improvement"
                : any_judged       ? "unchanged"
                                   : "not enough history";
  out.json["verdict"] = out.overall;
  return out;
}

}  // namespace iofleet::controller
