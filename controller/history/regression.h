// Judges a new run against its baseline in the history: the runs of the same workload name,
// agent count and --labels (exactly those labels), succeeded and not excluded, started before
// it. Each run counts once per figure: the mean over its cycles (controller/history/verdict.h).
#pragma once

#include <string>

#include "controller/history/history_db.h"
#include "controller/history/verdict.h"
#include "iofleet/v1/report.pb.h"

namespace iofleet::controller {

struct RunVerdicts {
  v1::ReportVerdicts verdicts;  // report.json's `verdicts`
  // The worst over every figure: regression, improvement, unchanged, else not enough history
  // (or not comparable).
  v1::Verdict overall = v1::VERDICT_UNSPECIFIED;
  int regressions = 0;
};

// `now`: the new run with its figures (HeadlineFigures), labels, agents and workload hash.
Result<RunVerdicts> JudgeRun(HistoryDb& db, const StoredRun& now, const VerdictOptions& options);

// The per-run mean of each aggregate figure, by (step, point, stream, figure).
struct FigureKey {
  std::string step;
  int point = 0;
  std::string figure;
  std::string stream = {};  // "" for the step's own figures
  auto operator<=>(const FigureKey&) const = default;
};
std::map<FigureKey, double> RunMeans(const std::vector<StoredFigure>& figures);

}  // namespace iofleet::controller
