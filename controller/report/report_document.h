// report.json parsed: THE stored document of a run. Every other format (summary.csv, the console
// summary, report.md, report.html) is a pure function of it, so a run stored anywhere (its
// directory, a history database keeping the text) renders again the same way.
//
// The document is an ordered_json: a step's `params` keep the order the sweep gave them, which
// summary.csv's columns and the console's labels follow.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "controller/report/report_model.h"
#include "core/base/status.h"

namespace iofleet::controller {

using ReportDocument = nlohmann::ordered_json;

// The document of a run as `iofleet run` stores it: ReportJson(report), parsed.
ReportDocument ToDocument(const RunReport& report);

// report.json's text parsed and checked to be an iofleet report (schema iofleet.report/v1, a
// steps list). Errors name `source` and, for JSON that does not parse, the line and column:
// "run/report.json:3:7: not valid JSON: ...".
Result<ReportDocument> ParseReportDocument(const std::string& text, const std::string& source);

// Readers for the renderers: a missing key or null reads as 0 or "", so a document written by an
// older version (fewer keys) still renders.
double Number(const ReportDocument& j, const char* key);
uint64_t Count(const ReportDocument& j, const char* key);
std::string Text(const ReportDocument& j, const char* key);
// A swept value as written in the workload: report.json stores digits as numbers, else text.
std::string ParamText(const ReportDocument& value);
// An empty object for a missing key (never a temporary: safe in a range-for's expression).
const ReportDocument& Object(const ReportDocument& j, const char* key);
// An empty list for a missing key, so `for (const auto& x : List(j, "agents"))` is always safe.
const ReportDocument& List(const ReportDocument& j, const char* key);

}  // namespace iofleet::controller
