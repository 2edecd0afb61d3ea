// Loads a YAML workload into the proto model, guided by the proto descriptors: every key must
// be a field, every value must parse as that field's type and unit and lie in its range. All
// errors are collected, each with file:line:col, and near-miss keys get a suggestion.
#pragma once

#include <google/protobuf/message.h>

#include <string>
#include <vector>

#include "controller/workload/source_map.h"
#include "core/base/status.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

struct LoadedWorkload {
  v1::Workload workload;
  SourceMap sources;
  std::vector<std::string> errors;  // formatted; empty when the workload is valid
};

// Parses and validates (core/rules) the workload at `path`.
LoadedWorkload LoadWorkloadFile(const std::string& path);

// Sets the field at `path` of `workload` to `value` (YAML text), with the loader's checks.
// Paths start at the workload root (DESIGN.md section 3): "defaults.jobs",
// "steps[read].io.block_size" (a step by name or index), and a path whose first element is not
// a top-level key means the same under defaults ("jobs" = "defaults.jobs"). A list value
// replaces the list. Errors begin with `where`. The sweep's and overrides' settings are parsed
// again afterwards (field_settings.h).
Status SetWorkloadPath(v1::Workload& workload, const std::string& path, const std::string& value,
                       const std::string& where);

// The text after "PREFIX: " of a message that begins with PREFIX (SetWorkloadPath's `where`,
// or any other such place), else the whole message: for callers that name the place themselves.
inline std::string After(const std::string& message, const std::string& prefix) {
  return message.rfind(prefix + ": ", 0) == 0 ? message.substr(prefix.size() + 2) : message;
}

// One value for `path` parsed against `base` (steps chosen by name as it names them), as
// SetWorkloadPath would set it: the sweep's and the overrides' values (field_settings.h). `base`
// is WithoutSettings(workload).
Result<v1::FieldSetting> ParseSetting(const v1::Workload& base, const std::string& path, const std::string& text,
                                      const std::string& where);

// The workload as agent `name` at `address` runs it: every matching override applied (from
// the settings parsed when it loaded: no YAML is read).
Result<v1::Workload> ForAgent(const v1::Workload& workload, const std::string& name, const std::string& address);
// The same for YAML text; `file` names it in messages.
LoadedWorkload LoadWorkloadText(const std::string& text, const std::string& file);

// Any message from YAML text with the workload loader's rules (keys are field names, near
// misses get a suggestion, units and bounds from the field options, map<string, string> and
// map<string, Message> fields, a oneof set once) and no validation beyond them. `sources` is
// reset to `file` and records where each field was written; `root` names the document in
// messages ("config: unknown key ..."). Every error is "file:line:col: path: message".
std::vector<std::string> LoadYamlMessage(const std::string& text, const std::string& file, google::protobuf::Message* out,
                                         SourceMap& sources, const std::string& root = "config");

}  // namespace iofleet::controller
