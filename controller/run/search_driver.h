// Runs a target_latency step's search while the step streams (fleet_cuts.h does the cutting):
// a settling window and a full-speed one first, then for each rate LatencySearch
// (latency_search.h) asks, or each queue depth DepthSearch (depth_search.h) asks (vary:
// queue_depth), a cut that sets it, with `settle` one that ends the settling, and one that ends
// the probe, so neither the change nor its transient is measured.
//
// Thread-safety: Run on one thread; cuts().OnWindow from the agents' stream callbacks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "controller/fleet/fleet.h"
#include "controller/report/report_model.h"
#include "controller/run/cut_step.h"
#include "controller/run/depth_search.h"
#include "controller/run/fleet_cuts.h"
#include "controller/run/latency_search.h"
#include "controller/run/load_split.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

// `percentile` as written in the workload ("99.9"), checked by the rules: its quantile.
double SearchQuantile(const v1::TargetLatency& target);

class SearchDriver final : public CutStep {
 public:
  // `jobs`: every job of every agent, over which each rate is split evenly.
  SearchDriver(Fleet& fleet, std::string run_id, int step_index, const v1::IoSpec& io, uint64_t start_ns, uint64_t window_open_ns,
               uint64_t jobs);

  const char* kind() const override { return "target_latency"; }
  FleetCuts& cuts() override { return cuts_; }
  void Run(const std::function<bool()>& give_up) override;
  // Empty when the search found a rate whose confirming window met the target.
  std::string error() const override { return cuts_.error(); }
  // Each agent's confirming window, when the search met the target.
  std::vector<std::vector<v1::StepResult>> FigureWindows() const override {
    return confirmed_.empty() ? std::vector<std::vector<v1::StepResult>>{} : std::vector<std::vector<v1::StepResult>>{confirmed_};
  }
  void Report(StepReport& step) const override { step.search = report_; }
  const SearchReport& report() const { return report_; }

 private:
  void RunRate(const std::function<bool()>& give_up);
  void RunDepth(const std::function<bool()>& give_up);
  // Cuts to `load` (unless it is the first window), lets it settle, and measures one probe.
  std::optional<FleetWindow> Probe(bool first, const Pace& pace, uint32_t queue_depth, const std::function<bool()>& give_up);
  void Failed(const std::string& why);
  uint64_t Latency(const SparseHistogram& window) const;  // the window's pXX

  FleetCuts cuts_;
  const v1::TargetLatency target_;
  const uint64_t jobs_;
  uint32_t queue_depth_;  // each job's, the most a depth search tries
  // A depth search over streams: the stream searched and judged (target_latency.stream).
  std::optional<size_t> searched_stream_;
  const double quantile_;
  SearchReport report_;
  LoadSplit split_;  // how a rate is paced over the jobs (each stream's full-speed share)
  std::vector<v1::StepResult> confirmed_;
};

}  // namespace iofleet::controller
