#include "controller/serve/run_outcome.h"

#include <sstream>

#include "core/base/exit_code.h"

namespace iofleet::controller {

std::string LastError(const std::string& log) {
  std::istringstream lines(log);
  std::string line, last;
  while (std::getline(lines, line)) {
    if (line.rfind("iofleet: ", 0) != 0 || line.rfind("iofleet: warning:", 0) == 0 || line.rfind("iofleet: run ", 0) == 0) continue;
    last = line.substr(9);
  }
  return last;
}

RunOutcome OutcomeOf(const ReportDocument* report, int exit_code, const Interrupt& interrupt, const std::string& log) {
  RunOutcome o;
  if (report) {
    o.status = report->value("status", "failed");
    o.error = report->value("error", "");
    if (report->contains("verdicts") && (*report)["verdicts"].is_object()) o.verdict = (*report)["verdicts"].value("verdict", "");
    if (o.status == "succeeded" && exit_code == kExitFailed) {
      o.status = "failed";
      o.verdict.clear();
      o.error = LastError(log);
      if (o.error.empty()) o.error = "the run's report or history could not be written";
    }
    return o;
  }
  o.status = interrupt ? "aborted" : "failed";
  o.error = interrupt ? interrupt.Describe() + " before the run's first step" : LastError(log);
  if (o.error.empty()) o.error = "the run ended before its first step (exit " + std::to_string(exit_code) + ")";
  return o;
}

}  // namespace iofleet::controller
