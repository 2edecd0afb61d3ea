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
#include "controller/fleet/stall_clock.h"
#include "controller/run/interrupt.h"
#include "controller/run/start_lead.h"
#include "controller/live/live_run.h"
#include "controller/live/progress_view.h"
#include "controller/report/report_model.h"
#include "controller/report/samples_csv.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

struct StepOutcome {
  v1::StepStatus status = v1::STEP_STATUS_SUCCEEDED;
  std::string error;  // for failed and aborted
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
  // `total_jobs`: every agent's jobs of an io step together (a target_latency step splits its
  // rates over them).
  StepOutcome Run(int index, uint32_t phase, const v1::IoSpec& io, const std::vector<bool>& has_work, StepReport& step,
                  uint64_t total_jobs = 0);

 private:
  struct Streams;  // one step's streams, shared by their callbacks (step_executor.cc)

  // Sets the step up on every agent (files, holes, threads waiting); nothing is measured yet. A
  // setup may fill whole files: Ctrl-C, or one agent's failed setup, cancels the others' rather
  // than wait for them (the run's Stop then ends their fills between two writes).
  StepOutcome SetUp(int index, uint32_t phase, const StepReport& step);
  // The one start instant: far enough ahead that every Start reaches its agent before it
  // (start_lead.h); `decided_ns` is when it was chosen.
  uint64_t StartInstant(uint64_t& decided_ns) const;
  // The workload's sample interval, or one chosen for the step's expected length (its runtime,
  // or how long its last run took).
  uint64_t SampleIntervalNs(int index, const v1::IoSpec& io) const;
  // Opens every agent's stream (no thread per stream: gRPC's callback API) and waits until every
  // stream has ended, ticking the view and making the StopOthers calls the ends asked for.
  // On Ctrl-C the agents are asked to stop; agents asked to stop (Ctrl-C, or another agent
  // failed) that do not within a grace have their streams cancelled.
  void StreamAll(Streams& s);
  // A step cut into windows (controller/run/cut_step.h): its windows on a thread of their own
  // while the agents stream; when they are done, every agent is asked to stop.
  void RunCut(Streams& s);
  // Opens agent i's stream: its progress to the live model and samples.csv.
  void StreamAgent(size_t i, Streams& s);
  // Agent i's stream ended (on a gRPC callback thread: nothing here blocks). It asks StreamAll to
  // stop the others when it finished first on a stonewalled step, or failed.
  void StreamEnded(size_t i, Streams& s, Result<v1::StepResult> ended);
  // Agents whose stream has sent nothing for the silence limit of the controller's running time:
  // cancelled and lost (frozen, or cut off without a FIN).
  void CancelSilent(Streams& s);
  // Asks every agent but `except` (SIZE_MAX: every agent) to stop the step, each at most once.
  void StopOthers(Streams& s, size_t except);
  // The step's figures from what came back (each agent's row, the aggregate, span, start skew,
  // the slowest agent); the step's end in the live model and the view.
  void Merge(const v1::IoSpec& io, Streams& s, StepReport& step);
  // How the streamed step ended: aborted on Ctrl-C, else failed with the first agent's error (it
  // failed, was lost, or ended early unasked), else succeeded.
  StepOutcome Judge(const Streams& s, const StepReport& step);
  // Logs an agent's failure of the step; the first one is the step's error.
  void FailStep(StepOutcome& outcome, const StepReport& step, const std::string& message);

  std::ostream& log_;
  Fleet& fleet_;
  const std::string run_id_;
  const uint64_t sample_interval_ns_;
  std::map<int, uint64_t> last_span_ns_;  // by step index: how long its last run took, for the next's interval
  StartLead start_lead_;                  // the start instant's lead, from the step before's fan-out
  // The controller's own running time: an agent's silence is counted on it (stall_clock.h).
  StallClock stall_clock_;
  const Interrupt& interrupted_;
  LiveRun& live_;
  ProgressView& view_;
  SamplesCsv* samples_;
};

}  // namespace iofleet::controller
