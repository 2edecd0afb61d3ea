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
  // The shape the renderers walk: a wrong type names its place rather than rendering as blanks.
  auto wrong = [&](const std::string& where, const char* what) { return InvalidArgument(fmt::format("{}: {}: not {}", source, where, what)); };
  auto objects = [&](const ReportDocument& parent, const char* key, const std::string& where) -> Status {
    auto it = parent.find(key);
    if (it == parent.end()) return Status::Ok();
    if (!it->is_array()) return wrong(where + key, "a list");
    for (size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_object()) return wrong(fmt::format("{}{}[{}]", where, key, i), "an object");
    }
    return Status::Ok();
  };
  IOFLEET_RETURN_IF_ERROR(objects(doc, "agents", ""));
  IOFLEET_RETURN_IF_ERROR(objects(doc, "steps", ""));
  IOFLEET_RETURN_IF_ERROR(objects(doc, "summaries", ""));
  for (size_t i = 0; i < doc["steps"].size(); ++i) {
    const ReportDocument& step = doc["steps"][i];
    const std::string where = fmt::format("steps[{}].", i);
    for (const char* key : {"name", "kind", "status"}) {
      if (step.contains(key) && !step[key].is_string()) return wrong(where + key, "a string");
    }
    for (const char* key : {"index", "point", "cycle"}) {
      if (step.contains(key) && !step[key].is_number()) return wrong(where + key, "a number");
    }
    for (const char* key : {"params", "aggregate"}) {
      if (step.contains(key) && !step[key].is_object()) return wrong(where + key, "an object");
    }
    IOFLEET_RETURN_IF_ERROR(objects(step, "agents", where));
    IOFLEET_RETURN_IF_ERROR(objects(step, "phases", where));
  }
  if (doc.contains("verdicts") && !doc["verdicts"].is_object()) return wrong("verdicts", "an object");
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
