#include "agent/metrics/exposition.h"

#include "core/metrics/histogram_metric.h"


namespace iofleet::agent {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

MetricFamily Family(const char* name, const char* help, MetricType type) {
  MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  return f;
}

void AddCounter(MetricFamily& f, Labels labels, double value) {
  ClientMetric m;
  m.label = std::move(labels);
  m.counter.value = value;
  f.metric.push_back(std::move(m));
}

void AddGauge(MetricFamily& f, Labels labels, double value) {
  ClientMetric m;
  m.label = std::move(labels);
  m.gauge.value = value;
  f.metric.push_back(std::move(m));
}

void AddHistogram(MetricFamily& f, Labels labels, const FoldedHistogram& h) {
  f.metric.push_back(HistogramMetric(std::move(labels), h));
}

double Seconds(uint64_t ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace

std::vector<MetricFamily> Expose(const AgentMetrics& m) {
  MetricFamily io_ops = Family("iofleet_io_ops_total", "I/Os completed inside the step's measurement window", MetricType::Counter);
  MetricFamily io_bytes = Family("iofleet_io_bytes_total", "Bytes of the I/Os completed inside the measurement window", MetricType::Counter);
  MetricFamily io_errors = Family("iofleet_io_errors_total", "I/O errors counted under continue_on_error, by reason", MetricType::Counter);
  MetricFamily io_fsyncs = Family("iofleet_io_fsyncs_total", "fsync calls of io steps", MetricType::Counter);
  MetricFamily io_latency = Family("iofleet_io_latency_seconds", "I/O latency (submission to completion), folded from the exact histogram", MetricType::Histogram);
  MetricFamily io_inflight = Family("iofleet_io_inflight", "Requests handed to the engine and not yet completed", MetricType::Gauge);
  MetricFamily files_ops = Family("iofleet_files_ops_total", "Entries a files step's phase handled", MetricType::Counter);
  MetricFamily files_latency = Family("iofleet_files_latency_seconds", "Latency of one entry of a files step's phase", MetricType::Histogram);
  MetricFamily copy_bytes = Family("iofleet_copy_bytes_total", "Bytes a copy step copied", MetricType::Counter);
  MetricFamily copy_files = Family("iofleet_copy_files_total", "Files a copy step copied", MetricType::Counter);
  MetricFamily run_info = Family("iofleet_run_info", "1 while the step runs: the run, the step, its sweep point and cycle", MetricType::Gauge);
  MetricFamily agent_info = Family("iofleet_agent_info", "1: the agent's name, version and git revision", MetricType::Gauge);
  MetricFamily agent_state = Family("iofleet_agent_state", "1 for the agent's current state, 0 for the others", MetricType::Gauge);
  MetricFamily job_cpu = Family("iofleet_agent_job_cpu_seconds_total", "CPU time of the agent's job threads", MetricType::Counter);

  if (m.run) {
    const std::string& workload = m.run->workload;
    for (const auto& [key, s] : m.run->io) {
      Labels labels = {{"workload", workload}, {"step", key.step}, {"op", key.op}, {"engine", key.engine}};
      AddCounter(io_ops, labels, static_cast<double>(s.ops));
      AddCounter(io_bytes, labels, static_cast<double>(s.bytes));
      for (size_t r = 0; r < s.errors.size(); ++r) {
        if (s.errors[r] == 0) continue;  // a reason's series appears with its first error
        Labels with_reason = labels;
        with_reason.push_back({"reason", std::string(ErrorReasonName(r))});
        AddCounter(io_errors, std::move(with_reason), static_cast<double>(s.errors[r]));
      }
      if (key.op == "write") AddCounter(io_fsyncs, labels, static_cast<double>(s.fsyncs));
      AddHistogram(io_latency, labels, s.latency);
      AddGauge(io_inflight, labels, static_cast<double>(s.inflight));
    }
    for (const auto& [key, s] : m.run->files) {
      Labels labels = {{"workload", workload}, {"step", key.step}, {"phase", key.phase}};
      AddCounter(files_ops, labels, static_cast<double>(s.ops));
      AddHistogram(files_latency, labels, s.latency);
    }
    for (const auto& [step, s] : m.run->copy) {
      Labels labels = {{"workload", workload}, {"step", step}};
      AddCounter(copy_bytes, labels, static_cast<double>(s.bytes));
      AddCounter(copy_files, labels, static_cast<double>(s.files));
    }
    if (m.running) {
      AddGauge(run_info,
               {{"run_id", m.run->run_id}, {"workload", workload}, {"step", m.running->step},
                {"point", std::to_string(m.running->point)}, {"cycle", std::to_string(m.running->cycle)}},
               1);
    }
  }
  AddGauge(agent_info, {{"agent", m.identity.agent}, {"version", m.identity.version}, {"revision", m.identity.revision}}, 1);
  for (AgentState s : kAllAgentStates) {
    AddGauge(agent_state, {{"state", std::string(AgentStateName(s))}}, s == m.state ? 1 : 0);
  }
  AddCounter(job_cpu, {{"mode", "user"}}, Seconds(m.job_cpu_user_ns));
  AddCounter(job_cpu, {{"mode", "system"}}, Seconds(m.job_cpu_sys_ns));

  std::vector<MetricFamily> out;
  for (MetricFamily* f : {&io_ops, &io_bytes, &io_errors, &io_fsyncs, &io_latency, &io_inflight, &files_ops,
                          &files_latency, &copy_bytes, &copy_files, &run_info, &agent_info, &agent_state, &job_cpu}) {
    out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace iofleet::agent
