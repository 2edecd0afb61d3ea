#include "controller/serve/run_outcome.h"

#include <sstream>

#include "core/base/exit_code.h"
#include "core/wire/proto_json.h"

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

RunOutcome OutcomeOf(const v1::Report* report, int exit_code, const Interrupt& interrupt, const std::string& log) {
  RunOutcome o;
  if (report) {
    o.status = report->status() == v1::RUN_STATUS_UNSPECIFIED ? "failed" : wire::EnumText(report->status());
    o.error = report->error();
    if (report->has_verdicts()) o.verdict = wire::EnumText(report->verdicts().verdict());
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
