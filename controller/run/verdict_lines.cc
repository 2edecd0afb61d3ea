#include "controller/run/verdict_lines.h"

#include <fmt/format.h>

#include "controller/history/run_figures.h"
#include "controller/report/report_tables.h"

namespace iofleet::controller {
namespace {

std::string WorkloadDifferencesText(const nlohmann::ordered_json& verdicts) {
  std::string out;
  for (const auto& d : verdicts.value("workload_differences", nlohmann::ordered_json::array())) {
    if (d.is_string()) out += (out.empty() ? "" : ", ") + d.get<std::string>();
  }
  return out;
}

}  // namespace

std::string VerdictLines(const nlohmann::ordered_json& verdicts) {
  const std::string verdict = verdicts.value("verdict", "");
  if (verdict == "not comparable") {
    return fmt::format("verdict: not comparable: the effective workload differs from that of baseline run {} ({}); "
                       "no run with this one's qualifies (--force-compare judges it anyway)\n",
                       verdicts.value("workload_differs_from", ""), WorkloadDifferencesText(verdicts));
  }
  std::string out = fmt::format("verdict: {} (against {}, {} baseline run(s), alpha {}, max regression {}%{})\n", verdict,
                                verdicts.value("reference", ""), verdicts["baseline_runs"].size(), verdicts.value("alpha", 0.05),
                                verdicts.value("max_regression_pct", 5.0), verdicts.value("forced", false) ? ", forced" : "");
  if (verdicts.value("workload_changed", false)) {
    out += fmt::format("warning: forced (--force-compare): the effective workload differs from that of baseline run {} ({}): "
                       "the comparison is not like for like\n",
                       verdicts.value("workload_differs_from", ""), WorkloadDifferencesText(verdicts));
  }
  for (const auto& step : verdicts["steps"]) {
    for (const auto& f : step["figures"]) {
      const std::string figure = f["figure"];
      const std::string name = step["step"].get<std::string>() + (step["point"].get<int>() ? fmt::format("@{}", step["point"].get<int>()) : "");
      if (!f.contains("baseline")) {
        out += fmt::format("  {:<16} {:<22} {:>14}  not enough history ({} run(s))\n", name, figure,
                           FormatFigure(f["now"].get<double>(), UnitOf(figure)), f["baseline_runs"].get<int>());
        continue;
      }
      out += fmt::format("  {:<16} {:<22} {:>14} -> {:>14} {:>+7.1f}%  p={:.3f}  {}\n", name, figure,
                         FormatFigure(f["baseline"].get<double>(), UnitOf(figure)), FormatFigure(f["now"].get<double>(), UnitOf(figure)),
                         f.value("change_pct", 0.0), f.value("p_value", 1.0), f["verdict"].get<std::string>());
    }
  }
  return out;
}

}  // namespace iofleet::controller
