#include "controller/report/report_tables.h"

#include <fmt/format.h>

#include "controller/report/headline_table.h"
#include "controller/report/report_writers.h"
#include "controller/report/slowest_agent.h"
#include "controller/report/report_units.h"

namespace iofleet::controller {
namespace {


std::string Bytes(uint64_t n) {
  if (n >= (1ull << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(n) / (1ull << 30));
  if (n >= (1ull << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1ull << 20));
  return fmt::format("{} B", n);
}

std::string Params(const ReportDocument& step) {
  std::string out;
  for (const auto& [path, value] : Object(step, "params").items()) {
    out += (out.empty() ? "" : " ") + path + "=" + ParamText(value);
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
  for (const auto& a : List(doc, "agents")) {
    const ReportDocument& host = Object(a, "host");
    std::string fs = Text(host, "fs_type");
    if (!Text(host, "mount_point").empty()) fs += (fs.empty() ? "" : " on ") + Text(host, "mount_point");
    if (!Text(host, "mount_options").empty()) fs += " (" + Text(host, "mount_options") + ")";
    std::string device = Text(host, "device");
    if (!Text(host, "block_device").empty()) device += (device.empty() ? "" : " ") + std::string("[") + Text(host, "block_device") + "]";
    std::string scheduler = Text(host, "scheduler");
    if (host.contains("read_ahead_kb")) scheduler += fmt::format("{}read-ahead {} KiB", scheduler.empty() ? "" : ", ", Count(host, "read_ahead_kb"));
    t.rows.push_back({Text(a, "name"), Text(a, "address"), Text(a, "version"), Text(host, "hostname"), Text(host, "kernel"),
                      host.contains("cpus") ? std::to_string(Count(host, "cpus")) : "",
                      host.contains("memory_bytes") ? Bytes(Count(host, "memory_bytes")) : "", fs, device, scheduler});
  }
  return t;
}

std::vector<std::string> MemoryBackedWarnings(const ReportDocument& doc) {
  std::vector<std::string> out;
  for (const auto& a : List(doc, "agents")) {
    const std::string why = Text(Object(a, "host"), "memory_backed");
    if (why.empty()) continue;
    out.push_back("warning: agent " + Text(a, "name") + ": its run directory is in memory (" + why +
                  "): the figures show RAM speed, not storage's (O_DIRECT does not change that)");
  }
  return out;
}

Table StepsTable(const ReportDocument& doc) {
  Table t{"Steps", {"step", "point", "cycle", "swept", "agent", "MiB/s", "MB/s", "IOPS or files/s", "mean", "p50", "p99", "max", "status"}, {}, {}};
  t.notes = MemoryBackedWarnings(doc);
  for (const auto& step : List(doc, "steps")) {
    const std::string name = Text(step, "name");
    const std::string kind = Text(step, "kind");
    const std::string status = Text(step, "status");
    // Marked only when it trails the others by more than noise (controller/report/slowest_agent.h).
    const std::string slowest =
        Number(step, "slowest_trails_median_pct") > kMarkSlowestAbovePct ? Text(step, "slowest_agent") : "";
    const ReportDocument& agg = Object(step, "aggregate");
    const ReportDocument& agents = List(step, "agents");
    auto row = [&](const std::string& agent, const ReportDocument& s) {
      const ReportDocument& lat = Object(s, "latency_ns");
      const double bps = Number(s, "bytes_per_sec");
      if (MovesNoData(kind)) {
        t.rows.push_back({name, std::to_string(Count(step, "point")), std::to_string(Count(step, "cycle")), Params(step), agent, "", "", "",
                          fmt::format("took {:.3f} s", Number(s, "seconds")), "", "", "", status});
        return;
      }
      t.rows.push_back({name, std::to_string(Count(step, "point")), std::to_string(Count(step, "cycle")), Params(step), agent,
                        fmt::format("{:.1f}", bps / kMiB), fmt::format("{:.1f}", bps / kMB), fmt::format("{:.0f}", Number(s, "iops")),
                        FormatLatency(Number(lat, "mean")), FormatLatency(static_cast<double>(Count(lat, "p50"))),
                        FormatLatency(static_cast<double>(Count(lat, "p99"))), FormatLatency(static_cast<double>(Count(lat, "max"))), status});
    };
    auto agent_label = [&](const ReportDocument& a) {
      const std::string n = Text(a, "agent");
      if (agents.size() < 2 || n != slowest) return n;
      const double pct = Number(step, "slowest_trails_median_pct");
      return RanksByTime(kind) ? fmt::format("{} (slowest, {:.0f}% longer than the median)", n, pct)
                               : fmt::format("{} (slowest, {:.0f}% below the median)", n, pct);
    };
    if (const ReportDocument& phases = List(step, "phases"); !phases.empty() && !MovesNoData(kind)) {
      for (const auto& phase : phases) {
        row(Text(phase, "op") + " (all)", phase);
        if (List(phase, "agents").size() > 1) {
          for (const auto& a : List(phase, "agents")) row(Text(phase, "op") + " " + Text(a, "agent"), a);
        }
      }
    } else {
      row(agents.size() > 1 ? "(all)" : (agents.empty() ? "-" : Text(agents[0], "agent")), agg);
      if (agg.contains("read") && agg.contains("write") && !MovesNoData(kind)) {
        row("read", Object(agg, "read"));
        row("write", Object(agg, "write"));
      }
      if (agents.size() > 1) {
        for (const auto& a : agents) row(agent_label(a), a);
      }
    }
    const std::string where = fmt::format("{} (point {}, cycle {})", name, Count(step, "point"), Count(step, "cycle"));
    if (uint64_t filled = Count(agg, "filled_bytes")) t.notes.push_back(fmt::format("{}: {} MiB written first (untimed) so the step reads no holes", where, filled >> 20));
    if (agg.value("client_cpu_bound", false)) t.notes.push_back(where + ": warning: a client was CPU-bound (over 90%): the figures may show the client's limit, not the storage's");
    if (agg.value("cache_resident", false)) {
      t.notes.push_back(fmt::format("{}: warning: {:.0f}% of the data was in the page cache when the step started: reads likely served from memory, not storage",
                                    where, Number(agg, "cache_resident_pct")));
    }
    for (const auto& [error, n] : Object(agg, "errors").items()) {
      t.notes.push_back(fmt::format("{}: errors: {} x {}", where, n.is_number() ? n.get<uint64_t>() : 0, error));
    }
    for (const auto& note : List(agg, "notes")) {
      if (note.is_string()) t.notes.push_back(where + ": " + note.get<std::string>());
    }
  }
  return t;
}

Table VerdictsTable(const ReportDocument& doc) {
  auto it = doc.find("verdicts");
  if (it == doc.end() || !it->is_object()) return {};
  const ReportDocument& v = *it;
  Table t{"Verdicts", {"step", "point", "figure", "baseline", "now", "change", "p-value", "baseline runs", "verdict"}, {}, {}};
  std::string basis = "Compared with " + (Text(v, "reference").empty() ? std::string("the baseline runs") : Text(v, "reference"));
  if (v.contains("alpha")) basis += fmt::format(", alpha {:g}", Number(v, "alpha"));
  if (v.contains("max_regression_pct")) basis += fmt::format(", a regression is significant and worse than {:g}%", Number(v, "max_regression_pct"));
  t.notes.push_back(basis + ".");
  std::string differences;
  for (const auto& d : List(v, "workload_differences")) differences += (differences.empty() ? "" : ", ") + (d.is_string() ? d.get<std::string>() : "");
  if (Text(v, "verdict") == "not comparable") {
    t.notes.push_back("Not comparable: the effective workload differs from that of baseline run " + Text(v, "workload_differs_from") + " (" +
                      differences + "), and no earlier run has this one's (--force-compare judges it anyway).");
  } else if (v.value("workload_changed", false)) {
    t.notes.push_back("warning: forced (--force-compare): the effective workload differs from that of baseline run " +
                      Text(v, "workload_differs_from") + " (" + differences + "): the comparison is not like for like.");
  }
  for (const auto& step : List(v, "steps")) {
    for (const auto& f : List(step, "figures")) {
      const std::string unit = Text(f, "unit");
      auto figure = [&](const char* key) { return f.contains(key) && f[key].is_number() ? FormatFigure(Number(f, key), unit) : std::string("-"); };
      std::string name = Text(f, "figure");
      if (!Text(f, "better").empty()) name += " (" + Text(f, "better") + " is better)";
      t.rows.push_back({Text(step, "step"), std::to_string(Count(step, "point")), name, figure("baseline"), figure("now"),
                        f.contains("change_pct") ? fmt::format("{:+.1f}%", Number(f, "change_pct")) : "-",
                        f.contains("p_value") ? fmt::format("{:.3g}", Number(f, "p_value")) : "-",
                        f.contains("baseline_runs") ? std::to_string(Count(f, "baseline_runs")) : "-", Text(f, "verdict")});
    }
  }
  return t;
}

}  // namespace iofleet::controller
