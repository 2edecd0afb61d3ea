// How often agents report progress during a step whose workload sets no `sample_interval`: often
// enough that a short step draws a line (a 1.2 s step sampled once a second drew empty charts),
// seldom enough that a long step or a large fleet does not flood the controller.
#pragma once

#include <cstddef>
#include <cstdint>

namespace iofleet::controller {

inline constexpr uint64_t kMinSampleIntervalNs = 100'000'000;    // the schema's floor, 10 a second
inline constexpr uint64_t kMaxAutoSampleIntervalNs = 1'000'000'000;

// About 20 samples over `expected_ns` (a time-based step's ramp and runtime, or how long the same
// step took last time in this run; 0: not known), in whole 100 ms, between 100 ms and 1 s; and no
// more than a thousand progress messages a second from the whole fleet of `agents`.
uint64_t AutoSampleIntervalNs(uint64_t expected_ns, size_t agents);

}  // namespace iofleet::controller
