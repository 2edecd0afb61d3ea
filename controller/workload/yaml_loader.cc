#include "controller/workload/yaml_loader.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <yaml-cpp/yaml.h>

#include <fnmatch.h>

#include <fstream>
#include <map>
#include <limits>
#include <set>
#include <sstream>

#include "controller/workload/field_settings.h"
#include "controller/workload/input_file.h"
#include "controller/workload/proto_names.h"
#include "controller/workload/sweep.h"
#include "core/base/units.h"
#include "core/rules/field_bounds.h"
#include "core/rules/defaults.h"
#include "core/rules/step_tree.h"
#include "core/rules/validate.h"

namespace iofleet::controller {
namespace {

namespace pb = google::protobuf;

SourcePosition PositionOf(const YAML::Node& node) {
  YAML::Mark mark = node.Mark();
  return {mark.line + 1, mark.column + 1};
}

// A string cut at a NUL byte names another place ("a\0b" opened as "a"): refused wherever one
// appears, in a key or a value, from a raw byte or a "\0" escape.
void RefuseNul(const YAML::Node& node, const std::string& file, const std::string& path, std::vector<std::string>& errors,
               const std::string& root = "workload") {
  auto refuse = [&](const YAML::Node& at, const std::string& where) {
    SourcePosition p = PositionOf(at);
    errors.push_back(file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": " +
                     (where.empty() ? root : where) + ": holds a NUL byte: no name, path or value may");
  };
  if (node.IsScalar()) {
    if (node.Scalar().find('\0') != std::string::npos) refuse(node, path);
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) RefuseNul(node[i], file, path + "[" + std::to_string(i) + "]", errors, root);
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      if (key.find('\0') != std::string::npos) {
        refuse(it->first, path);
        continue;
      }
      std::string child = path.empty() ? key : path + "." + key;
      RefuseNul(it->first, file, path, errors, root);  // a key that is itself a list or map
      RefuseNul(it->second, file, child, errors, root);
    }
  }
}

// Any proto message from YAML; `root` names the document in messages ("workload").
class Loader {
 public:
  Loader(SourceMap& sources, std::vector<std::string>& errors, const std::string& text, std::string root = "workload")
      : sources_(sources), errors_(errors), text_(text), root_(std::move(root)) {}
  Loader(LoadedWorkload& out, const std::string& text) : Loader(out.sources, out.errors, text) {}

  void LoadMessage(const YAML::Node& node, pb::Message* message, const std::string& path);
  void LoadField(const YAML::Node& value, pb::Message* message, const pb::FieldDescriptor* field,
                 const std::string& path);

 private:
  void Error(const YAML::Node& node, const std::string& path, const std::string& message) {
    SourcePosition p = PositionOf(node);
    errors_.push_back(sources_.file() + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": " + path +
                      ": " + message);
  }
  void LoadMap(const YAML::Node& value, pb::Message* message, const pb::FieldDescriptor* field,
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

  SourceMap& sources_;
  std::vector<std::string>& errors_;
  const std::string& text_;
  std::string root_;
};

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

void Loader::LoadMessage(const YAML::Node& node, pb::Message* message, const std::string& path) {
  const pb::Descriptor* desc = message->GetDescriptor();
  if (node.IsNull()) return;  // `drop_caches:` or `{}`: a message with every field unset
  if (!node.IsMap()) {
    Error(node, path.empty() ? root_ : path, "expected a map of fields");
    return;
  }
  const std::vector<std::string> names = YamlFieldNames(desc);

  std::set<std::string> seen;
  std::map<const pb::OneofDescriptor*, std::string> oneof_taken;
  for (auto it = node.begin(); it != node.end(); ++it) {
    // A copy, not a reference: yaml-cpp's `it->first` is a member of a temporary proxy.
    const YAML::Node key = it->first;
    std::string name = key.IsScalar() ? key.Scalar() : std::string("?");
    std::string field_path = Join(path, name);
    if (!key.IsScalar()) {
      Error(key, path.empty() ? root_ : path, "keys must be plain names");
      continue;
    }
    if (!seen.insert(name).second) {
      Error(key, field_path, "given twice");
      continue;
    }
    const pb::FieldDescriptor* field = YamlField(desc, name);
    if (!field) {
      std::string hint = NearestName(name, names);
      std::string where = path.empty() ? "the " + root_ : path;
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
    sources_.Set(field_path, PositionOf(key));
    LoadField(it->second, message, field, field_path);
  }
}

void Loader::LoadField(const YAML::Node& value, pb::Message* message,
                       const pb::FieldDescriptor* field, const std::string& path) {
  const pb::Reflection* refl = message->GetReflection();
  if (field->is_map()) {
    LoadMap(value, message, field, path);
    return;
  }
  if (field->is_repeated()) {
    if (!value.IsSequence()) {
      Error(value, path, "expected a list");
      return;
    }
    for (size_t i = 0; i < value.size(); ++i) {
      std::string item_path = path + "[" + std::to_string(i) + "]";
      sources_.Set(item_path, PositionOf(value[i]));
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

// map<string, string>: each value kept as YAML text (a scalar as written, else re-emitted);
// map<string, Message>: each value loaded as that message.
void Loader::LoadMap(const YAML::Node& value, pb::Message* message, const pb::FieldDescriptor* field,
                     const std::string& path) {
  if (!value.IsMap()) {
    Error(value, path, "expected a map");
    return;
  }
  const pb::Descriptor* entry = field->message_type();
  const pb::FieldDescriptor* key_field = entry->map_key();
  const pb::FieldDescriptor* value_field = entry->map_value();
  std::set<std::string> seen;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!it->first.IsScalar()) {
      Error(it->first, path, "keys must be plain names");
      continue;
    }
    std::string key = it->first.Scalar();
    // A key given twice would keep one of the two values, silently.
    if (!seen.insert(key).second) {
      Error(it->first, path + "." + key, "given twice");
      continue;
    }
    if (value_field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {  // map<string, Message>
      std::string item_path = path + "." + key;
      sources_.Set(item_path, PositionOf(it->first));
      pb::Message* item = message->GetReflection()->AddMessage(message, field);
      item->GetReflection()->SetString(item, key_field, key);
      LoadMessage(it->second, item->GetReflection()->MutableMessage(item, value_field), item_path);
      continue;
    }
    std::string text;
    if (it->second.IsScalar()) {
      text = it->second.Scalar();
    } else {
      YAML::Emitter emitter;
      emitter << YAML::Flow << it->second;
      text = emitter.c_str();
    }
    sources_.Set(path + "." + key, PositionOf(it->first));
    pb::Message* item = message->GetReflection()->AddMessage(message, field);
    item->GetReflection()->SetString(item, key_field, key);
    item->GetReflection()->SetString(item, value_field, text);
  }
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
  if (auto bound = rules::OutOfBounds(field, v)) {
    Error(value, path, rules::ShowValue(field, v) + " " + rules::BoundText(field, *bound));
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


struct PathSegment {
  std::string name;
  std::string selector;  // inside [...], or empty
  bool selected = false;
  size_t end = 0;  // where the segment ends in the path (a map's key is the rest after the '.')
};

Result<std::vector<PathSegment>> SplitPath(const std::string& path) {
  std::vector<PathSegment> out;
  size_t i = 0;
  while (i <= path.size()) {
    PathSegment seg;
    size_t end = i;
    while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
    seg.name = path.substr(i, end - i);
    if (seg.name.empty()) return InvalidArgument("\"" + path + "\" is not a field path");
    i = end;
    if (i < path.size() && path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string::npos) return InvalidArgument("\"" + path + "\" has an unclosed '['");
      seg.selector = path.substr(i + 1, close - i - 1);
      seg.selected = true;
      i = close + 1;
    }
    seg.end = i;
    out.push_back(seg);
    if (i == path.size()) break;
    if (path[i] != '.') return InvalidArgument("\"" + path + "\" is not a field path");
    ++i;
  }
  return out;
}

// The element of a repeated message field chosen by index or by its `name` (steps also by their
// default name: <kind>-<index>, a group's steps <group>-<kind>-<index>; `group` names the group
// whose steps `message` holds).
int SelectElement(const pb::Message& message, const pb::FieldDescriptor* field, const std::string& selector,
                  const std::string& group) {
  const pb::Reflection* refl = message.GetReflection();
  int n = refl->FieldSize(message, field);
  if (!selector.empty() && selector.find_first_not_of("0123456789") == std::string::npos) {
    // More digits than any list's length has: no entry (std::stoi would throw on 99999999999).
    if (selector.size() > 9) return -1;
    int index = std::stoi(selector);
    return index < n ? index : -1;
  }
  const auto* workload = dynamic_cast<const v1::Workload*>(&message);
  for (int i = 0; i < n; ++i) {
    const pb::Message& element = refl->GetRepeatedMessage(message, field, i);
    const pb::FieldDescriptor* name = element.GetDescriptor()->FindFieldByName("name");
    if (name && name->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING &&
        element.GetReflection()->GetString(element, name) == selector) {
      return i;
    }
    if (workload && field->name() == "steps" && rules::StepName(*workload, i) == selector) return i;
    if (!workload && !group.empty() && dynamic_cast<const v1::GroupStep*>(&message) &&
        rules::GroupMemberName(group, static_cast<const v1::Step&>(element), i) == selector) {
      return i;
    }
  }
  return -1;
}

// map<string, string> entry `key` set to `value` as YAML text (as the loader keeps it),
// replacing an entry of that key.
Status SetMapEntry(pb::Message* message, const pb::FieldDescriptor* field, const std::string& key, const YAML::Node& value) {
  std::string text;
  if (value.IsScalar()) {
    text = value.Scalar();
  } else {
    YAML::Emitter emitter;
    emitter << YAML::Flow << value;
    text = emitter.c_str();
  }
  const pb::Reflection* refl = message->GetReflection();
  const pb::FieldDescriptor* key_field = field->message_type()->map_key();
  const pb::FieldDescriptor* value_field = field->message_type()->map_value();
  pb::Message* entry = nullptr;
  for (int i = 0; i < refl->FieldSize(*message, field) && !entry; ++i) {
    pb::Message* e = refl->MutableRepeatedMessage(message, field, i);
    if (e->GetReflection()->GetString(*e, key_field) == key) entry = e;
  }
  if (!entry) {
    entry = refl->AddMessage(message, field);
    entry->GetReflection()->SetString(entry, key_field, key);
  }
  entry->GetReflection()->SetString(entry, value_field, text);
  return Status::Ok();
}

// SetWorkloadPath without re-parsing the workload's settings; `at` (when given) receives the
// path resolved, and a path through a map (sweep.PATH) is refused: a setting cannot set one.
Status SetPathIn(v1::Workload& workload, const std::string& path, const std::string& value, const std::string& where,
                 std::vector<v1::FieldStep>* at) {
  auto split = SplitPath(path);
  if (!split.ok()) return InvalidArgument(where + ": " + split.status().message());
  std::vector<PathSegment> segments = *split;
  if (!v1::Workload::descriptor()->FindFieldByName(segments[0].name)) {
    segments.insert(segments.begin(), PathSegment{"defaults", "", false});  // "jobs" = "defaults.jobs"
  }
  YAML::Node node;
  try {
    node = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(where + ": " + path + ": \"" + value + "\" is not a YAML value: " + e.msg);
  }
  std::vector<std::string> nul;
  RefuseNul(node, where, path, nul);
  if (!nul.empty() || value.find('\0') != std::string::npos) {
    return InvalidArgument(where + ": " + path + ": the value holds a NUL byte: no name, path or value may");
  }
  pb::Message* message = &workload;
  std::string walked;
  std::string step_name;  // the step last chosen from a steps list: a group's name for its steps
  for (size_t i = 0; i < segments.size(); ++i) {
    const PathSegment& seg = segments[i];
    const pb::Descriptor* desc = message->GetDescriptor();
    const pb::FieldDescriptor* field = YamlField(desc, seg.name);
    std::string shown = walked.empty() ? seg.name : walked + "." + seg.name;
    if (!field) {
      std::string hint = NearestName(seg.name, YamlFieldNames(desc));
      return InvalidArgument(where + ": " + path + ": no field " + shown + (hint.empty() ? "" : " (did you mean " + hint + "?)"));
    }
    const pb::Reflection* refl = message->GetReflection();
    const bool last = i + 1 == segments.size();
    if (seg.selected) {
      if (!field->is_repeated() || field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE || field->is_map()) {
        return InvalidArgument(where + ": " + path + ": " + shown + " is not a list of entries to choose from");
      }
      int index = SelectElement(*message, field, seg.selector, step_name);
      if (index < 0) return InvalidArgument(where + ": " + path + ": " + shown + " has no entry \"" + seg.selector + "\"");
      if (at) {
        at->emplace_back();
        at->back().set_field(field->number());
        at->back().set_index(static_cast<uint32_t>(index));
      }
      pb::Message* element = refl->MutableRepeatedMessage(message, field, index);
      if (auto* w = dynamic_cast<v1::Workload*>(message); w && field->name() == "steps") step_name = rules::StepName(*w, index);
      walked = shown + "[" + seg.selector + "]";
      if (last) {
        LoadedWorkload scratch;
        scratch.sources = SourceMap(where);
        element->Clear();
        Loader(scratch, value).LoadMessage(node, element, walked);
        if (!scratch.errors.empty()) return InvalidArgument(scratch.errors.front());
        return Status::Ok();
      }
      message = element;
      continue;
    }
    if (at && field->is_map()) return InvalidArgument(where + ": " + path + ": " + shown + " cannot be set here");
    if (at) at->emplace_back().set_field(field->number());
    if (last) {
      LoadedWorkload scratch;
      scratch.sources = SourceMap(where);
      refl->ClearField(message, field);
      Loader(scratch, value).LoadField(node, message, field, shown);
      if (!scratch.errors.empty()) {
        // "where:1:5: path: message" -> "where: path: message": the position is in the value text.
        std::string e = scratch.errors.front();
        size_t cut = e.find(": " + shown);
        return InvalidArgument(where + (cut == std::string::npos ? ": " + e : e.substr(cut)));
      }
      return Status::Ok();
    }
    if (field->is_map() && !seg.selected) {
      // A map's keys are themselves paths ("sweep.steps[w].io.block_size"): the rest is one key.
      return SetMapEntry(message, field, path.substr(seg.end + 1), node);
    }
    if (field->is_repeated() || field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) {
      return InvalidArgument(where + ": " + path + ": " + shown + " has no fields below it");
    }
    message = refl->MutableMessage(message, field);
    walked = shown;
  }
  return Status::Ok();
}

}  // namespace

Status SetWorkloadPath(v1::Workload& workload, const std::string& path, const std::string& value,
                       const std::string& where) {
  IOFLEET_RETURN_IF_ERROR(SetPathIn(workload, path, value, where, nullptr));
  // The sweep's and the overrides' settings are parsed against the workload as it is now: a
  // new axis, or a step renamed that a setting names, is parsed again here.
  std::vector<SettingError> errors = ParseSettings(workload);
  if (!errors.empty()) return InvalidArgument(where + ": " + errors.front().where + ": " + errors.front().message);
  return Status::Ok();
}

Result<v1::FieldSetting> ParseSetting(const v1::Workload& base, const std::string& path, const std::string& text,
                                      const std::string& where) {
  v1::Workload scratch = base;  // steps named as the workload names them
  v1::FieldSetting setting;
  setting.set_path(path);
  setting.set_text(text);
  std::vector<v1::FieldStep> at;
  IOFLEET_RETURN_IF_ERROR(SetPathIn(scratch, path, text, where, &at));
  for (auto& step : at) *setting.add_at() = std::move(step);
  IOFLEET_RETURN_IF_ERROR(CopyAt(scratch, *setting.mutable_value(), setting.at(), /*grow=*/true));
  return setting;
}

Result<v1::Workload> ForAgent(const v1::Workload& workload, const std::string& name, const std::string& address) {
  v1::Workload out = workload;
  for (int o = 0; o < workload.agents().overrides_size(); ++o) {
    const v1::AgentOverride& override = workload.agents().overrides(o);
    if (fnmatch(override.match().c_str(), name.c_str(), 0) != 0 &&
        fnmatch(override.match().c_str(), address.c_str(), 0) != 0) {
      continue;
    }
    if (override.settings_size() != override.set_size()) {
      return Internal("agents.overrides[" + std::to_string(o) + "]: its set was not parsed (ParseSettings)");
    }
    for (const v1::FieldSetting& setting : override.settings()) {
      IOFLEET_RETURN_IF_ERROR(ApplySetting(out, setting));
    }
  }
  out.clear_agents();
  return out;
}

namespace {

// Every override applied on its own to a copy must validate: a mistake in an override is found
// before any agent is contacted, whether or not an agent matches it. (Its values were parsed
// with the workload.)
void CheckOverrides(LoadedWorkload& out) {
  const v1::Workload& w = out.workload;
  for (int o = 0; o < w.agents().overrides_size(); ++o) {
    const v1::AgentOverride& override = w.agents().overrides(o);
    std::string base = "agents.overrides[" + std::to_string(o) + "]";
    if (override.match().empty()) out.errors.push_back(out.sources.Format(base, "needs a match (a glob on agent name or address)"));
    if (!out.errors.empty()) continue;
    v1::Workload copy = WithoutSettings(w);  // not the sweep's fragments, once per override
    for (const v1::FieldSetting& setting : override.settings()) {
      if (Status st = ApplySetting(copy, setting); !st.ok()) out.errors.push_back(out.sources.Format(base, st.message()));
    }
    for (const rules::Violation& v : rules::Validate(copy)) {
      out.errors.push_back(out.sources.Format(base, "with this override, " + v.path + ": " + v.message));
    }
  }
}

// Every sweep point must validate: a bad combination of values is found before anything starts.
void CheckSweep(LoadedWorkload& out) {
  auto points = ExpandSweep(out.workload);
  if (!points.ok()) {
    out.errors.push_back(out.sources.Format("sweep", points.status().message()));
    return;
  }
  for (const auto& point : *points) {
    std::string values;
    for (const auto& [path, value] : point.params) values += (values.empty() ? "" : ", ") + path + "=" + value;
    for (const rules::Violation& v : rules::Validate(point.workload)) {
      out.errors.push_back(out.sources.Format("sweep", "at " + values + ": " + v.path + ": " + v.message));
    }
  }
}

}  // namespace

namespace {

// `text` (YAML) into `message`, descriptor-driven: every error with file:line:col. `root` names
// the document ("workload"); `not_a_map` is the error when the document is not a map.
void LoadDocument(const std::string& text, pb::Message* message, SourceMap& sources, std::vector<std::string>& errors,
                  const std::string& root, const std::string& not_a_map) {
  const std::string& file = sources.file();
  if (Status size = CheckInputSize(text, file); !size.ok()) {
    errors.push_back(size.message());
    return;
  }
  if (auto nul = FindNul(text)) {
    errors.push_back(file + ":" + std::to_string(nul->line) + ":" + std::to_string(nul->column) + ": a NUL byte: a " +
                     root + " is text");
    return;
  }
  YAML::Node node;
  try {
    node = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    errors.push_back(file + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " + e.msg);
    return;
  }
  size_t before = errors.size();
  RefuseNul(node, file, "", errors, root);
  if (errors.size() != before) return;
  if (!node.IsMap()) {
    errors.push_back(file + ":1:1: " + not_a_map);
    return;
  }
  Loader(sources, errors, text, root).LoadMessage(node, message, "");
}

}  // namespace

std::vector<std::string> LoadYamlMessage(const std::string& text, const std::string& file, google::protobuf::Message* out,
                                         SourceMap& sources, const std::string& root) {
  sources = SourceMap(file);
  std::vector<std::string> errors;
  std::string fields;
  const pb::Descriptor* desc = out->GetDescriptor();
  for (int i = 0; i < desc->field_count() && i < 3; ++i) fields += desc->field(i)->name() + ", ";
  LoadDocument(text, out, sources, errors, root, "a " + root + " is a YAML map (" + fields + "...)");
  return errors;
}

LoadedWorkload LoadWorkloadText(const std::string& text, const std::string& file) {
  LoadedWorkload out;
  out.sources = SourceMap(file);
  LoadDocument(text, &out.workload, out.sources, out.errors, "workload", "a workload is a YAML map (name, defaults, steps, ...)");
  if (!out.errors.empty()) return out;
  for (const rules::Violation& v : rules::Validate(out.workload)) {
    out.errors.push_back(out.sources.Format(v.path, v.message));
  }
  if (out.errors.empty()) {
    for (const SettingError& e : ParseSettings(out.workload)) out.errors.push_back(out.sources.Format(e.where, e.message));
  }
  if (out.errors.empty()) CheckOverrides(out);
  if (out.errors.empty()) CheckSweep(out);
  return out;
}

LoadedWorkload LoadWorkloadFile(const std::string& path) {
  Result<std::string> text = ReadInputFile(path);
  if (!text.ok()) {
    LoadedWorkload out;
    out.sources = SourceMap(path);
    out.errors.push_back(text.status().message());
    return out;
  }
  return LoadWorkloadText(*text, path);
}

}  // namespace iofleet::controller
