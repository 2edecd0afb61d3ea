#include "controller/report/report_proto.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "controller/report/cycle_summary.h"
#include "controller/report/first_done.h"
#include "controller/report/limit_verdict.h"

namespace iofleet::controller {

static void SetSearch(const SearchReport& search, v1::ReportSearch& out) {
  out.set_percentile(search.percentile);
  out.set_max_latency_ns(search.max_latency_ns);
  out.set_vary(search.vary);
  out.set_unit(search.unit);
  out.set_settle_ns(search.settle_ns);
  out.set_probe_ns(search.probe_ns);
  for (const SearchProbe& p : search.probes) {
    v1::ReportProbe& probe = *out.add_probes();
    if (p.rate_asked) probe.set_rate_asked(*p.rate_asked);
    probe.set_rate_achieved(p.rate_achieved);
    probe.set_latency_ns(p.latency_ns);
    probe.set_passed(p.passed);
    probe.set_confirm(p.confirm);
    probe.set_window_ns(p.window_ns);
    probe.set_ops(p.ops);
    if (p.queue_depth) probe.set_queue_depth(*p.queue_depth);
  }
  if (search.found_rate) out.set_found_rate(*search.found_rate);
  if (search.found_queue_depth) out.set_found_queue_depth(*search.found_queue_depth);
  if (!search.stream.empty()) out.set_stream(search.stream);
  if (search.met) {
    if (search.failed_above) out.set_failed_above(*search.failed_above);
    out.set_converged(search.converged);
  }
  out.set_met(search.met);
}
namespace {

void SetLatency(const SparseHistogram& h, v1::ReportLatency& out) {
  out.set_mean(h.Mean());
  out.set_p50(h.Quantile(0.50));
  out.set_p90(h.Quantile(0.90));
  out.set_p99(h.Quantile(0.99));
  out.set_p999(h.Quantile(0.999));
  out.set_p9999(h.Quantile(0.9999));
  out.set_max(h.max());
}

// The step's latency distribution at these percentiles, as [percentile, ns] points from the exact
// merged histogram: enough to draw its percentile curve (report.html), small enough to store.
void SetLatencyCurve(const SparseHistogram& h, v1::ReportAggregate& out) {
  static constexpr double kPercentiles[] = {50, 75, 90, 95, 99, 99.5, 99.9, 99.99};
  for (double p : kPercentiles) {
    v1::ReportCurvePoint* point = out.add_latency_curve_ns();
    point->set_percentile(p);
    point->set_ns(h.Quantile(p / 100));
  }
  v1::ReportCurvePoint* last = out.add_latency_curve_ns();
  last->set_percentile(100);
  last->set_ns(h.max());
}

void SetCurve(const CurveReport& c, v1::ReportLoadCurve& out) {
  out.set_unit(c.unit);
  out.set_max_rate(c.max_rate);
  out.set_probe_ns(c.probe_ns);
  out.set_settle_ns(c.settle_ns);
  for (const CurvePoint& p : c.points) {
    v1::ReportLoadPoint& point = *out.add_points();
    if (p.level_pct) point.set_level_pct(*p.level_pct);
    if (p.rate_asked) point.set_rate_asked(*p.rate_asked);
    point.set_rate_achieved(p.rate_achieved);
    point.set_window_ns(p.window_ns);
    point.set_ops(p.ops);
    SetLatency(*p.latency, *point.mutable_latency_ns());
  }
}

void SetSteady(const SteadyReport& s, v1::ReportSteady& out) {
  out.set_metric(s.metric);
  out.set_criterion(s.criterion);
  out.set_tolerance_pct(s.tolerance_pct);
  out.set_window_ns(s.window_ns);
  out.set_interval_ns(s.interval_ns);
  out.set_reached(s.reached);
  if (s.steady_from_ns) out.set_steady_from_ns(*s.steady_from_ns);
  if (std::isfinite(s.change_pct)) out.set_change_pct(s.change_pct);
  for (double v : s.samples) out.add_samples(v);
}

void SetOp(const OpFigures& op, double seconds, bool rate_limited, v1::ReportOp& out) {
  out.set_ops(op.ops);
  out.set_bytes(op.bytes);
  out.set_iops(seconds > 0 ? static_cast<double>(op.ops) / seconds : 0.0);
  out.set_bytes_per_sec(seconds > 0 ? static_cast<double>(op.bytes) / seconds : 0.0);
  SetLatency(*op.latency, *out.mutable_latency_ns());
  if (rate_limited) SetLatency(*op.scheduled, *out.mutable_latency_from_schedule_ns());
}

void SetFill(const v1::FileSystemFill& f, v1::ReportFill& out) {
  out.set_use_pct(f.use_pct());
  out.set_used_bytes(f.used_bytes());
  out.set_available_bytes(f.available_bytes());
  out.set_size_bytes(f.size_bytes());
  out.set_inodes_used(f.inodes_used());
  out.set_inodes(f.inodes());
}

void SetCpu(const StepStats& s, v1::ReportFigures& out) {
  const CpuFigures& c = *s.cpu;
  const uint64_t worker_ns = c.worker_user_ns + c.worker_sys_ns;
  v1::ReportCpu& cpu = *out.mutable_cpu();
  cpu.set_worker_user_sec(static_cast<double>(c.worker_user_ns) / 1e9);
  cpu.set_worker_sys_sec(static_cast<double>(c.worker_sys_ns) / 1e9);
  cpu.set_process_user_sec(static_cast<double>(c.process_user_ns) / 1e9);
  cpu.set_process_sys_sec(static_cast<double>(c.process_sys_ns) / 1e9);
  cpu.set_cpu_ns_per_io(s.ops ? static_cast<double>(worker_ns) / static_cast<double>(s.ops) : 0.0);
  if (c.host_measured()) cpu.set_host_busy_pct(c.host_busy_pct());
  cpu.set_busiest_worker_pct(c.max_worker_busy_permille / 10.0);
  out.set_client_cpu_bound(s.cpu_bound);
}

void SetFigures(const StepStats& s, v1::ReportFigures& out) {
  out.set_ops(s.ops);
  out.set_bytes(s.bytes);
  out.set_seconds(s.seconds());
  out.set_iops(s.iops());
  out.set_bytes_per_sec(s.bytes_per_sec());
  SetLatency(*s.latency, *out.mutable_latency_ns());
  if (s.rate_limited) {
    SparseHistogram scheduled(*s.read.scheduled);
    scheduled.Add(*s.write.scheduled);
    SetLatency(scheduled, *out.mutable_latency_from_schedule_ns());
  }
  if (s.read.ops) SetOp(s.read, s.seconds(), s.rate_limited, *out.mutable_read());
  if (s.write.ops) SetOp(s.write, s.seconds(), s.rate_limited, *out.mutable_write());
  out.set_passes(s.passes);
  out.set_filled_bytes(s.filled_bytes);
  out.set_fsyncs(s.fsyncs);
  if (s.fsyncs) SetLatency(*s.fsync_latency, *out.mutable_fsync_latency_ns());
  for (const auto& [kind, n] : s.errors) {
    v1::ReportCount* e = out.add_errors();
    e->set_key(kind);
    e->set_value(n);
  }
  // Measurements only: a step that measured no CPU (host steps) or no residency has no such keys.
  if (s.cpu) SetCpu(s, out);
  if (s.cache) {
    out.set_cache_resident(s.cache->resident());
    out.set_cache_resident_pct(s.cache->pct());
  }
  for (const std::string& note : s.notes) out.add_notes(note);
  if (s.fill_at_start) SetFill(*s.fill_at_start, *out.mutable_fill_at_start());
  if (s.fill_at_end) SetFill(*s.fill_at_end, *out.mutable_fill_at_end());
}

void SetHost(const v1::HostInfo& h, v1::ReportHost& out) {
  auto text = [](const std::string& value, auto set) {
    if (!value.empty()) set(value);
  };
  text(h.hostname(), [&](const std::string& v) { out.set_hostname(v); });
  text(h.kernel(), [&](const std::string& v) { out.set_kernel(v); });
  if (h.cpus()) out.set_cpus(h.cpus());
  if (h.memory_bytes()) out.set_memory_bytes(h.memory_bytes());
  text(h.mount_point(), [&](const std::string& v) { out.set_mount_point(v); });
  text(h.fs_type(), [&](const std::string& v) { out.set_fs_type(v); });
  text(h.mount_options(), [&](const std::string& v) { out.set_mount_options(v); });
  text(h.device(), [&](const std::string& v) { out.set_device(v); });
  text(h.block_device(), [&](const std::string& v) { out.set_block_device(v); });
  text(h.scheduler(), [&](const std::string& v) { out.set_scheduler(v); });
  if (h.has_read_ahead_kb()) out.set_read_ahead_kb(h.read_ahead_kb());
  text(h.memory_backed(), [&](const std::string& v) { out.set_memory_backed(v); });
}

double Gbps(const StepStats& s) { return s.bytes_per_sec() * 8 / 1e9; }
double GibPerSec(const StepStats& s) { return s.bytes_per_sec() / static_cast<double>(1ull << 30); }

// A copy counts files, and gives the seed's own units side by side, as its script prints them:
// Gbps (10^9 bit/s) and GiB/s (2^30 bytes/s). (A files step's rates are per phase: its sums mix
// mkdirs, creates, stats, ...)
void SetCopyFigures(const std::string& kind, const StepStats& s, v1::ReportCopyFigures* out) {
  if (kind != "copy") return;
  out->set_files(s.ops);
  out->set_dirs(s.dirs);
  out->set_files_per_sec(s.iops());
  out->set_gbps(Gbps(s));
  out->set_gib_per_sec(GibPerSec(s));
  if (!s.copy_method.empty()) out->set_copy_method(s.copy_method);
}

// A swept value: a number when it is digits only (and fits), else the text as written ("64KiB").
void AddParams(const std::vector<std::pair<std::string, std::string>>& params,
               google::protobuf::RepeatedPtrField<v1::ReportParam>& out) {
  for (const auto& [path, text] : params) {
    v1::ReportParam* p = out.Add();
    p->set_key(path);
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() < 19) {
      p->set_number(std::stoull(text));
    } else {
      p->set_text(text);
    }
  }
}

void SetDone(const DoneFigure& f, bool with_method, v1::ReportDone& out) {
  out.set_seconds(f.seconds);
  out.set_bytes_per_sec(f.bytes_per_sec);
  if (with_method) {
    out.set_bytes(f.bytes);
    out.set_method(f.method);
  }
}

void SetPhase(const PhaseReport& phase, v1::ReportPhase& out) {
  out.set_op(phase.op);
  SetFigures(phase.aggregate, *out.mutable_figures());
  out.set_files_per_sec(phase.aggregate.iops());
  if (phase.start_skew_ns >= 0) out.set_start_skew_ns(phase.start_skew_ns);
  for (const AgentStep& a : phase.agents) {
    v1::ReportPhaseAgent* row = out.add_agents();
    row->set_agent(a.agent);
    SetFigures(a.stats, *row->mutable_figures());
    row->set_files_per_sec(a.stats.iops());
  }
}

void SetStep(const StepReport& step, v1::ReportStep& s) {
  s.set_index(static_cast<uint32_t>(step.index));
  s.set_name(step.name);
  s.set_kind(step.kind);
  s.set_point(static_cast<uint32_t>(step.point));
  AddParams(step.params, *s.mutable_params());
  s.set_cycle(static_cast<uint32_t>(step.cycle));
  if (step.group_cycle >= 0) {  // a group's step (DESIGN.md section 3): which group, which of its repeats
    s.set_group(step.group);
    s.set_group_cycle(step.group_cycle);
  }
  s.set_status(step.status);
  v1::ReportAggregate& aggregate = *s.mutable_aggregate();
  SetFigures(step.aggregate, *aggregate.mutable_figures());
  if (step.aggregate.latency->count()) SetLatencyCurve(*step.aggregate.latency, aggregate);
  if (step.kind == "copy") SetCopyFigures(step.kind, step.aggregate, aggregate.mutable_copy());
  for (const PhaseReport& phase : step.phases) SetPhase(phase, *s.add_phases());
  if (step.start_skew_ns >= 0) s.set_start_skew_ns(step.start_skew_ns);
  if (step.started_at_unix_ns) s.set_started_at_unix_ns(step.started_at_unix_ns);
  if (step.start_lead_ns) s.set_start_lead_ns(step.start_lead_ns);
  if (!step.slowest_agent.empty()) {
    s.set_slowest_agent(step.slowest_agent);
    s.set_slowest_trails_median_pct(step.slowest_trails_median_pct);
  }
  if (step.kind == "io" || step.kind == "copy") {  // the steps that move bytes over a timeline
    if (auto first = FirstDone(step)) SetDone(*first, true, *s.mutable_first_done());
    if (auto last = LastDone(step)) SetDone(*last, false, *s.mutable_last_done());
  }
  s.set_stonewalled(step.stonewalled);
  for (const AgentStep& a : step.agents) {
    v1::ReportAgentFigures* row = s.add_agents();
    row->set_agent(a.agent);
    SetFigures(a.stats, *row->mutable_figures());
    if (step.kind == "copy") SetCopyFigures(step.kind, a.stats, row->mutable_copy());
    row->set_start_offset_ns(a.start_offset_ns);
    if (a.ended_others) row->set_ended_others(true);
    if (a.start_lateness_ns) {
      row->set_start_lateness_ns(*a.start_lateness_ns);
      if (!s.has_max_start_lateness_ns() || *a.start_lateness_ns > s.max_start_lateness_ns()) s.set_max_start_lateness_ns(*a.start_lateness_ns);
    }
    if (a.stats.resources) {
      *row->mutable_resources() = ResourceFigures(*a.stats.resources, a.stats);
      *row->mutable_limit() = JudgeLimit(*a.stats.resources, a.stats);
    }
  }
  if (auto limit = StepLimit(step)) *s.mutable_limit() = std::move(*limit);
  if (step.search) SetSearch(*step.search, *s.mutable_search());
  if (step.curve) SetCurve(*step.curve, *s.mutable_curve());
  if (step.steady) SetSteady(*step.steady, *s.mutable_steady());
  if (step.controller_stall_ns) s.set_controller_stall_ns(step.controller_stall_ns);
  for (const StreamReport& stream : step.streams) {
    v1::ReportStream& out = *s.add_streams();
    out.set_name(stream.name);
    SetFigures(stream.aggregate, *out.mutable_aggregate()->mutable_figures());
    if (stream.aggregate.latency->count()) SetLatencyCurve(*stream.aggregate.latency, *out.mutable_aggregate());
    for (const AgentStep& a : stream.agents) {
      v1::ReportAgentFigures* row = out.add_agents();
      row->set_agent(a.agent);
      SetFigures(a.stats, *row->mutable_figures());
      row->set_start_offset_ns(a.start_offset_ns);
      if (a.ended_others) row->set_ended_others(true);
      if (a.stats.resources) *row->mutable_limit() = JudgeLimit(*a.stats.resources, a.stats, SharedInFlight(step, a.agent));
    }
    if (auto limit = LimitAt(step, stream.agents)) *out.mutable_limit() = std::move(*limit);
  }
}

void SetCycleStats(const CycleSummary& c, v1::ReportCycleStats& out) {
  out.set_mean(c.mean);
  out.set_stddev(c.stddev);
  out.set_min(c.min);
  out.set_max(c.max);
  out.set_ci95_low(c.ci95_low);
  out.set_ci95_high(c.ci95_high);
  out.set_cycles(c.cycles);
  if (c.gmean) {
    out.set_gmean(*c.gmean);
    out.set_gmean_ci95_low(*c.gmean_ci95_low);
    out.set_gmean_ci95_high(*c.gmean_ci95_high);
  }
  if (c.outlier_cycles) {
    v1::ReportInts& outliers = *out.mutable_outlier_cycles();
    for (int cycle : *c.outlier_cycles) outliers.add_values(cycle);
  }
}

// `figure` of each cycle's aggregate, summarized; `rate` adds the geometric mean. The cycles
// are group cycles for a group's steps (`group_cycles`), else repeat cycles.
template <typename Figure>
void Summarize(const std::vector<const StepReport*>& steps, Figure figure, bool rate, bool group_cycles,
               v1::ReportCycleStats& out) {
  std::vector<double> values;
  std::vector<int> cycles;
  for (const StepReport* s : steps) {
    values.push_back(figure(s->aggregate));
    cycles.push_back(group_cycles ? s->group_cycle : s->cycle);
  }
  SetCycleStats(SummarizeCycles(values, cycles, rate), out);
}

// Across the cycles of each step at each point (repeat): the spread of the aggregate figures.
// A group's step is summarized over its group cycles, one summary per point and cycle: a
// group's repeats are the cycles of its steps.
void SetSummaries(const RunReport& report, v1::Report& out) {
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
    if (step.status != v1::STEP_STATUS_SUCCEEDED) continue;
    const bool in_group = last_group_cycle[{step.point, step.index}] > 0;
    groups[{step.point, step.index, in_group ? step.cycle : -1}].push_back(&step);
    several = several || step.cycle > 0 || step.group_cycle > 0;
  }
  if (!several) return;
  v1::ReportSummaries& summaries = *out.mutable_summaries();
  for (const auto& entry : groups) {
    const Key& key = entry.first;
    const std::vector<const StepReport*>& steps = entry.second;  // not a binding: lambdas capture it (clang 14)
    if (steps.size() < 2) continue;  // a step run once per point (once: true) has no spread
    const bool in_group = key.cycle >= 0;
    auto summarize = [&](auto figure, bool rate, v1::ReportCycleStats* into) { Summarize(steps, figure, rate, in_group, *into); };
    v1::ReportSummary& summary = *summaries.add_values();
    summary.set_index(static_cast<uint32_t>(key.index));
    summary.set_name(steps.front()->name);
    summary.set_point(static_cast<uint32_t>(key.point));
    AddParams(steps.front()->params, *summary.mutable_params());
    if (in_group) {
      summary.set_group(steps.front()->group);
      summary.set_cycle(key.cycle);
    }
    summarize([](const StepStats& a) { return a.bytes_per_sec(); }, true, summary.mutable_bytes_per_sec());
    summarize([](const StepStats& a) { return a.iops(); }, true, summary.mutable_iops());
    summarize([](const StepStats& a) { return a.seconds(); }, false, summary.mutable_seconds());
    if (steps.front()->kind == "copy") {
      summarize(Gbps, true, summary.mutable_gbps());
      summarize(GibPerSec, true, summary.mutable_gib_per_sec());
      summarize([](const StepStats& a) { return a.iops(); }, true, summary.mutable_files_per_sec());
    }
  }
}

}  // namespace

v1::Report ToReportProto(const RunReport& report) {
  v1::Report out;
  out.set_schema("iofleet.report/v1");
  out.set_run_id(report.run_id);
  out.set_workload(report.workload);
  if (!report.description.empty()) out.set_description(report.description);
  out.set_status(report.status);
  if (!report.error.empty()) out.set_error(report.error);
  if (report.started_at_unix_ns) {
    out.set_started_at_unix_ns(report.started_at_unix_ns);
    out.set_duration_ns(report.duration_ns);
  }
  for (const auto& [key, value] : report.labels) {
    v1::ReportLabel* label = out.add_labels();
    label->set_key(key);
    label->set_value(value);
  }
  for (const auto& [key, value] : report.notes) {
    v1::ReportLabel* note = out.add_notes();
    note->set_key(key);
    note->set_value(value);
  }
  for (const AgentInfo& a : report.agents) {
    v1::ReportAgent* agent = out.add_agents();
    agent->set_name(a.name);
    agent->set_address(a.address);
    agent->set_version(a.version);
    if (a.host) SetHost(*a.host, *agent->mutable_host());
  }
  for (const StepReport& step : report.steps) SetStep(step, *out.add_steps());
  SetSummaries(report, out);
  return out;
}

}  // namespace iofleet::controller
