// The per-field rules the proto itself states, checked on any message by walking its
// descriptors: integer bounds from the (min)/(max) options of proto/iofleet/v1/workload.proto,
// enum values that are known and not UNSPECIFIED, and strings without a NUL byte. A field added
// to the schema with bounds is checked with no new code here.
#pragma once

#include <google/protobuf/message.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rules/validate.h"

namespace iofleet::rules {

// How to read fields without presence (proto3 scalars not marked optional): in a workload as
// written, 0 means "not given, use the default"; in a planned step everything is resolved, so
// 0 is the value the agent will use and must lie in the field's bounds.
enum class ZeroMeans { kUnset, kValue };

// Every violation in `message` and the messages below it, each with its path below `path`
// ("steps[2].io" + ".queue_depth"). Fields with presence are checked when set; repeated and map
// fields element by element. An enum must be a value the schema knows (proto3 enums are open:
// 255 arrives as 255), and a field that is set must not hold its UNSPECIFIED (0) value.
// `leave_out` names fields of `message` itself that the caller checks on its own (e.g. the
// steps of a request, checked one by one).
// The one bound check of every front end (the YAML loader, the fio import, the checks below):
// the bound an integer `value` for `field` falls outside of, its (min) or (max) option, else the
// range of the field's type; nothing when it is within.
struct Bound {
  bool below;      // below the minimum, else above the maximum
  uint64_t limit;
};
std::optional<Bound> OutOfBounds(const google::protobuf::FieldDescriptor* field, uint64_t value);
// "is below the minimum 512B": the limit in the field's unit (a size, a duration, a number).
std::string BoundText(const google::protobuf::FieldDescriptor* field, const Bound& bound);
// `value` in the field's unit.
std::string ShowValue(const google::protobuf::FieldDescriptor* field, uint64_t value);

void CheckFieldBounds(const google::protobuf::Message& message, const std::string& path, ZeroMeans zero,
                      std::vector<Violation>& out, const std::vector<std::string>& leave_out = {});

}  // namespace iofleet::rules
