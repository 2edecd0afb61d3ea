// One renderer per format. Each is a pure function of the RunReport.
#pragma once

#include <string>

#include "controller/report/report_model.h"

namespace iofleet::controller {

std::string ReportJson(const RunReport& report);   // report.json, docs/report-schema.md
std::string SummaryCsv(const RunReport& report);   // summary.csv: aggregate and per-agent rows
std::string ConsoleSummary(const RunReport& report);  // the table `iofleet run` prints

// "1.23 ms", "87.0 us", "950 ns"
std::string FormatLatency(double ns);

}  // namespace iofleet::controller
