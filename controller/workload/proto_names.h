// How proto names appear in YAML: enum values are lower-case without the enum's prefix
// (Engine ENGINE_LIBAIO <-> "libaio"), so the .proto stays the single spelling of each name.
#pragma once

#include <google/protobuf/descriptor.h>

#include <string>

namespace iofleet::controller {

std::string EnumValueToYaml(const google::protobuf::EnumValueDescriptor* value);
// nullptr when `text` names no value (the UNSPECIFIED zero value is never accepted).
const google::protobuf::EnumValueDescriptor* EnumValueFromYaml(
    const google::protobuf::EnumDescriptor* type, const std::string& text);
// "psync, libaio" for messages.
std::string EnumChoices(const google::protobuf::EnumDescriptor* type);

// The closest candidate within edit distance 2, or "".
std::string NearestName(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace iofleet::controller
