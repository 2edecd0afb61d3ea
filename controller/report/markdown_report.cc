// report.md: the console's tables and the verdicts as Markdown tables, for pasting into a ticket.
#include <fmt/format.h>

#include <string_view>

#include "controller/report/headline_table.h"
#include "controller/report/report_tables.h"
#include "controller/report/report_writers.h"

namespace iofleet::controller {
namespace {

// Text from the document is data, never markup: Markdown's punctuation is escaped (CommonMark
// allows a backslash before any ASCII punctuation), a line break would end the table row.
std::string Md(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (std::string_view("\\`*_[]<>|#!&~").find(c) != std::string_view::npos) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string MdTable(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows, size_t left_columns) {
  std::string out = "|";
  std::string rule = "|";
  for (size_t c = 0; c < headers.size(); ++c) {
    out += " " + Md(headers[c]) + " |";
    rule += c < left_columns ? " --- |" : " ---: |";
  }
  out += "\n" + rule + "\n";
  for (const auto& row : rows) {
    out += "|";
    for (const auto& cell : row) out += " " + Md(cell) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace

std::string ReportMarkdown(const ReportDocument& doc) {
  std::string out = fmt::format("# iofleet run {}\n\nWorkload **{}**, status **{}**.\n", Md(doc.run_id()), Md(doc.workload()),
                                Md(StatusText(doc.status())));
  if (!doc.description().empty()) out += "\n" + Md(doc.description()) + "\n";
  if (!doc.error().empty()) out += "\nError: " + Md(doc.error()) + "\n";
  const Table verdicts = VerdictsTable(doc);
  if (!verdicts.title.empty()) {
    out += "\n## Verdicts\n\n";
    for (const auto& note : verdicts.notes) out += "- " + Md(note) + "\n";
    out += "\n" + MdTable(verdicts.headers, verdicts.rows, 3);
  }
  const Table steps = StepsTable(doc);
  out += "\n## Steps\n\n" + MdTable(steps.headers, steps.rows, 5);
  if (!steps.notes.empty()) {
    out += "\n";
    for (const auto& note : steps.notes) out += "- " + Md(note) + "\n";
  }
  for (const auto& table : HeadlineTableList(doc)) {
    std::vector<std::string> headers = table.rows.front();
    std::vector<std::vector<std::string>> rows(table.rows.begin() + 1, table.rows.end());
    out += "\n### " + Md(table.title) + "\n\n" + MdTable(headers, rows, 0);
  }
  const Table limits = LimitsTable(doc);
  if (!limits.rows.empty()) {
    out += "\n## " + Md(limits.title) + "\n\n" + MdTable(limits.headers, limits.rows, 6);
    for (const auto& note : limits.notes) out += "- " + Md(note) + "\n";
  }
  for (const Table& windows : {SearchTable(doc), CurveTable(doc)}) {
    if (!windows.rows.empty()) out += "\n## " + Md(windows.title) + "\n\n" + MdTable(windows.headers, windows.rows, 4);
    for (const auto& note : windows.notes) out += "\n- " + Md(note);
    if (!windows.notes.empty()) out += "\n";
  }
  const Table agents = AgentsTable(doc);
  out += "\n## Agents\n\n" + MdTable(agents.headers, agents.rows, agents.headers.size());
  for (const auto& note : agents.notes) out += "- " + Md(note) + "\n";
  return out;
}

}  // namespace iofleet::controller
