#include "controller/report/report_document.h"

#include <fmt/format.h>

#include <algorithm>

#include "controller/report/report_writers.h"
#include "core/wire/proto_json.h"

namespace iofleet::controller {

ReportDocument ToDocument(const RunReport& report) {
  auto doc = ParseReportDocument(ReportJson(report), "report.json");
  if (doc.ok()) return *doc;
  // ReportJson writes what its schema reads (ReportDocument.ReadingAndWritingAgainGiveTheSameText):
  // should that ever break, the document says so rather than rendering as an empty run.
  ReportDocument broken;
  broken.set_status(v1::RUN_STATUS_FAILED);
  broken.set_error("report.json does not read back: " + doc.status().message());
  return broken;
}

Result<nlohmann::ordered_json> ParseReportJson(const std::string& text, const std::string& source) {
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann counts bytes; people count lines and columns.
    const size_t at = std::min<size_t>(e.byte ? e.byte - 1 : 0, text.size());
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    const size_t line_start = text.rfind('\n', at ? at - 1 : 0);
    const size_t column = line_start == std::string::npos || line == 1 ? at + 1 : at - line_start;
    std::string what = e.what();
    if (size_t colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return InvalidArgument(fmt::format("{}:{}:{}: not valid JSON: {}", source, line, column, what));
  } catch (const nlohmann::json::exception& e) {
    // out_of_range while parsing: a number no double or 64-bit integer holds ("1E05861"); it
    // carries no position.
    std::string what = e.what();
    if (size_t colon = what.find("] "); colon != std::string::npos) what = what.substr(colon + 2);
    return InvalidArgument(fmt::format("{}: not valid JSON: {}", source, what));
  }
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != "iofleet.report/v1") {
    return InvalidArgument(source + ": not an iofleet report (its \"schema\" is not \"iofleet.report/v1\")");
  }
  if (!doc.contains("steps") || !doc["steps"].is_array()) return InvalidArgument(source + ": not an iofleet report (no \"steps\" list)");
  // The whole document against its schema: a key it does not have, or a value of the wrong
  // type, is named with its place rather than rendered as blanks.
  auto typed = TypedReport(doc, source);
  if (!typed.ok()) return typed.status();
  return doc;
}

Result<ReportDocument> TypedReport(const nlohmann::ordered_json& doc, const std::string& source) {
  ReportDocument typed;
  IOFLEET_RETURN_IF_ERROR(wire::FromJson(doc, typed, source));
  return typed;
}

Result<ReportDocument> ParseReportDocument(const std::string& text, const std::string& source) {
  auto doc = ParseReportJson(text, source);
  if (!doc.ok()) return doc.status();
  return TypedReport(*doc, source);
}

std::string ParamText(const v1::ReportParam& param) {
  return param.value_case() == v1::ReportParam::kNumber ? std::to_string(param.number()) : param.text();
}

std::string StatusText(v1::StepStatus status) { return wire::EnumText(status); }
std::string StatusText(v1::RunStatus status) { return wire::EnumText(status); }

}  // namespace iofleet::controller
