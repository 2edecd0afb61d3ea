// A run stored earlier, read back to be rendered again (`iofleet report`). Today a run directory
// (or its report.json); the run history adds run ids from its database here.
#pragma once

#include <filesystem>
#include <string>

#include "controller/report/report_document.h"
#include "core/base/status.h"

namespace iofleet::controller {

// `run_id_or_dir`: a run directory holding report.json, or a report.json file. Errors name the
// file, and for JSON that does not parse, the line and column (InvalidArgument); a path that is
// neither is NotFound.
// (A RUN_ID is looked up in the history database by `iofleet report`, controller/cli/report_command.cc.)
Result<ReportDocument> LoadStoredReport(const std::string& run_id_or_dir);
// Its report.json's text, unread (errors as LoadStoredReport's, but for the content).
Result<std::string> LoadStoredReportText(const std::string& run_id_or_dir);

// The directory holding the stored run's other files (workload.effective.yaml), empty when the
// run came from elsewhere.
std::filesystem::path StoredRunDirectory(const std::string& run_id_or_dir);

}  // namespace iofleet::controller
