// An io step the controller cuts into windows while it runs (fleet_cuts.h), by what it measures:
// a latency search (search_driver.h), a load curve (curve_driver.h) or a wait for steady state
// (steady_driver.h). The step executor runs one beside the agents' streams, stops the step when
// it returns, and takes the step's figures and its report section from it.
//
// Thread-safety: Run on one thread; cuts().OnWindow from the agents' stream callbacks; the rest
// after Run.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "controller/fleet/fleet.h"
#include "controller/report/report_model.h"
#include "controller/run/fleet_cuts.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

struct StreamFigures {
  std::string name;
  StepStats stats;
};

// Each agent's window results as its figures (one window each), or the windows of a span added
// up; and, for a step with streams, each stream's the same way.
std::vector<StepStats> WindowFigures(const std::vector<v1::StepResult>& agents);
std::vector<StepStats> SpanFigures(const std::vector<std::vector<v1::StepResult>>& windows);
std::vector<std::vector<StreamFigures>> SpanStreamFigures(const std::vector<std::vector<v1::StepResult>>& windows);

// Whether a cut step's rates are bytes per second (every stream's op is sequential), else I/Os
// per second.
bool CutInBytes(const v1::IoSpec& io);
// The step's streams' names, in order (empty: it has none).
std::vector<std::string> StreamNames(const v1::IoSpec& io);

class CutStep {
 public:
  virtual ~CutStep() = default;
  virtual const char* kind() const = 0;  // its field's name: target_latency, curve, steady
  virtual FleetCuts& cuts() = 0;
  // Its windows, until done or `give_up` says so (an agent failed, Ctrl-C, a stream ended).
  virtual void Run(const std::function<bool()>& give_up) = 0;
  // Why it measured nothing it could stand by (empty: it did, or another failure came first).
  virtual std::string error() const = 0;
  // The windows whose figures are the step's, each every agent's in the fleet's order (a
  // search's confirming one, a curve's full-speed one, a steady span; empty: none, and the step
  // keeps what its results say).
  virtual std::vector<std::vector<v1::StepResult>> FigureWindows() const = 0;
  // Each agent's figures for the step: those windows added up (empty: none).
  std::vector<StepStats> Figures() const { return SpanFigures(FigureWindows()); }
  // Each agent's figures of each stream over the same windows (a step with streams).
  std::vector<std::vector<StreamFigures>> Streams() const { return SpanStreamFigures(FigureWindows()); }
  // Its section of the step's report (search, curve or steady).
  virtual void Report(StepReport& step) const = 0;
};

// The step's, or null for a step that is not cut (rules::IsCutStep). `jobs`: every job of every
// agent; `start_ns` and `window_open_ns` on the controller's wall clock.
std::unique_ptr<CutStep> MakeCutStep(Fleet& fleet, const std::string& run_id, int step_index, const v1::IoSpec& io,
                                     uint64_t start_ns, uint64_t window_open_ns, uint64_t jobs);

}  // namespace iofleet::controller
