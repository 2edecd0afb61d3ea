#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "controller/report/headline_table.h"
#include "controller/report/report_writers.h"

namespace iofleet::controller {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kMB = 1e6;

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The swept paths of the whole run, in the order they first appear: summary.csv's last columns.
std::vector<std::string> SweptPaths(const RunReport& report) {
  std::vector<std::string> paths;
  for (const auto& step : report.steps) {
    for (const auto& [path, value] : step.params) {
      if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    }
  }
  return paths;
}

// Copies and files phases count files: their ops are files, and their rate files per second.
bool CountsFiles(const std::string& kind, const std::string& scope) {
  return kind == "copy" || scope.rfind("phase:", 0) == 0;
}

std::string CsvRow(const StepReport& step, const std::string& scope, const std::string& agent, const StepStats& s,
                   const std::vector<std::string>& swept) {
  const LatencyHistogram& h = *s.latency;
  std::string row =
      fmt::format("{},{},{},{},{},{},{},{},{},{},{:.9g},{:.6f},{:.3f},{:.6f},{:.6f},{:.1f},{},{},{},{},{},{},{},{:.6f},", step.index,
                  CsvField(step.name), step.kind, step.point, step.cycle, step.status, scope, CsvField(agent), s.ops, s.bytes,
                  s.seconds(), s.iops(), s.bytes_per_sec(), s.bytes_per_sec() / kMiB, s.bytes_per_sec() / kMB, h.Mean(),
                  h.Quantile(0.5), h.Quantile(0.9), h.Quantile(0.99), h.Quantile(0.999), h.Quantile(0.9999), h.max(),
                  s.passes, s.bytes_per_sec() * 8 / 1e9);
  if (CountsFiles(step.kind, scope)) row += fmt::format("{:.6f}", s.iops());
  // A group's step runs several times per cycle: its group and group cycle tell the rows apart.
  row += step.group_cycle >= 0 ? fmt::format(",{},{}", CsvField(step.group), step.group_cycle) : ",,";
  for (const auto& path : swept) {
    row += ",";
    for (const auto& [p, value] : step.params) {
      if (p == path) row += CsvField(value);
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

std::string SummaryCsv(const RunReport& report) {
  const std::vector<std::string> swept = SweptPaths(report);
  std::string out =
      "step_index,step,kind,point,cycle,status,scope,agent,ops,bytes,seconds,iops,bytes_per_sec,mib_per_sec,"
      "mb_per_sec,lat_mean_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_p9999_ns,"
      "lat_max_ns,passes,gbps,files_per_sec,group,group_cycle";
  for (const auto& path : swept) out += "," + CsvField(path);
  out += "\n";
  for (const auto& step : report.steps) {
    // A files step's whole adds its phases' different operations together, which is the rate of
    // nothing: its rows are its phases, for all agents and for each.
    if (step.phases.empty()) {
      out += CsvRow(step, "aggregate", "", step.aggregate, swept);
      for (const auto& a : step.agents) out += CsvRow(step, "agent", a.agent, a.stats, swept);
    }
    for (const auto& phase : step.phases) {
      out += CsvRow(step, "phase:" + phase.op, "", phase.aggregate, swept);
      for (const auto& a : phase.agents) out += CsvRow(step, "phase:" + phase.op, a.agent, a.stats, swept);
    }
  }
  return out;
}

std::string ConsoleSummary(const RunReport& report) {
  std::string out = fmt::format("\nrun {}  workload {}  status {}\n", report.run_id, report.workload, report.status);
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
  auto row = [&](const std::string& step, const std::string& agent, const StepStats& s) {
    const LatencyHistogram& h = *s.latency;
    out += fmt::format("{:<14} {:<12} {:>10.1f} {:>10.1f} {:>10.0f} {:>10} {:>10} {:>10} {:>10}\n", step,
                       agent, s.bytes_per_sec() / kMiB, s.bytes_per_sec() / kMB, s.iops(),
                       FormatLatency(h.Mean()), FormatLatency(static_cast<double>(h.Quantile(0.5))),
                       FormatLatency(static_cast<double>(h.Quantile(0.99))),
                       FormatLatency(static_cast<double>(h.max())));
  };
  auto op_row = [&](const std::string& label, const OpFigures& op, double seconds) {
    const LatencyHistogram& h = *op.latency;
    double bps = seconds > 0 ? static_cast<double>(op.bytes) / seconds : 0;
    out += fmt::format("{:<14} {:<12} {:>10.1f} {:>10.1f} {:>10.0f} {:>10} {:>10} {:>10} {:>10}\n", "", label,
                       bps / kMiB, bps / kMB, seconds > 0 ? static_cast<double>(op.ops) / seconds : 0,
                       FormatLatency(h.Mean()), FormatLatency(static_cast<double>(h.Quantile(0.5))),
                       FormatLatency(static_cast<double>(h.Quantile(0.99))), FormatLatency(static_cast<double>(h.max())));
  };
  bool repeated = false;
  for (const auto& step : report.steps) repeated = repeated || !step.params.empty() || step.cycle > 0;
  for (const auto& step : report.steps) {
    const StepStats& agg = step.aggregate;
    if (repeated) {
      std::string label = fmt::format("{} point {} cycle {}", step.name, step.point, step.cycle);
      for (const auto& [path, value] : step.params) label += fmt::format(" {}={}", path, value);
      out += label + "\n";
    }
    const std::string all = step.agents.size() > 1 ? "(all)" : (step.agents.empty() ? "-" : step.agents[0].agent);
    if (MovesNoData(step.kind)) {
      // Its one figure is its time: no rows of zero bytes.
      out += fmt::format("{:<14} {:<12} took {:.3f} s\n", step.name, all, agg.seconds());
      if (step.agents.size() > 1) {
        for (const auto& a : step.agents) out += fmt::format("{:<14} {:<12} took {:.3f} s\n", "", a.agent, a.stats.seconds());
      }
    } else if (!step.phases.empty()) {
      // A files step's phases only: its whole would add different operations into one rate.
      header(true);
      for (size_t p = 0; p < step.phases.size(); ++p) {
        const PhaseReport& phase = step.phases[p];
        row(p == 0 ? step.name : "", phase.op, phase.aggregate);
        if (phase.agents.size() > 1) {
          for (const auto& a : phase.agents) row("", "  " + a.agent, a.stats);
        }
      }
    } else {
      header(step.kind == "copy");
      row(step.name, all, agg);
      if (agg.read.ops && agg.write.ops) {
        op_row("  read", agg.read, agg.seconds());
        op_row("  write", agg.write, agg.seconds());
      }
      if (step.agents.size() > 1) {
        for (const auto& a : step.agents) row("", a.agent, a.stats);
      }
    }
    if (step.status != "succeeded") out += fmt::format("{:<14} status: {}\n", "", step.status);
    if (agg.filled_bytes) out += fmt::format("{:<14} note: {} MiB written first (untimed) so the step reads no holes\n", "", agg.filled_bytes >> 20);
    if (agg.cpu_bound) out += fmt::format("{:<14} warning: a client was CPU-bound (over 90%): the figures may show the client's limit, not the storage's\n", "");
    if (agg.cache && agg.cache->resident()) {
      out += fmt::format("{:<14} warning: {:.0f}% of the data was in the page cache when the step started: reads likely served from memory, not storage\n",
                         "", agg.cache->pct());
    }
    for (const auto& a : step.agents) {  // one agent's cached data may hide in a large fleet's total
      if (step.agents.size() > 1 && a.stats.cache && a.stats.cache->resident() && !(agg.cache && agg.cache->resident())) {
        out += fmt::format("{:<14} warning: agent {}: {:.0f}% of its data was in the page cache when the step started\n", "",
                           a.agent, a.stats.cache->pct());
      }
    }
    for (const auto& [kind, n] : agg.errors) out += fmt::format("{:<14} errors: {} x {}\n", "", n, kind);
    if (step.kind == "copy") {
      out += fmt::format("{:<14} copy: {} files, {} dirs in {:.3f} s: {:.3f} Gbps, {:.3f} GiB/s\n", "", agg.ops, agg.dirs,
                         agg.seconds(), agg.bytes_per_sec() * 8 / 1e9, agg.bytes_per_sec() / (kMiB * 1024));
    }
    for (const auto& note : agg.notes) out += fmt::format("{:<14} note: {}\n", "", note);
  }
  out += HeadlineTables(report);
  if (!report.error.empty()) out += "error: " + report.error + "\n";
  return out;
}

}  // namespace iofleet::controller
