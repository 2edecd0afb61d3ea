#include "controller/workload/sweep.h"

#include <yaml-cpp/yaml.h>

#include <map>

#include "controller/workload/yaml_loader.h"

namespace iofleet::controller {
namespace {

constexpr size_t kMaxPoints = 10000;

}  // namespace

Result<std::vector<SweepPoint>> ExpandSweep(const v1::Workload& workload) {
  std::map<std::string, std::string> axes_text(workload.sweep().begin(), workload.sweep().end());
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  size_t points = 1;
  for (const auto& [path, text] : axes_text) {
    std::string where = "sweep." + path;
    std::string head = path.substr(0, path.find_first_of(".["));
    bool top_level = v1::Workload::descriptor()->FindFieldByName(head) != nullptr;
    if (top_level && head != "defaults" && head != "steps") {
      return InvalidArgument(where + ": only fields under defaults and steps can be swept");
    }
    YAML::Node list;
    try {
      list = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      return InvalidArgument(where + ": not a YAML list: " + e.msg);
    }
    if (!list.IsSequence() || list.size() == 0) return InvalidArgument(where + ": expected a non-empty list of values");
    std::vector<std::string> values;
    for (const auto& item : list) {
      if (item.IsScalar()) {
        values.push_back(item.Scalar());
      } else {
        YAML::Emitter emitter;
        emitter << YAML::Flow << item;
        values.push_back(emitter.c_str());
      }
    }
    points *= values.size();
    if (points > kMaxPoints) return InvalidArgument("sweep: more than 10000 points");
    axes.emplace_back(path, std::move(values));
  }

  std::vector<SweepPoint> out;
  std::vector<size_t> at(axes.size(), 0);
  for (size_t p = 0; p < points; ++p) {
    SweepPoint point;
    point.workload = workload;
    point.workload.clear_sweep();
    for (size_t a = 0; a < axes.size(); ++a) {
      const auto& [path, values] = axes[a];
      const std::string& value = values[at[a]];
      IOFLEET_RETURN_IF_ERROR(SetWorkloadPath(point.workload, path, value, "sweep." + path + " (value " + value + ")"));
      point.params.emplace_back(path, value);
    }
    out.push_back(std::move(point));
    for (size_t a = axes.size(); a-- > 0;) {  // odometer: the last axis turns fastest
      if (++at[a] < axes[a].second.size()) break;
      at[a] = 0;
    }
  }
  return out;
}

}  // namespace iofleet::controller
