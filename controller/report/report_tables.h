// The tables of a run's document that report.md and report.html share: the agents, every step's
// figures (as the console shows them), and the regression verdicts. Cells are plain text; each
// format escapes them its own way.
#pragma once

#include <string>
#include <vector>

#include "controller/report/report_document.h"

namespace iofleet::controller {

struct Table {
  std::string title;
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;  // what the console prints under a step: warnings, errors, notes
};

// One row per agent: name, address, version and the host facts it reported.
Table AgentsTable(const ReportDocument& doc);

// Every step instance: its aggregate row, a mixed step's read and write rows, then one row per
// agent (the slowest marked), or a files step's phases; columns as the console's.
Table StepsTable(const ReportDocument& doc);

// What held each agent back in each io step (report.json's `limit` and `resources`): one row per
// agent with its verdict, its busiest device's figures, the core, and the evidence; a table
// without rows when no step has them.
Table LimitsTable(const ReportDocument& doc);

// Every window of each target_latency step's search (report.json's `search`): the rate asked and
// achieved, the pXX and whether it passed; a table without rows when no step searched.
Table SearchTable(const ReportDocument& doc);

// Every window of each curve step (report.json's `curve`): the level, the rate asked and
// achieved, and the latency percentiles; a table without rows when no step has one.
Table CurveTable(const ReportDocument& doc);

// The verdicts (key `verdicts`, written by the run history), one row per figure; a table with
// an empty title when the document has none. Its `notes` say what the run was compared with,
// and warn when the effective workload changed.
Table VerdictsTable(const ReportDocument& doc);

// One warning per agent whose run directory is in memory (host.memory_backed: tmpfs, a zram or
// brd device, a loop device or overlay over tmpfs): its figures show RAM, not storage. The
// console, report.md and report.html print them as the page-cache warning.
std::vector<std::string> MemoryBackedWarnings(const ReportDocument& doc);

// A figure in its unit: bytes_per_sec as MiB/s, ns as a latency, else as a plain number.
std::string FormatFigure(double value, const std::string& unit);

}  // namespace iofleet::controller
