// The Kolmogorov-Smirnov test for the unit tests that check a sampler against its law (the
// Poisson pacer's gaps, the exponential table): the statistic and its critical value.
#pragma once

#include <algorithm>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <cstddef>
#include <vector>

namespace iofleet::ks {

// P(sqrt(n) D > x) as n grows: Kolmogorov's series, 2 sum (-1)^(k-1) e^(-2 k^2 x^2).
inline double KolmogorovTail(double x) {
  double sum = 0;
  for (int k = 1; k <= 100; ++k) sum += (k % 2 ? 2 : -2) * std::exp(-2.0 * k * k * x * x);
  return sum;
}

// The statistic's critical value at `alpha` for n draws: Kolmogorov's quantile, solved here,
// with Stephens' finite-n scaling (sqrt(n) + 0.12 + 0.11 / sqrt(n)).
inline double KsCritical(size_t n, double alpha) {
  boost::uintmax_t iterations = 200;
  auto [lo, hi] = boost::math::tools::bisect([alpha](double x) { return KolmogorovTail(x) - alpha; }, 0.5, 3.0,
                                             boost::math::tools::eps_tolerance<double>(40), iterations);
  const double root_n = std::sqrt(static_cast<double>(n));
  return (lo + hi) / 2 / (root_n + 0.12 + 0.11 / root_n);
}

// sup |F_n(x) - F(x)| against Exp(1) (sorts `draws`).
inline double KsStatisticExp1(std::vector<double>& draws) {
  std::sort(draws.begin(), draws.end());
  const double n = static_cast<double>(draws.size());
  double d = 0;
  for (size_t i = 0; i < draws.size(); ++i) {
    const double f = -std::expm1(-draws[i]);
    d = std::max({d, (i + 1) / n - f, f - i / n});
  }
  return d;
}

}  // namespace iofleet::ks
