// Which agent held a step back, and by how much. Throughput steps (io, copy) rank agents by
// bytes_per_sec (ops when none moved bytes), steps that only take time (files phases, sync,
// drop_caches, hooks) by their seconds; an agent the plan gave no job is no candidate (it did
// nothing, which is not slow). The lead over the median says whether it matters.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/report/report_model.h"

namespace iofleet::controller {

struct SlowestAgent {
  std::string agent;
  // How far it trails the median of the agents that had work: (median - its throughput) /
  // median, or (its seconds - median) / median, in percent; 0 for one agent or equal agents.
  double trails_median_pct = 0;
};

// nullopt when no agent has a figure (none had work, or none ran).
std::optional<SlowestAgent> FindSlowestAgent(const std::vector<AgentStep>& agents, bool by_time);

// True for steps ranked by time rather than throughput.
bool RanksByTime(const std::string& kind);

// The console, report.md and report.html mark the slowest agent only when it trails the median by
// more than this. Identical agents here (three local agents on one disk, the same step) differed
// by up to 7% in one run (docs/report-schema.md, "slowest_agent"): a smaller lead is noise.
inline constexpr double kMarkSlowestAbovePct = 10.0;

}  // namespace iofleet::controller
