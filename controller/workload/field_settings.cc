#include "controller/workload/field_settings.h"

#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>

#include "controller/workload/yaml_loader.h"

namespace iofleet::controller {
namespace {

namespace pb = google::protobuf;

// A sweep may not grow past this many points; checked before any value is parsed, so a long
// list costs nothing.
constexpr size_t kMaxPoints = 10000;

// One list item of a swept path as text: a scalar as written, else in YAML's flow form.
std::string ItemText(const YAML::Node& item) {
  if (item.IsScalar()) return item.Scalar();
  YAML::Emitter emitter;
  emitter << YAML::Flow << item;
  return emitter.c_str();
}

// The settings are parsed against `base`: the workload without its sweep and agents (a setting
// reaches neither), made once for all of them: a copy of the workload per value would copy every
// fragment parsed so far (10,000 sweep values x 2,000 override entries: 2e7 copies).
void ParseSweep(v1::Workload& workload, const v1::Workload& base, std::vector<SettingError>& errors) {
  const std::map<std::string, std::string> axes(workload.sweep().begin(), workload.sweep().end());
  std::vector<std::pair<std::string, YAML::Node>> lists;
  size_t points = 1;
  for (const auto& [path, text] : axes) {
    const std::string where = "sweep." + path;
    const std::string head = path.substr(0, path.find_first_of(".["));
    if (v1::Workload::descriptor()->FindFieldByName(head) && head != "defaults" && head != "steps") {
      errors.push_back({where, "only fields under defaults and steps can be swept"});
      continue;
    }
    YAML::Node list;
    try {
      list = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      errors.push_back({where, "not a YAML list: " + e.msg});
      continue;
    }
    if (!list.IsSequence() || list.size() == 0) {
      errors.push_back({where, "expected a non-empty list of values"});
      continue;
    }
    points = std::min(points * list.size(), kMaxPoints + 1);
    lists.emplace_back(path, list);
  }
  if (points > kMaxPoints) {
    errors.push_back({"sweep", "more than 10000 points"});
    return;
  }
  for (const auto& [path, list] : lists) {
    const std::string where = "sweep." + path;
    v1::SweepAxis axis;
    axis.set_path(path);
    for (const YAML::Node& item : list) {
      const std::string text = ItemText(item);
      auto setting = ParseSetting(base, path, text, where);
      if (!setting.ok()) {
        errors.push_back({where, "value " + text + ": " + After(setting.status().message(), where)});
        continue;
      }
      *axis.add_values() = std::move(*setting);
    }
    *workload.add_sweep_axes() = std::move(axis);
  }
}

void ParseOverrides(v1::Workload& workload, const v1::Workload& base, std::vector<SettingError>& errors) {
  for (int o = 0; o < workload.agents().overrides_size(); ++o) {
    v1::AgentOverride* override = workload.mutable_agents()->mutable_overrides(o);
    const std::map<std::string, std::string> sets(override->set().begin(), override->set().end());
    for (const auto& [path, text] : sets) {
      const std::string where = "agents.overrides[" + std::to_string(o) + "].set." + path;
      const std::string head = path.substr(0, path.find_first_of(".["));
      if (head == "agents" || head == "sweep") {
        // The overrides apply to a sweep point's workload, after the sweep and the agents are read.
        errors.push_back({where, "an override cannot set " + head});
        continue;
      }
      auto setting = ParseSetting(base, path, text, where);
      if (!setting.ok()) {
        errors.push_back({where, After(setting.status().message(), where)});
        continue;
      }
      *override->add_settings() = std::move(*setting);
    }
  }
}

// The field's value copied from `from` to `to`: set, unset, a list or a message, as it is.
void CopyField(const pb::Message& from, pb::Message& to, const pb::FieldDescriptor* field) {
  std::unique_ptr<pb::Message> donor(from.New());
  donor->CopyFrom(from);
  to.GetReflection()->ClearField(&to, field);
  to.GetReflection()->SwapFields(&to, donor.get(), {field});
}

}  // namespace

v1::Workload WithoutSettings(const v1::Workload& workload) {
  v1::Workload out = workload;  // callers clear the parsed fields first: this copies no fragment
  out.clear_sweep();
  out.clear_sweep_axes();
  out.clear_agents();
  return out;
}

std::vector<SettingError> ParseSettings(v1::Workload& workload) {
  workload.clear_sweep_axes();
  if (workload.has_agents()) {  // not mutable_agents() on a workload without: that would add `agents: {}`
    for (v1::AgentOverride& override : *workload.mutable_agents()->mutable_overrides()) override.clear_settings();
  }
  const v1::Workload base = WithoutSettings(workload);
  std::vector<SettingError> errors;
  ParseSweep(workload, base, errors);
  ParseOverrides(workload, base, errors);
  return errors;
}

Status CopyAt(const pb::Message& from, pb::Message& to, const pb::RepeatedPtrField<v1::FieldStep>& at, bool grow) {
  const pb::Message* source = &from;
  pb::Message* target = &to;
  for (int i = 0; i < at.size(); ++i) {
    const v1::FieldStep& step = at[i];
    const pb::FieldDescriptor* field = source->GetDescriptor()->FindFieldByNumber(static_cast<int>(step.field()));
    if (!field || field->containing_type() != target->GetDescriptor()) return Internal("a setting's path names no field");
    const pb::Reflection* sr = source->GetReflection();
    const pb::Reflection* tr = target->GetReflection();
    const bool last = i + 1 == at.size();
    if (!step.has_index()) {
      if (last) {
        CopyField(*source, *target, field);
        return Status::Ok();
      }
      if (field->is_repeated() || field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        return Internal("a setting's path goes below a field that holds no fields");
      }
      source = &sr->GetMessage(*source, field);
      target = tr->MutableMessage(target, field);
      continue;
    }
    if (!field->is_repeated() || field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE || field->is_map()) {
      return Internal("a setting's path chooses an element of a field that is no list");
    }
    const int index = static_cast<int>(step.index());
    if (index >= sr->FieldSize(*source, field)) return Internal("a setting's value lacks its list element");
    while (grow && tr->FieldSize(*target, field) <= index) tr->AddMessage(target, field);
    if (index >= tr->FieldSize(*target, field)) {
      return FailedPrecondition(field->name() + "[" + std::to_string(index) + "]: no such entry");
    }
    source = &sr->GetRepeatedMessage(*source, field, index);
    target = tr->MutableRepeatedMessage(target, field, index);
    if (last) target->CopyFrom(*source);
  }
  return Status::Ok();
}

Status ApplySetting(v1::Workload& workload, const v1::FieldSetting& setting) {
  Status st = CopyAt(setting.value(), workload, setting.at(), /*grow=*/false);
  if (!st.ok()) return FailedPrecondition(setting.path() + ": " + st.message());
  return Status::Ok();
}

}  // namespace iofleet::controller
