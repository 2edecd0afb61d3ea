#include "controller/report/report_document.h"

#include <fmt/format.h>

#include <algorithm>

#include "controller/report/report_writers.h"

namespace iofleet::controller {

ReportDocument ToDocument(const RunReport& report) { return ReportDocument::parse(ReportJson(report)); }

Result<ReportDocument> ParseReportDocument(const std::string& text, const std::string& source) {
  ReportDocument doc;
  try {
    doc = ReportDocument::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann counts bytes; people count lines and columns.
    const size_t at = std::min<size_t>(e.byte ? e.byte - 1 : 0, text.size());
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    const size_t line_start = text.rfind('\n', at ? at - 1 : 0);
    const size_t column = line_start == std::string::npos || line == 1 ? at + 1 : at - line_start;
    std::string what = e.what();
    if (size_t colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return InvalidArgument(fmt::format("{}:{}:{}: not valid JSON: {}", source, line, column, what));
  }
  if (!doc.is_object() || doc.value("schema", "") != "iofleet.report/v1") {
    return InvalidArgument(source + ": not an iofleet report (its \"schema\" is not \"iofleet.report/v1\")");
  }
  if (!doc.contains("steps") || !doc["steps"].is_array()) return InvalidArgument(source + ": not an iofleet report (no \"steps\" list)");
  return doc;
}

double Number(const ReportDocument& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

uint64_t Count(const ReportDocument& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return 0;
  return it->is_number_unsigned() ? it->get<uint64_t>() : static_cast<uint64_t>(std::max<double>(0, it->get<double>()));
}

std::string Text(const ReportDocument& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string ParamText(const ReportDocument& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

const ReportDocument& Object(const ReportDocument& j, const char* key) {
  static const ReportDocument kEmpty = ReportDocument::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

const ReportDocument& List(const ReportDocument& j, const char* key) {
  static const ReportDocument kEmpty = ReportDocument::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

}  // namespace iofleet::controller
