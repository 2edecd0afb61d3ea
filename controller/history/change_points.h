// Change points in a figure's history by E-divisive means (Matteson and James, 2014), as
// MongoDB's and DataStax's Hunter (Apache Otava) find them in nightly performance results: the
// split that maximises the energy statistic between two segments, accepted when a permutation
// test says a split that strong is unlikely in a shuffled segment, then the same within each side
// until no split is significant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace iofleet::controller {

struct ChangePoint {
  size_t index = 0;        // the first value after the change
  double mean_before = 0;  // of the segment that ends here
  double mean_after = 0;   // of the segment that starts here
  double shift_pct = 0;    // (after - before) / before * 100
  double p_value = 1;      // of the permutation test that accepted it
};

struct ChangePointOptions {
  // Each split found is tested again within its own segments, so the bound per test is kept
  // strict: noise alone then seldom gives a change point.
  double alpha = 0.01;
  size_t min_segment = 3;      // values on each side of a change at least
  size_t permutations = 499;   // p-values in steps of 1/500
  uint64_t seed = 1;           // the permutations are reproducible
};

// The change points of `values` (oldest first), by index, in order.
std::vector<ChangePoint> FindChangePoints(const std::vector<double>& values, const ChangePointOptions& options = {});

}  // namespace iofleet::controller
