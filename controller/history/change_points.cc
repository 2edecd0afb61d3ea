#include "controller/history/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace iofleet::controller {
namespace {

struct Split {
  size_t at = 0;   // index of the first value of the right segment, within the segment
  double q = -1;   // the energy statistic there
};

// The best split of x by Q(tau) = tau (n - tau) / n * E(tau), E the energy distance (alpha 1)
// between x[0, tau) and x[tau, n). Sums are updated as tau moves: O(n^2) per call.
Split BestSplit(const std::vector<double>& x, size_t min_segment) {
  const size_t n = x.size();
  Split best;
  if (n < 2 * min_segment) return best;
  // within_left: sum of |xi - xj| over pairs in [0, tau); within_right over [tau, n);
  // between: over i < tau <= j.
  double within_left = 0, within_right = 0, between = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) within_right += std::fabs(x[i] - x[j]);
  for (size_t tau = 1; tau < n; ++tau) {
    // Move x[tau - 1] from the right segment to the left.
    const size_t k = tau - 1;
    double to_left = 0, to_right = 0;
    for (size_t i = 0; i < k; ++i) to_left += std::fabs(x[k] - x[i]);
    for (size_t j = tau; j < n; ++j) to_right += std::fabs(x[k] - x[j]);
    within_right -= to_right;
    between -= to_left;  // pairs (i < k, k) were between; now within the left
    within_left += to_left;
    between += to_right;
    if (tau < min_segment || n - tau < min_segment) continue;
    const double l = static_cast<double>(tau), r = static_cast<double>(n - tau);
    const double energy = 2.0 * between / (l * r) - within_left / (l * (l - 1) / 2) - within_right / (r * (r - 1) / 2);
    const double q = l * r / static_cast<double>(n) * energy;
    if (q > best.q) best = {tau, q};
  }
  return best;
}

double MeanOf(const std::vector<double>& v, size_t from, size_t to) {
  return std::accumulate(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(to), 0.0) / static_cast<double>(to - from);
}

}  // namespace

std::vector<ChangePoint> FindChangePoints(const std::vector<double>& values, const ChangePointOptions& options) {
  std::mt19937_64 random(options.seed);
  std::vector<size_t> cuts = {0, values.size()};  // segment boundaries, sorted
  std::vector<std::pair<size_t, double>> found;   // index, p-value
  while (true) {
    // The strongest split over all current segments.
    Split strongest;
    size_t segment_begin = 0, segment_end = 0;
    for (size_t s = 0; s + 1 < cuts.size(); ++s) {
      std::vector<double> segment(values.begin() + static_cast<long>(cuts[s]), values.begin() + static_cast<long>(cuts[s + 1]));
      Split split = BestSplit(segment, options.min_segment);
      if (split.q > strongest.q) {
        strongest = split;
        segment_begin = cuts[s];
        segment_end = cuts[s + 1];
      }
    }
    if (strongest.q < 0) break;
    // Permutation test within that segment: how often does a shuffle split as strongly?
    std::vector<double> shuffled(values.begin() + static_cast<long>(segment_begin), values.begin() + static_cast<long>(segment_end));
    size_t as_strong = 0;
    for (size_t p = 0; p < options.permutations; ++p) {
      std::shuffle(shuffled.begin(), shuffled.end(), random);
      if (BestSplit(shuffled, options.min_segment).q >= strongest.q) ++as_strong;
    }
    const double p_value = static_cast<double>(as_strong + 1) / static_cast<double>(options.permutations + 1);
    if (p_value > options.alpha) break;
    const size_t at = segment_begin + strongest.at;
    found.emplace_back(at, p_value);
    cuts.insert(std::upper_bound(cuts.begin(), cuts.end(), at), at);
  }
  std::sort(found.begin(), found.end());
  std::vector<ChangePoint> out;
  for (const auto& [at, p_value] : found) {
    const auto next = std::upper_bound(cuts.begin(), cuts.end(), at);
    const size_t before_begin = *(next - 2), after_end = *next;
    ChangePoint c;
    c.index = at;
    c.mean_before = MeanOf(values, before_begin, at);
    c.mean_after = MeanOf(values, at, after_end);
    c.shift_pct = c.mean_before != 0 ? (c.mean_after - c.mean_before) / std::fabs(c.mean_before) * 100.0 : 0;
    c.p_value = p_value;
    out.push_back(c);
  }
  return out;
}

}  // namespace iofleet::controller
