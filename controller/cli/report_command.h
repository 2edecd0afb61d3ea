// `iofleet report RUN_ID|RUN_DIR --format json|csv|md|html [--out FILE] [--db FILE]`: a stored
// run rendered again from its report.json, every format the pure function `iofleet run` used. A
// run id is read from the history database alone (report, samples, effective workload), so a run
// renders after its directory is gone.
#pragma once

#include <string>

namespace iofleet::controller {

struct ReportCommandOptions {
  std::string run;  // a run directory, its report.json, or a run id in the history database
  std::string db;   // the history database; empty: iofleet-results/history.db
  std::string format = "md";
  std::string out;  // empty: stdout
};

// The rendered text, or an error naming the input. json|csv|md|html; anything else is an error.
// Exit codes: 0 written, 2 bad input (no such run, not JSON, not an iofleet report, unknown
// format), 1 the output could not be written.
int ReportCommand(const ReportCommandOptions& options);

}  // namespace iofleet::controller
