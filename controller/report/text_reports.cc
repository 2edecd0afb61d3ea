// summary.csv and the console summary, rendered from the run's document (report.json parsed).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "controller/report/agent_rows.h"
#include "controller/report/headline_table.h"
#include "controller/report/limit_verdict.h"
#include "controller/report/report_tables.h"
#include "controller/report/report_writers.h"
#include "controller/report/report_units.h"
#include "controller/report/slowest_agent.h"

namespace iofleet::controller {

// A target_latency step's probes, one line each, and what the search found.
static std::string SearchText(const v1::ReportSearch& search) {
  const bool bw = search.unit() == "bytes_per_sec";
  const auto rate = [&](double r) { return bw ? fmt::format("{:.1f} MiB/s", r / kMiB) : fmt::format("{:.0f} IOPS", r); };
  const std::string target = fmt::format("p{:g} <= {}", search.percentile(), FormatLatency(static_cast<double>(search.max_latency_ns())));
  std::string out;
  for (int i = 0; i < search.probes_size(); ++i) {
    const v1::ReportProbe& p = search.probes(i);
    const std::string asked = p.has_queue_depth() ? fmt::format("QD {}", p.queue_depth())
                              : p.has_rate_asked() ? rate(p.rate_asked())
                                                   : std::string("full speed");
    out += fmt::format("{:<14} probe {:>2}: {:<14} achieved {:<14} p{:g} {:>10}  {}{}\n", "", i + 1, asked, rate(p.rate_achieved()),
                       search.percentile(), FormatLatency(static_cast<double>(p.latency_ns())), p.passed() ? "pass" : "fail",
                       p.confirm() ? " (confirms)" : "");
  }
  if (search.met() && search.has_found_queue_depth()) {
    const std::string of = search.has_stream() ? " of stream " + search.stream() : "";
    out += fmt::format("{:<14} found: QD {} per job{} meets {}, achieving {} ({} windows)\n", "", search.found_queue_depth(), of, target,
                       rate(search.found_rate()), search.probes_size());
  } else if (search.met()) {
    out += fmt::format("{:<14} found: {} meets {} ({} windows)\n", "", rate(search.found_rate()), target, search.probes_size());
  } else {
    out += fmt::format("{:<14} found: no {} met {}\n", "", search.vary() == "queue_depth" ? "queue depth" : "rate", target);
  }
  if (search.met() && search.has_converged() && !search.converged()) {
    const bool depth = search.vary() == "queue_depth";
    const std::string above = depth ? fmt::format("QD {:.0f}", search.failed_above()) : rate(search.failed_above());
    out += fmt::format("{:<14} warning: the windows ran out before the search converged: the limit lies between the found {} and "
                       "{}, which failed (more max_probes, or a narrower step)\n",
                       "", depth ? "depth" : "rate", above);
  }
  return out;
}

// A curve step's windows: the full-speed one, then each level, with its latency percentiles.
static std::string CurveText(const v1::ReportLoadCurve& curve) {
  const bool bw = curve.unit() == "bytes_per_sec";
  const auto rate = [&](double r) { return bw ? fmt::format("{:.1f} MiB/s", r / kMiB) : fmt::format("{:.0f} IOPS", r); };
  std::string out;
  for (const v1::ReportLoadPoint& p : curve.points()) {
    const std::string level = p.has_level_pct() ? fmt::format("{}%", p.level_pct()) : std::string("max");
    out += fmt::format("{:<14} curve {:>4}: {:<14} achieved {:<14} p50 {:>10}  p99 {:>10}  p99.9 {:>10}\n", "", level,
                       p.has_rate_asked() ? rate(p.rate_asked()) : std::string("full speed"), rate(p.rate_achieved()),
                       FormatLatency(static_cast<double>(p.latency_ns().p50())), FormatLatency(static_cast<double>(p.latency_ns().p99())),
                       FormatLatency(static_cast<double>(p.latency_ns().p999())));
  }
  return out;
}

static std::string SteadyText(const v1::ReportSteady& steady) {
  const std::string window = fmt::format("{:g} s", static_cast<double>(steady.window_ns()) / 1e9);
  if (steady.reached()) {
    return fmt::format("{:<14} steady: {} over the {} from {:.1f} s on changed {:.1f}% ({}, tolerance {}%): the figures are that window's\n",
                       "", steady.metric(), window, static_cast<double>(steady.steady_from_ns()) / 1e9, steady.change_pct(),
                       steady.criterion(), steady.tolerance_pct());
  }
  return fmt::format("{:<14} steady: not reached: {} over the last {} changed {:.1f}% ({}, tolerance {}%)\n", "", steady.metric(), window,
                     steady.change_pct(), steady.criterion(), steady.tolerance_pct());
}
namespace {

// The swept paths of the whole run, in the order they first appear: summary.csv's last columns.
std::vector<std::string> SweptPaths(const ReportDocument& doc) {
  std::vector<std::string> paths;
  for (const v1::ReportStep& step : doc.steps()) {
    for (const v1::ReportParam& p : step.params()) {
      if (std::find(paths.begin(), paths.end(), p.key()) == paths.end()) paths.push_back(p.key());
    }
  }
  return paths;
}

// Copies and files phases count files: their ops are files, and their rate files per second.
bool CountsFiles(const std::string& kind, const std::string& scope) {
  return kind == "copy" || scope.rfind("phase:", 0) == 0;
}

// One row of STATS `s` (docs/report-schema.md) of `step`.
std::string CsvRow(const v1::ReportStep& step, const std::string& scope, const std::string& agent, const v1::ReportFigures& s,
                   const std::vector<std::string>& swept) {
  const v1::ReportLatency& h = s.latency_ns();
  const std::string& kind = step.kind();
  const double bps = s.bytes_per_sec();
  std::string row =
      fmt::format("{},{},{},{},{},{},{},{},{},{},{:.9g},{:.6f},{:.3f},{:.6f},{:.6f},{:.1f},{},{},{},{},{},{},{},{:.6f},", step.index(),
                  CsvField(step.name()), kind, step.point(), step.cycle(), StatusText(step.status()), scope,
                  CsvField(agent), s.ops(), s.bytes(), s.seconds(), s.iops(), bps, bps / kMiB,
                  bps / kMB, h.mean(), h.p50(), h.p90(), h.p99(), h.p999(),
                  h.p9999(), h.max(), s.passes(), bps * 8 / 1e9);
  if (CountsFiles(kind, scope)) row += fmt::format("{:.6f}", s.iops());
  // A group's step runs several times per cycle: its group and group cycle tell the rows apart.
  row += step.has_group_cycle() ? fmt::format(",{},{}", CsvField(step.group()), step.group_cycle()) : ",,";
  for (const auto& path : swept) {
    row += ",";
    for (const v1::ReportParam& p : step.params()) {
      if (p.key() == path) {
        row += CsvField(ParamText(p));
        break;
      }
    }
  }
  return row + "\n";
}

}  // namespace

std::string FormatLatency(double ns) {
  if (ns >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.2f} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.1f} us", ns / 1e3);
  return fmt::format("{:.0f} ns", ns);
}

std::string SummaryCsv(const ReportDocument& doc) {
  const std::vector<std::string> swept = SweptPaths(doc);
  std::string out =
      "step_index,step,kind,point,cycle,status,scope,agent,ops,bytes,seconds,iops,bytes_per_sec,mib_per_sec,"
      "mb_per_sec,lat_mean_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_p9999_ns,"
      "lat_max_ns,passes,gbps,files_per_sec,group,group_cycle";
  for (const auto& path : swept) out += "," + CsvField(path);
  out += "\n";
  for (const v1::ReportStep& step : doc.steps()) {
    // A files step's whole adds its phases' different operations together, which is the rate of
    // nothing: its rows are its phases, for all agents and for each.
    if (step.phases().empty()) {
      out += CsvRow(step, "aggregate", "", step.aggregate().figures(), swept);
      for (const v1::ReportAgentFigures& a : step.agents()) out += CsvRow(step, "agent", a.agent(), a.figures(), swept);
    }
    // A step with streams: each stream's rows, over the stream's own window.
    for (const v1::ReportStream& stream : step.streams()) {
      const std::string scope = "stream:" + stream.name();
      out += CsvRow(step, scope, "", stream.aggregate().figures(), swept);
      for (const v1::ReportAgentFigures& a : stream.agents()) out += CsvRow(step, scope, a.agent(), a.figures(), swept);
    }
    for (const v1::ReportPhase& phase : step.phases()) {
      const std::string scope = "phase:" + phase.op();
      out += CsvRow(step, scope, "", phase.figures(), swept);
      for (const v1::ReportPhaseAgent& a : phase.agents()) out += CsvRow(step, scope, a.agent(), a.figures(), swept);
    }
  }
  return out;
}

std::string ConsoleSummary(const ReportDocument& doc) {
  std::string out = fmt::format("\nrun {}  workload {}  status {}\n", doc.run_id(), doc.workload(), StatusText(doc.status()));
  for (const auto& warning : MemoryBackedWarnings(doc)) out += warning + "\n";
  // Copies and files phases count files, and their latency is the time per file: their columns
  // say so. The header is printed again where the kind of row changes.
  std::string shown_header;
  auto header = [&](bool files) {
    std::string h = fmt::format("{:<14} {:<12} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "step", "agent", "MiB/s",
                                "MB/s", files ? "files/s" : "IOPS", files ? "mean/file" : "mean", files ? "p50/file" : "p50",
                                files ? "p99/file" : "p99", files ? "max/file" : "max");
    if (h != shown_header) out += h;
    shown_header = h;
  };
  // A row of STATS, or of a direction's figures (read, write: the same fields).
  auto row = [&](const std::string& step, const std::string& agent, const auto& s) {
    const v1::ReportLatency& h = s.latency_ns();
    out += fmt::format("{:<14} {:<12} {:>10.1f} {:>10.1f} {:>10.0f} {:>10} {:>10} {:>10} {:>10}\n", step, agent,
                       s.bytes_per_sec() / kMiB, s.bytes_per_sec() / kMB, s.iops(),
                       FormatLatency(h.mean()), FormatLatency(static_cast<double>(h.p50())),
                       FormatLatency(static_cast<double>(h.p99())), FormatLatency(static_cast<double>(h.max())));
  };
  bool repeated = false;
  for (const v1::ReportStep& step : doc.steps()) repeated = repeated || !step.params().empty() || step.cycle() > 0;
  for (const v1::ReportStep& step : doc.steps()) {
    const v1::ReportFigures& agg = step.aggregate().figures();
    const auto& agents = step.agents();
    const std::string& name = step.name();
    const std::string& kind = step.kind();
    if (repeated) {
      std::string label = fmt::format("{} point {} cycle {}", name, step.point(), step.cycle());
      for (const v1::ReportParam& p : step.params()) label += fmt::format(" {}={}", p.key(), ParamText(p));
      out += label + "\n";
    }
    const std::string all = agents.size() > 1 ? "(all)" : (agents.empty() ? "-" : agents[0].agent());
    if (MovesNoData(kind)) {
      // Its one figure is its time: no rows of zero bytes.
      out += fmt::format("{:<14} {:<12} took {:.3f} s\n", name, all, agg.seconds());
      for (const ShownAgentRow& r : AgentRowsShown(agents, RanksByTime(kind))) {
        out += fmt::format("{:<14} {:<12} took {:.3f} s\n", "", r.label, r.figures.seconds());
      }
    } else if (!step.phases().empty()) {
      // A files step's phases only: its whole would add different operations into one rate.
      header(true);
      for (int p = 0; p < step.phases_size(); ++p) {
        const v1::ReportPhase& phase = step.phases(p);
        row(p == 0 ? name : "", phase.op(), phase.figures());
        if (phase.agents_size() > 1) {
          for (const auto& a : phase.agents()) row("", "  " + a.agent(), a.figures());
        }
      }
    } else {
      header(kind == "copy");
      row(name, all, agg);
      if (agg.has_read() && agg.has_write()) {  // present only when it did such I/O
        row("", "  read", agg.read());
        row("", "  write", agg.write());
      }
      for (const ShownAgentRow& r : AgentRowsShown(agents, RanksByTime(kind))) row("", r.label, r.figures);
      // Each stream over its own window, reads and writes apart where it mixes them.
      for (const v1::ReportStream& stream : step.streams()) {
        const v1::ReportFigures& figures = stream.aggregate().figures();
        row("", "stream " + stream.name(), figures);
        if (figures.has_read() && figures.has_write()) {
          row("", "  read", figures.read());
          row("", "  write", figures.write());
        }
      }
    }
    if (static_cast<size_t>(agents.size()) > kAgentRowsShown) out += fmt::format("{:<14} note: {}\n", "", AgentRowsNote(agents.size()));
    if (step.status() != v1::STEP_STATUS_SUCCEEDED) out += fmt::format("{:<14} status: {}\n", "", StatusText(step.status()));
    if (step.has_limit()) out += fmt::format("{:<14} limit: {}\n", "", LimitText(step.limit()));
    for (const v1::ReportStream& stream : step.streams()) {
      if (stream.has_limit()) out += fmt::format("{:<14} limit of stream {}: {}\n", "", stream.name(), LimitText(stream.limit()));
    }
    if (step.has_search()) out += SearchText(step.search());
    if (step.has_curve()) out += CurveText(step.curve());
    if (step.has_controller_stall_ns()) {
      out += fmt::format("{:<14} note: the controller could not run for {:.1f} s during the step (its own host stalled); no agent was blamed\n",
                         "", static_cast<double>(step.controller_stall_ns()) / 1e9);
    }
    if (step.has_steady()) out += SteadyText(step.steady());
    if (uint64_t filled = agg.filled_bytes()) {
      out += fmt::format("{:<14} note: {} MiB written first (untimed) so the step reads no holes\n", "", filled >> 20);
    }
    if (agg.client_cpu_bound()) {
      out += fmt::format("{:<14} warning: a client was CPU-bound (over 90%): the figures may show the client's limit, not the storage's\n", "");
    }
    const bool agg_cached = agg.cache_resident();
    if (agg_cached) {
      out += fmt::format("{:<14} warning: {:.0f}% of the data was in the page cache when the step started: reads likely served from memory, not storage\n",
                         "", agg.cache_resident_pct());
    }
    for (const auto& a : agents) {  // one agent's cached data may hide in a large fleet's total
      if (agents.size() > 1 && a.figures().cache_resident() && !agg_cached) {
        out += fmt::format("{:<14} warning: agent {}: {:.0f}% of its data was in the page cache when the step started\n", "",
                           a.agent(), a.figures().cache_resident_pct());
      }
    }
    if (const auto warning = PageCacheWarning(step)) out += fmt::format("{:<14} {}\n", "", *warning);
    for (const v1::ReportCount& error : agg.errors()) out += fmt::format("{:<14} errors: {} x {}\n", "", error.value(), error.key());
    if (kind == "copy") {
      const double bps = agg.bytes_per_sec();
      out += fmt::format("{:<14} copy: {} files, {} dirs in {:.3f} s: {:.3f} Gbps, {:.3f} GiB/s\n", "", agg.ops(),
                         step.aggregate().copy().dirs(), agg.seconds(), bps * 8 / 1e9, bps / (kMiB * 1024));
    }
    for (const std::string& note : agg.notes()) out += fmt::format("{:<14} note: {}\n", "", note);
  }
  out += HeadlineTables(doc);
  if (!doc.error().empty()) out += "error: " + doc.error() + "\n";
  return out;
}

}  // namespace iofleet::controller
