#include "controller/push/result_families.h"

#include <fmt/format.h>

namespace iofleet::controller {
namespace {

// Shortest text that reads back as the same double (report.json's numbers do the same).
std::string SampleValue(double v) { return fmt::format("{}", v); }

std::string LabelText(const PromLabels& labels) {
  std::string out;
  for (const auto& [key, value] : labels) out += fmt::format("{}{}=\"{}\"", out.empty() ? "" : ",", key, PromLabelValue(value));
  return out;
}

std::string FigureLabels(const ResultFigures& f) {
  PromLabels labels = f.labels;
  labels.insert(labels.end(), {{"step", f.step}, {"point", std::to_string(f.point)}, {"cycle", f.cycle}});
  if (f.group_cycle >= 0) labels.emplace_back("group_cycle", std::to_string(f.group_cycle));
  if (!f.stream.empty()) labels.emplace_back("stream", f.stream);  // at most 64 a step
  return LabelText(labels);
}

// One meaning per family, said once: the same HELP from a push and from serve.
constexpr const char* kWhichSeries =
    " One series per step, point and cycle: a run's step instance as iofleet run pushes it (group_cycle for a group's step), "
    "or cycle=\"mean\", the mean over the cycles of a suite's latest succeeded run, as iofleet serve gives it.";

void AppendFamily(std::string& out, const std::string& name, const std::string& help, const std::string& lines) {
  if (!lines.empty()) out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n{}", name, help, name, lines);
}

// The resources' series of one step: each a family of its own (one unit per family).
struct ResourceLines {
  std::string core, page_cache, device_busy, device_queue, device_latency, network;

  void Add(const std::string& labels, const ResultResources& r) {
    if (r.core_busy_ratio) core += fmt::format("iofleet_result_core_busy_ratio{{{}}} {}\n", labels, SampleValue(*r.core_busy_ratio));
    if (r.page_cache_read_ratio) {
      page_cache += fmt::format("iofleet_result_page_cache_read_ratio{{{}}} {}\n", labels, SampleValue(*r.page_cache_read_ratio));
    }
    for (const ResultResources::Device& d : r.devices) {
      const std::string at = fmt::format("{},device=\"{}\",role=\"{}\"", labels, PromLabelValue(d.name), PromLabelValue(d.role));
      device_busy += fmt::format("iofleet_result_device_busy_ratio{{{}}} {}\n", at, SampleValue(d.busy_ratio));
      device_queue += fmt::format("iofleet_result_device_queue{{{}}} {}\n", at, SampleValue(d.queue));
      if (d.latency_seconds) device_latency += fmt::format("iofleet_result_device_latency_seconds{{{}}} {}\n", at, SampleValue(*d.latency_seconds));
    }
    for (const ResultResources::Network& n : r.networks) {
      for (const auto& [direction, value] : {std::pair<const char*, double>{"rx", n.rx_bytes_per_sec}, {"tx", n.tx_bytes_per_sec}}) {
        network += fmt::format("iofleet_result_network_bytes_per_second{{{},interface=\"{}\",direction=\"{}\"}} {}\n", labels,
                               PromLabelValue(n.name), direction, SampleValue(value));
      }
    }
  }
};

constexpr const char* kWhichAgent =
    " Of the step's slowest agent (the one report.json's limit names), over the step's measurement window; io steps whose "
    "agents sent their host's counters.";

}  // namespace

std::string PromLabelValue(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string ResultFamilies(const std::vector<ResultFigures>& figures, const std::vector<ResultVerdict>& verdicts) {
  std::string bandwidth, iops, latency, verdict, limit;
  ResourceLines resources;
  for (const ResultFigures& f : figures) {
    const std::string labels = FigureLabels(f);
    if (f.bytes_per_sec) bandwidth += fmt::format("iofleet_result_bytes_per_second{{{}}} {}\n", labels, SampleValue(*f.bytes_per_sec));
    if (f.iops) iops += fmt::format("iofleet_result_iops{{{}}} {}\n", labels, SampleValue(*f.iops));
    for (const auto& [quantile, seconds] : f.latency_seconds) {
      latency += fmt::format("iofleet_result_latency_seconds{{{},quantile=\"{}\"}} {}\n", labels, PromLabelValue(quantile), SampleValue(seconds));
    }
    if (!f.limit.empty()) limit += fmt::format("iofleet_result_limit{{{},verdict=\"{}\"}} 1\n", labels, PromLabelValue(f.limit));
    if (f.resources) resources.Add(labels, *f.resources);
  }
  for (const ResultVerdict& v : verdicts) {
    PromLabels labels = v.labels;
    labels.insert(labels.end(), {{"step", v.step}, {"point", std::to_string(v.point)}, {"figure", v.figure}});
    if (!v.stream.empty()) labels.emplace_back("stream", v.stream);
    verdict += fmt::format("iofleet_result_verdict{{{}}} {}\n", LabelText(labels), v.regression ? 1 : 0);
  }
  std::string out;
  AppendFamily(out, "iofleet_result_bytes_per_second",
         std::string("A step's bytes per second over its measurement window, all agents (io, files and copy steps that succeeded).") + kWhichSeries,
         bandwidth);
  AppendFamily(out, "iofleet_result_iops",
         std::string("A step's operations per second over its measurement window, all agents (files steps: files per second).") + kWhichSeries,
         iops);
  AppendFamily(out, "iofleet_result_latency_seconds",
         std::string("A step's latency quantile from the agents' merged histograms (serve: the p99 its history keeps).") + kWhichSeries,
         latency);
  AppendFamily(out, "iofleet_result_limit",
         std::string("1 for what held a step's slowest agent back (verdict: device, client_cpu, rate_cap, network, queue_depth, "
                     "unknown; report.json's limit). io steps whose agents sent their host's counters.") + kWhichSeries,
         limit);
  AppendFamily(out, "iofleet_result_core_busy_ratio", std::string("The busiest CPU core's busy share, 0 to 1.") + kWhichAgent, resources.core);
  AppendFamily(out, "iofleet_result_page_cache_read_ratio",
               std::string("The share of the jobs' buffered read bytes that the page cache served (its target device, or NFS server, did not read), 0 to 1.") +
                   kWhichAgent,
               resources.page_cache);
  AppendFamily(out, "iofleet_result_device_busy_ratio",
               std::string("A block device's busy time over the window (iostat's %util / 100; role: target, backing under a loop device, under a device-mapper one).") +
                   kWhichAgent,
               resources.device_busy);
  AppendFamily(out, "iofleet_result_device_queue", std::string("A block device's average requests in flight (iostat's aqu-sz).") + kWhichAgent,
               resources.device_queue);
  AppendFamily(out, "iofleet_result_device_latency_seconds",
               std::string("A block device's average time per I/O (iostat's await), queueing in the device included.") + kWhichAgent,
               resources.device_latency);
  AppendFamily(out, "iofleet_result_network_bytes_per_second",
               std::string("An interface's bytes per second received (rx) or sent (tx), all traffic of the host.") + kWhichAgent, resources.network);
  AppendFamily(out, "iofleet_result_verdict",
         "1 when a headline figure of a step at a point regressed against its baseline runs, 0 when not; absent without enough "
         "history or when the run was not comparable. A push's run judged with --compare-to, or a suite's latest succeeded run in serve.",
         verdict);
  return out;
}

}  // namespace iofleet::controller
