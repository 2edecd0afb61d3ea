// A non-uniform access pattern as fio's random_distribution writes it (zipf, pareto, normal,
// zoned), parsed and checked: std only, so that the workload's rules (core/rules) refuse a bad
// one where it was written and the agent's offset table (agent/worker/offset_distribution.h)
// builds from the same spec.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace iofleet {

// One zone of fio's zoned:ACCESS/RANGE:...: `access_pct` percent of the I/Os land, uniformly, in
// the next `range_pct` percent of the range.
struct Zone {
  uint32_t access_pct = 0;
  uint32_t range_pct = 0;
};

struct DistributionSpec {
  enum class Kind { kUniform, kZipf, kPareto, kNormal, kZoned, kSequence };
  Kind kind = Kind::kUniform;
  // zipf: theta (p(rank k) ~ (k+1)^-theta); pareto: fio's h, the hottest h of the range takes
  // 1 - h of the I/Os; normal: the standard deviation in percent of the range, centred on it.
  double param = 0;
  std::vector<Zone> zones;  // zoned only, in range order
  // sequence only (fio's sequence:2,0,1): the slots each job visits, in this order, over and over
  // (or, strided, within a group of that many slots that moves on by as many each time).
  std::vector<uint64_t> sequence;
  // Key of the bijection that scatters zipf and pareto ranks over the range (fio hashes its
  // ranks for the same reason: the hot blocks are not all at the start of the file). The caller
  // passes the step's seed, so a rerun with the same seed hits the same slots, and every job
  // sharing the table shares its hot set; a job wanting its own hot set keeps its own
  // Permutation over Rank().
  uint64_t scatter_seed = 1;
};

// fio's text: "random" (or "uniform"), "zipf:1.2", "pareto:0.5", "normal:10",
// "zoned:60/10:30/20:8/30:2/40", "sequence:2,0,1". Bare "zipf" and "pareto" take fio's defaults
// (1.1, 0.2).
Result<DistributionSpec> ParseDistribution(std::string_view text);

// The rules fio applies, and the ones this table needs: zipf theta > 0 and not 1.0 (fio refuses
// 1.0), pareto h in (0, 1), normal sigma in (0, 100), zones of whole percentages adding up to
// 100 of the I/Os and 100 of the range, each zone at least 1% of the range; a sequence of 1 to
// 64 slots (fio's limit), each below 2^62.
Status ValidateDistribution(const DistributionSpec& spec);

}  // namespace iofleet
