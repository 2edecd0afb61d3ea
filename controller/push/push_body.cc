#include "controller/push/push_body.h"

#include "controller/push/result_families.h"
#include "controller/report/limit_verdict.h"
#include "core/wire/proto_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace iofleet::controller {

namespace {

std::string Escaped(const std::string& value) { return PromLabelValue(value); }

std::string StepLabels(const StepReport& step) {
  std::string labels = fmt::format("step=\"{}\",point=\"{}\",cycle=\"{}\"", Escaped(step.name), step.point, step.cycle);
  if (step.group_cycle >= 0) labels += fmt::format(",group_cycle=\"{}\"", step.group_cycle);
  return labels;
}

bool MovesData(const StepReport& step) { return step.kind == "io" || step.kind == "files" || step.kind == "copy"; }

// A failed or aborted step's bandwidth, IOPS and latency are not figures (0 B/s would read as a
// collapse on the trends dashboard): only a succeeded step pushes them; every step pushes its status.
bool HasFigures(const StepReport& step) { return MovesData(step) && step.status == v1::STEP_STATUS_SUCCEEDED; }

// Shortest text that reads back as the same double (report.json's numbers do the same).
std::string Number(double v) { return fmt::format("{}", v); }

// A family with no series is left out altogether (a run that ended before its first step).
void Family(std::string& out, const char* name, const char* help,
            const std::function<void(std::string&)>& series) {
  std::string lines;
  series(lines);
  if (!lines.empty()) out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name) + lines;
}

// report.json's resources at the agent the step's limit names (its slowest, or its one agent).
std::optional<ResultResources> SlowestAgentResources(const StepReport& step) {
  const std::optional<v1::ReportLimit> limit = StepLimit(step);
  if (!limit) return std::nullopt;
  for (const AgentStep& a : step.agents) {
    if (a.agent != limit->agent() || !a.stats.resources) continue;
    const v1::ReportResources f = ResourceFigures(*a.stats.resources, a.stats);
    ResultResources out;
    if (f.has_max_core_busy_pct()) out.core_busy_ratio = f.max_core_busy_pct() / 100;
    if (f.has_page_cache_read_pct()) out.page_cache_read_ratio = f.page_cache_read_pct() / 100;
    for (const v1::ReportDevice& d : f.devices()) {
      ResultResources::Device& o = out.devices.emplace_back();
      o.name = d.name();
      o.role = d.role();
      o.busy_ratio = d.util_pct() / 100;
      o.queue = d.avg_queue();
      if (d.has_avg_latency_ns()) o.latency_seconds = d.avg_latency_ns() / 1e9;
    }
    for (const v1::ReportNetwork& n : f.networks()) out.networks.push_back({n.name(), n.rx_bytes_per_sec(), n.tx_bytes_per_sec()});
    return out;
  }
  return std::nullopt;
}

}  // namespace

std::string PushBody(const RunReport& report, double run_seconds, double ended_at_unix_s,
                     const v1::ReportVerdicts* verdicts) {
  std::string out;
  std::vector<ResultFigures> figures;
  for (const auto& s : report.steps) {
    if (!HasFigures(s)) continue;
    ResultFigures& f = figures.emplace_back();
    f.step = s.name;
    f.point = static_cast<uint32_t>(s.point);
    f.cycle = std::to_string(s.cycle);
    f.group_cycle = s.group_cycle;
    f.bytes_per_sec = s.aggregate.bytes_per_sec();
    f.iops = s.aggregate.iops();
    if (auto limit = StepLimit(s)) f.limit = limit->verdict();
    f.resources = SlowestAgentResources(s);
    for (const auto& [text, q] : {std::pair<const char*, double>{"0.5", 0.5}, {"0.99", 0.99}, {"0.999", 0.999}}) {
      f.latency_seconds.emplace_back(text, static_cast<double>(s.aggregate.latency->Quantile(q)) / 1e9);
    }
    // A step with streams: each stream's series beside the step's, over the stream's window.
    const ResultFigures step_figures = f;
    for (const StreamReport& stream : s.streams) {
      ResultFigures& g = figures.emplace_back(step_figures);
      g.stream = stream.name;
      g.resources.reset();  // the host's, not the stream's: on the step's series only
      g.limit.clear();  // the stream's own, at the agent the step's names (none where it sent no counters)
      if (auto limit = LimitAt(s, stream.agents)) g.limit = limit->verdict();
      g.bytes_per_sec = stream.aggregate.bytes_per_sec();
      g.iops = stream.aggregate.iops();
      g.latency_seconds.clear();
      for (const auto& [text, q] : {std::pair<const char*, double>{"0.5", 0.5}, {"0.99", 0.99}, {"0.999", 0.999}}) {
        g.latency_seconds.emplace_back(text, static_cast<double>(stream.aggregate.latency->Quantile(q)) / 1e9);
      }
    }
  }
  std::vector<ResultVerdict> judged;
  if (verdicts) {
    for (const v1::ReportStepVerdicts& step : verdicts->steps()) {
      for (const v1::ReportFigureVerdict& f : step.figures()) {
        const v1::Verdict verdict = f.verdict();
        if (verdict == v1::VERDICT_NOT_ENOUGH_HISTORY || verdict == v1::VERDICT_NOT_COMPARABLE) continue;  // no verdict: not 0
        judged.push_back({{}, step.step(), step.point(), f.figure(), verdict == v1::VERDICT_REGRESSION, f.stream()});
      }
    }
  }
  out += ResultFamilies(figures, judged);
  Family(out, "iofleet_result_status", "1 for the status (succeeded, failed or aborted) of each step, and of the run (no step label).",
         [&](std::string& o) {
           for (const auto& s : report.steps) {
             o += fmt::format("iofleet_result_status{{{},status=\"{}\"}} 1\n", StepLabels(s), Escaped(wire::EnumText(s.status)));
           }
           o += fmt::format("iofleet_result_status{{status=\"{}\"}} 1\n", Escaped(wire::EnumText(report.status)));
         });
  Family(out, "iofleet_result_timestamp_seconds", "When the step's first I/O began (Unix time; the run's end if it did none).",
         [&](std::string& o) {
           for (const auto& s : report.steps) {
             // Whole seconds and the rest apart: a nanosecond count near 2^61 loses digits as a double.
             const uint64_t ns = s.started_at_unix_ns;
             double at = ns ? static_cast<double>(ns / 1'000'000'000) + static_cast<double>(ns % 1'000'000'000) / 1e9 : ended_at_unix_s;
             o += fmt::format("iofleet_result_timestamp_seconds{{{}}} {}\n", StepLabels(s), Number(at));
           }
         });
  Family(out, "iofleet_run_duration_seconds", "The run's wall time, from its start to its report.",
         [&](std::string& o) { o += fmt::format("iofleet_run_duration_seconds {}\n", Number(run_seconds)); });
  return out;
}

std::string Base64Url(const std::string& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
    out += {alphabet[(n >> 18) & 63], alphabet[(n >> 12) & 63], alphabet[(n >> 6) & 63], alphabet[n & 63]};
  }
  if (i + 1 == bytes.size()) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    out += {alphabet[(n >> 18) & 63], alphabet[(n >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
    out += {alphabet[(n >> 18) & 63], alphabet[(n >> 12) & 63], alphabet[(n >> 6) & 63], '='};
  }
  return out;
}

namespace {

bool PlainInPath(const std::string& value) {
  auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '~' || c == '-';
  };
  // "." and ".." would be read as path steps by anything that cleans the path on the way.
  return !value.empty() && value != "." && value != ".." && std::all_of(value.begin(), value.end(), plain);
}

std::string PathPair(const std::string& key, const std::string& value) {
  if (PlainInPath(value)) return "/" + key + "/" + value;
  // The push API spells an empty value "=" (an empty path segment would be dropped).
  return "/" + key + "@base64/" + (value.empty() ? std::string("=") : Base64Url(value));
}

}  // namespace

std::string GroupingPath(const std::string& workload, const RunLabels& labels) {
  std::string path = "/metrics/job/iofleet" + PathPair("workload", workload);
  for (const auto& [key, value] : labels) path += PathPair(key, value);
  return path;
}

}  // namespace iofleet::controller
