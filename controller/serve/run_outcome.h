// How one of serve's runs ended, for its row in the queue and its webhook: from its report.json
// when it has one, else from why it stopped (an interrupt, or the last error it logged).
#pragma once

#include <string>

#include "controller/report/report_document.h"
#include "iofleet/v1/report.pb.h"
#include "controller/run/interrupt.h"

namespace iofleet::controller {

struct RunOutcome {
  std::string status;   // succeeded | failed | aborted
  std::string verdict;  // the report's verdicts.verdict, or ""
  std::string error;
};

// `report`: the run's report.json (null when it ended before having one); `exit_code`: what
// `Run` returned; `log`: the messages it wrote. A run whose report says succeeded but which
// exited 1 (its history or a report file could not be written) is failed: it is not recorded,
// so not judged.
RunOutcome OutcomeOf(const v1::Report* report, int exit_code, const Interrupt& interrupt, const std::string& log);

// The last "iofleet: ..." error line of `log` (warnings and the "run ... on N agent(s)" line
// left out), without the prefix; "" when there is none.
std::string LastError(const std::string& log);

}  // namespace iofleet::controller
