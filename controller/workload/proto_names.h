// How proto names appear in YAML: enum values are lower-case without the enum's prefix
// (Engine ENGINE_LIBAIO <-> "libaio"), so the .proto stays the single spelling of each name.
#pragma once

#include <google/protobuf/descriptor.h>

#include <string>
#include <vector>

namespace iofleet::controller {

std::string EnumValueToYaml(const google::protobuf::EnumValueDescriptor* value);
// nullptr when `text` names no value (the UNSPECIFIED zero value is never accepted).
const google::protobuf::EnumValueDescriptor* EnumValueFromYaml(
    const google::protobuf::EnumDescriptor* type, const std::string& text);
// "psync, libaio" for messages.
std::string EnumChoices(const google::protobuf::EnumDescriptor* type);

// A field the loader fills from another one (the (parsed_from) option: sweep_axes from sweep):
// no YAML key names it, the writer and the field reference leave it out.
bool IsParsedField(const google::protobuf::FieldDescriptor* field);
// The field YAML key `name` of `type` stands for, or nullptr (a parsed field is no key).
const google::protobuf::FieldDescriptor* YamlField(const google::protobuf::Descriptor* type, const std::string& name);
// Every field a YAML map of `type` may hold, in field order (for suggestions and messages).
std::vector<std::string> YamlFieldNames(const google::protobuf::Descriptor* type);

// The closest candidate within edit distance 2, or "".
std::string NearestName(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace iofleet::controller
