// report.json read: THE stored document of a run, typed (proto/iofleet/v1/report.proto). Every
// other format (summary.csv, the console summary, report.md, report.html) is a pure function of
// it, so a run stored anywhere (its directory, a history database keeping the text) renders
// again the same way.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "controller/report/report_model.h"
#include "core/base/status.h"
#include "iofleet/v1/report.pb.h"

namespace iofleet::controller {

using ReportDocument = v1::Report;

// The document of a run as `iofleet run` stores it: ReportJson(report), read back.
ReportDocument ToDocument(const RunReport& report);

// report.json's text, checked to be an iofleet report (schema iofleet.report/v1, a steps list)
// and read strictly against its schema (core/wire/proto_json.h). Errors name `source` and, for
// JSON that does not parse, the line and column ("run/report.json:3:7: not valid JSON: ..."),
// else the key ("run/report.json: steps[0].point: expected an integer, got a string").
Result<ReportDocument> ParseReportDocument(const std::string& text, const std::string& source);
// The same checks, keeping the JSON (what serve's API answers, what the history stores).
Result<nlohmann::ordered_json> ParseReportJson(const std::string& text, const std::string& source);
// A JSON document as the typed model, read strictly: errors name `source` and the key.
Result<ReportDocument> TypedReport(const nlohmann::ordered_json& doc, const std::string& source);

// A swept value as written in the workload: report.json stores digits as numbers, else text.
std::string ParamText(const v1::ReportParam& param);
// A step's group cycle, -1 for a step of no group (as the RunReport numbers them).
inline int GroupCycle(const v1::ReportStep& step) { return step.has_group_cycle() ? step.group_cycle() : -1; }
// "succeeded", "failed", "aborted".
std::string StatusText(v1::StepStatus status);
std::string StatusText(v1::RunStatus status);

}  // namespace iofleet::controller
