// The spread of one figure over the cycles of a step at a sweep point (repeat): the arithmetic
// mean with Student's t interval, for rates also the geometric mean with its interval taken on
// the logarithm (a rate is positive, but an arithmetic interval over a few spread-out cycles
// reaches below zero), and from kMinCyclesForOutliers cycles up the cycles that are outliers by
// the median absolute deviation. docs/report-schema.md states the rules.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace iofleet::controller {

// Fewer cycles give no robust median absolute deviation.
constexpr size_t kMinCyclesForOutliers = 5;
// Iglewicz and Hoaglin's cut-off for the modified z-score.
constexpr double kOutlierScore = 3.5;

struct CycleSummary {
  size_t cycles = 0;
  double mean = 0, stddev = 0, min = 0, max = 0;  // stddev: the sample's (n - 1)
  double ci95_low = 0, ci95_high = 0;
  // Rates whose every cycle is above zero: exp of the mean logarithm and of its interval's ends.
  std::optional<double> gmean, gmean_ci95_low, gmean_ci95_high;
  // From kMinCyclesForOutliers cycles up: the cycle numbers flagged, in order.
  std::optional<std::vector<int>> outlier_cycles;
};

// Student's t quantile 0.975 with `df` degrees of freedom (df >= 1): the two-sided 95% factor.
double StudentT975(double df);

// Indexes into `values` whose modified z-score |x - median| / (1.4826 * MAD) exceeds
// kOutlierScore; when MAD is 0 (over half the values equal), the mean absolute deviation from
// the median scaled by 1.2533 stands in for 1.4826 * MAD; all values equal flag none.
std::vector<size_t> MadOutliers(const std::vector<double>& values);

// `values[i]` was measured in cycle `cycles[i]`; `rate`: add the geometric mean. At least one
// value.
CycleSummary SummarizeCycles(const std::vector<double>& values, const std::vector<int>& cycles, bool rate);

}  // namespace iofleet::controller
