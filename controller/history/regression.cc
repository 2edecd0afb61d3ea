#include "controller/history/regression.h"

#include <algorithm>

#include "controller/history/run_figures.h"

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
  const size_t keep = ref.kind == Reference::Kind::kLast || ref.kind == Reference::Kind::kRun ? kSpreadRuns : ref.n;
  if (runs.size() > keep) runs.erase(runs.begin(), runs.end() - static_cast<long>(keep));

  std::vector<std::map<FigureKey, double>> baseline_means;
  bool workload_changed = false;
  nlohmann::ordered_json baseline_ids = nlohmann::ordered_json::array();
  for (const StoredRun& r : runs) {
    auto figures = db.Figures(r.run_id);
    if (!figures.ok()) return figures.status();
    baseline_means.push_back(RunMeans(*figures));
    workload_changed = workload_changed || r.workload_hash != now.workload_hash;
    baseline_ids.push_back(r.run_id);
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
    for (const FigureVerdict& v : JudgeStep(figures, options)) {
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
      any_judged = any_judged || v.verdict != "not enough history";
    }
    out.json["steps"].push_back(entry);
  }
  out.overall = out.regressions ? "regression" : any_improvement ? "improvement" : any_judged ? "unchanged" : "not enough history";
  out.json["verdict"] = out.overall;
  return out;
}

}  // namespace iofleet::controller
