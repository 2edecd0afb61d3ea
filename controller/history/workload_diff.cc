#include "controller/history/workload_diff.h"

#include <yaml-cpp/yaml.h>

#include <map>

namespace iofleet::controller {
namespace {

void Flatten(const YAML::Node& node, const std::string& path, std::map<std::string, std::string>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node) Flatten(kv.second, path.empty() ? kv.first.Scalar() : path + "." + kv.first.Scalar(), out);
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) Flatten(node[i], path + "[" + std::to_string(i) + "]", out);
  } else if (node.IsScalar()) {
    out[path] = node.Scalar();
  } else {
    out[path] = "~";
  }
}

std::map<std::string, std::string> Fields(const std::string& yaml) {
  std::map<std::string, std::string> out;
  try {
    Flatten(YAML::Load(yaml), "", out);
  } catch (const YAML::Exception&) {
    out = {{"(workload)", yaml}};
  }
  return out;
}

}  // namespace

std::vector<std::string> WorkloadDifferences(const std::string& baseline_yaml, const std::string& now_yaml, size_t max) {
  const auto before = Fields(baseline_yaml), after = Fields(now_yaml);
  std::map<std::string, std::pair<std::string, std::string>> changed;
  for (const auto& [path, value] : before) {
    auto it = after.find(path);
    const std::string now = it == after.end() ? "(absent)" : it->second;
    if (now != value) changed[path] = {value, now};
  }
  for (const auto& [path, value] : after) {
    if (!before.count(path)) changed[path] = {"(absent)", value};
  }
  std::vector<std::string> out;
  for (const auto& [path, values] : changed) {
    if (out.size() == max) {
      out.push_back("... and " + std::to_string(changed.size() - max) + " more");
      break;
    }
    out.push_back((path.empty() ? std::string("(workload)") : path) + ": " + values.first + " -> " + values.second);
  }
  return out;
}

}  // namespace iofleet::controller
