#include "core/rules/field_bounds.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <limits>

#include "core/base/units.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::rules {
namespace {

namespace pb = google::protobuf;

void CheckInteger(const pb::FieldDescriptor* field, int64_t signed_value, uint64_t value, bool is_signed,
                  const std::string& path, std::vector<Violation>& out) {
  const pb::FieldOptions& options = field->options();
  if (is_signed && signed_value < 0) {
    if (options.HasExtension(v1::min)) out.push_back({path, std::to_string(signed_value) + " must not be negative"});
    return;
  }
  if (auto bound = OutOfBounds(field, value)) out.push_back({path, ShowValue(field, value) + " " + BoundText(field, *bound)});
}

void CheckEnum(const pb::FieldDescriptor* field, int number, const std::string& path, std::vector<Violation>& out) {
  const pb::EnumDescriptor* type = field->enum_type();
  const pb::EnumValueDescriptor* known = type->FindValueByNumber(number);
  if (!known) {
    out.push_back({path, std::to_string(number) + " is not a known " + type->name() + " value"});
  } else if (number == 0) {
    out.push_back({path, "is set to " + known->name() + ": name a value"});
  }
}

void CheckString(const std::string& value, const std::string& path, std::vector<Violation>& out) {
  if (value.find('\0') != std::string::npos) {
    out.push_back({path, "holds a NUL byte (at offset " + std::to_string(value.find('\0')) + "): no name or path may"});
  }
}

// One value of a field: element `index` of a repeated field, or the field itself (index -1).
void CheckValue(const pb::Message& message, const pb::FieldDescriptor* field, int index, const std::string& path,
                ZeroMeans zero, std::vector<Violation>& out) {
  const pb::Reflection* refl = message.GetReflection();
  const bool rep = index >= 0;
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_UINT32: {
      uint64_t v = rep ? refl->GetRepeatedUInt32(message, field, index) : refl->GetUInt32(message, field);
      CheckInteger(field, 0, v, false, path, out);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t v = rep ? refl->GetRepeatedUInt64(message, field, index) : refl->GetUInt64(message, field);
      CheckInteger(field, 0, v, false, path, out);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_INT32: {
      int64_t v = rep ? refl->GetRepeatedInt32(message, field, index) : refl->GetInt32(message, field);
      CheckInteger(field, v, static_cast<uint64_t>(v), true, path, out);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_INT64: {
      int64_t v = rep ? refl->GetRepeatedInt64(message, field, index) : refl->GetInt64(message, field);
      CheckInteger(field, v, static_cast<uint64_t>(v), true, path, out);
      break;
    }
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      CheckEnum(field, rep ? refl->GetRepeatedEnumValue(message, field, index) : refl->GetEnumValue(message, field), path,
                out);
      break;
    case pb::FieldDescriptor::CPPTYPE_STRING:
      CheckString(rep ? refl->GetRepeatedString(message, field, index) : refl->GetString(message, field), path, out);
      break;
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      CheckFieldBounds(rep ? refl->GetRepeatedMessage(message, field, index) : refl->GetMessage(message, field), path,
                       zero, out);
      break;
    default:
      break;  // bool, float, double: no bounds in the schema
  }
}

}  // namespace

std::string ShowValue(const pb::FieldDescriptor* field, uint64_t value) {
  switch (field->options().GetExtension(v1::unit)) {
    case v1::UNIT_SIZE: return FormatSize(value);
    case v1::UNIT_DURATION: return FormatDuration(value);
    default: return std::to_string(value);
  }
}

std::optional<Bound> OutOfBounds(const pb::FieldDescriptor* field, uint64_t value) {
  const pb::FieldOptions& options = field->options();
  if (options.HasExtension(v1::min) && value < options.GetExtension(v1::min)) return Bound{true, options.GetExtension(v1::min)};
  const bool narrow = field->cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT32 || field->cpp_type() == pb::FieldDescriptor::CPPTYPE_INT32;
  const uint64_t max = options.HasExtension(v1::max) ? options.GetExtension(v1::max)
                       : narrow                      ? std::numeric_limits<uint32_t>::max()
                                                     : std::numeric_limits<uint64_t>::max();
  if (value > max) return Bound{false, max};
  return std::nullopt;
}

std::string BoundText(const pb::FieldDescriptor* field, const Bound& bound) {
  return std::string(bound.below ? "is below the minimum " : "is above the maximum ") + ShowValue(field, bound.limit);
}

void CheckFieldBounds(const pb::Message& message, const std::string& path, ZeroMeans zero, std::vector<Violation>& out,
                      const std::vector<std::string>& leave_out) {
  const pb::Descriptor* desc = message.GetDescriptor();
  const pb::Reflection* refl = message.GetReflection();
  for (int i = 0; i < desc->field_count(); ++i) {
    const pb::FieldDescriptor* field = desc->field(i);
    if (std::find(leave_out.begin(), leave_out.end(), field->name()) != leave_out.end()) continue;
    const std::string field_path = path.empty() ? field->name() : path + "." + field->name();
    if (field->is_repeated()) {
      for (int k = 0, n = refl->FieldSize(message, field); k < n; ++k) {
        CheckValue(message, field, k, field_path + "[" + std::to_string(k) + "]", zero, out);
      }
      continue;
    }
    if (field->has_presence()) {
      // A message field or an optional scalar: only what is set (an unset oneof member too).
      if (refl->HasField(message, field)) CheckValue(message, field, -1, field_path, zero, out);
      continue;
    }
    // No presence: 0 (or "") is indistinguishable from unset on the wire. A resolved message
    // means it as a value, so its bounds apply; an enum's 0 without presence means "default".
    if (zero == ZeroMeans::kValue && field->cpp_type() != pb::FieldDescriptor::CPPTYPE_ENUM) {
      CheckValue(message, field, -1, field_path, zero, out);
    } else if (refl->HasField(message, field)) {
      CheckValue(message, field, -1, field_path, zero, out);
    }
  }
}

}  // namespace iofleet::rules
