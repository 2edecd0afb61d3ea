// report.html: ONE self-contained page that renders offline (no request leaves it): the run's
// tables, and charts drawn by Chart.js, whose source is inlined into the page. A pure function of
// the run's document plus what the run directory holds beside it (the effective workload) and the
// chart library's text.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "controller/report/report_document.h"

namespace iofleet::controller {

struct HtmlAssets {
  // Chart.js 3 (Debian's libjs-chart.js) as read from `chart_js_path`; nullopt: it could not be
  // read, and the page says so where the charts would be (the tables are still there).
  std::optional<std::string> chart_js;
  std::string chart_js_path;
  // workload.effective.yaml, shown as text; nullopt: not at hand.
  std::optional<std::string> effective_workload;
  // samples.csv, for throughput and p99 over time; empty: not at hand.
  std::string samples_csv;
};

// Where Chart.js is read from: $IOFLEET_CHART_JS, else the build's default (Debian's
// /usr/share/javascript/chart.js/chart.min.js).
std::string ChartJsPath();
// The library read from ChartJsPath() (nullopt when it cannot be read), and the effective
// workload and samples from `run_dir` (workload.effective.yaml, samples.csv) when it holds them.
HtmlAssets LoadHtmlAssets(const std::filesystem::path& run_dir);

std::string ReportHtml(const ReportDocument& doc, const HtmlAssets& assets);

// For the page's text: & < > " ' as entities.
std::string HtmlEscape(const std::string& s);
// JSON to put inside a <script> element: every < > & and U+2028/U+2029 as \u escapes, so no
// "</script>" or "<!--" can end or change the element, and old parsers see no line break.
std::string ScriptJson(const nlohmann::ordered_json& j);

}  // namespace iofleet::controller
