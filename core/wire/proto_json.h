// A protobuf message as one of iofleet's JSON documents (report.json), by its descriptor and the
// options of proto/iofleet/v1/json.proto. Not protobuf's own JSON mapping, which writes 64-bit
// integers as strings and has no ordered objects or pairs:
//   - a key is the field's name, keys in field order; integers are JSON numbers, doubles are
//     written with a fraction (2.0), enums by their json_text;
//   - a field is written when it is present: a message or `optional` scalar when set, a plain
//     scalar always, a repeated field always unless omit_empty;
//   - the forms OBJECT, PAIR, INLINE and LIST of JsonForm.
// Reading is strict: a key the message does not have, a value of the wrong JSON type, an integer
// out of its field's range, an enum text that is not one of its values are errors naming the key's
// path ("steps[2].aggregate.ops"). A key that is absent leaves its field absent.
#pragma once

#include <google/protobuf/generated_enum_reflection.h>
#include <google/protobuf/message.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/base/status.h"

namespace iofleet::wire {

nlohmann::ordered_json ToJson(const google::protobuf::Message& message);

// `json` into `message` (cleared first). Errors name the path below `where` ("report.json").
Status FromJson(const nlohmann::ordered_json& json, google::protobuf::Message& message, const std::string& where);

// An enum value's text in the documents ("succeeded", "not enough history"): its json_text; ""
// for 0 (UNSPECIFIED, never written: the value of a key a document lacks).
std::string EnumTextOf(const google::protobuf::EnumValueDescriptor* value);
template <typename Enum>
std::string EnumText(Enum value) {
  return EnumTextOf(google::protobuf::GetEnumDescriptor<Enum>()->FindValueByNumber(value));
}

// The enum value whose text is `text` (as EnumText writes it); nothing for "" or an unknown text.
std::optional<int> EnumNumberOfText(const google::protobuf::EnumDescriptor* type, const std::string& text);
template <typename Enum>
std::optional<Enum> EnumFromText(const std::string& text) {
  auto number = EnumNumberOfText(google::protobuf::GetEnumDescriptor<Enum>(), text);
  return number ? std::optional<Enum>(static_cast<Enum>(*number)) : std::nullopt;
}

}  // namespace iofleet::wire
