// Runs a target_latency step's search while the step streams (fleet_cuts.h does the cutting):
// a settling window and a full-speed one first, then for each rate LatencySearch
// (latency_search.h) asks, a cut that sets it, with `settle` one that ends the settling, and one
// that ends the probe, so neither the change nor its transient is measured.
//
// Thread-safety: Run on one thread; cuts().OnWindow from the agents' stream threads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "controller/fleet/fleet.h"
#include "controller/report/report_model.h"
#include "controller/run/fleet_cuts.h"
#include "controller/run/latency_search.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

// `percentile` as written in the workload ("99.9"), checked by the rules: its quantile.
double SearchQuantile(const v1::TargetLatency& target);

class SearchDriver {
 public:
  // `jobs`: every job of every agent, over which each rate is split evenly.
  SearchDriver(Fleet& fleet, std::string run_id, int step_index, const v1::IoSpec& io, uint64_t start_ns, uint64_t window_open_ns,
               uint64_t jobs);

  FleetCuts& cuts() { return cuts_; }
  // The search, until done or `give_up` says so (an agent failed, Ctrl-C, the streams ended).
  void Run(const std::function<bool()>& give_up);

  // After Run. Empty when the search found a rate whose confirming window met the target.
  std::string error() const { return cuts_.error(); }
  const SearchReport& report() const { return report_; }
  // Each agent's confirming window, when the search met the target.
  const std::vector<v1::StepResult>& confirmed() const { return confirmed_; }

 private:
  FleetCuts cuts_;
  const v1::TargetLatency target_;
  const uint64_t jobs_;
  const double quantile_;
  SearchReport report_;
  std::vector<v1::StepResult> confirmed_;
};

}  // namespace iofleet::controller
