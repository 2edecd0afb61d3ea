// What an agent receives in Prepare, checked with the controller's rules before anything is
// made: the agent trusts nothing from the wire (a block_size of 0 divided by zero, a queue depth
// of 0 spun a core, a psync queue depth of 4294967295 threw out of the handler). The rules are
// those of core/rules/validate.h and the schema's own bounds (core/rules/field_bounds.h), plus what
// only a planned step has: every field resolved, total_jobs spread into jobs, a block in every
// job's range, shared_global job indexes that fit.
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/rules/validate.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::rules {

// Every violation, each with its path in the request ("steps[2].io.queue_depth", "run_id").
std::vector<Violation> CheckPrepareRequest(const v1::PrepareRequest& request);

// The rules on one planned step; `path` is "steps[2]", `target_root` the request's target root
// name ("default" when empty). The planner runs this on every step it makes, the agent on every
// step it receives.
void CheckPlannedStep(const v1::PlannedStep& step, const std::string& path, const std::string& target_root,
                      std::vector<Violation>& out);

// CheckPrepareRequest as the agent answers it: OK, or INVALID_ARGUMENT with one line per
// violation (the first 20), each naming the agent, the field and the step's name where it has one:
// "agent node1: refused plan: steps[2].io.queue_depth (step read): 0 is below the minimum 1".
Status CheckPrepare(const v1::PrepareRequest& request, const std::string& agent_name);

}  // namespace iofleet::rules
