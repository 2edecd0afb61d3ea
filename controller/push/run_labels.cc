#include "controller/push/run_labels.h"

#include <algorithm>

namespace iofleet::controller {

const std::vector<std::string>& ReservedLabelNames() {
  static const std::vector<std::string> names = {
      "workload", "step",    "op",       "engine", "reason", "phase",       "agent",  "run_id",
      "point",    "cycle",   "group_cycle", "quantile", "status", "figure", "state",  "mode",
      "version",  "revision", "job",     "instance", "le"};
  return names;
}

namespace {

bool IsLabelName(const std::string& key) {
  if (key.empty()) return false;
  auto head = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto tail = [&](char c) { return head(c) || (c >= '0' && c <= '9'); };
  return head(key[0]) && std::all_of(key.begin() + 1, key.end(), tail);
}

}  // namespace

Result<std::pair<std::string, std::string>> ParseRunLabel(const std::string& text) {
  const std::string where = "--label " + text + ": ";
  size_t eq = text.find('=');
  if (eq == std::string::npos) return InvalidArgument(where + "write KEY=VALUE, e.g. --label cluster=lab1");
  std::string key = text.substr(0, eq);
  if (!IsLabelName(key)) {
    return InvalidArgument(where + "\"" + key + "\" is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)");
  }
  if (key.rfind("__", 0) == 0) return InvalidArgument(where + "label names starting with \"__\" are Prometheus's own");
  const auto& reserved = ReservedLabelNames();
  if (std::find(reserved.begin(), reserved.end(), key) != reserved.end()) {
    return InvalidArgument(where + "\"" + key + "\" is a label iofleet sets itself; choose another name");
  }
  return std::make_pair(key, text.substr(eq + 1));
}

RunLabels ParseRunLabels(const std::vector<std::string>& texts, std::vector<std::string>& errors) {
  RunLabels labels;
  for (const auto& text : texts) {
    auto label = ParseRunLabel(text);
    if (!label.ok()) {
      errors.push_back(label.status().message());
      continue;
    }
    auto same = [&](const auto& l) { return l.first == label->first; };
    if (std::any_of(labels.begin(), labels.end(), same)) {
      errors.push_back("--label " + text + ": \"" + label->first + "\" is given twice");
      continue;
    }
    labels.push_back(*label);
  }
  return labels;
}

}  // namespace iofleet::controller
