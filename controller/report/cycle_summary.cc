#include "controller/report/cycle_summary.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace iofleet::controller {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct MeanInterval {
  double mean = 0, stddev = 0, half = 0;  // half: the 95% interval's half width
};

MeanInterval MeanAndInterval(const std::vector<double>& xs) {
  MeanInterval m;
  const double n = static_cast<double>(xs.size());
  for (double x : xs) m.mean += x / n;
  if (xs.size() < 2) return m;
  double squares = 0;
  for (double x : xs) squares += (x - m.mean) * (x - m.mean);
  m.stddev = std::sqrt(squares / (n - 1));
  m.half = StudentT975(n - 1) * m.stddev / std::sqrt(n);
  return m;
}

}  // namespace

double StudentT975(double df) {
  boost::math::students_t_distribution<double> t(df);
  return boost::math::quantile(t, 0.975);
}

std::vector<size_t> MadOutliers(const std::vector<double>& values) {
  const double median = Median(values);
  std::vector<double> deviations;
  for (double x : values) deviations.push_back(std::fabs(x - median));
  // 1.4826 * MAD estimates the standard deviation of normal data; 1.2533 * the mean absolute
  // deviation does too, and is not 0 unless every value is the median.
  double scale = 1.4826 * Median(deviations);
  if (scale == 0) {
    double mean_abs = 0;
    for (double d : deviations) mean_abs += d / static_cast<double>(deviations.size());
    scale = 1.2533 * mean_abs;
  }
  std::vector<size_t> out;
  if (scale == 0) return out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (deviations[i] / scale > kOutlierScore) out.push_back(i);
  }
  return out;
}

CycleSummary SummarizeCycles(const std::vector<double>& values, const std::vector<int>& cycles, bool rate) {
  CycleSummary s;
  s.cycles = values.size();
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  const MeanInterval arithmetic = MeanAndInterval(values);
  s.mean = arithmetic.mean;
  s.stddev = arithmetic.stddev;
  s.ci95_low = arithmetic.mean - arithmetic.half;
  s.ci95_high = arithmetic.mean + arithmetic.half;
  if (rate && s.min > 0) {
    std::vector<double> logs;
    for (double x : values) logs.push_back(std::log(x));
    const MeanInterval log = MeanAndInterval(logs);
    s.gmean = std::exp(log.mean);
    s.gmean_ci95_low = std::exp(log.mean - log.half);
    s.gmean_ci95_high = std::exp(log.mean + log.half);
  }
  if (values.size() >= kMinCyclesForOutliers) {
    s.outlier_cycles.emplace();
    for (size_t i : MadOutliers(values)) s.outlier_cycles->push_back(cycles[i]);
  }
  return s;
}

}  // namespace iofleet::controller
