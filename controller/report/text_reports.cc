// summary.csv and the console summary, rendered from the run's document (report.json parsed).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "controller/report/headline_table.h"
#include "controller/report/report_tables.h"
#include "controller/report/report_writers.h"
#include "controller/report/report_units.h"

namespace iofleet::controller {
namespace {

// The swept paths of the whole run, in the order they first appear: summary.csv's last columns.
std::vector<std::string> SweptPaths(const ReportDocument& doc) {
  std::vector<std::string> paths;
  for (const auto& step : List(doc, "steps")) {
    for (const auto& [path, value] : Object(step, "params").items()) {
      if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    }
  }
  return paths;
}

// Copies and files phases count files: their ops are files, and their rate files per second.
bool CountsFiles(const std::string& kind, const std::string& scope) {
  return kind == "copy" || scope.rfind("phase:", 0) == 0;
}

const ReportDocument& Latency(const ReportDocument& stats) {
  static const ReportDocument kNone = ReportDocument::object();
  auto it = stats.find("latency_ns");
  return it != stats.end() ? *it : kNone;
}

// One row of STATS `s` (docs/report-schema.md) of `step`.
std::string CsvRow(const ReportDocument& step, const std::string& scope, const std::string& agent, const ReportDocument& s,
                   const std::vector<std::string>& swept) {
  const ReportDocument& h = Latency(s);
  const std::string kind = Text(step, "kind");
  const double bps = Number(s, "bytes_per_sec");
  std::string row =
      fmt::format("{},{},{},{},{},{},{},{},{},{},{:.9g},{:.6f},{:.3f},{:.6f},{:.6f},{:.1f},{},{},{},{},{},{},{},{:.6f},", Count(step, "index"),
                  CsvField(Text(step, "name")), kind, Count(step, "point"), Count(step, "cycle"), Text(step, "status"), scope,
                  CsvField(agent), Count(s, "ops"), Count(s, "bytes"), Number(s, "seconds"), Number(s, "iops"), bps, bps / kMiB,
                  bps / kMB, Number(h, "mean"), Count(h, "p50"), Count(h, "p90"), Count(h, "p99"), Count(h, "p999"),
                  Count(h, "p9999"), Count(h, "max"), Count(s, "passes"), bps * 8 / 1e9);
  if (CountsFiles(kind, scope)) row += fmt::format("{:.6f}", Number(s, "iops"));
  // A group's step runs several times per cycle: its group and group cycle tell the rows apart.
  row += step.contains("group_cycle") ? fmt::format(",{},{}", CsvField(Text(step, "group")), Count(step, "group_cycle")) : ",,";
  const ReportDocument& params = Object(step, "params");
  for (const auto& path : swept) {
    row += ",";
    if (auto it = params.find(path); it != params.end()) row += CsvField(ParamText(*it));
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
  for (const auto& step : List(doc, "steps")) {
    // A files step's whole adds its phases' different operations together, which is the rate of
    // nothing: its rows are its phases, for all agents and for each.
    const ReportDocument& phases = List(step, "phases");
    if (phases.empty()) {
      out += CsvRow(step, "aggregate", "", Object(step, "aggregate"), swept);
      for (const auto& a : List(step, "agents")) out += CsvRow(step, "agent", Text(a, "agent"), a, swept);
    }
    for (const auto& phase : phases) {
      const std::string scope = "phase:" + Text(phase, "op");
      out += CsvRow(step, scope, "", phase, swept);
      for (const auto& a : List(phase, "agents")) out += CsvRow(step, scope, Text(a, "agent"), a, swept);
    }
  }
  return out;
}

std::string ConsoleSummary(const ReportDocument& doc) {
  std::string out = fmt::format("\nrun {}  workload {}  status {}\n", Text(doc, "run_id"), Text(doc, "workload"), Text(doc, "status"));
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
  // A row of STATS, or of a direction's figures (read, write: the same keys).
  auto row = [&](const std::string& step, const std::string& agent, const ReportDocument& s) {
    const ReportDocument& h = Latency(s);
    out += fmt::format("{:<14} {:<12} {:>10.1f} {:>10.1f} {:>10.0f} {:>10} {:>10} {:>10} {:>10}\n", step, agent,
                       Number(s, "bytes_per_sec") / kMiB, Number(s, "bytes_per_sec") / kMB, Number(s, "iops"),
                       FormatLatency(Number(h, "mean")), FormatLatency(static_cast<double>(Count(h, "p50"))),
                       FormatLatency(static_cast<double>(Count(h, "p99"))), FormatLatency(static_cast<double>(Count(h, "max"))));
  };
  bool repeated = false;
  for (const auto& step : List(doc, "steps")) {
    repeated = repeated || !Object(step, "params").empty() || Count(step, "cycle") > 0;
  }
  for (const auto& step : List(doc, "steps")) {
    const ReportDocument& agg = Object(step, "aggregate");
    const ReportDocument& agents = List(step, "agents");
    const std::string name = Text(step, "name");
    const std::string kind = Text(step, "kind");
    if (repeated) {
      std::string label = fmt::format("{} point {} cycle {}", name, Count(step, "point"), Count(step, "cycle"));
      for (const auto& [path, value] : Object(step, "params").items()) {
        label += fmt::format(" {}={}", path, ParamText(value));
      }
      out += label + "\n";
    }
    const std::string all = agents.size() > 1 ? "(all)" : (agents.empty() ? "-" : Text(agents[0], "agent"));
    if (MovesNoData(kind)) {
      // Its one figure is its time: no rows of zero bytes.
      out += fmt::format("{:<14} {:<12} took {:.3f} s\n", name, all, Number(agg, "seconds"));
      if (agents.size() > 1) {
        for (const auto& a : agents) out += fmt::format("{:<14} {:<12} took {:.3f} s\n", "", Text(a, "agent"), Number(a, "seconds"));
      }
    } else if (const ReportDocument& phases = List(step, "phases"); !phases.empty()) {
      // A files step's phases only: its whole would add different operations into one rate.
      header(true);
      for (size_t p = 0; p < phases.size(); ++p) {
        const ReportDocument& phase = phases[p];
        row(p == 0 ? name : "", Text(phase, "op"), phase);
        if (List(phase, "agents").size() > 1) {
          for (const auto& a : List(phase, "agents")) row("", "  " + Text(a, "agent"), a);
        }
      }
    } else {
      header(kind == "copy");
      row(name, all, agg);
      if (agg.contains("read") && agg.contains("write")) {  // present only when it did such I/O
        row("", "  read", Object(agg, "read"));
        row("", "  write", Object(agg, "write"));
      }
      if (agents.size() > 1) {
        for (const auto& a : agents) row("", Text(a, "agent"), a);
      }
    }
    if (Text(step, "status") != "succeeded") out += fmt::format("{:<14} status: {}\n", "", Text(step, "status"));
    if (uint64_t filled = Count(agg, "filled_bytes")) {
      out += fmt::format("{:<14} note: {} MiB written first (untimed) so the step reads no holes\n", "", filled >> 20);
    }
    if (agg.value("client_cpu_bound", false)) {
      out += fmt::format("{:<14} warning: a client was CPU-bound (over 90%): the figures may show the client's limit, not the storage's\n", "");
    }
    const bool agg_cached = agg.value("cache_resident", false);
    if (agg_cached) {
      out += fmt::format("{:<14} warning: {:.0f}% of the data was in the page cache when the step started: reads likely served from memory, not storage\n",
                         "", Number(agg, "cache_resident_pct"));
    }
    for (const auto& a : agents) {  // one agent's cached data may hide in a large fleet's total
      if (agents.size() > 1 && a.value("cache_resident", false) && !agg_cached) {
        out += fmt::format("{:<14} warning: agent {}: {:.0f}% of its data was in the page cache when the step started\n", "",
                           Text(a, "agent"), Number(a, "cache_resident_pct"));
      }
    }
    for (const auto& [error, n] : Object(agg, "errors").items()) {
      out += fmt::format("{:<14} errors: {} x {}\n", "", n.get<uint64_t>(), error);
    }
    if (kind == "copy") {
      const double bps = Number(agg, "bytes_per_sec");
      out += fmt::format("{:<14} copy: {} files, {} dirs in {:.3f} s: {:.3f} Gbps, {:.3f} GiB/s\n", "", Count(agg, "ops"),
                         Count(agg, "dirs"), Number(agg, "seconds"), bps * 8 / 1e9, bps / (kMiB * 1024));
    }
    for (const auto& note : List(agg, "notes")) out += fmt::format("{:<14} note: {}\n", "", note.get<std::string>());
  }
  out += HeadlineTables(doc);
  if (const std::string error = Text(doc, "error"); !error.empty()) out += "error: " + error + "\n";
  return out;
}

}  // namespace iofleet::controller
