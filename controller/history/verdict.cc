#include "controller/history/verdict.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>

namespace iofleet::controller {
namespace {

constexpr double kPi = 3.14159265358979323846;
// The relative spread of the baseline runs up to which the noise is taken as normal, and how fast
// the spread the test uses grows beyond it (NoisySpread).
constexpr double kQuietSpread = 0.05;
constexpr double kNoisyExponent = 2;

Result<size_t> ParseCount(const std::string& text, const std::string& whole) {
  size_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || n > 100000) return Status(Code::kInvalidArgument, "--compare-to " + whole + ": N must be a whole number");
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  if (text.empty() || n < kMinBaselineRuns) {
    return Status(Code::kInvalidArgument, "--compare-to " + whole + ": N must be at least " + std::to_string(kMinBaselineRuns) +
                                              " (fewer runs give no verdict)");
  }
  return n;
}

// P(T <= t), Student's t with df degrees of freedom; t may be infinite (no spread at all).
double StudentTCdf(double t, double df) {
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  return boost::math::cdf(boost::math::students_t_distribution<double>(df), t);
}

double Mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); }

double StdDev(const std::vector<double>& v) {
  const double m = Mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The spread the test uses, from the baseline runs' standard deviation `s` and their relative
// spread. Five runs on a quiet host spread a few percent and their noise is near normal: the t
// test holds its false-alarm rate there and takes `s` as it is. Beyond kQuietSpread the noise of
// real hosts is heavy-tailed (contention halves a run's bandwidth or multiplies its p99 tenfold
// now and then), and five runs that happen to agree understate it: unchanged runs of this
// project's machine were judged regressions in 15-21% of runs (tests/fixtures/history). So the
// spread counts (relative / kQuietSpread)^2 times more: 4x at 10%, 16x at 20%.
double NoisySpread(double s, double relative) {
  return relative > kQuietSpread ? s * std::pow(relative / kQuietSpread, kNoisyExponent) : s;
}

// The reference value and its variance as a multiple of one run's.
std::pair<double, double> ReferenceOf(const FigureHistory& f, const Reference& r) {
  const auto n = static_cast<double>(f.baseline.size());
  switch (r.kind) {
    case Reference::Kind::kLast:
    case Reference::Kind::kRun:
      return {f.baseline.back(), 1.0};  // one run: as noisy as the new one
    case Reference::Kind::kMeanOf:
      return {Mean(f.baseline), 1.0 / n};
    case Reference::Kind::kMedianOf:
      return {Median(f.baseline), kPi / (2.0 * n)};  // the median's asymptotic variance
    case Reference::Kind::kBestOf: {
      // The best run is the figure to beat, but no estimate of the mean: the test itself is the
      // mean-of test (JudgeStep), this only sets the change and the allowed regression.
      const auto [lo, hi] = std::minmax_element(f.baseline.begin(), f.baseline.end());
      return {f.better == Better::kHigher ? *hi : *lo, 1.0 / n};
    }
  }
  return {Mean(f.baseline), 1.0 / n};
}

}  // namespace

Result<Reference> Reference::Parse(const std::string& text) {
  Reference r;
  auto with_count = [&](const std::string& prefix, Kind kind) -> std::optional<Status> {
    if (text.rfind(prefix, 0) != 0) return std::nullopt;
    auto n = ParseCount(text.substr(prefix.size()), text);
    if (!n.ok()) return n.status();
    r.kind = kind;
    r.n = *n;
    return Status();
  };
  if (text == "last") return r;
  for (auto [prefix, kind] : {std::pair{"mean-of:", Kind::kMeanOf}, {"median-of:", Kind::kMedianOf}, {"best-of:", Kind::kBestOf}}) {
    if (auto s = with_count(prefix, kind)) {
      if (!s->ok()) return *s;
      return r;
    }
  }
  if (text.empty() || text.find_first_of("/: \t\n") != std::string::npos) {
    return Status(Code::kInvalidArgument, "--compare-to \"" + text + "\": expected last, mean-of:N, median-of:N, best-of:N or a run id");
  }
  r.kind = Kind::kRun;
  r.run_id = text;
  return r;
}

std::string Reference::ToString() const {
  switch (kind) {
    case Kind::kLast: return "last";
    case Kind::kRun: return run_id;
    case Kind::kMeanOf: return "mean-of:" + std::to_string(n);
    case Kind::kMedianOf: return "median-of:" + std::to_string(n);
    case Kind::kBestOf: return "best-of:" + std::to_string(n);
  }
  return "last";
}

std::vector<double> HolmAdjust(const std::vector<double>& p) {
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(p.size());
  double running = 0;
  const size_t m = p.size();
  for (size_t rank = 0; rank < m; ++rank) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - rank) * p[order[rank]]));
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

std::vector<FigureVerdict> JudgeStep(const std::vector<FigureHistory>& figures, const VerdictOptions& options) {
  std::vector<FigureVerdict> out;
  // One-sided p-values of the testable figures, worse and better direction, for two Holm families.
  std::vector<double> p_worse, p_better;
  std::vector<size_t> tested;
  for (size_t i = 0; i < figures.size(); ++i) {
    const FigureHistory& f = figures[i];
    FigureVerdict v;
    v.figure = f.figure;
    v.stream = f.stream;
    v.better = f.better;
    v.now = f.now;
    v.baseline_runs = f.baseline.size();
    if (f.baseline.size() < kMinBaselineRuns) {
      v.verdict = v1::VERDICT_NOT_ENOUGH_HISTORY;
      out.push_back(std::move(v));
      continue;
    }
    const auto [reference, factor] = ReferenceOf(f, options.reference);
    v.baseline = reference;
    if (reference != 0) v.change_pct = (f.now - reference) / std::fabs(reference) * 100.0;
    // Times (latencies, seconds: lower is better) are tested on their logarithms: bounded below
    // and skewed up, their noise is multiplicative (a p99 ten times the usual is a busy moment,
    // a tenth of it never happens), and on logarithms a spike weighs what its factor does. Rates
    // keep their values: bounded by the device, they are skewed down, and logarithms would
    // stretch the very tail a false alarm comes from. A time of 0 (a p99 of 0 ns) keeps it too.
    const bool positive = f.now > 0 && std::all_of(f.baseline.begin(), f.baseline.end(), [](double x) { return x > 0; });
    const bool on_logs = positive && f.better == Better::kLower;
    FigureHistory tested_figure = f;
    if (on_logs) {
      tested_figure.now = std::log(f.now);
      for (double& x : tested_figure.baseline) x = std::log(x);
    }
    const double spread = StdDev(tested_figure.baseline);
    const double mean = Mean(f.baseline);
    // A spread of logarithms is a relative one already.
    const double relative = on_logs ? spread : (mean != 0 ? spread / std::fabs(mean) : 0);
    const double s = NoisySpread(spread, relative);
    const double df = static_cast<double>(f.baseline.size() - 1);
    // Significance against the baseline's mean for best-of: the extreme of N runs is biased, and
    // a prediction interval around it would flag about one unchanged run in six (CV 3%, N 5).
    const double centre = options.reference.kind == Reference::Kind::kBestOf ? Mean(tested_figure.baseline)
                                                                             : ReferenceOf(tested_figure, options.reference).first;
    const double diff = tested_figure.now - centre;
    // No spread at all: any difference is beyond noise, none is within it.
    const double t = s > 0 ? diff / (s * std::sqrt(1.0 + factor)) : (diff == 0 ? 0.0 : std::copysign(INFINITY, diff));
    const double below = StudentTCdf(t, df);  // P(T <= t): small when now is far below
    p_worse.push_back(f.better == Better::kHigher ? below : 1.0 - below);
    p_better.push_back(f.better == Better::kHigher ? 1.0 - below : below);
    tested.push_back(out.size());
    out.push_back(std::move(v));
  }
  const auto worse = HolmAdjust(p_worse);
  const auto better = HolmAdjust(p_better);
  for (size_t k = 0; k < tested.size(); ++k) {
    FigureVerdict& v = out[tested[k]];
    const double change = v.change_pct.value_or(0);
    const bool got_worse = v.better == Better::kHigher ? change < 0 : change > 0;
    v.p_value = got_worse ? worse[k] : better[k];
    const bool beyond = std::fabs(change) > options.max_regression_pct;
    if (*v.p_value < options.alpha && beyond) v.verdict = got_worse ? v1::VERDICT_REGRESSION : v1::VERDICT_IMPROVEMENT;
    else v.verdict = v1::VERDICT_UNCHANGED;
  }
  return out;
}

}  // namespace iofleet::controller
