// The controller's live model of a run, fed by every agent's progress stream: what the terminal
// view (controller/live/progress_view.h) and /metrics (controller/live/live_metrics.h) show
// while the run goes. The report never comes from here: it comes from the exact StepResults.
//
// Per agent and current step: cumulative ops and bytes per op, errors, merged latency (for the
// step and for the last interval), rates over the last interval; the current step, point and
// cycle; agents connected, lost and silent; the live start skew; elapsed and expected time.
// For /metrics, each (step, op, engine, agent) series accumulates over every instance of its
// step (sweep points, cycles), so its counters only go up while the run lasts.
//
// Thread-safety: every member may be called from any thread (the agents' stream callbacks, the
// step executor, the view, a scrape); one mutex guards the model. Not the hot path.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "controller/live/live_figures.h"
#include "core/base/sparse_histogram.h"
#include "core/base/histogram_fold.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::controller {

// A stream of an io step with streams: its name and engine.
struct LiveStreamInfo {
  std::string name, engine;
};

struct LiveStepInfo {
  std::string name, kind;  // kind: io, files, copy, ...
  std::string engine;      // io steps: the engine's name, e.g. libaio; empty otherwise (or with streams)
  int index = 0, point = 0, cycle = 0;
  uint64_t ramp_ns = 0, runtime_ns = 0;  // io steps; runtime 0: size-bound
  std::vector<LiveStreamInfo> streams = {};  // an io step with streams, in the step's order
};

// An agent taking part in a step, as the fleet knows it.
struct LiveAgentId {
  std::string name;
  bool lost = false;            // lost in an earlier step
  int64_t clock_offset_ns = 0;  // its wall clock minus the controller's
};

struct LiveAgent {
  std::string name;
  bool lost = false;      // declared lost (stream broken, keepalive)
  bool silent = false;    // not heard from for two sample intervals during the step
  bool done = false;      // its stream ended with a result
  bool reported = false;  // at least one sample this step
  uint64_t elapsed_ns = 0;
  uint64_t ops = 0, bytes = 0, errors = 0, expected_ops = 0;
  uint64_t read_ops = 0, read_bytes = 0, write_ops = 0, write_bytes = 0;
  IntervalRate rate;      // over its last sample interval
  bool measured = false;  // has had a rate this step (the ramp is over for it)
  uint64_t rejected = 0;  // progress messages refused (controller/live/progress_check.h), this run
};

// One stream of the step, every agent together: cumulative counts and the last interval's rates
// by direction (the view's "[r=...,w=...]").
struct LiveStream {
  std::string name;
  uint64_t read_ops = 0, read_bytes = 0, write_ops = 0, write_bytes = 0;
  IntervalRate read, write;
  std::optional<uint64_t> p99_ns;  // of the last interval, every agent's merged
};

struct LiveSnapshot {
  std::string run_id, workload;
  bool running = false;  // a step is running
  bool measured = false;  // some agent has had a rate this step
  bool all_done = false;  // every agent not lost ended its stream
  LiveStepInfo step;
  std::vector<LiveAgent> agents;
  size_t reporting = 0;  // agents heard from lately, or done with the step
  size_t lost = 0;
  std::optional<double> start_skew_s;
  StepClock clock;
  uint64_t ops = 0, bytes = 0, errors = 0;  // the step's, every agent
  IntervalRate rate;                        // every reporting agent's last interval, added up
  std::optional<uint64_t> p99_ns;           // of the last interval, every agent's merged
  std::optional<uint64_t> p99_step_ns;      // since the step began
  std::vector<LiveStream> streams;          // an io step with streams
};

// One /metrics series of io figures.
struct LiveIoSeries {
  std::string step, stream, op, engine, agent;  // stream: empty for a step without streams
  uint64_t ops = 0, bytes = 0;
  FoldedHistogram latency;
};

// A files step's phase or a copy step: files (ops) and bytes, from the stream's totals.
struct LiveTaskSeries {
  std::string kind;   // files | copy
  std::string step;   // the step's name (a files phase's without ".<phase>")
  std::string phase;  // files: mkdir, create, ...; copy: empty
  std::string agent;
  uint64_t ops = 0, bytes = 0;
};

struct LiveErrorSeries {
  std::string step, engine, agent;
  uint64_t errors = 0;
};

// Progress messages refused from one agent (by name) over the whole run.
struct LiveRejectedSeries {
  std::string agent;
  uint64_t rejected = 0;
};

// The name a step goes by on /metrics: a files phase runs as step "<step>.<phase>" (step names
// have no dot), but its series are labelled with the step's own name, as the agents label theirs.
std::string MetricStepName(const LiveStepInfo& step);

class LiveRun {
 public:
  LiveRun(std::string run_id, std::string workload, uint64_t sample_interval_ns);

  // A step begins on `agents` (their indexes are the `agent` of the calls below). Clears every
  // per-step figure. An io step's error series of each agent exist from here on, at 0, so that
  // Prometheus sees a first burst of errors as an increase.
  void BeginStep(const LiveStepInfo& step, const std::vector<LiveAgentId>& agents);
  // One message of agent `i`'s stream, as it came from the wire: checked, then merged. False
  // when refused.
  bool OnProgress(size_t agent, const v1::Progress& progress);
  // Agent `i`'s stream ended with `result` (nullptr: none). What the result counts beyond the
  // last accepted progress (the final interval, or a step shorter than one interval) is added to
  // the series; only positive differences: with a ramp, progress counts the ramp and the result
  // does not, so the result may count less.
  void AgentDone(size_t agent, const v1::StepResult* result);
  void AgentLost(size_t agent);
  // The step is over: the exact start skew from the results, when known.
  void EndStep(std::optional<uint64_t> start_skew_ns);

  LiveSnapshot Snapshot() const;
  std::vector<LiveIoSeries> IoSeries() const;
  std::vector<LiveErrorSeries> ErrorSeries() const;
  std::vector<LiveTaskSeries> TaskSeries() const;
  std::vector<LiveRejectedSeries> RejectedSeries() const;
  uint64_t sample_interval_ns() const { return sample_interval_ns_; }
  // Goes up whenever the model changes (a sample, an agent done or lost, a step's begin or
  // end): a view redraws when it moved rather than merge every histogram again for nothing.
  uint64_t changes() const { return changes_.load(std::memory_order_relaxed); }

  // For tests: the steady clock the model reads, in ns.
  using Clock = int64_t (*)();
  void SetClockForTest(Clock clock) { clock_ = clock; }

 private:
  struct AgentState {
    LiveAgent live;
    v1::Progress last;  // the last accepted message (its histograms cleared)
    bool has_last = false;
    int64_t clock_offset_ns = 0;
    int64_t heard_at_ns = 0;  // steady clock of the last accepted message
    uint64_t started_at_unix_ns = 0;
    std::unique_ptr<SparseHistogram> step_latency = std::make_unique<SparseHistogram>();
    std::unique_ptr<SparseHistogram> interval_latency = std::make_unique<SparseHistogram>();
    // Per stream (a step with streams): the last interval's rates and latency by direction.
    struct Stream {
      IntervalRate read, write;
      std::unique_ptr<SparseHistogram> interval_latency = std::make_unique<SparseHistogram>();
    };
    std::vector<Stream> streams;
  };
  using SeriesKey = std::tuple<std::string, std::string, std::string, std::string, std::string>;  // step, stream, op, engine, agent

  void AddTask(const std::string& agent, uint64_t ops, uint64_t bytes);
  void AddIo(const std::string& agent, size_t stream, const char* op, uint64_t ops, uint64_t bytes, const FoldedHistogram* latency);
  void AddErrors(const std::string& agent, uint64_t errors);
  // Adds an op's delta to `interval` and the agent's step latency; `stream` (SIZE_MAX: none) names
  // the series it feeds, and a step with streams feeds its streams' series only.
  void MergeOp(AgentState& a, size_t stream, const char* op, const v1::ProgressOp& now, const v1::ProgressOp& before,
               SparseHistogram& interval);
  void MergeStreams(AgentState& a, const v1::Progress& progress);
  std::optional<double> LiveSkewLocked() const;

  const std::string run_id_, workload_;
  const uint64_t sample_interval_ns_;
  Clock clock_;
  mutable std::mutex mu_;
  std::atomic<uint64_t> changes_{0};
  bool running_ = false;
  LiveStepInfo step_;
  int64_t step_began_ns_ = 0;
  std::vector<AgentState> agents_;
  std::optional<double> exact_skew_s_;  // the last finished step's
  std::map<SeriesKey, LiveIoSeries> io_series_;
  std::map<std::tuple<std::string, std::string, std::string>, LiveErrorSeries> error_series_;
  std::map<std::tuple<std::string, std::string, std::string>, LiveTaskSeries> task_series_;  // step, phase, agent
  std::map<std::string, uint64_t> rejected_;  // by agent name; survives steps, as a counter must
};

}  // namespace iofleet::controller
