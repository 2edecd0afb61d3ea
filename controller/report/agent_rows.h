// Which rows of a step's agents the console, report.md and report.html show. Up to
// kAgentRowsShown agents, one each; past it (10,000 agents would be 10,000 rows a step) each
// column's distribution over the agents and the slowest few. report.json and summary.csv keep
// every agent's row.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "iofleet/v1/report.pb.h"

namespace iofleet::controller {

inline constexpr size_t kAgentRowsShown = 16;
inline constexpr size_t kSlowestShown = 8;

struct ShownAgentRow {
  std::string label;  // the agent's name, or "agent p90" for a distribution row (12 characters at most: the console's column)
  v1::ReportFigures figures;
  const v1::ReportAgentFigures* agent = nullptr;  // null: a distribution row
};

// `by_time` ranks agents as slowest_agent.h does (time for steps that only take time, else
// throughput, ops where no agent moved bytes). A distribution row holds each column's value at
// min, p10, median, p90 and max over the agents, columns apart (its MiB/s and its p99 may be two
// agents'), by nearest rank. One agent or none: no rows (the step's own row is that agent's).
std::vector<ShownAgentRow> AgentRowsShown(const google::protobuf::RepeatedPtrField<v1::ReportAgentFigures>& agents, bool by_time);

// The note under a step whose agents were summarised: how many, what the rows are, where the rest is.
std::string AgentRowsNote(size_t agents);

}  // namespace iofleet::controller
