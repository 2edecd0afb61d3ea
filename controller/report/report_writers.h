// One renderer per format. report.json comes from the RunReport; every other format is a pure
// function of the run's document (report.json parsed, controller/report/report_document.h).
#pragma once

#include <string>

#include "controller/report/report_document.h"
#include "controller/report/report_model.h"

namespace iofleet::controller {

std::string ReportJson(const RunReport& report);          // report.json, docs/report-schema.md
std::string SummaryCsv(const ReportDocument& doc);        // summary.csv: aggregate and per-agent rows
std::string ConsoleSummary(const ReportDocument& doc);    // the table `iofleet run` prints
std::string ReportMarkdown(const ReportDocument& doc);    // report.md: the console's tables and the verdicts

// "1.23 ms", "87.0 us", "950 ns"
std::string FormatLatency(double ns);

}  // namespace iofleet::controller
