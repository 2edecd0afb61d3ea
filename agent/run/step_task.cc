#include "agent/run/step_task.h"

#include "core/spec/proto_convert.h"

namespace iofleet::agent {

uint64_t SumOps(const std::vector<std::unique_ptr<TaskCounters>>& jobs) {
  uint64_t n = 0;
  for (const auto& j : jobs) n += j->ops.load(std::memory_order_relaxed);
  return n;
}

uint64_t SumBytes(const std::vector<std::unique_ptr<TaskCounters>>& jobs) {
  uint64_t n = 0;
  for (const auto& j : jobs) n += j->bytes.load(std::memory_order_relaxed);
  return n;
}

void ReportCounters(const std::vector<std::unique_ptr<TaskCounters>>& jobs, v1::StepResult& result) {
  auto merged = std::make_unique<LatencyHistogram>();
  for (const auto& j : jobs) merged->Add(j->latency);
  result.set_ops(SumOps(jobs));
  result.set_bytes(SumBytes(jobs));
  spec::ToProto(*merged, result.mutable_latency_ns());
}

}  // namespace iofleet::agent
