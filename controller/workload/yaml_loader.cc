#include "controller/workload/yaml_loader.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "controller/workload/proto_names.h"
#include "core/base/units.h"
#include "core/spec/validate.h"

namespace iofleet::controller {
namespace {

namespace pb = google::protobuf;

SourcePosition PositionOf(const YAML::Node& node) {
  YAML::Mark mark = node.Mark();
  return {mark.line + 1, mark.column + 1};
}

class Loader {
 public:
  Loader(LoadedWorkload& out, const std::string& text) : out_(out), text_(text) {}

  void LoadMessage(const YAML::Node& node, pb::Message* message, const std::string& path);

 private:
  void Error(const YAML::Node& node, const std::string& path, const std::string& message) {
    SourcePosition p = PositionOf(node);
    out_.errors.push_back(out_.sources.file() + ":" + std::to_string(p.line) + ":" +
                          std::to_string(p.column) + ": " + path + ": " + message);
  }
  void LoadField(const YAML::Node& value, pb::Message* message, const pb::FieldDescriptor* field,
                 const std::string& path);
  void LoadScalar(const YAML::Node& value, pb::Message* message, const pb::FieldDescriptor* field,
                  const std::string& path);
  bool ParseUnsigned(const YAML::Node& value, const pb::FieldDescriptor* field,
                     const std::string& path, uint64_t& out);

  // The word written at a node's position: yaml-cpp keeps no text for null scalars.
  std::string WordAt(const YAML::Node& node) const {
    size_t pos = static_cast<size_t>(std::max(0, node.Mark().pos));
    size_t end = text_.find_first_of(" \t\r\n,}]#", pos);
    return pos < text_.size() ? text_.substr(pos, end == std::string::npos ? std::string::npos : end - pos) : "";
  }

  LoadedWorkload& out_;
  const std::string& text_;
};

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

void Loader::LoadMessage(const YAML::Node& node, pb::Message* message, const std::string& path) {
  const pb::Descriptor* desc = message->GetDescriptor();
  if (node.IsNull()) return;  // `drop_caches:` or `{}`: a message with every field unset
  if (!node.IsMap()) {
    Error(node, path.empty() ? "workload" : path, "expected a map of fields");
    return;
  }
  std::vector<std::string> names;
  for (int i = 0; i < desc->field_count(); ++i) names.push_back(desc->field(i)->name());

  std::set<std::string> seen;
  std::map<const pb::OneofDescriptor*, std::string> oneof_taken;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node& key = it->first;
    std::string name = key.IsScalar() ? key.Scalar() : std::string("?");
    std::string field_path = Join(path, name);
    if (!key.IsScalar()) {
      Error(key, path.empty() ? "workload" : path, "keys must be plain names");
      continue;
    }
    if (!seen.insert(name).second) {
      Error(key, field_path, "given twice");
      continue;
    }
    const pb::FieldDescriptor* field = desc->FindFieldByName(name);
    if (!field) {
      std::string hint = NearestName(name, names);
      std::string where = path.empty() ? "the workload" : path;
      Error(key, field_path, "unknown key" + (hint.empty() ? " (" + where + " takes: " + [&] {
                                 std::string all;
                                 for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
                                 return all;
                               }() + ")"
                                                           : " (did you mean " + hint + "?)"));
      continue;
    }
    if (const pb::OneofDescriptor* oneof = field->real_containing_oneof()) {
      auto [taken, inserted] = oneof_taken.emplace(oneof, name);
      if (!inserted) {
        Error(key, field_path, "a " + desc->name() + " takes one " + oneof->name() + "; it already has " + taken->second);
        continue;
      }
    }
    out_.sources.Set(field_path, PositionOf(key));
    LoadField(it->second, message, field, field_path);
  }
}

void Loader::LoadField(const YAML::Node& value, pb::Message* message,
                       const pb::FieldDescriptor* field, const std::string& path) {
  const pb::Reflection* refl = message->GetReflection();
  if (field->is_repeated()) {
    if (!value.IsSequence()) {
      Error(value, path, "expected a list");
      return;
    }
    for (size_t i = 0; i < value.size(); ++i) {
      std::string item_path = path + "[" + std::to_string(i) + "]";
      out_.sources.Set(item_path, PositionOf(value[i]));
      if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        LoadMessage(value[i], refl->AddMessage(message, field), item_path);
      } else {
        LoadScalar(value[i], message, field, item_path);
      }
    }
    return;
  }
  if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
    LoadMessage(value, refl->MutableMessage(message, field), path);
    return;
  }
  LoadScalar(value, message, field, path);
}

bool Loader::ParseUnsigned(const YAML::Node& value, const pb::FieldDescriptor* field,
                           const std::string& path, uint64_t& out) {
  const std::string& text = value.Scalar();
  v1::Unit unit = field->options().GetExtension(v1::unit);
  Result<uint64_t> parsed = uint64_t{0};
  if (!text.empty() && text[0] == '-') {
    Error(value, path, "\"" + text + "\" must not be negative");
    return false;
  }
  if (unit == v1::UNIT_SIZE) {
    parsed = ParseSize(text);
  } else if (unit == v1::UNIT_DURATION) {
    parsed = ParseDuration(text);
  } else {
    bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || text.size() > 19) {
      Error(value, path, "\"" + text + "\" is not a whole number");
      return false;
    }
    parsed = std::stoull(text);
  }
  if (!parsed.ok()) {
    Error(value, path, parsed.status().message());
    return false;
  }
  uint64_t v = *parsed;
  auto show = [&](uint64_t x) { return unit == v1::UNIT_SIZE ? FormatSize(x) : unit == v1::UNIT_DURATION ? FormatDuration(x) : std::to_string(x); };
  const pb::FieldOptions& options = field->options();
  if (options.HasExtension(v1::min) && v < options.GetExtension(v1::min)) {
    Error(value, path, show(v) + " is below the minimum " + show(options.GetExtension(v1::min)));
    return false;
  }
  uint64_t max = options.HasExtension(v1::max) ? options.GetExtension(v1::max)
                 : field->cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT32 ? std::numeric_limits<uint32_t>::max()
                                                                           : std::numeric_limits<uint64_t>::max();
  if (v > max) {
    Error(value, path, show(v) + " is above the maximum " + show(max));
    return false;
  }
  out = v;
  return true;
}

void Loader::LoadScalar(const YAML::Node& value, pb::Message* message,
                        const pb::FieldDescriptor* field, const std::string& path) {
  const pb::Reflection* refl = message->GetReflection();
  if (!value.IsScalar()) {
    if (value.IsNull()) {
      const std::string text = WordAt(value);
      bool word = text == "null" || text == "Null" || text == "NULL" || text == "~";
      Error(value, path, word ? "needs a value (YAML reads " + text + " as empty: write \"" + text + "\" in quotes)"
                              : "needs a value");
    } else {
      Error(value, path, "expected a single value, not a list or map");
    }
    return;
  }
  const std::string& text = value.Scalar();
  const bool repeated = field->is_repeated();
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_BOOL: {
      if (text != "true" && text != "false") {
        Error(value, path, "\"" + text + "\" is not true or false");
        return;
      }
      repeated ? refl->AddBool(message, field, text == "true") : refl->SetBool(message, field, text == "true");
      return;
    }
    case pb::FieldDescriptor::CPPTYPE_UINT32:
    case pb::FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t v = 0;
      if (!ParseUnsigned(value, field, path, v)) return;
      if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT32) {
        repeated ? refl->AddUInt32(message, field, static_cast<uint32_t>(v))
                 : refl->SetUInt32(message, field, static_cast<uint32_t>(v));
      } else {
        repeated ? refl->AddUInt64(message, field, v) : refl->SetUInt64(message, field, v);
      }
      return;
    }
    case pb::FieldDescriptor::CPPTYPE_STRING:
      repeated ? refl->AddString(message, field, text) : refl->SetString(message, field, text);
      return;
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      const auto* v = EnumValueFromYaml(field->enum_type(), text);
      if (!v) {
        std::vector<std::string> choices;
        for (int i = 0; i < field->enum_type()->value_count(); ++i) {
          if (field->enum_type()->value(i)->number() != 0) choices.push_back(EnumValueToYaml(field->enum_type()->value(i)));
        }
        std::string hint = NearestName(text, choices);
        Error(value, path, "\"" + text + "\" is not one of: " + EnumChoices(field->enum_type()) +
                               (hint.empty() ? "" : " (did you mean " + hint + "?)"));
        return;
      }
      repeated ? refl->AddEnum(message, field, v) : refl->SetEnum(message, field, v);
      return;
    }
    default:
      Error(value, path, "this field type is not supported by the loader");
      return;
  }
}

}  // namespace

LoadedWorkload LoadWorkloadText(const std::string& text, const std::string& file) {
  LoadedWorkload out;
  out.sources = SourceMap(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    out.errors.push_back(file + ":" + std::to_string(e.mark.line + 1) + ":" +
                         std::to_string(e.mark.column + 1) + ": " + e.msg);
    return out;
  }
  if (!root.IsMap()) {
    out.errors.push_back(file + ":1:1: a workload is a YAML map (name, defaults, steps, ...)");
    return out;
  }
  Loader(out, text).LoadMessage(root, &out.workload, "");
  if (!out.errors.empty()) return out;
  for (const spec::Violation& v : spec::Validate(out.workload)) {
    out.errors.push_back(out.sources.Format(v.path, v.message));
  }
  return out;
}

LoadedWorkload LoadWorkloadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    LoadedWorkload out;
    out.sources = SourceMap(path);
    out.errors.push_back(path + ": cannot read: " + std::strerror(errno));
    return out;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return LoadWorkloadText(buffer.str(), path);
}

}  // namespace iofleet::controller
