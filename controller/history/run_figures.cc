#include "controller/history/run_figures.h"

namespace iofleet::controller {
namespace {

using Figures = std::vector<std::pair<std::string, double>>;

// The figures of one row (an aggregate or an agent's) of a step, by kind.
void RowFigures(const std::string& kind, const v1::ReportFigures& row, const v1::ReportCopyFigures* copy, Figures& out) {
  if (kind == "io") {
    out.emplace_back("bandwidth", row.bytes_per_sec());
    out.emplace_back("iops", row.iops());
    if (row.has_latency_ns() && row.ops() > 0) out.emplace_back("p99_latency", static_cast<double>(row.latency_ns().p99()) / 1e9);
  } else if (kind == "copy") {
    out.emplace_back("copy_seconds", row.seconds());
    out.emplace_back("bandwidth", row.bytes_per_sec());
    if (copy) out.emplace_back("files_per_sec", copy->files_per_sec());
  } else if (kind == "hook") {
    out.emplace_back("seconds", row.seconds());
  }
}

}  // namespace

Better BetterOf(const std::string& figure) {
  const bool latency = figure == "p99_latency" || figure.rfind("curve_p99_latency:", 0) == 0;
  return latency || figure == "copy_seconds" || figure == "seconds" ? Better::kLower : Better::kHigher;
}

std::string UnitOf(const std::string& figure) {
  const auto starts = [&](const char* prefix) { return figure.rfind(prefix, 0) == 0; };
  if (figure == "bandwidth" || figure == "bandwidth_at_target" || starts("curve_bandwidth:")) return "bytes_per_sec";
  if (figure == "iops" || figure == "iops_at_target" || starts("curve_iops:")) return "ops_per_sec";
  if (figure == "p99_latency" || starts("curve_p99_latency:") || figure == "copy_seconds" || figure == "seconds") return "seconds";
  return "files_per_sec";
}

std::vector<StoredFigure> HeadlineFigures(const v1::Report& report) {
  std::vector<StoredFigure> out;
  for (const v1::ReportStep& step : report.steps()) {
    if (step.status() != v1::STEP_STATUS_SUCCEEDED) continue;
    StoredFigure base;
    base.step = step.name();
    base.point = static_cast<int>(step.point());
    base.cycle = static_cast<int>(step.cycle());
    base.group_cycle = step.has_group_cycle() ? step.group_cycle() : -1;
    auto emit = [&](const std::string& agent, const Figures& figures, const std::string& stream = "") {
      for (const auto& [name, value] : figures) {
        StoredFigure f = base;
        f.agent = agent;
        f.stream = stream;
        f.figure = name;
        f.value = value;
        out.push_back(std::move(f));
      }
    };
    if (step.kind() == "files") {
      for (const v1::ReportPhase& phase : step.phases()) {
        const std::string name = "files_per_sec:" + phase.op();
        emit("", {{name, phase.files_per_sec()}});
        for (const v1::ReportPhaseAgent& a : phase.agents()) emit(a.agent(), {{name, a.files_per_sec()}});
      }
      continue;
    }
    Figures figures;
    const v1::ReportAggregate& aggregate = step.aggregate();
    RowFigures(step.kind(), aggregate.figures(), aggregate.has_copy() ? &aggregate.copy() : nullptr, figures);
    emit("", figures);
    // A target_latency step: the rate it found is a figure of its own ("IOPS at p99 <= 1 ms" is
    // steadier night to night than the peak), the fleet's only.
    if (step.has_search() && step.search().met() && step.search().has_found_rate()) {
      emit("", {{step.search().unit() == "bytes_per_sec" ? "bandwidth_at_target" : "iops_at_target", step.search().found_rate()}});
    }
    // A curve step: each level's achieved rate and p99, the fleet's ("curve_iops:50").
    if (step.has_curve()) {
      const bool bw = step.curve().unit() == "bytes_per_sec";
      for (const v1::ReportLoadPoint& p : step.curve().points()) {
        if (!p.has_level_pct()) continue;
        const std::string level = std::to_string(p.level_pct());
        emit("", {{(bw ? "curve_bandwidth:" : "curve_iops:") + level, p.rate_achieved()},
                  {"curve_p99_latency:" + level, static_cast<double>(p.latency_ns().p99()) / 1e9}});
      }
    }
    for (const v1::ReportAgentFigures& a : step.agents()) {
      figures.clear();
      RowFigures(step.kind(), a.figures(), a.has_copy() ? &a.copy() : nullptr, figures);
      emit(a.agent(), figures);
    }
    // A step with streams: each stream's figures too, over its own window.
    for (const v1::ReportStream& stream : step.streams()) {
      figures.clear();
      RowFigures(step.kind(), stream.aggregate().figures(), nullptr, figures);
      emit("", figures, stream.name());
      for (const v1::ReportAgentFigures& a : stream.agents()) {
        figures.clear();
        RowFigures(step.kind(), a.figures(), nullptr, figures);
        emit(a.agent(), figures, stream.name());
      }
    }
  }
  return out;
}

}  // namespace iofleet::controller
