// Built-in defaults and their resolution: builtin <- workload defaults <- step.
#pragma once

#include "iofleet/v1/workload.pb.h"

namespace iofleet::spec {

// DESIGN.md section 3: engine libaio, direct true, block_size 1MiB, queue_depth 1, jobs 1,
// file_size 1GiB, runtime 0 (size-based). `op` has no default: every io step names its op.
v1::IoSpec BuiltinIoDefaults();

// The fully resolved I/O spec of steps[index] (which must be an io step).
v1::IoSpec ResolveIo(const v1::Workload& workload, int index);

// The step's name, or "<kind>-<index>" when it has none.
std::string StepName(const v1::Workload& workload, int index);
std::string StepKind(const v1::Step& step);

// The workload with every default written out (what workload.effective.yaml shows).
v1::Workload Effective(const v1::Workload& workload);

}  // namespace iofleet::spec
