#include <nlohmann/json.hpp>

#include "controller/report/report_writers.h"

namespace iofleet::controller {
namespace {

nlohmann::ordered_json StatsJson(const StepStats& s) {
  const LatencyHistogram& h = *s.latency;
  nlohmann::ordered_json j;
  j["ops"] = s.ops;
  j["bytes"] = s.bytes;
  j["seconds"] = s.seconds();
  j["iops"] = s.iops();
  j["bytes_per_sec"] = s.bytes_per_sec();
  j["latency_ns"] = {
      {"mean", h.Mean()},          {"p50", h.Quantile(0.50)},   {"p90", h.Quantile(0.90)},
      {"p99", h.Quantile(0.99)},   {"p999", h.Quantile(0.999)}, {"p9999", h.Quantile(0.9999)},
      {"max", h.max()},
  };
  j["passes"] = s.passes;
  j["filled_bytes"] = s.filled_bytes;
  return j;
}

}  // namespace

std::string ReportJson(const RunReport& report) {
  nlohmann::ordered_json j;
  j["schema"] = "iofleet.report/v1";
  j["run_id"] = report.run_id;
  j["workload"] = report.workload;
  j["status"] = report.status;
  if (!report.error.empty()) j["error"] = report.error;
  j["agents"] = nlohmann::ordered_json::array();
  for (const auto& a : report.agents) {
    j["agents"].push_back({{"name", a.name}, {"address", a.address}, {"version", a.version}});
  }
  j["steps"] = nlohmann::ordered_json::array();
  for (const auto& step : report.steps) {
    nlohmann::ordered_json s;
    s["index"] = step.index;
    s["name"] = step.name;
    s["kind"] = step.kind;
    s["point"] = step.point;
    s["params"] = nlohmann::ordered_json::object();
    s["cycle"] = step.cycle;
    s["status"] = step.status;
    s["aggregate"] = StatsJson(step.aggregate);
    s["agents"] = nlohmann::ordered_json::array();
    for (const auto& a : step.agents) {
      nlohmann::ordered_json row = {{"agent", a.agent}};
      row.update(StatsJson(a.stats));
      s["agents"].push_back(row);
    }
    j["steps"].push_back(s);
  }
  return j.dump(2) + "\n";
}

}  // namespace iofleet::controller
