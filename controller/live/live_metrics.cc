#include "controller/live/live_metrics.h"

#include "core/metrics/histogram_metric.h"

#include <prometheus/text_serializer.h>

#include <cmath>
#include <exception>

namespace iofleet::controller {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily Family(const std::string& name, const std::string& help, MetricType type) {
  MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  return f;
}

ClientMetric Gauge(std::vector<ClientMetric::Label> labels, double value) {
  ClientMetric m;
  m.label = std::move(labels);
  m.gauge.value = value;
  return m;
}

ClientMetric Counter(std::vector<ClientMetric::Label> labels, double value) {
  ClientMetric m;
  m.label = std::move(labels);
  m.counter.value = value;
  return m;
}

// "HOST:PORT" with a numeric port; the host may be a bracketed IPv6 address.
bool ValidAddress(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size() || address.size() - colon > 6) return false;
  for (size_t i = colon + 1; i < address.size(); ++i) {
    if (address[i] < '0' || address[i] > '9') return false;
  }
  return std::stoul(address.substr(colon + 1)) <= 65535;
}

}  // namespace

// Runs on the metrics server's thread: nothing may escape it (an allocation failing, a bug). A scrape then
// gets what was built so far, or nothing, and the next scrape tries again.
std::vector<MetricFamily> LiveCollector::Collect() const {
  std::vector<MetricFamily> out;
  try {
    CollectInto(out);
  } catch (...) {
  }
  return out;
}

void LiveCollector::CollectInto(std::vector<MetricFamily>& out) const {
  const LiveSnapshot s = live_.Snapshot();
  const std::vector<LiveIoSeries> io = live_.IoSeries();
  const std::vector<LiveErrorSeries> errors = live_.ErrorSeries();
  const std::string& workload = s.workload;

  MetricFamily ops = Family("iofleet_io_ops_total", "I/Os completed in the measurement window, per agent", MetricType::Counter);
  MetricFamily bytes = Family("iofleet_io_bytes_total", "Bytes transferred in the measurement window, per agent", MetricType::Counter);
  MetricFamily latency = Family("iofleet_io_latency_seconds", "I/O latency (submission to reaping), per agent", MetricType::Histogram);
  for (const auto& series : io) {
    std::vector<ClientMetric::Label> labels = {
        {"workload", workload}, {"step", series.step}, {"op", series.op}, {"engine", series.engine}, {"agent", series.agent}};
    // A step with streams: a series per stream (at most 64 a step), labelled by its name.
    if (!series.stream.empty()) labels.insert(labels.begin() + 2, {"stream", series.stream});
    ops.metric.push_back(Counter(labels, static_cast<double>(series.ops)));
    bytes.metric.push_back(Counter(labels, static_cast<double>(series.bytes)));
    latency.metric.push_back(HistogramMetric(labels, series.latency));
  }
  MetricFamily error_family = Family("iofleet_io_errors_total", "I/O errors counted under continue_on_error, per agent", MetricType::Counter);
  for (const auto& e : errors) {
    error_family.metric.push_back(Counter({{"workload", workload}, {"step", e.step}, {"engine", e.engine}, {"agent", e.agent}, {"reason", "any"}},
                                          static_cast<double>(e.errors)));
  }

  MetricFamily files = Family("iofleet_files_ops_total", "Files step operations done, per phase and agent", MetricType::Counter);
  MetricFamily copy_files = Family("iofleet_copy_files_total", "Files copied, per agent", MetricType::Counter);
  MetricFamily copy_bytes = Family("iofleet_copy_bytes_total", "Bytes copied, per agent", MetricType::Counter);
  for (const auto& t : live_.TaskSeries()) {
    if (t.kind == "files") {
      files.metric.push_back(Counter({{"workload", workload}, {"step", t.step}, {"phase", t.phase}, {"agent", t.agent}},
                                     static_cast<double>(t.ops)));
    } else {
      const std::vector<ClientMetric::Label> labels = {{"workload", workload}, {"step", t.step}, {"agent", t.agent}};
      copy_files.metric.push_back(Counter(labels, static_cast<double>(t.ops)));
      copy_bytes.metric.push_back(Counter(labels, static_cast<double>(t.bytes)));
    }
  }

  MetricFamily agents = Family("iofleet_fleet_agents", "Agents of the run by state", MetricType::Gauge);
  agents.metric.push_back(Gauge({{"state", "connected"}}, static_cast<double>(s.agents.size() - s.lost)));
  agents.metric.push_back(Gauge({{"state", "lost"}}, static_cast<double>(s.lost)));
  MetricFamily rejected = Family("iofleet_fleet_progress_rejected_total", "Progress messages refused as malformed, per agent", MetricType::Counter);
  for (const auto& r : live_.RejectedSeries()) rejected.metric.push_back(Counter({{"agent", r.agent}}, static_cast<double>(r.rejected)));

  for (MetricFamily* f : {&ops, &bytes, &latency, &error_family, &files, &copy_files, &copy_bytes, &agents, &rejected}) {
    out.push_back(std::move(*f));
  }
  // A files phase's step is labelled as the agents label it: the step's own name.
  const std::string step_name = MetricStepName(s.step);
  if (!s.step.name.empty()) {
    const std::vector<ClientMetric::Label> step_labels = {{"workload", workload}, {"step", step_name}};
    MetricFamily skew = Family("iofleet_step_start_skew_seconds", "Spread of the agents' start instants of the current (or last) step", MetricType::Gauge);
    if (s.start_skew_s) skew.metric.push_back(Gauge(step_labels, *s.start_skew_s));
    out.push_back(skew);
  }
  if (s.running) {
    const std::vector<ClientMetric::Label> step_labels = {{"workload", workload}, {"step", step_name}};
    MetricFamily info = Family("iofleet_run_info", "The run and its current step", MetricType::Gauge);
    info.metric.push_back(Gauge({{"run_id", s.run_id}, {"workload", workload}, {"step", step_name},
                                 {"point", std::to_string(s.step.point)}, {"cycle", std::to_string(s.step.cycle)}}, 1));
    MetricFamily elapsed = Family("iofleet_step_elapsed_seconds", "The largest elapsed time (ramp included) the current step's agents last reported", MetricType::Gauge);
    elapsed.metric.push_back(Gauge(step_labels, s.clock.elapsed_s));
    MetricFamily expected = Family("iofleet_step_expected_seconds", "The current step's expected length: ramp + runtime, or elapsed + ETA at the current rate", MetricType::Gauge);
    if (s.clock.expected_s) expected.metric.push_back(Gauge(step_labels, *s.clock.expected_s));
    out.push_back(info);
    out.push_back(elapsed);
    out.push_back(expected);
  }
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(const std::string& address, const LiveRun& live) {
  if (!ValidAddress(address)) {
    return Status(Code::kInvalidArgument, "--metrics " + address + ": expected HOST:PORT, e.g. 127.0.0.1:9100");
  }
  const size_t colon = address.rfind(':');
  MetricsHttpOptions options;
  options.host = address.substr(0, colon);
  options.port = std::stoi(address.substr(colon + 1));
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  server->collector_ = std::make_shared<LiveCollector>(live);
  // One thread builds the expositions (a scrape takes the live model's lock briefly); waiting
  // clients take none.
  auto http = MetricsHttpServer::Start(options, [collector = server->collector_] {
    return prometheus::TextSerializer().Serialize(collector->Collect());
  });
  if (!http.ok()) return Status(Code::kInvalidArgument, "--metrics " + address + ": cannot listen there (" + http.status().message() + ")");
  server->http_ = std::move(http).value();
  return server;
}

int MetricsServer::port() const { return http_->port(); }

}  // namespace iofleet::controller
