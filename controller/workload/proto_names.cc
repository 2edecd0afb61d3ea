#include "controller/workload/proto_names.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {
namespace {

// "FileLayout" -> "FILE_LAYOUT_"
std::string EnumPrefix(const google::protobuf::EnumDescriptor* type) {
  std::string prefix;
  for (char c : type->name()) {
    if (std::isupper(static_cast<unsigned char>(c)) && !prefix.empty()) prefix += '_';
    prefix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return prefix + "_";
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string EnumValueToYaml(const google::protobuf::EnumValueDescriptor* value) {
  std::string name = value->name();
  std::string prefix = EnumPrefix(value->type());
  if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

const google::protobuf::EnumValueDescriptor* EnumValueFromYaml(
    const google::protobuf::EnumDescriptor* type, const std::string& text) {
  for (int i = 0; i < type->value_count(); ++i) {
    const auto* value = type->value(i);
    if (value->number() != 0 && EnumValueToYaml(value) == text) return value;
  }
  return nullptr;
}

std::string EnumChoices(const google::protobuf::EnumDescriptor* type) {
  std::string out;
  for (int i = 0; i < type->value_count(); ++i) {
    if (type->value(i)->number() == 0) continue;
    out += (out.empty() ? "" : ", ") + EnumValueToYaml(type->value(i));
  }
  return out;
}

std::string NearestName(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = 3;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length: skip the full comparison then (a long
    // unknown word would otherwise cost its length x every name).
    size_t length_gap = word.size() > c.size() ? word.size() - c.size() : c.size() - word.size();
    if (length_gap >= best_distance) continue;
    size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

bool IsParsedField(const google::protobuf::FieldDescriptor* field) {
  return !field->options().GetExtension(v1::parsed_from).empty();
}

const google::protobuf::FieldDescriptor* YamlField(const google::protobuf::Descriptor* type, const std::string& name) {
  const google::protobuf::FieldDescriptor* field = type->FindFieldByName(name);
  return field && !IsParsedField(field) ? field : nullptr;
}

std::vector<std::string> YamlFieldNames(const google::protobuf::Descriptor* type) {
  std::vector<std::string> names;
  for (int i = 0; i < type->field_count(); ++i) {
    if (!IsParsedField(type->field(i))) names.push_back(type->field(i)->name());
  }
  return names;
}

}  // namespace iofleet::controller
