// The live line a running step prints each sample interval, e.g.
// "[write] 3s  512.0 MiB/s  512 IOPS  per agent 250.1..261.9 MiB/s".
#pragma once

#include <cstdint>
#include <string>

namespace iofleet::controller {

struct LiveTotals {
  double seconds = 0;  // since the step's start instant; above 0
  uint64_t bytes = 0, ops = 0;
  uint64_t agents = 1;
  uint64_t low_bytes = 0, high_bytes = 0;  // the slowest and fastest agent's bytes
  std::string silent;                      // agents not heard from lately, comma-separated
};

// `kind`: the step's; a copy or files step counts files, so its rate is files/s, not IOPS.
std::string ProgressLine(const std::string& name, const std::string& kind, const LiveTotals& t);

}  // namespace iofleet::controller
