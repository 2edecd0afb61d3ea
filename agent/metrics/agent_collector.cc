#include "agent/metrics/agent_collector.h"

#include <algorithm>
#include <iostream>

#include "agent/metrics/exposition.h"
#include "agent/metrics/thread_cpu_reader.h"

namespace iofleet::agent {

AgentCollector::AgentCollector(const Supervisor& supervisor, AgentIdentity identity)
    : supervisor_(supervisor), identity_(std::move(identity)) {}

AgentMetrics AgentCollector::Gather() const {
  const MetricsRefs refs = supervisor_.ForMetrics();
  AgentMetrics m;
  m.identity = identity_;
  m.state = refs.state;
  uint64_t user_ns = refs.finished_cpu_user_ns;
  uint64_t sys_ns = refs.finished_cpu_sys_ns;
  if (refs.run) {
    m.run = *refs.run;
    if (refs.live) {
      m.run->Add(refs.live_step, refs.live->Sample(), /*finished=*/false);
      m.running = RunningStep{refs.live_step, refs.live_point, refs.live_cycle};
      std::vector<int> tids;
      refs.live->JobThreadIds(tids);
      const ThreadsCpu live = ReadThreadsCpu(tids);
      user_ns += live.user_ns;
      sys_ns += live.sys_ns;
    }
  }
  std::lock_guard lock(cpu_mu_);
  shown_user_ns_ = std::max(shown_user_ns_, user_ns);
  shown_sys_ns_ = std::max(shown_sys_ns_, sys_ns);
  m.job_cpu_user_ns = shown_user_ns_;
  m.job_cpu_sys_ns = shown_sys_ns_;
  return m;
}

std::vector<prometheus::MetricFamily> AgentCollector::Collect() const {
  // Runs on the HTTP server's thread: nothing may escape (an exception there ends the process).
  try {
    return Expose(Gather());
  } catch (const std::exception& e) {
    std::cerr << "iofleet-agent: metrics: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "iofleet-agent: metrics: unknown exception\n";
  }
  return {};
}

}  // namespace iofleet::agent
