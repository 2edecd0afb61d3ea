// Loads a YAML workload into the proto model, guided by the proto descriptors: every key must
// be a field, every value must parse as that field's type and unit and lie in its range. All
// errors are collected, each with file:line:col, and near-miss keys get a suggestion.
#pragma once

#include <string>
#include <vector>

#include "controller/workload/source_map.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

struct LoadedWorkload {
  v1::Workload workload;
  SourceMap sources;
  std::vector<std::string> errors;  // formatted; empty when the workload is valid
};

// Parses and validates (core/spec) the workload at `path`.
LoadedWorkload LoadWorkloadFile(const std::string& path);
// The same for YAML text; `file` names it in messages.
LoadedWorkload LoadWorkloadText(const std::string& text, const std::string& file);

}  // namespace iofleet::controller
