#include "controller/history/run_figures.h"

namespace iofleet::controller {
namespace {

double Number(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : -1;
}

// The figures of one row (an aggregate or an agent's) of a step, by kind.
void RowFigures(const std::string& kind, const nlohmann::json& row, std::vector<std::pair<std::string, double>>& out) {
  auto add = [&](const std::string& name, double v) {
    if (v >= 0) out.emplace_back(name, v);
  };
  if (kind == "io") {
    add("bandwidth", Number(row, "bytes_per_sec"));
    add("iops", Number(row, "iops"));
    auto lat = row.find("latency_ns");
    if (lat != row.end() && lat->is_object() && Number(row, "ops") > 0) {
      const double p99 = Number(*lat, "p99");
      if (p99 >= 0) add("p99_latency", p99 / 1e9);
    }
  } else if (kind == "copy") {
    add("copy_seconds", Number(row, "seconds"));
    add("bandwidth", Number(row, "bytes_per_sec"));
    add("files_per_sec", Number(row, "files_per_sec"));
  } else if (kind == "hook") {
    add("seconds", Number(row, "seconds"));
  }
}

}  // namespace

Better BetterOf(const std::string& figure) {
  return figure == "p99_latency" || figure == "copy_seconds" || figure == "seconds" ? Better::kLower : Better::kHigher;
}

std::string UnitOf(const std::string& figure) {
  if (figure == "bandwidth") return "bytes_per_sec";
  if (figure == "iops") return "ops_per_sec";
  if (figure == "p99_latency" || figure == "copy_seconds" || figure == "seconds") return "seconds";
  return "files_per_sec";
}

std::vector<StoredFigure> HeadlineFigures(const nlohmann::json& report) {
  std::vector<StoredFigure> out;
  auto steps = report.find("steps");
  if (steps == report.end() || !steps->is_array()) return out;
  for (const auto& step : *steps) {
    if (step.value("status", "") != "succeeded") continue;
    StoredFigure base;
    base.step = step.value("name", "");
    base.point = step.value("point", 0);
    base.cycle = step.value("cycle", 0);
    base.group_cycle = step.value("group_cycle", -1);
    const std::string kind = step.value("kind", "");
    auto emit = [&](const std::string& agent, const std::vector<std::pair<std::string, double>>& figures) {
      for (const auto& [name, value] : figures) {
        StoredFigure f = base;
        f.agent = agent;
        f.figure = name;
        f.value = value;
        out.push_back(std::move(f));
      }
    };
    if (kind == "files") {
      for (const auto& phase : step.value("phases", nlohmann::json::array())) {
        const std::string name = "files_per_sec:" + phase.value("op", "");
        if (double v = Number(phase, "files_per_sec"); v >= 0) emit("", {{name, v}});
        for (const auto& a : phase.value("agents", nlohmann::json::array())) {
          if (double v = Number(a, "files_per_sec"); v >= 0) emit(a.value("agent", ""), {{name, v}});
        }
      }
      continue;
    }
    std::vector<std::pair<std::string, double>> figures;
    RowFigures(kind, step.value("aggregate", nlohmann::json::object()), figures);
    emit("", figures);
    for (const auto& a : step.value("agents", nlohmann::json::array())) {
      figures.clear();
      RowFigures(kind, a, figures);
      emit(a.value("agent", ""), figures);
    }
  }
  return out;
}

}  // namespace iofleet::controller
