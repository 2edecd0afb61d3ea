#include "controller/run/sample_interval.h"

#include <algorithm>

namespace iofleet::controller {

uint64_t AutoSampleIntervalNs(uint64_t expected_ns, size_t agents) {
  constexpr uint64_t kSamplesPerStep = 20;
  constexpr uint64_t kFleetMessagesPerSec = 1000;
  const uint64_t fleet_floor = static_cast<uint64_t>(agents) * (1'000'000'000 / kFleetMessagesPerSec);
  const uint64_t floor = std::clamp(fleet_floor, kMinSampleIntervalNs, kMaxAutoSampleIntervalNs);
  // Unknown length (a size-based step's first run): the fastest the fleet allows, so a short
  // step still gets its points; the next run of the step is sized from this one.
  uint64_t interval = expected_ns ? expected_ns / kSamplesPerStep : floor;
  interval = interval / kMinSampleIntervalNs * kMinSampleIntervalNs;  // whole 100 ms, rounded down
  return std::clamp(interval, floor, kMaxAutoSampleIntervalNs);
}

}  // namespace iofleet::controller
