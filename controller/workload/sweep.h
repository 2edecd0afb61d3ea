// Expands `sweep` into its points: the cartesian product of every swept path's values, axes in
// path order, the last axis fastest.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

struct SweepPoint {
  v1::Workload workload;                                   // the values set; sweep cleared
  std::vector<std::pair<std::string, std::string>> params;  // path -> value as written
};

// One point (the workload itself) when nothing is swept. The values are the ones parsed when
// the workload loaded (sweep_axes): expanding reads no YAML.
Result<std::vector<SweepPoint>> ExpandSweep(const v1::Workload& workload);

}  // namespace iofleet::controller
