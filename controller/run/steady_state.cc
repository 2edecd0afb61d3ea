#include "controller/run/steady_state.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace iofleet::controller {

double SteadyChangePct(const std::vector<double>& samples, v1::SteadyCriterion criterion) {
  const double n = static_cast<double>(samples.size());
  if (samples.size() < 2) return std::numeric_limits<double>::infinity();
  double mean = 0;
  for (double y : samples) mean += y;
  mean /= n;
  if (!(mean > 0)) return std::numeric_limits<double>::infinity();
  if (criterion == v1::STEADY_CRITERION_RANGE) {
    double far = 0;
    for (double y : samples) far = std::max(far, std::fabs(y - mean));
    return far / mean * 100;
  }
  const double x_mean = (n - 1) / 2;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const double dx = static_cast<double>(i) - x_mean;
    sxy += dx * (samples[i] - mean);
    sxx += dx * dx;
  }
  const double slope = sxy / sxx;  // per sample
  return std::fabs(slope) * (n - 1) / mean * 100;
}

}  // namespace iofleet::controller
