// A Progress message comes from the wire: an agent of another version, a bug or an attacker
// may send bucket indexes out of range, bucket and count lists of different lengths, counts
// that would overflow a sum, or totals that go backwards. Such a message is rejected whole
// (and counted by the live model) rather than merged: nothing from it reaches the live view or
// /metrics, and the report, which comes from the exact StepResult, is not touched.
#pragma once

#include "core/base/status.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::controller {

// More than this many completions in one histogram delta is not a measurement: a million
// I/Os per second for 60 s (the longest sample interval) is 6e7; this leaves room above.
inline constexpr uint64_t kMaxDeltaCount = uint64_t{1} << 40;
// A step holds at most 64 streams (core/rules/defaults.h).
inline constexpr int kMaxProgressStreams = 64;

// `before`: the previous accepted message of the same stream, or nullptr for its first.
// Also refuses a start instant above INT64_MAX ns (the live skew computes with signed instants).
Status CheckProgress(const v1::Progress& now, const v1::Progress* before);

// The latency sums of `now`'s deltas, added to `sum_so_far` (what the stream's earlier deltas
// added up to): refused when that would overflow 64 bits rather than wrap to a small figure.
Status CheckLatencySumFits(const v1::Progress& now, uint64_t sum_so_far);

}  // namespace iofleet::controller
