// What each agent will run: sweep points expanded, each agent's overrides applied, every step
// resolved and sized for the whole fleet (total_jobs spread, total_size split, shared_global job
// indexes, read_from peers). Pure: no agent is contacted.
#pragma once

#include <string>
#include <vector>

#include "controller/workload/sweep.h"
#include "core/base/status.h"
#include "core/rules/step_tree.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::controller {

struct AgentId {
  std::string name;
  std::string address;
};

struct RunPlan {
  std::vector<SweepPoint> points;                      // one when nothing is swept
  std::vector<v1::Workload> workloads;                 // per agent, its overrides applied
  // The steps that run, groups opened (core/rules/step_tree.h): each is planned once, and the
  // run manager runs a group's leaves its repeat times. The same at every point, on every agent.
  std::vector<rules::LeafStep> leaves;
  // Per agent: every point's leaf steps, point after point (leaf s of point p is
  // p * leaves.size() + s).
  std::vector<std::vector<v1::PlannedStep>> steps;
};

// Errors: one line each, joined by newlines.
Result<RunPlan> MakePlan(const v1::Workload& workload, const std::vector<AgentId>& agents);

// `iofleet validate`'s summary of a plan: points x steps x agents, jobs, files and bytes per
// agent, and what the duration will be. Lines start with "# " so the output stays YAML.
std::string DescribePlan(const v1::Workload& workload, const RunPlan& plan, const std::vector<AgentId>& agents);

}  // namespace iofleet::controller
