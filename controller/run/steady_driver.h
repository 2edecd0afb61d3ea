// Runs a steady step (workload.proto's SteadyState) while the step streams: cuts a window every
// `interval` on every agent at one instant, takes the fleet's figure of each (IOPS, bytes per
// second, or mean latency), and stops once the last `window` of them is steady
// (steady_state.h), or at `timeout`. The step's figures are those windows added up, per agent.
//
// Thread-safety: as CutStep's.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "controller/run/cut_step.h"

namespace iofleet::controller {

class SteadyDriver final : public CutStep {
 public:
  SteadyDriver(Fleet& fleet, std::string run_id, int step_index, const v1::IoSpec& io, uint64_t start_ns, uint64_t window_open_ns);

  const char* kind() const override { return "steady"; }
  FleetCuts& cuts() override { return cuts_; }
  void Run(const std::function<bool()>& give_up) override;
  std::string error() const override { return cuts_.error(); }
  // The steady window's (or, not required and not reached, the last window's), added up.
  std::vector<std::vector<v1::StepResult>> FigureWindows() const override;
  void Report(StepReport& step) const override { step.steady = report_; }

 private:
  FleetCuts cuts_;
  const v1::SteadyState steady_;
  const uint64_t window_open_ns_;
  SteadyReport report_;
  std::deque<std::vector<v1::StepResult>> last_;  // the last window's samples, per agent
  bool usable_ = false;  // reached, or not required
};

}  // namespace iofleet::controller
