// Regression verdicts: is one new run's figure worse than the baseline runs' beyond noise?
//
// best-of:N reports the change against the best of the last N runs and judges --max-regression
// on it, but takes significance from the mean-of:N test: the best run is a biased centre.
//
// The unit of comparison is the run (a run's cycles share caches and file layout, so they are
// not independent samples): each baseline run gives one value per figure, its mean over its
// cycles. The new run is ONE observation, so the test is a prediction-interval t test: with the
// baseline runs' standard deviation s (n - 1 degrees of freedom) and a reference c whose
// variance is f * sigma^2 (f = 1/n for a mean), t = (now - c) / (s * sqrt(1 + f)), one-sided in
// the worse direction. Times (lower is better) are tested on their logarithms, and a baseline
// that spreads more than 5% counts its spread (spread / 5%)^2 times: real hosts' noise beyond a
// few percent is heavy-tailed (NoisySpread in verdict.cc, docs/HISTORY.md). A step instance's
// headline figures form one family: Holm's correction
// keeps the false-alarm bound per step, not per figure. A figure is a regression only when it is
// both significant and worse than the allowed regression; improvements are judged the same way.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "iofleet/v1/report.pb.h"

namespace iofleet::controller {

// Fewer baseline runs give no verdict ("not enough history").
constexpr size_t kMinBaselineRuns = 3;
// `last` and a run id take the spread of up to this many runs ending with the reference run.
constexpr size_t kSpreadRuns = 10;

enum class Better { kHigher, kLower };

// What the new run is compared with (`--compare-to`).
struct Reference {
  enum class Kind { kLast, kRun, kMeanOf, kMedianOf, kBestOf } kind = Kind::kLast;
  size_t n = kSpreadRuns;  // mean-of, median-of, best-of: the last n runs
  std::string run_id;      // kRun

  // "last" | "mean-of:N" | "median-of:N" | "best-of:N" | a run id.
  static Result<Reference> Parse(const std::string& text);
  std::string ToString() const;
};

struct FigureHistory {
  std::string figure;  // e.g. "bandwidth", "iops", "p99_latency", "files_per_sec", "copy_seconds"
  Better better = Better::kHigher;
  double now = 0;
  // The baseline runs' values, oldest first, already chosen for `reference` (the caller picks
  // the runs: the last n, or those ending with the reference run, which is then the last value).
  std::vector<double> baseline;
  std::string stream = {};  // a stream's figure (an io step with streams); "" for the step's
};

struct FigureVerdict {
  std::string figure;
  Better better = Better::kHigher;
  double now = 0;
  size_t baseline_runs = 0;
  std::optional<double> baseline;    // the reference value c
  std::optional<double> change_pct;  // (now - c) / c * 100
  // One-sided, in the direction of the change, Holm-adjusted within the step's figures.
  std::optional<double> p_value;
  // Not comparable: the baselines ran another effective workload (controller/history/regression.h).
  v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;
  std::string stream = {};
};

struct VerdictOptions {
  Reference reference;
  double alpha = 0.05;
  double max_regression_pct = 5;
  // --force-compare: judge against baselines whose effective workload differs (else the verdict is
  // "not comparable"); the verdicts then say they were forced.
  bool force_comparable = false;
};

// The verdicts of one step instance's headline figures, in the order given.
std::vector<FigureVerdict> JudgeStep(const std::vector<FigureHistory>& figures, const VerdictOptions& options);

// Holm's step-down adjustment: adjusted[i] for p[i], each in [0, 1].
std::vector<double> HolmAdjust(const std::vector<double>& p);

}  // namespace iofleet::controller
