// The agent's metrics in Prometheus's data model, names and labels as DESIGN.md section 5b
// binds them. Every family is always there (empty when there is no run), so a scrape of an idle
// agent still lists what the agent can export.
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "agent/metrics/agent_metrics.h"

namespace iofleet::agent {

std::vector<prometheus::MetricFamily> Expose(const AgentMetrics& metrics);

}  // namespace iofleet::agent
