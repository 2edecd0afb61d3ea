// The agent's Prometheus collector (Redpanda's probe pattern): registered with the Exposer, it
// runs on the HTTP server's thread when Prometheus scrapes. It takes what it reads from the
// supervisor in one piece (Supervisor::ForMetrics, a few pointers under its lock), then reads
// the live step's job counters and folds their histograms without any lock. Job threads never
// call it, lock nothing and allocate nothing for it.
//
// Thread-safety: Collect may run on several server threads at once.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <mutex>

#include "agent/metrics/agent_metrics.h"
#include "agent/run/supervisor.h"

namespace iofleet::agent {

class AgentCollector final : public prometheus::Collectable {
 public:
  AgentCollector(const Supervisor& supervisor, AgentIdentity identity);

  std::vector<prometheus::MetricFamily> Collect() const override;
  // What a scrape shows now.
  AgentMetrics Gather() const;

 private:
  const Supervisor& supervisor_;
  const AgentIdentity identity_;
  // The job CPU shown last: live readings (tick-grained, whole threads) and finished steps'
  // exact figures (measurement window only) differ, and a counter must never go back.
  mutable std::mutex cpu_mu_;
  mutable uint64_t shown_user_ns_ = 0;
  mutable uint64_t shown_sys_ns_ = 0;
};

}  // namespace iofleet::agent
