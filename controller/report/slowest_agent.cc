#include "controller/report/slowest_agent.h"

#include <algorithm>

namespace iofleet::controller {

bool RanksByTime(const std::string& kind) { return kind != "io" && kind != "copy"; }

std::optional<SlowestAgent> FindSlowestAgent(const std::vector<AgentStep>& agents, bool by_time) {
  std::vector<const AgentStep*> worked;
  for (const auto& a : agents) {
    if (a.has_work) worked.push_back(&a);
  }
  if (worked.empty()) return std::nullopt;
  bool any_bytes = false;
  for (const auto* a : worked) any_bytes = any_bytes || a->stats.bytes > 0;
  // A figure where larger is better: throughput, or the negated time.
  auto figure = [&](const AgentStep& a) {
    if (by_time) return -a.stats.seconds();
    return any_bytes ? a.stats.bytes_per_sec() : a.stats.iops();
  };
  const AgentStep* slowest = worked[0];
  for (const auto* a : worked) {
    if (figure(*a) < figure(*slowest)) slowest = a;
  }
  std::vector<double> values;
  for (const auto* a : worked) values.push_back(by_time ? a->stats.seconds() : figure(*a));
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  SlowestAgent out{slowest->agent, 0};
  if (median > 0) {
    const double mine = by_time ? slowest->stats.seconds() : figure(*slowest);
    out.trails_median_pct = std::max(0.0, (by_time ? mine - median : median - mine) / median * 100);
  }
  return out;
}

}  // namespace iofleet::controller
