// The run's results as reports render them (DESIGN.md section 2a): per step, the aggregate and
// one row per agent, all from exact counters and histograms.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/sparse_histogram.h"
#include "iofleet/v1/agent.pb.h"
#include "iofleet/v1/report.pb.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::v1 {
class HostInfo;
}

namespace iofleet::controller {

// One direction of I/O.
struct OpFigures {
  uint64_t ops = 0;
  uint64_t bytes = 0;
  std::shared_ptr<SparseHistogram> latency = std::make_shared<SparseHistogram>();
  std::shared_ptr<SparseHistogram> scheduled = std::make_shared<SparseHistogram>();

  void Add(const OpFigures& other);
};

// CPU inside a step's window, as measured (io, files and copy steps; not host steps).
struct CpuFigures {
  uint64_t worker_user_ns = 0;
  uint64_t worker_sys_ns = 0;
  uint64_t process_user_ns = 0;
  uint64_t process_sys_ns = 0;
  uint64_t host_busy_ticks = 0;
  uint64_t host_total_ticks = 0;
  uint32_t max_worker_busy_permille = 0;

  // /proc/stat counts in ticks (10 ms): a window shorter than one may have none to divide.
  bool host_measured() const { return host_total_ticks > 0; }
  double host_busy_pct() const {
    return host_total_ticks ? 100.0 * static_cast<double>(host_busy_ticks) / static_cast<double>(host_total_ticks) : 0.0;
  }
  void Add(const CpuFigures& other);
};

// Page-cache residency of a read step's data when its setup ended, as agents measured it.
struct CacheFigures {
  // At or above this share resident, the reads were likely served from memory, not storage.
  static constexpr double kResidentPct = 50.0;
  uint64_t resident_pages = 0;
  uint64_t pages = 0;

  double pct() const { return pages ? 100.0 * static_cast<double>(resident_pages) / static_cast<double>(pages) : 0.0; }
  bool resident() const { return pct() >= kResidentPct; }
};

struct StepStats {
  uint64_t ops = 0;
  uint64_t bytes = 0;
  uint64_t window_ns = 0;
  uint64_t passes = 0;
  uint64_t filled_bytes = 0;
  uint64_t fsyncs = 0;
  std::shared_ptr<SparseHistogram> latency = std::make_shared<SparseHistogram>();
  std::shared_ptr<SparseHistogram> fsync_latency = std::make_shared<SparseHistogram>();
  OpFigures read;
  OpFigures write;
  std::map<std::string, uint64_t> errors;  // by kind (errno name, "verify")
  std::optional<CpuFigures> cpu;      // absent: not measured (host steps)
  std::optional<CacheFigures> cache;  // absent: not measured; an aggregate sums the agents that did
  bool rate_limited = false;
  bool cpu_bound = false;  // this agent, or for an aggregate any agent, was CPU-bound (measured)
  uint64_t dirs = 0;       // copy: directories made
  // copy: how the bytes moved ("read_write", "copy_file_range"); an aggregate whose agents
  // differ (overrides) says "mixed".
  std::string copy_method;
  std::vector<std::string> notes;  // what host steps did (read-ahead changed, hook exit)
  // Hook steps: the fill level of the file system at the step's start and end; an aggregate
  // keeps the first agent's that measured it.
  std::optional<v1::FileSystemFill> fill_at_start;
  std::optional<v1::FileSystemFill> fill_at_end;
  // io steps, one agent's: what its host did in the window, as it sent it (checked by
  // controller/report/limit_verdict.h's ResourcesAreSound); an aggregate has none.
  std::optional<v1::ResourceStats> resources;

  double seconds() const { return static_cast<double>(window_ns) / 1e9; }
  double iops() const { return window_ns ? static_cast<double>(ops) / seconds() : 0.0; }
  double bytes_per_sec() const { return window_ns ? static_cast<double>(bytes) / seconds() : 0.0; }

  static StepStats FromProto(const v1::StepResult& result);
  // Merging: counters and histograms add; the window is the longest; passes the fewest; flags
  // hold when they hold for any agent.
  void Add(const StepStats& other, bool first);
  // A files step's phases run one after another: like Add, but the windows add up.
  void AddPhase(const StepStats& phase, bool first);
};

// One Progress message of an agent's stream: its cumulative figures `elapsed_ns` after the
// step's common start instant (ramp included).
struct ProgressSample {
  uint64_t elapsed_ns = 0;
  uint64_t bytes = 0;
  uint64_t ops = 0;
};

struct AgentStep {
  std::string agent;
  StepStats stats;
  int64_t start_offset_ns = 0;  // its first I/O after the earliest agent's, clocks corrected
  // Its result ends where the controller (or anything else) stopped it, not where its share did.
  bool stopped_early = false;
  // The plan gave it a job (total_jobs below the agent count leaves some agents without one).
  bool has_work = true;
  // A job of it finished its share and, as the plan's job_end asks, ended others (its stream's,
  // or every stream's of the step on its agent).
  bool ended_others = false;
  // Some job of its agent's step did: this row's jobs may have stopped before their share, one
  // before moving a byte.
  bool cut_by_job_end = false;
  // The progress stream as received, oldest first: what the agent had done when (first_done
  // interpolates between these when the agents were not stopped together).
  std::vector<ProgressSample> samples = {};
  // Its first I/O after the start instant it was given, both on its own clock (io steps).
  std::optional<int64_t> start_lateness_ns = std::nullopt;
};

// One phase of a files step (mkdir, create, ...), run in lockstep on every agent.
struct PhaseReport {
  std::string op;
  StepStats aggregate;
  std::vector<AgentStep> agents;
  int64_t start_skew_ns = -1;
  uint64_t span_ns = 0;  // as StepReport::span_ns
};

// One stream of an io step with streams: its figures over its own window, per agent and merged.
struct StreamReport {
  std::string name;
  StepStats aggregate;
  std::vector<AgentStep> agents;
};

// One window of a target_latency step's search (controller/run/latency_search.h).
struct SearchProbe {
  std::optional<double> rate_asked;  // the fleet's; absent: the first window, at full speed
  double rate_achieved = 0;
  uint64_t latency_ns = 0;  // the merged pXX (from each request's schedule when paced)
  uint64_t window_ns = 0;
  uint64_t ops = 0;
  bool passed = false;
  bool confirm = false;
  std::optional<uint32_t> queue_depth;  // each job's, when the search varies it (no rate asked)
};

// A target_latency step's search: its target, every probe, and what it found.
struct SearchReport {
  double percentile = 99;
  uint64_t max_latency_ns = 0;
  std::string unit;  // iops or bytes_per_sec
  uint64_t settle_ns = 0;
  uint64_t probe_ns = 0;
  std::vector<SearchProbe> probes;
  std::optional<double> found_rate;  // the confirmed rate (varying queue depth: what it achieved)
  bool met = false;
  std::string vary = "rate";  // or queue_depth
  std::optional<uint32_t> found_queue_depth;  // the confirmed depth, when the search varies it
  std::string stream;  // varying one stream's depth: its name (the figures above are its own)
  std::optional<double> failed_above;  // once met: the lowest rate (depth) above the found that failed
  bool converged = false;              // once met: within 2% of failed_above (a depth: exact)
};

// One window of a curve step: the full-speed one (no level), then each level's.
struct CurvePoint {
  std::optional<uint32_t> level_pct;
  std::optional<double> rate_asked;
  double rate_achieved = 0;
  uint64_t window_ns = 0;
  uint64_t ops = 0;
  std::shared_ptr<SparseHistogram> latency = std::make_shared<SparseHistogram>();
};

struct CurveReport {
  std::string unit;  // iops or bytes_per_sec
  double max_rate = 0;
  uint64_t probe_ns = 0;
  uint64_t settle_ns = 0;
  std::vector<CurvePoint> points;
};

// A steady step: its criterion, every sample of the fleet's figure, and whether (and from when,
// after the measurement window opened) the last window was steady.
struct SteadyReport {
  std::string metric;     // iops, bandwidth, latency
  std::string criterion;  // slope, range
  uint32_t tolerance_pct = 5;
  uint64_t window_ns = 0;
  uint64_t interval_ns = 0;
  bool reached = false;
  std::optional<uint64_t> steady_from_ns;
  double change_pct = 0;
  std::vector<double> samples;
};

struct StepReport {
  int index = 0;
  std::string name;
  std::string kind;
  int point = 0;
  int cycle = 0;
  // A group's step: the group's name and which of its repeats this is (0-based); top-level
  // steps: empty and -1.
  std::string group;
  int group_cycle = -1;
  std::vector<std::pair<std::string, std::string>> params;  // the point's swept values
  v1::StepStatus status = v1::STEP_STATUS_UNSPECIFIED;
  StepStats aggregate;
  std::vector<AgentStep> agents;
  // Max minus min of the agents' first-I/O instants, corrected by the clock offsets; -1 unknown.
  int64_t start_skew_ns = -1;
  uint64_t started_at_unix_ns = 0;  // the earliest agent's first I/O, on the controller's clock
  uint64_t start_lead_ns = 0;       // io steps: how far ahead its start instant was set (0: none)
  // The agent with work that held the step back (controller/report/slowest_agent.h), and by how
  // much it trails the median of those agents.
  std::string slowest_agent;
  double slowest_trails_median_pct = 0;
  bool stonewall = false;     // the step asked for stonewall: first_done (and it applied: several agents)
  bool stonewalled = false;   // stonewall: first_done stopped the others
  // The measurement window opens this long after the common start instant (io.ramp): the
  // samples' elapsed_ns count from that instant, the agents' windows from this offset.
  uint64_t ramp_ns = 0;
  // Measured by the controller: from the common start instant to the end of the last agent's
  // stream. Every agent's window lies within it (0: not measured).
  uint64_t span_ns = 0;
  std::vector<PhaseReport> phases;  // files steps
  std::vector<StreamReport> streams;  // io steps with streams, in the step's order
  // A target_latency step: its search; the figures above are its confirming window's.
  std::optional<SearchReport> search;
  std::optional<CurveReport> curve;    // a curve step: the figures above are its full-speed window's
  std::optional<SteadyReport> steady;  // a steady step: the figures above are its steady window's
  // How long the controller itself could not run while the step streamed (stalls of a second or
  // more: controller/fleet/stall_clock.h); 0: none. Its agents were not blamed for it.
  uint64_t controller_stall_ns = 0;
};

struct AgentInfo {
  std::string name;
  std::string address;
  std::string version;
  // Where it ran, as it reported at Prepare (empty strings and zeros: facts it could not read,
  // left out of the report); absent when it never prepared.
  std::optional<v1::HostInfo> host = std::nullopt;
};

struct RunReport {
  std::string run_id;
  std::string workload;
  std::string description;  // the workload's
  v1::RunStatus status = v1::RUN_STATUS_UNSPECIFIED;
  std::string error;
  uint64_t started_at_unix_ns = 0;  // when the controller began the run; 0: not known
  uint64_t duration_ns = 0;         // from then until its report
  // `run --label KEY=VALUE`, in the order given (report.json's "labels"; the pushgateway's grouping key).
  std::vector<std::pair<std::string, std::string>> labels;
  // `run --note KEY=VALUE`: facts recorded with the run (kernel, build) that select no baseline.
  std::map<std::string, std::string> notes;
  std::vector<AgentInfo> agents;
  std::vector<StepReport> steps;
};

// A run ends as the step that ended it did.
inline v1::RunStatus RunStatusOf(v1::StepStatus status) {
  switch (status) {
    case v1::STEP_STATUS_SUCCEEDED: return v1::RUN_STATUS_SUCCEEDED;
    case v1::STEP_STATUS_ABORTED: return v1::RUN_STATUS_ABORTED;
    default: return v1::RUN_STATUS_FAILED;
  }
}

}  // namespace iofleet::controller
