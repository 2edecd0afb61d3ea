// What every report holds before it is written (DESIGN.md section 5): a figure that breaks one
// is not printed as a success. Each check is on the merged figures alone, so a fault anywhere
// upstream (a lost row, a double merge, a window from a stale clock) shows here.
#pragma once

#include <string>
#include <vector>

#include "controller/report/report_model.h"

namespace iofleet::controller {

// Checks every step (and every phase of a files step):
//   "aggregate = sum of agents": ops, bytes, and read and write ops and bytes;
//   "agent window within the step": no agent's window is longer than the step's;
//   "every agent has a result": a succeeded step (not sleep, which is the controller's) has
//     exactly one row per agent of the run;
//   "agents ran their course": in a succeeded step without stonewall, no agent was stopped
//     early (its result would be part of its share, e.g. an agent shut down mid-step);
//   "an io step moves bytes": a succeeded io step that was not stopped early moved some.
// A broken invariant turns a succeeded step to failed, and a succeeded run to failed with the
// first message as its error. Returns every message ("step S: invariant "I" broken [by agent
// A]: what was found"), for steps already failed too.
std::vector<std::string> CheckInvariants(RunReport& report);

}  // namespace iofleet::controller
