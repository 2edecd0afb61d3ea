#include "controller/report/report_tables.h"

#include <fmt/format.h>

#include <map>

#include "controller/report/agent_rows.h"
#include "controller/report/headline_table.h"
#include "controller/report/limit_verdict.h"
#include "controller/report/report_writers.h"
#include "controller/report/slowest_agent.h"
#include "controller/report/report_units.h"
#include "core/wire/proto_json.h"

namespace iofleet::controller {
namespace {

std::string Bytes(uint64_t n) {
  if (n >= (1ull << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(n) / (1ull << 30));
  if (n >= (1ull << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1ull << 20));
  return fmt::format("{} B", n);
}

std::string Params(const v1::ReportStep& step) {
  std::string out;
  for (const v1::ReportParam& param : step.params()) {
    out += (out.empty() ? "" : " ") + param.key() + "=" + ParamText(param);
  }
  return out;
}

}  // namespace

std::string FormatFigure(double value, const std::string& unit) {
  if (unit == "bytes_per_sec") return fmt::format("{:.1f} MiB/s", value / kMiB);
  if (unit == "ns") return FormatLatency(value);
  // A latency (p99) is below a second; a copy or a hook takes seconds.
  if (unit == "seconds") return value < 1.0 ? FormatLatency(value * 1e9) : fmt::format("{:.3f} s", value);
  if (unit == "iops" || unit == "ops_per_sec") return fmt::format("{:.0f} IOPS", value);
  if (unit == "files_per_sec") return fmt::format("{:.0f} files/s", value);
  return fmt::format("{:.6g}", value);
}

Table AgentsTable(const ReportDocument& doc) {
  Table t{"Agents", {"agent", "address", "version", "host", "kernel", "cpus", "memory", "file system", "device", "scheduler"}, {}, {}};
  for (const v1::ReportAgent& a : doc.agents()) {
    if (t.rows.size() == kAgentRowsShown) {
      t.notes.push_back(fmt::format("and {} more agents: every agent is in report.json", doc.agents_size() - static_cast<int>(kAgentRowsShown)));
      break;
    }
    const v1::ReportHost& host = a.host();
    std::string fs = host.fs_type();
    if (!host.mount_point().empty()) fs += (fs.empty() ? "" : " on ") + host.mount_point();
    if (!host.mount_options().empty()) fs += " (" + host.mount_options() + ")";
    std::string device = host.device();
    if (!host.block_device().empty()) device += (device.empty() ? "" : " ") + std::string("[") + host.block_device() + "]";
    std::string scheduler = host.scheduler();
    if (host.has_read_ahead_kb()) scheduler += fmt::format("{}read-ahead {} KiB", scheduler.empty() ? "" : ", ", host.read_ahead_kb());
    t.rows.push_back({a.name(), a.address(), a.version(), host.hostname(), host.kernel(),
                      host.has_cpus() ? std::to_string(host.cpus()) : "",
                      host.has_memory_bytes() ? Bytes(host.memory_bytes()) : "", fs, device, scheduler});
  }
  return t;
}

Table LimitsTable(const ReportDocument& doc) {
  Table t{"What held each agent back",
          {"step", "point", "cycle", "agent", "limit", "device", "util", "avg queue", "in flight", "device latency", "busiest core", "evidence"},
          {},
          {}};
  for (const v1::ReportStep& step : doc.steps()) {
    // Past kAgentRowsShown agents, the agents the step's table shows (its slowest), and how many
    // agents had each verdict.
    std::vector<const v1::ReportAgentFigures*> shown;
    for (const ShownAgentRow& r : AgentRowsShown(step.agents(), RanksByTime(step.kind()))) {
      if (r.agent) shown.push_back(r.agent);
    }
    if (step.agents_size() == 1) shown.push_back(&step.agents(0));
    if (static_cast<size_t>(step.agents_size()) > kAgentRowsShown) {
      std::map<std::string, int> verdicts;
      for (const v1::ReportAgentFigures& a : step.agents()) {
        if (a.has_limit()) ++verdicts[a.limit().verdict()];
      }
      std::string counts;
      for (const auto& [verdict, n] : verdicts) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", verdict, n);
      if (!counts.empty()) {
        t.notes.push_back(fmt::format("{} (point {}, cycle {}): {} agents, by verdict: {}; rows for the {} slowest (every agent's in report.json)",
                                      step.name(), step.point(), step.cycle(), step.agents_size(), counts, kSlowestShown));
      }
    }
    for (const v1::ReportAgentFigures* shown_agent : shown) {
      const v1::ReportAgentFigures& a = *shown_agent;
      if (!a.has_limit()) continue;
      const v1::ReportResources& r = a.resources();
      const v1::ReportDevice* busiest = BusiestDevice(r);
      std::string evidence;
      for (const std::string& e : a.limit().evidence()) evidence += (evidence.empty() ? "" : "; ") + e;
      t.rows.push_back({step.name(), std::to_string(step.point()), std::to_string(step.cycle()), a.agent(), a.limit().verdict(),
                        busiest ? busiest->name() + " (" + busiest->role() + ")" : "",
                        busiest ? fmt::format("{:.1f}%", busiest->util_pct()) : "",
                        busiest ? fmt::format("{:.1f}", busiest->avg_queue()) : "", std::to_string(r.in_flight()),
                        busiest && busiest->has_avg_latency_ns() ? FormatFigure(busiest->avg_latency_ns(), "ns") : "",
                        r.has_max_core_busy_pct() ? fmt::format("{} {:.1f}%", r.max_core(), r.max_core_busy_pct()) : "", evidence});
    }
  }
  return t;
}

Table SearchTable(const ReportDocument& doc) {
  Table t{"Latency search", {"step", "point", "cycle", "window", "asked", "achieved", "latency", "target", "result"}, {}, {}};
  for (const v1::ReportStep& step : doc.steps()) {
    if (!step.has_search()) continue;
    const v1::ReportSearch& s = step.search();
    const bool bw = s.unit() == "bytes_per_sec";
    const auto rate = [&](double r) { return bw ? fmt::format("{:.1f} MiB/s", r / kMiB) : fmt::format("{:.0f} IOPS", r); };
    const std::string target = fmt::format("p{:g} <= {}", s.percentile(), FormatFigure(static_cast<double>(s.max_latency_ns()), "ns"));
    for (int i = 0; i < s.probes_size(); ++i) {
      const v1::ReportProbe& p = s.probes(i);
      t.rows.push_back({step.name(), std::to_string(step.point()), std::to_string(step.cycle()), std::to_string(i + 1),
                        p.has_queue_depth() ? "QD " + std::to_string(p.queue_depth())
                        : p.has_rate_asked() ? rate(p.rate_asked())
                                             : "full speed",
                        rate(p.rate_achieved()),
                        FormatFigure(static_cast<double>(p.latency_ns()), "ns"), target,
                        std::string(p.passed() ? "pass" : "fail") + (p.confirm() ? " (confirms)" : "")});
    }
    const bool depth = s.vary() == "queue_depth";
    const std::string of = s.has_stream() ? " of stream " + s.stream() : "";
    const std::string found = s.has_found_queue_depth() ? "QD " + std::to_string(s.found_queue_depth()) + " per job" + of + " (" + rate(s.found_rate()) + ")"
                              : s.met()                 ? rate(s.found_rate())
                                                        : "";
    t.notes.push_back(step.name() + ": " + (s.met() ? "found " + found + " meeting " + target : std::string("no ") + (depth ? "queue depth" : "rate") + " met " + target));
    if (s.met() && s.has_converged() && !s.converged()) {
      t.notes.push_back(step.name() + ": the windows ran out before the search converged: the limit lies between " + found + " and " +
                        (depth ? "QD " + std::to_string(static_cast<uint32_t>(s.failed_above())) : rate(s.failed_above())) + ", which failed");
    }
  }
  return t;
}

Table CurveTable(const ReportDocument& doc) {
  Table t{"Load curve", {"step", "point", "cycle", "level", "rate asked", "achieved", "p50", "p99", "p99.9", "max"}, {}, {}};
  for (const v1::ReportStep& step : doc.steps()) {
    if (!step.has_curve()) continue;
    const bool bw = step.curve().unit() == "bytes_per_sec";
    const auto rate = [&](double r) { return bw ? fmt::format("{:.1f} MiB/s", r / kMiB) : fmt::format("{:.0f} IOPS", r); };
    for (const v1::ReportLoadPoint& p : step.curve().points()) {
      const v1::ReportLatency& l = p.latency_ns();
      t.rows.push_back({step.name(), std::to_string(step.point()), std::to_string(step.cycle()),
                        p.has_level_pct() ? std::to_string(p.level_pct()) + "%" : "max", p.has_rate_asked() ? rate(p.rate_asked()) : "full speed",
                        rate(p.rate_achieved()), FormatFigure(static_cast<double>(l.p50()), "ns"), FormatFigure(static_cast<double>(l.p99()), "ns"),
                        FormatFigure(static_cast<double>(l.p999()), "ns"), FormatFigure(static_cast<double>(l.max()), "ns")});
    }
  }
  for (const v1::ReportStep& step : doc.steps()) {  // a steady step says so beside the curves
    if (!step.has_steady()) continue;
    const v1::ReportSteady& s = step.steady();
    t.notes.push_back(step.name() + ": " + (s.reached() ? fmt::format("steady from {:.1f} s on ({} {:.1f}% within {}%); its figures are that window's",
                                                                      static_cast<double>(s.steady_from_ns()) / 1e9, s.criterion(), s.change_pct(),
                                                                      s.tolerance_pct())
                                                        : fmt::format("not steady ({} {:.1f}%, tolerance {}%)", s.criterion(), s.change_pct(),
                                                                      s.tolerance_pct())));
  }
  return t;
}

std::vector<std::string> MemoryBackedWarnings(const ReportDocument& doc) {
  std::vector<std::string> out;
  for (const v1::ReportAgent& a : doc.agents()) {
    const std::string why = a.host().memory_backed();
    if (why.empty()) continue;
    out.push_back("warning: agent " + a.name() + ": its run directory is in memory (" + why +
                  "): the figures show RAM speed, not storage's (O_DIRECT does not change that)");
  }
  return out;
}

Table StepsTable(const ReportDocument& doc) {
  Table t{"Steps", {"step", "point", "cycle", "swept", "agent", "MiB/s", "MB/s", "IOPS or files/s", "mean", "p50", "p99", "max", "status"}, {}, {}};
  t.notes = MemoryBackedWarnings(doc);
  for (const v1::ReportStep& step : doc.steps()) {
    const std::string name = step.name();
    const std::string kind = step.kind();
    const std::string status = StatusText(step.status());
    // Marked only when it trails the others by more than noise (controller/report/slowest_agent.h).
    const std::string slowest = step.slowest_trails_median_pct() > kMarkSlowestAbovePct ? step.slowest_agent() : "";
    const v1::ReportFigures& agg = step.aggregate().figures();
    const auto& agents = step.agents();
    // One row of figures. `seconds` shows only for a step that moves no data, which has no read
    // and write rows (the one kind of figures without a time of their own).
    auto row = [&](const std::string& agent, double seconds, double bps, double iops, const v1::ReportLatency& lat) {
      if (MovesNoData(kind)) {
        t.rows.push_back({name, std::to_string(step.point()), std::to_string(step.cycle()), Params(step), agent, "", "", "",
                          fmt::format("took {:.3f} s", seconds), "", "", "", status});
        return;
      }
      t.rows.push_back({name, std::to_string(step.point()), std::to_string(step.cycle()), Params(step), agent,
                        fmt::format("{:.1f}", bps / kMiB), fmt::format("{:.1f}", bps / kMB), fmt::format("{:.0f}", iops),
                        FormatLatency(lat.mean()), FormatLatency(static_cast<double>(lat.p50())),
                        FormatLatency(static_cast<double>(lat.p99())), FormatLatency(static_cast<double>(lat.max())), status});
    };
    // An aggregate, a phase, or one agent's share of either.
    auto figures_row = [&](const std::string& agent, const v1::ReportFigures& s) {
      row(agent, s.seconds(), s.bytes_per_sec(), s.iops(), s.latency_ns());
    };
    auto op_row = [&](const std::string& agent, const v1::ReportOp& s) { row(agent, 0, s.bytes_per_sec(), s.iops(), s.latency_ns()); };
    auto agent_label = [&](const v1::ReportAgentFigures& a) {
      const std::string n = a.agent();
      if (agents.size() < 2 || n != slowest) return n;
      const double pct = step.slowest_trails_median_pct();
      return RanksByTime(kind) ? fmt::format("{} (slowest, {:.0f}% longer than the median)", n, pct)
                               : fmt::format("{} (slowest, {:.0f}% below the median)", n, pct);
    };
    const std::string where = fmt::format("{} (point {}, cycle {})", name, step.point(), step.cycle());
    // A row per agent; past kAgentRowsShown, the columns' distribution and the slowest agents.
    auto agent_rows = [&](const std::string& prefix, const google::protobuf::RepeatedPtrField<v1::ReportAgentFigures>& rows,
                          const auto& label) {
      for (const ShownAgentRow& r : AgentRowsShown(rows, RanksByTime(kind))) figures_row(prefix + (r.agent ? label(*r.agent) : r.label), r.figures);
      if (static_cast<size_t>(rows.size()) > kAgentRowsShown) t.notes.push_back(where + ": " + prefix + AgentRowsNote(rows.size()));
    };
    if (const auto& phases = step.phases(); !phases.empty() && !MovesNoData(kind)) {
      for (const v1::ReportPhase& phase : phases) {
        figures_row(phase.op() + " (all)", phase.figures());
        if (phase.agents_size() > 1) {
          for (const v1::ReportPhaseAgent& a : phase.agents()) figures_row(phase.op() + " " + a.agent(), a.figures());
        }
      }
    } else {
      figures_row(agents.size() > 1 ? "(all)" : (agents.empty() ? "-" : agents[0].agent()), agg);
      if (agg.has_read() && agg.has_write() && !MovesNoData(kind)) {
        op_row("read", agg.read());
        op_row("write", agg.write());
      }
      agent_rows("", agents, agent_label);
      // Each stream over its own window (so the step's IOPS is not the sum of theirs).
      for (const v1::ReportStream& stream : step.streams()) {
        const v1::ReportFigures& figures = stream.aggregate().figures();
        figures_row("stream " + stream.name(), figures);
        if (figures.has_read() && figures.has_write()) {
          op_row("stream " + stream.name() + " read", figures.read());
          op_row("stream " + stream.name() + " write", figures.write());
        }
        agent_rows("stream " + stream.name() + " ", stream.agents(), [](const v1::ReportAgentFigures& a) { return a.agent(); });
      }
    }
    if (uint64_t filled = agg.filled_bytes()) t.notes.push_back(fmt::format("{}: {} MiB written first (untimed) so the step reads no holes", where, filled >> 20));
    if (step.has_limit()) t.notes.push_back(where + ": limit: " + LimitText(step.limit()));
    for (const v1::ReportStream& stream : step.streams()) {
      if (stream.has_limit()) t.notes.push_back(where + ": limit of stream " + stream.name() + ": " + LimitText(stream.limit()));
    }
    if (agg.client_cpu_bound()) t.notes.push_back(where + ": warning: a client was CPU-bound (over 90%): the figures may show the client's limit, not the storage's");
    if (agg.cache_resident()) {
      t.notes.push_back(fmt::format("{}: warning: {:.0f}% of the data was in the page cache when the step started: reads likely served from memory, not storage",
                                    where, agg.cache_resident_pct()));
    }
    if (const auto warning = PageCacheWarning(step)) t.notes.push_back(where + ": " + *warning);
    for (const v1::ReportCount& error : agg.errors()) {
      t.notes.push_back(fmt::format("{}: errors: {} x {}", where, error.value(), error.key()));
    }
    for (const std::string& note : agg.notes()) t.notes.push_back(where + ": " + note);
  }
  return t;
}

Table VerdictsTable(const ReportDocument& doc) {
  if (!doc.has_verdicts()) return {};
  const v1::ReportVerdicts& v = doc.verdicts();
  Table t{"Verdicts", {"step", "point", "figure", "baseline", "now", "change", "p-value", "baseline runs", "verdict"}, {}, {}};
  std::string basis = "Compared with " + (v.reference().empty() ? std::string("the baseline runs") : v.reference());
  // The run history always writes alpha and max_regression_pct (controller/history/regression.cc).
  basis += fmt::format(", alpha {:g}", v.alpha());
  basis += fmt::format(", a regression is significant and worse than {:g}%", v.max_regression_pct());
  t.notes.push_back(basis + ".");
  std::string differences;
  for (const std::string& d : v.workload_differences().values()) differences += (differences.empty() ? "" : ", ") + d;
  if (v.verdict() == v1::VERDICT_NOT_COMPARABLE) {
    t.notes.push_back("Not comparable: the effective workload differs from that of baseline run " + v.workload_differs_from() + " (" +
                      differences + "), and no earlier run has this one's (--force-compare judges it anyway).");
  } else if (v.workload_changed()) {
    t.notes.push_back("warning: forced (--force-compare): the effective workload differs from that of baseline run " +
                      v.workload_differs_from() + " (" + differences + "): the comparison is not like for like.");
  }
  for (const v1::ReportStepVerdicts& step : v.steps()) {
    for (const v1::ReportFigureVerdict& f : step.figures()) {
      const std::string& unit = f.unit();
      std::string name = f.has_stream() ? "stream " + f.stream() + ": " + f.figure() : f.figure();
      if (f.better() != v1::BETTER_UNSPECIFIED) name += " (" + wire::EnumText(f.better()) + " is better)";
      // `now` and `baseline_runs` are always written; a figure with no history has no baseline.
      t.rows.push_back({step.step(), std::to_string(step.point()), name, f.has_baseline() ? FormatFigure(f.baseline(), unit) : "-",
                        FormatFigure(f.now(), unit), f.has_change_pct() ? fmt::format("{:+.1f}%", f.change_pct()) : "-",
                        f.has_p_value() ? fmt::format("{:.3g}", f.p_value()) : "-", std::to_string(f.baseline_runs()), wire::EnumText(f.verdict())});
    }
  }
  return t;
}

}  // namespace iofleet::controller
