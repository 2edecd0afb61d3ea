// What one scrape of an agent shows, as plain data: gathered from the supervisor and the live
// step's job counters (agent/metrics/agent_collector.h), exposed in Prometheus's terms
// (agent/metrics/exposition.h). Tests build it by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "agent/stats/run_totals.h"
#include "agent/run/agent_state.h"

namespace iofleet::agent {

struct AgentIdentity {
  std::string agent;     // --name, else the hostname
  std::string version;   // IOFLEET_VERSION
  std::string revision;  // iofleet::Revision(): the git revision the binary was built from
};

struct RunningStep {
  std::string step;
  uint32_t point = 0;
  uint32_t cycle = 0;
};

struct AgentMetrics {
  AgentIdentity identity;
  AgentState state = AgentState::kIdle;
  // The active run: finished steps and the live one added up (no run: no run series at all).
  std::optional<RunTotals> run;
  std::optional<RunningStep> running;
  // Since the agent started; never lower than a value shown before.
  uint64_t job_cpu_user_ns = 0;
  uint64_t job_cpu_sys_ns = 0;
};

}  // namespace iofleet::agent
