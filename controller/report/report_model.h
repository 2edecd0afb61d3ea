// The run's results as reports render them (DESIGN.md section 2a): per step, the aggregate and
// one row per agent, all from exact counters and histograms.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/histogram.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::controller {

struct StepStats {
  uint64_t ops = 0;
  uint64_t bytes = 0;
  uint64_t window_ns = 0;
  uint64_t passes = 0;
  uint64_t filled_bytes = 0;
  std::shared_ptr<LatencyHistogram> latency = std::make_shared<LatencyHistogram>();

  double seconds() const { return static_cast<double>(window_ns) / 1e9; }
  double iops() const { return window_ns ? static_cast<double>(ops) / seconds() : 0.0; }
  double bytes_per_sec() const { return window_ns ? static_cast<double>(bytes) / seconds() : 0.0; }

  static StepStats FromProto(const v1::StepResult& result);
  // Merging: counters and histograms add; the window is the longest; passes the fewest.
  void Add(const StepStats& other, bool first);
};

struct AgentStep {
  std::string agent;
  StepStats stats;
};

struct StepReport {
  int index = 0;
  std::string name;
  std::string kind;
  int point = 0;
  int cycle = 0;
  std::string status;  // succeeded | failed | aborted
  StepStats aggregate;
  std::vector<AgentStep> agents;
};

struct AgentInfo {
  std::string name;
  std::string address;
  std::string version;
};

struct RunReport {
  std::string run_id;
  std::string workload;
  std::string status;  // succeeded | failed | aborted
  std::string error;
  std::vector<AgentInfo> agents;
  std::vector<StepReport> steps;
};

}  // namespace iofleet::controller
