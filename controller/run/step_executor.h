// Runs one step (or one phase of a files step) on every agent in lockstep: set it up everywhere (files, holes, threads
// waiting), pick one start instant a little ahead, release every agent at that instant on its
// own clock (corrected by the measured offset), stream progress, collect the exact results.
#pragma once

#include <atomic>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "controller/fleet/fleet.h"
#include "controller/run/interrupt.h"
#include "controller/live/live_run.h"
#include "controller/live/progress_view.h"
#include "controller/report/report_model.h"
#include "controller/report/samples_csv.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

struct StepOutcome {
  std::string status = "succeeded";  // succeeded | failed | aborted
  std::string error;                 // for failed and aborted
};

class StepExecutor {
 public:
  // `live` is fed every agent's progress; `view` shows it while the step runs; `samples` (may be
  // null) gets every accepted progress message as a row of samples.csv. `sample_interval_ns`:
  // the workload's; 0 chooses one per step (controller/run/sample_interval.h).
  StepExecutor(Fleet& fleet, std::string run_id, uint64_t sample_interval_ns, const Interrupt& interrupted,
               LiveRun& live, ProgressView& view, SamplesCsv* samples = nullptr, std::ostream& log = std::cerr)
      : log_(log), fleet_(fleet), run_id_(std::move(run_id)), sample_interval_ns_(sample_interval_ns), interrupted_(interrupted),
        live_(live), view_(view), samples_(samples) {}

  // Fills `step` (its agents, aggregate, skew) and says how it ended. `phase`: which op of a
  // files step. `has_work`: per agent, whether it was given any job (an agent without one never
  // ends a stonewalled step for the others); empty: all were.
  // When an agent fails or is lost, or on Ctrl-C, the others are asked to stop and their
  // figures so far are kept in `step` (status failed or aborted).
  StepOutcome Run(int index, uint32_t phase, const v1::IoSpec& io, const std::vector<bool>& has_work, StepReport& step);

 private:
  std::ostream& log_;
  Fleet& fleet_;
  const std::string run_id_;
  const uint64_t sample_interval_ns_;
  std::map<int, uint64_t> last_span_ns_;  // by step index: how long its last run took, for the next's interval
  const Interrupt& interrupted_;
  LiveRun& live_;
  ProgressView& view_;
  SamplesCsv* samples_;
};

}  // namespace iofleet::controller
