// A workload's settings, parsed once: every value of `sweep` and every override's `set` becomes
// a typed FieldSetting when the workload loads (or a --set changes it), so that expanding the
// sweep and applying an agent's overrides only copy fields and read no YAML.
#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <vector>

#include "core/base/status.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

// A value that does not parse: `where` is its place in the workload ("sweep.jobs",
// "agents.overrides[0].set.defaults.jobs"), for the loader's file:line:col.
struct SettingError {
  std::string where;
  std::string message;
};

// Parses `sweep` into `sweep_axes` (axes in path order, values in list order) and each
// override's `set` into its `settings` (in path order), replacing what they held. Every value
// is checked as the loader checks a field; paths name steps as `workload` does now.
std::vector<SettingError> ParseSettings(v1::Workload& workload);

// The workload without its sweep, parsed sweep and agents: what a setting is parsed against and
// what an override is checked on (neither reaches those fields).
v1::Workload WithoutSettings(const v1::Workload& workload);

// Sets the one field `setting` holds in `workload`, at its resolved path. The path's list
// elements must exist (the planner checks that sweeps and overrides keep the steps).
Status ApplySetting(v1::Workload& workload, const v1::FieldSetting& setting);

// Copies the field (or list element) at `at` from `from` to `to`, replacing it. `grow`: add the
// empty list elements `to` lacks on the way (building a setting's value), else a missing
// element is an error.
Status CopyAt(const google::protobuf::Message& from, google::protobuf::Message& to,
              const google::protobuf::RepeatedPtrField<v1::FieldStep>& at, bool grow);

}  // namespace iofleet::controller
