#include "controller/history/regression.h"

#include <algorithm>

#include "controller/history/run_figures.h"
#include "controller/history/workload_diff.h"

namespace iofleet::controller {
namespace {

// A verdict as controller/history/verdict.h words it, as report.json's enum.
// The runs that may be `now`'s baselines, oldest first: same workload name, agent count and
// labels, succeeded, not excluded, started earlier. For --compare-to RUN_ID, those up to that run
// (refused when it is none of them).
Result<std::vector<StoredRun>> CandidateBaselines(HistoryDb& db, const StoredRun& now, const Reference& ref) {
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
  if (ref.kind != Reference::Kind::kRun) return runs;
  auto it = std::find_if(runs.begin(), runs.end(), [&](const StoredRun& r) { return r.run_id == ref.run_id; });
  if (it == runs.end()) {
    auto stored = db.Load(ref.run_id);
    if (!stored.ok()) return Status(Code::kInvalidArgument, "--compare-to " + ref.run_id + ": " + stored.status().message());
    return Status(Code::kInvalidArgument,
                  "--compare-to " + ref.run_id + ": that run is no baseline of this one (a baseline has the same workload "
                  "name, agent count and --labels, succeeded, is not excluded and started earlier)");
  }
  runs.erase(it + 1, runs.end());
  return runs;
}

// Keeps the runs of `now`'s effective workload (DESIGN.md §5: a run of the same name under other
// settings is another test); none when the run --compare-to names is of another. Returns the
// newest run of another, which names what differs.
std::optional<StoredRun> KeepSameWorkload(std::vector<StoredRun>& runs, const StoredRun& now, const Reference& ref) {
  std::optional<StoredRun> unlike;
  for (const StoredRun& r : runs) {
    if (r.workload_hash != now.workload_hash) unlike = r;
  }
  const bool reference_unlike = ref.kind == Reference::Kind::kRun && !runs.empty() && runs.back().workload_hash != now.workload_hash;
  runs.erase(std::remove_if(runs.begin(), runs.end(), [&](const StoredRun& r) { return r.workload_hash != now.workload_hash; }),
             runs.end());
  if (reference_unlike) runs.clear();  // the run asked for is the baseline, or none is
  return unlike;
}

// The baseline runs' figures: each run's means, oldest first.
struct BaselineFigures {
  std::vector<std::map<FigureKey, double>> means;
  std::vector<std::string> run_ids;
  const StoredRun* changed_run = nullptr;  // the newest of another effective workload (forced)
};

Result<BaselineFigures> ReadBaselineFigures(HistoryDb& db, const std::vector<StoredRun>& runs, const StoredRun& now) {
  BaselineFigures baselines;
  for (const StoredRun& r : runs) {
    auto figures = db.Figures(r.run_id);
    if (!figures.ok()) return figures.status();
    baselines.means.push_back(RunMeans(*figures));
    if (r.workload_hash != now.workload_hash) baselines.changed_run = &r;
    baselines.run_ids.push_back(r.run_id);
  }
  return baselines;
}

// The new run's step instances (step, point) in the order it ran them.
std::vector<std::pair<std::string, int>> StepInstancesOf(const StoredRun& now) {
  std::vector<std::pair<std::string, int>> instances;
  for (const StoredFigure& f : now.figures) {
    if (f.agent.empty() && std::find(instances.begin(), instances.end(), std::pair{f.step, f.point}) == instances.end()) {
      instances.emplace_back(f.step, f.point);
    }
  }
  return instances;
}

// Each figure of one step instance: its value now and its baselines' (those that have it).
std::vector<FigureHistory> FigureHistoriesOf(const std::string& step, int point, const std::map<FigureKey, double>& now_means,
                                             const std::vector<std::map<FigureKey, double>>& baseline_means) {
  std::vector<FigureHistory> figures;
  for (const auto& [key, value] : now_means) {
    if (key.step != step || key.point != point) continue;
    FigureHistory h{key.figure, BetterOf(key.figure), value, {}};
    h.stream = key.stream;
    for (const auto& means : baseline_means) {
      if (auto it = means.find(key); it != means.end()) h.baseline.push_back(it->second);
    }
    figures.push_back(std::move(h));
  }
  return figures;
}

// One figure's verdict as an entry of report.json's step verdicts.
void AddFigureVerdict(const FigureVerdict& j, v1::ReportStepVerdicts& entry) {
  v1::ReportFigureVerdict& f = *entry.add_figures();
  f.set_figure(j.figure);
  if (!j.stream.empty()) f.set_stream(j.stream);
  f.set_unit(UnitOf(j.figure));
  f.set_better(j.better == Better::kHigher ? v1::BETTER_HIGHER : v1::BETTER_LOWER);
  if (j.baseline) f.set_baseline(*j.baseline);
  f.set_now(j.now);
  if (j.change_pct) f.set_change_pct(*j.change_pct);
  if (j.p_value) f.set_p_value(*j.p_value);
  f.set_baseline_runs(j.baseline_runs);
  f.set_verdict(j.verdict);
}

}  // namespace

std::map<FigureKey, double> RunMeans(const std::vector<StoredFigure>& figures) {
  std::map<FigureKey, std::pair<double, int>> sums;
  for (const StoredFigure& f : figures) {
    if (!f.agent.empty()) continue;
    auto& [sum, n] = sums[{f.step, f.point, f.figure, f.stream}];
    sum += f.value;
    ++n;
  }
  std::map<FigureKey, double> means;
  for (const auto& [key, s] : sums) means[key] = s.first / s.second;
  return means;
}

Result<RunVerdicts> JudgeRun(HistoryDb& db, const StoredRun& now, const VerdictOptions& options) {
  const Reference& ref = options.reference;
  auto candidates = CandidateBaselines(db, now, ref);
  if (!candidates.ok()) return candidates.status();
  std::vector<StoredRun>& runs = *candidates;
  // Baselines share the effective workload's hash, unless --force-compare.
  std::optional<StoredRun> unlike;
  if (!options.force_comparable) unlike = KeepSameWorkload(runs, now, ref);
  const size_t keep = ref.kind == Reference::Kind::kLast || ref.kind == Reference::Kind::kRun ? kSpreadRuns : ref.n;
  if (runs.size() > keep) runs.erase(runs.begin(), runs.end() - static_cast<long>(keep));
  const bool not_comparable = runs.empty() && unlike.has_value();

  auto baselines = ReadBaselineFigures(db, runs, now);
  if (!baselines.ok()) return baselines.status();
  const bool workload_changed = baselines->changed_run != nullptr;
  // The fields that differ from the newest baseline of another effective workload: the reason a
  // verdict is "not comparable", or what a forced comparison compared across.
  const StoredRun* differing = not_comparable ? &*unlike : baselines->changed_run;
  std::vector<std::string> differences;
  if (differing) {
    auto stored = db.Load(differing->run_id);
    if (!stored.ok()) return stored.status();
    differences = WorkloadDifferences(stored->effective_workload, now.effective_workload);
  }

  RunVerdicts out;
  v1::ReportVerdicts& v = out.verdicts;
  v.set_reference(ref.ToString());
  v.set_alpha(options.alpha);
  v.set_max_regression_pct(options.max_regression_pct);
  v.set_workload_changed(workload_changed);
  for (const std::string& id : baselines->run_ids) v.add_baseline_runs(id);
  if (not_comparable || workload_changed) {
    v.set_workload_differs_from(differing->run_id);
    v1::ReportStrings& listed = *v.mutable_workload_differences();  // present even when empty
    for (const std::string& d : differences) listed.add_values(d);
  }
  if (options.force_comparable) v.set_forced(true);
  const std::map<FigureKey, double> now_means = RunMeans(now.figures);
  bool any_judged = false, any_improvement = false;
  for (const auto& [step, point] : StepInstancesOf(now)) {
    v1::ReportStepVerdicts& entry = *v.add_steps();
    entry.set_step(step);
    entry.set_point(static_cast<uint32_t>(point));
    std::vector<FigureVerdict> judged = JudgeStep(FigureHistoriesOf(step, point, now_means, baselines->means), options);
    for (FigureVerdict& j : judged) {
      if (not_comparable) {
        j = FigureVerdict{j.figure, j.better, j.now, 0, std::nullopt, std::nullopt, std::nullopt, v1::VERDICT_NOT_COMPARABLE, j.stream};
      }
      AddFigureVerdict(j, entry);
      if (j.verdict == v1::VERDICT_REGRESSION) ++out.regressions;
      any_improvement = any_improvement || j.verdict == v1::VERDICT_IMPROVEMENT;
      any_judged = any_judged || (j.verdict != v1::VERDICT_NOT_ENOUGH_HISTORY && j.verdict != v1::VERDICT_NOT_COMPARABLE);
    }
  }
  out.overall = not_comparable     ? v1::VERDICT_NOT_COMPARABLE
                : out.regressions  ? v1::VERDICT_REGRESSION
                : any_improvement  ? v1::VERDICT_IMPROVEMENT
                : any_judged       ? v1::VERDICT_UNCHANGED
                                   : v1::VERDICT_NOT_ENOUGH_HISTORY;
  v.set_verdict(out.overall);
  return out;
}

}  // namespace iofleet::controller
