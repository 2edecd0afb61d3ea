// Runs a curve step (workload.proto's LoadCurve, vdbench's curve run) while the step streams: a
// settling window and a full-speed one, whose rate is the maximum, then for each level a cut that
// sets that share of it (split evenly over every job), one that ends the settling, and one that
// ends the level's window. Each level's latency is from each request's schedule.
//
// Thread-safety: as CutStep's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "controller/run/cut_step.h"
#include "controller/run/load_split.h"

namespace iofleet::controller {

class CurveDriver final : public CutStep {
 public:
  CurveDriver(Fleet& fleet, std::string run_id, int step_index, const v1::IoSpec& io, uint64_t start_ns, uint64_t window_open_ns,
              uint64_t jobs);

  const char* kind() const override { return "curve"; }
  FleetCuts& cuts() override { return cuts_; }
  void Run(const std::function<bool()>& give_up) override;
  std::string error() const override { return cuts_.error(); }
  // The full-speed window's, the curve's maximum; none unless every level was measured (a curve
  // cut short by the step's end is no curve).
  std::vector<std::vector<v1::StepResult>> FigureWindows() const override {
    return complete_ ? std::vector<std::vector<v1::StepResult>>{full_speed_} : std::vector<std::vector<v1::StepResult>>{};
  }
  void Report(StepReport& step) const override { step.curve = report_; }

 private:
  // The window asked at `per_job` (0: full speed): nullopt when the fleet's cuts failed.
  std::optional<FleetWindow> Measure(const Pace& pace, const std::function<bool()>& give_up);

  FleetCuts cuts_;
  const std::vector<uint32_t> levels_;
  const uint64_t jobs_;
  CurveReport report_;
  LoadSplit split_;  // how a level's rate is paced over the jobs (each stream's full-speed share)
  std::vector<v1::StepResult> full_speed_;
  bool complete_ = false;  // every level measured
};

}  // namespace iofleet::controller
