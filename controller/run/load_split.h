// How a paced window's rate, the fleet's, becomes each job's pace (CutWindow's rates). Without
// streams every job gets an even share. With streams each stream keeps the share of the load it
// had at full speed, split evenly over its jobs, as vdbench's curve keeps each workload's skew
// from its max run: a curve's 50% is the same mix at half the rate, and a search never asks a
// stream for more than its share just because another stream's jobs are quicker.
//
// Thread-safety: none needed (the cut step's thread only).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "controller/run/fleet_cuts.h"

namespace iofleet::controller {

class LoadSplit {
 public:
  // Even over `jobs` (every job of every agent), until Learn is given the full-speed window.
  explicit LoadSplit(uint64_t jobs) : jobs_(jobs) {}

  // From the full-speed window: each stream's rate (ops or bytes, as `bandwidth`) and jobs, over
  // every agent. A window without streams leaves the split even.
  void Learn(const FleetWindow& full_speed, bool bandwidth);

  // The pace for a fleet rate of `rate`: at least `least` per job (an I/O or about a block a
  // second), and what that asks of the fleet in all, the jobs' paces added.
  Pace For(double rate, double least) const;

 private:
  struct Stream {
    double share = 0;  // of the full-speed rate
    uint64_t jobs = 0;  // over every agent
  };
  const uint64_t jobs_;
  std::vector<Stream> streams_;  // empty: even over jobs_
};

}  // namespace iofleet::controller
