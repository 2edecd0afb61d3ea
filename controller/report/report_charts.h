// The charts of report.html as Chart.js 3 configurations (plain JSON, no functions), built from
// the run's document: per-step bandwidth and IOPS by agent (the slowest marked), throughput over
// time by agent (when the document has samples), the latency percentile curve, a sweep's figures
// against its swept values, a repeat's cycles with their 95% interval, and a latency search's
// windows (their pXX against the rate achieved, with the target).
#pragma once

#include <nlohmann/json.hpp>

#include "controller/report/agent_rows.h"
#include "controller/report/report_document.h"

namespace iofleet::controller {

// At most this many charts of one kind: a long sweep would make the page unreadable (and slow on
// a phone); the tables still hold every figure.
constexpr size_t kMaxChartsPerKind = 24;

// Past this many agents a chart draws the fleet's spread rather than one mark per agent: over
// time each interval's slowest, median and fastest agent (a line each, not 1,000); by agent the
// bars stand slowest first. The tables switch to the agents' distribution at the same count;
// samples.csv and report.json keep every agent's figures.
constexpr size_t kMaxAgentLines = kAgentRowsShown;

// [{ "id": "chart-3", "section": "bandwidth", "title": "...", "config": { Chart.js config } }, ...]
// `samples_csv`: the run's samples.csv (controller/report/samples_csv.h), for the charts over time;
// empty: none.
nlohmann::ordered_json ChartSpecs(const ReportDocument& doc, const std::string& samples_csv = "");

}  // namespace iofleet::controller
