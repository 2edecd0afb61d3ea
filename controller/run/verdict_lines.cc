#include "controller/run/verdict_lines.h"

#include <fmt/format.h>

#include "controller/history/run_figures.h"
#include "controller/report/report_tables.h"
#include "core/wire/proto_json.h"

namespace iofleet::controller {
namespace {

std::string WorkloadDifferencesText(const v1::ReportVerdicts& verdicts) {
  std::string out;
  for (const std::string& d : verdicts.workload_differences().values()) out += (out.empty() ? "" : ", ") + d;
  return out;
}

}  // namespace

std::string VerdictLines(const v1::ReportVerdicts& verdicts) {
  const std::string verdict = wire::EnumText(verdicts.verdict());
  if (verdicts.verdict() == v1::VERDICT_NOT_COMPARABLE) {
    return fmt::format("verdict: not comparable: the effective workload differs from that of baseline run {} ({}); "
                       "no run with this one's qualifies (--force-compare judges it anyway)\n",
                       verdicts.workload_differs_from(), WorkloadDifferencesText(verdicts));
  }
  std::string out = fmt::format("verdict: {} (against {}, {} baseline run(s), alpha {}, max regression {}%{})\n", verdict,
                                verdicts.reference(), verdicts.baseline_runs_size(), verdicts.alpha(),
                                verdicts.max_regression_pct(), verdicts.forced() ? ", forced" : "");
  if (verdicts.workload_changed()) {
    out += fmt::format("warning: forced (--force-compare): the effective workload differs from that of baseline run {} ({}): "
                       "the comparison is not like for like\n",
                       verdicts.workload_differs_from(), WorkloadDifferencesText(verdicts));
  }
  for (const v1::ReportStepVerdicts& step : verdicts.steps()) {
    for (const v1::ReportFigureVerdict& f : step.figures()) {
      const std::string& figure = f.figure();
      const std::string name = step.step() + (step.point() ? fmt::format("@{}", step.point()) : "");
      if (!f.has_baseline()) {
        out += fmt::format("  {:<16} {:<22} {:>14}  not enough history ({} run(s))\n", name, figure,
                           FormatFigure(f.now(), UnitOf(figure)), f.baseline_runs());
        continue;
      }
      out += fmt::format("  {:<16} {:<22} {:>14} -> {:>14} {:>+7.1f}%  p={:.3f}  {}\n", name, figure,
                         FormatFigure(f.baseline(), UnitOf(figure)), FormatFigure(f.now(), UnitOf(figure)),
                         f.has_change_pct() ? f.change_pct() : 0.0, f.has_p_value() ? f.p_value() : 1.0, wire::EnumText(f.verdict()));
    }
  }
  return out;
}

}  // namespace iofleet::controller
