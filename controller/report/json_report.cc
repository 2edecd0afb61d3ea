#include <map>
#include <nlohmann/json.hpp>

#include "controller/report/cycle_summary.h"
#include "controller/report/first_done.h"
#include "controller/report/report_writers.h"

namespace iofleet::controller {
namespace {

nlohmann::ordered_json LatencyJson(const LatencyHistogram& h) {
  return {
      {"mean", h.Mean()},          {"p50", h.Quantile(0.50)},   {"p90", h.Quantile(0.90)},
      {"p99", h.Quantile(0.99)},   {"p999", h.Quantile(0.999)}, {"p9999", h.Quantile(0.9999)},
      {"max", h.max()},
  };
}

// The step's latency distribution at these percentiles, as [percentile, ns] points from the exact
// merged histogram: enough to draw its percentile curve (report.html), small enough to store.
nlohmann::ordered_json LatencyCurve(const LatencyHistogram& h) {
  static constexpr double kPercentiles[] = {50, 75, 90, 95, 99, 99.5, 99.9, 99.99};
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (double p : kPercentiles) curve.push_back({p, h.Quantile(p / 100)});
  curve.push_back({100, h.max()});
  return curve;
}

nlohmann::ordered_json OpJson(const OpFigures& op, double seconds, bool rate_limited) {
  nlohmann::ordered_json j;
  j["ops"] = op.ops;
  j["bytes"] = op.bytes;
  j["iops"] = seconds > 0 ? static_cast<double>(op.ops) / seconds : 0.0;
  j["bytes_per_sec"] = seconds > 0 ? static_cast<double>(op.bytes) / seconds : 0.0;
  j["latency_ns"] = LatencyJson(*op.latency);
  if (rate_limited) j["latency_from_schedule_ns"] = LatencyJson(*op.scheduled);
  return j;
}

// A swept value as JSON: a number when it is one, else the text as written ("64KiB").
nlohmann::ordered_json ParamValue(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() < 19) {
    return std::stoull(text);
  }
  return text;
}

nlohmann::ordered_json SummaryJson(const CycleSummary& c) {
  nlohmann::ordered_json j = {{"mean", c.mean},         {"stddev", c.stddev},       {"min", c.min},
                              {"max", c.max},           {"ci95_low", c.ci95_low},   {"ci95_high", c.ci95_high},
                              {"cycles", c.cycles}};
  if (c.gmean) {
    j["gmean"] = *c.gmean;
    j["gmean_ci95_low"] = *c.gmean_ci95_low;
    j["gmean_ci95_high"] = *c.gmean_ci95_high;
  }
  if (c.outlier_cycles) j["outlier_cycles"] = *c.outlier_cycles;
  return j;
}

// `figure` of each cycle's aggregate, summarized; `rate` adds the geometric mean. The cycles
// are group cycles for a group's steps (`group_cycles`), else repeat cycles.
template <typename Figure>
nlohmann::ordered_json Summary(const std::vector<const StepReport*>& steps, Figure figure, bool rate, bool group_cycles) {
  std::vector<double> values;
  std::vector<int> cycles;
  for (const StepReport* s : steps) {
    values.push_back(figure(s->aggregate));
    cycles.push_back(group_cycles ? s->group_cycle : s->cycle);
  }
  return SummaryJson(SummarizeCycles(values, cycles, rate));
}

nlohmann::ordered_json DoneJson(const DoneFigure& f, bool with_method) {
  nlohmann::ordered_json j = {{"seconds", f.seconds}, {"bytes_per_sec", f.bytes_per_sec}};
  if (with_method) {
    j["bytes"] = f.bytes;
    j["method"] = f.method;
  }
  return j;
}

nlohmann::ordered_json StatsJson(const StepStats& s) {
  nlohmann::ordered_json j;
  j["ops"] = s.ops;
  j["bytes"] = s.bytes;
  j["seconds"] = s.seconds();
  j["iops"] = s.iops();
  j["bytes_per_sec"] = s.bytes_per_sec();
  j["latency_ns"] = LatencyJson(*s.latency);
  if (s.rate_limited) {
    LatencyHistogram scheduled(*s.read.scheduled);
    scheduled.Add(*s.write.scheduled);
    j["latency_from_schedule_ns"] = LatencyJson(scheduled);
  }
  if (s.read.ops) j["read"] = OpJson(s.read, s.seconds(), s.rate_limited);
  if (s.write.ops) j["write"] = OpJson(s.write, s.seconds(), s.rate_limited);
  j["passes"] = s.passes;
  j["filled_bytes"] = s.filled_bytes;
  j["fsyncs"] = s.fsyncs;
  if (s.fsyncs) j["fsync_latency_ns"] = LatencyJson(*s.fsync_latency);
  j["errors"] = nlohmann::ordered_json::object();
  for (const auto& [kind, n] : s.errors) j["errors"][kind] = n;
  // Measurements only: a step that measured no CPU (host steps) or no residency has no such keys.
  if (s.cpu) {
    const CpuFigures& c = *s.cpu;
    uint64_t worker_ns = c.worker_user_ns + c.worker_sys_ns;
    nlohmann::ordered_json cpu = {
        {"worker_user_sec", static_cast<double>(c.worker_user_ns) / 1e9},
        {"worker_sys_sec", static_cast<double>(c.worker_sys_ns) / 1e9},
        {"process_user_sec", static_cast<double>(c.process_user_ns) / 1e9},
        {"process_sys_sec", static_cast<double>(c.process_sys_ns) / 1e9},
        {"cpu_ns_per_io", s.ops ? static_cast<double>(worker_ns) / static_cast<double>(s.ops) : 0.0},
    };
    if (c.host_measured()) cpu["host_busy_pct"] = c.host_busy_pct();
    cpu["busiest_worker_pct"] = c.max_worker_busy_permille / 10.0;
    j["cpu"] = cpu;
    j["client_cpu_bound"] = s.cpu_bound;
  }
  if (s.cache) {
    j["cache_resident"] = s.cache->resident();
    j["cache_resident_pct"] = s.cache->pct();
  }
  if (!s.notes.empty()) j["notes"] = s.notes;
  auto fill = [](const v1::FileSystemFill& f) {
    return nlohmann::ordered_json{{"use_pct", f.use_pct()},         {"used_bytes", f.used_bytes()},
                                  {"available_bytes", f.available_bytes()}, {"size_bytes", f.size_bytes()},
                                  {"inodes_used", f.inodes_used()}, {"inodes", f.inodes()}};
  };
  if (s.fill_at_start) j["fill_at_start"] = fill(*s.fill_at_start);
  if (s.fill_at_end) j["fill_at_end"] = fill(*s.fill_at_end);
  return j;
}

// Where an agent ran: only the facts it could read.
nlohmann::ordered_json HostJson(const v1::HostInfo& h) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  auto text = [&](const char* key, const std::string& value) {
    if (!value.empty()) j[key] = value;
  };
  text("hostname", h.hostname());
  text("kernel", h.kernel());
  if (h.cpus()) j["cpus"] = h.cpus();
  if (h.memory_bytes()) j["memory_bytes"] = h.memory_bytes();
  text("mount_point", h.mount_point());
  text("fs_type", h.fs_type());
  text("mount_options", h.mount_options());
  text("device", h.device());
  text("block_device", h.block_device());
  text("scheduler", h.scheduler());
  if (h.has_read_ahead_kb()) j["read_ahead_kb"] = h.read_ahead_kb();
  text("memory_backed", h.memory_backed());
  return j;
}

double Gbps(const StepStats& s) { return s.bytes_per_sec() * 8 / 1e9; }
double GibPerSec(const StepStats& s) { return s.bytes_per_sec() / static_cast<double>(1ull << 30); }

// A copy counts files, and gives the seed's own units side by side, as its script prints them:
// Gbps (10^9 bit/s) and GiB/s (2^30 bytes/s). (A files step's rates are per phase: its sums mix
// mkdirs, creates, stats, ...)
void EntryFigures(const std::string& kind, const StepStats& s, nlohmann::ordered_json& j) {
  if (kind != "copy") return;
  j["files"] = s.ops;
  j["dirs"] = s.dirs;
  j["files_per_sec"] = s.iops();
  j["gbps"] = Gbps(s);
  j["gib_per_sec"] = GibPerSec(s);
  if (!s.copy_method.empty()) j["copy_method"] = s.copy_method;
}

}  // namespace

std::string ReportJson(const RunReport& report) {
  nlohmann::ordered_json j;
  j["schema"] = "iofleet.report/v1";
  j["run_id"] = report.run_id;
  j["workload"] = report.workload;
  j["status"] = report.status;
  if (!report.error.empty()) j["error"] = report.error;
  if (report.started_at_unix_ns) {
    j["started_at_unix_ns"] = report.started_at_unix_ns;
    j["duration_ns"] = report.duration_ns;
  }
  j["labels"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : report.labels) j["labels"][key] = value;
  if (!report.notes.empty()) {
    j["notes"] = nlohmann::ordered_json::object();
    for (const auto& [key, value] : report.notes) j["notes"][key] = value;
  }
  j["agents"] = nlohmann::ordered_json::array();
  for (const auto& a : report.agents) {
    nlohmann::ordered_json agent = {{"name", a.name}, {"address", a.address}, {"version", a.version}};
    if (a.host) agent["host"] = HostJson(*a.host);
    j["agents"].push_back(agent);
  }
  j["steps"] = nlohmann::ordered_json::array();
  for (const auto& step : report.steps) {
    nlohmann::ordered_json s;
    s["index"] = step.index;
    s["name"] = step.name;
    s["kind"] = step.kind;
    s["point"] = step.point;
    s["params"] = nlohmann::ordered_json::object();
    for (const auto& [path, value] : step.params) s["params"][path] = ParamValue(value);
    s["cycle"] = step.cycle;
    if (step.group_cycle >= 0) {  // a group's step (DESIGN.md section 3): which group, which of its repeats
      s["group"] = step.group;
      s["group_cycle"] = step.group_cycle;
    }
    s["status"] = step.status;
    s["aggregate"] = StatsJson(step.aggregate);
    if (step.aggregate.latency->count()) s["aggregate"]["latency_curve_ns"] = LatencyCurve(*step.aggregate.latency);
    EntryFigures(step.kind, step.aggregate, s["aggregate"]);
    if (!step.phases.empty()) {
      s["phases"] = nlohmann::ordered_json::array();
      for (const auto& phase : step.phases) {
        nlohmann::ordered_json p = {{"op", phase.op}};
        p.update(StatsJson(phase.aggregate));
        p["files_per_sec"] = phase.aggregate.iops();
        if (phase.start_skew_ns >= 0) p["start_skew_ns"] = phase.start_skew_ns;
        p["agents"] = nlohmann::ordered_json::array();
        for (const auto& a : phase.agents) {
          nlohmann::ordered_json row = {{"agent", a.agent}};
          row.update(StatsJson(a.stats));
          row["files_per_sec"] = a.stats.iops();
          p["agents"].push_back(row);
        }
        s["phases"].push_back(p);
      }
    }
    if (step.start_skew_ns >= 0) s["start_skew_ns"] = step.start_skew_ns;
    if (step.started_at_unix_ns) s["started_at_unix_ns"] = step.started_at_unix_ns;
    if (!step.slowest_agent.empty()) {
      s["slowest_agent"] = step.slowest_agent;
      s["slowest_trails_median_pct"] = step.slowest_trails_median_pct;
    }
    if (step.kind == "io" || step.kind == "copy") {  // the steps that move bytes over a timeline
      if (auto first = FirstDone(step)) s["first_done"] = DoneJson(*first, true);
      if (auto last = LastDone(step)) s["last_done"] = DoneJson(*last, false);
    }
    s["stonewalled"] = step.stonewalled;
    s["agents"] = nlohmann::ordered_json::array();
    for (const auto& a : step.agents) {
      nlohmann::ordered_json row = {{"agent", a.agent}};
      row.update(StatsJson(a.stats));
      EntryFigures(step.kind, a.stats, row);
      row["start_offset_ns"] = a.start_offset_ns;
      s["agents"].push_back(row);
    }
    j["steps"].push_back(s);
  }
  // Across the cycles of each step at each point (repeat): the spread of the aggregate figures.
  // A group's step is summarized over its group cycles, one summary per point and cycle: a
  // group's repeats are the cycles of its steps.
  struct Key {
    int point, index, cycle;  // cycle: -1 for a top-level step (its cycles are what is summarized)
    auto operator<=>(const Key&) const = default;
  };
  std::map<Key, std::vector<const StepReport*>> groups;
  // A group that runs once per cycle (repeat 1) has no group cycles to summarize: its steps are
  // summarized over the repeat cycles, as top-level steps are.
  std::map<std::pair<int, int>, int> last_group_cycle;
  for (const auto& step : report.steps) {
    int& last = last_group_cycle[{step.point, step.index}];
    last = std::max(last, step.group_cycle);
  }
  bool several = false;
  for (const auto& step : report.steps) {
    if (step.status != "succeeded") continue;
    const bool in_group = last_group_cycle[{step.point, step.index}] > 0;
    groups[{step.point, step.index, in_group ? step.cycle : -1}].push_back(&step);
    several = several || step.cycle > 0 || step.group_cycle > 0;
  }
  if (several) {
    j["summaries"] = nlohmann::ordered_json::array();
    for (const auto& entry : groups) {
      const Key& key = entry.first;
      const std::vector<const StepReport*>& steps = entry.second;  // not a binding: lambdas capture it (clang 14)
      if (steps.size() < 2) continue;  // a step run once per point (once: true) has no spread
      const bool in_group = key.cycle >= 0;
      auto summary_of = [&](auto figure, bool rate) { return Summary(steps, figure, rate, in_group); };
      nlohmann::ordered_json summary;
      summary["index"] = key.index;
      summary["name"] = steps.front()->name;
      summary["point"] = key.point;
      summary["params"] = nlohmann::ordered_json::object();
      for (const auto& [path, value] : steps.front()->params) summary["params"][path] = ParamValue(value);
      if (in_group) {
        summary["group"] = steps.front()->group;
        summary["cycle"] = key.cycle;
      }
      summary["bytes_per_sec"] = summary_of([](const StepStats& a) { return a.bytes_per_sec(); }, true);
      summary["iops"] = summary_of([](const StepStats& a) { return a.iops(); }, true);
      summary["seconds"] = summary_of([](const StepStats& a) { return a.seconds(); }, false);
      if (steps.front()->kind == "copy") {
        summary["gbps"] = summary_of(Gbps, true);
        summary["gib_per_sec"] = summary_of(GibPerSec, true);
        summary["files_per_sec"] = summary_of([](const StepStats& a) { return a.iops(); }, true);
      }
      j["summaries"].push_back(summary);
    }
  }
  return j.dump(2) + "\n";
}

}  // namespace iofleet::controller
