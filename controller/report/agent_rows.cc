#include "controller/report/agent_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace iofleet::controller {
namespace {

// Each column's value at quantile q over the agents, by nearest rank.
v1::ReportFigures ColumnsAt(const std::vector<const v1::ReportAgentFigures*>& agents, double q) {
  auto at = [&](auto figure) {
    std::vector<double> v;
    v.reserve(agents.size());
    for (const auto* a : agents) v.push_back(static_cast<double>(figure(a->figures())));
    std::sort(v.begin(), v.end());
    const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))));
    return v[std::min(rank, v.size()) - 1];
  };
  v1::ReportFigures f;
  f.set_seconds(at([](const v1::ReportFigures& x) { return x.seconds(); }));
  f.set_bytes_per_sec(at([](const v1::ReportFigures& x) { return x.bytes_per_sec(); }));
  f.set_iops(at([](const v1::ReportFigures& x) { return x.iops(); }));
  v1::ReportLatency& l = *f.mutable_latency_ns();
  l.set_mean(at([](const v1::ReportFigures& x) { return x.latency_ns().mean(); }));
  l.set_p50(static_cast<uint64_t>(at([](const v1::ReportFigures& x) { return x.latency_ns().p50(); })));
  l.set_p99(static_cast<uint64_t>(at([](const v1::ReportFigures& x) { return x.latency_ns().p99(); })));
  l.set_max(static_cast<uint64_t>(at([](const v1::ReportFigures& x) { return x.latency_ns().max(); })));
  return f;
}

}  // namespace

std::vector<ShownAgentRow> AgentRowsShown(const google::protobuf::RepeatedPtrField<v1::ReportAgentFigures>& agents, bool by_time) {
  std::vector<ShownAgentRow> rows;
  if (agents.size() < 2) return rows;
  if (static_cast<size_t>(agents.size()) <= kAgentRowsShown) {
    for (const auto& a : agents) rows.push_back({a.agent(), a.figures(), &a});
    return rows;
  }
  std::vector<const v1::ReportAgentFigures*> ordered;
  bool any_bytes = false;
  for (const auto& a : agents) {
    ordered.push_back(&a);
    any_bytes = any_bytes || a.figures().bytes_per_sec() > 0;
  }
  auto faster = [&](const v1::ReportAgentFigures* a) {  // larger is faster
    return by_time ? -a->figures().seconds() : any_bytes ? a->figures().bytes_per_sec() : a->figures().iops();
  };
  std::stable_sort(ordered.begin(), ordered.end(), [&](auto* x, auto* y) { return faster(x) < faster(y); });
  for (const auto& [q, what] : {std::pair{0.0, "min"}, {0.1, "p10"}, {0.5, "median"}, {0.9, "p90"}, {1.0, "max"}}) {
    rows.push_back({fmt::format("agent {}", what), ColumnsAt(ordered, q), nullptr});
  }
  for (size_t k = 0; k < kSlowestShown; ++k) rows.push_back({ordered[k]->agent(), ordered[k]->figures(), ordered[k]});
  return rows;
}

std::string AgentRowsNote(size_t agents) {
  return fmt::format("{} agents: each column's distribution over them (min to max, columns apart), then the {} slowest; "
                     "every agent's row is in report.json and summary.csv",
                     agents, kSlowestShown);
}

}  // namespace iofleet::controller
