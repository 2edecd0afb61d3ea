#include "controller/report/html_report.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "controller/report/headline_table.h"
#include "controller/report/report_charts.h"
#include "controller/report/report_tables.h"

#ifndef IOFLEET_CHART_JS
#define IOFLEET_CHART_JS "/usr/share/javascript/chart.js/chart.min.js"
#endif

namespace iofleet::controller {
namespace {

// Phones first: one column, tables scroll sideways inside their box, charts as wide as the screen.
constexpr const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;padding:0 12px 32px;max-width:1200px;color:#222;line-height:1.4}
h1{font-size:1.4em;word-break:break-all}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}h3{font-size:1em}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}th,td{padding:3px 8px;border-bottom:1px solid #eee;white-space:nowrap}
th{background:#f4f4f4;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,520px),1fr));gap:16px}
.chart{position:relative;width:100%;min-width:0}
.regression{color:#b00;font-weight:bold}.improvement{color:#060;font-weight:bold}.warning{color:#a60}
.status-failed,.status-aborted{color:#b00;font-weight:bold}
pre{background:#f8f8f8;padding:8px;overflow-x:auto;font-size:.8em}
)";

// Draws each chart described in the data element; a page without the library says so.
constexpr const char* kDraw = R"(
(function () {
  var specs = JSON.parse(document.getElementById('iofleet-charts').textContent);
  if (typeof Chart === 'undefined') return;
  window.iofleetCharts = [];
  specs.forEach(function (spec) {
    var canvas = document.getElementById(spec.id);
    if (!canvas) return;
    var legend = spec.config.options.plugins.legend;
    legend.labels = { filter: function (item) { return item.text !== ''; } };
    window.iofleetCharts.push(new Chart(canvas.getContext('2d'), spec.config));
  });
})();
)";

std::string Cell(const std::string& text, bool numeric, const std::string& css_class = "") {
  std::string classes = numeric ? "n" : "";
  if (!css_class.empty()) classes += (classes.empty() ? "" : " ") + css_class;
  return fmt::format("<td{}>{}</td>", classes.empty() ? "" : " class=\"" + classes + "\"", HtmlEscape(text));
}

// A cell holds a number when it starts like one ("12.5", "+3.1%", "1.20 ms", "+/-4.2").
bool Numeric(const std::string& s) {
  if (s.empty()) return false;
  const char c = s[0];
  return (c >= '0' && c <= '9') || ((c == '+' || c == '-') && s.size() > 1);
}

std::string HtmlTable(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows, const std::string& id,
                      int class_column = -1) {
  std::string out = "<div class=\"scroll\"><table" + (id.empty() ? std::string() : " id=\"" + id + "\"") + "><thead><tr>";
  for (const auto& h : headers) out += "<th>" + HtmlEscape(h) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (size_t c = 0; c < row.size(); ++c) {
      std::string css;
      if (static_cast<int>(c) == class_column) {
        css = row[c] == "regression" || row[c] == "improvement" ? row[c] : (row[c] == "failed" || row[c] == "aborted" ? "status-" + row[c] : "");
      }
      out += Cell(row[c], Numeric(row[c]), css);
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

std::string Notes(const std::vector<std::string>& notes) {
  if (notes.empty()) return "";
  std::string out = "<ul>";
  for (const auto& n : notes) out += "<li" + std::string(n.find("warning") != std::string::npos ? " class=\"warning\"" : "") + ">" + HtmlEscape(n) + "</li>";
  return out + "</ul>\n";
}

const std::pair<const char*, const char*> kSections[] = {
    {"sweep", "By swept value"}, {"cycles", "Cycles"}, {"bandwidth", "Bandwidth and IOPS by agent"},
    {"streams", "Streams"}, {"search", "Latency search, load curves and steady state"}, {"timeline", "Throughput over time"},
    {"latency", "Latency percentiles"}};

std::string ChartsHtml(const nlohmann::ordered_json& specs, const HtmlAssets& assets) {
  std::string out = "<h2 id=\"charts\">Charts</h2>\n";
  if (!assets.chart_js) {
    return out + "<p class=\"warning\" id=\"no-charts\">No charts: the chart library (Debian's libjs-chart.js) was not found at " +
           HtmlEscape(assets.chart_js_path) + " when this page was made. The tables below hold every figure.</p>\n";
  }
  if (specs.empty()) return out + "<p>No step has figures to chart.</p>\n";
  // No timeline charts: say why rather than leave the reader looking for them.
  bool timelines = false;
  for (const auto& s : specs) timelines = timelines || s.value("section", "") == "timeline";  // a drawn chart or a note why not
  for (const auto& [section, title] : kSections) {
    std::string charts;
    for (const auto& s : specs) {
      if (s.value("section", "") != section) continue;
      if (s.contains("note")) {
        charts += "<p class=\"chart-note\">" + HtmlEscape(s["note"].get<std::string>()) + "</p>\n";
        continue;
      }
      if (s.contains("left_out")) {
        charts += fmt::format("<p>{} more charts of this kind left out; the tables hold their figures.</p>", s["left_out"].get<size_t>());
        continue;
      }
      charts += "<div class=\"chart\"><canvas id=\"" + HtmlEscape(s["id"].get<std::string>()) + "\" role=\"img\" aria-label=\"" +
                HtmlEscape(s["title"].get<std::string>()) + "\"></canvas></div>\n";
    }
    if (charts.empty()) continue;
    out += fmt::format("<h3>{}</h3>\n<div class=\"charts\">\n{}</div>\n", title, charts);
  }
  if (!timelines) out += "<p>No throughput over time: this report holds no progress samples.</p>\n";
  return out;
}

}  // namespace

std::string HtmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string ScriptJson(const nlohmann::ordered_json& j) {
  // Invalid UTF-8 in the document becomes U+FFFD rather than an exception.
  const std::string text = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < text.size() && text[i + 1] == '\x80' && (text[i + 2] == '\xa8' || text[i + 2] == '\xa9')) {
      out += text[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";  // line and paragraph separators
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string ChartJsPath() {
  const char* env = std::getenv("IOFLEET_CHART_JS");
  return env && *env ? env : IOFLEET_CHART_JS;
}

namespace {
std::optional<std::string> ReadWhole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}
}  // namespace

HtmlAssets LoadHtmlAssets(const std::filesystem::path& run_dir) {
  HtmlAssets assets;
  assets.chart_js_path = ChartJsPath();
  assets.chart_js = ReadWhole(assets.chart_js_path);
  if (assets.chart_js && assets.chart_js->empty()) assets.chart_js.reset();
  if (!run_dir.empty()) {
    assets.effective_workload = ReadWhole(run_dir / "workload.effective.yaml");
    assets.samples_csv = ReadWhole(run_dir / "samples.csv").value_or("");
  }
  return assets;
}

std::string ReportHtml(const ReportDocument& doc, const HtmlAssets& assets) {
  const std::string run_id = doc.run_id();
  const std::string status = StatusText(doc.status());  // "" for a document without one
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    // Nothing may leave the page: no fetch, image, font or frame from anywhere.
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
                    "style-src 'unsafe-inline'; img-src data:\">\n";
  out += "<title>iofleet " + HtmlEscape(doc.workload()) + " " + HtmlEscape(run_id) + "</title>\n";
  out += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += "<h1>iofleet run " + HtmlEscape(run_id) + "</h1>\n";
  out += "<p>Workload <b>" + HtmlEscape(doc.workload()) + "</b>, status <b class=\"status-" + HtmlEscape(status) + "\">" +
         HtmlEscape(status) + "</b>.</p>\n";
  if (!doc.description().empty()) out += "<p id=\"description\">" + HtmlEscape(doc.description()) + "</p>\n";
  if (const std::string error = doc.error(); !error.empty()) out += "<p class=\"status-failed\">Error: " + HtmlEscape(error) + "</p>\n";

  const Table verdicts = VerdictsTable(doc);
  if (!verdicts.title.empty()) {
    out += "<h2 id=\"verdicts\">Verdicts</h2>\n" + Notes(verdicts.notes) + HtmlTable(verdicts.headers, verdicts.rows, "verdicts-table", 8);
  }
  // A sweep's or repeat's summary first: the per-point charts below are its detail.
  const std::vector<HeadlineTable> headlines = HeadlineTableList(doc);
  if (!headlines.empty()) {
    out += "<h2 id=\"headline\">Sweeps and repeats</h2>\n";
    for (const auto& t : headlines) {
      out += "<h3>" + HtmlEscape(t.title) + "</h3>\n" +
             HtmlTable(t.rows.front(), {t.rows.begin() + 1, t.rows.end()}, "", static_cast<int>(t.rows.front().size()) - 1);
    }
  }
  const nlohmann::ordered_json specs = ChartSpecs(doc, assets.samples_csv);
  out += ChartsHtml(specs, assets);

  const Table steps = StepsTable(doc);
  out += "<h2 id=\"steps\">Steps</h2>\n" + HtmlTable(steps.headers, steps.rows, "steps-table", 12) + Notes(steps.notes);
  const Table limits = LimitsTable(doc);
  if (!limits.rows.empty()) out += "<h2 id=\"limits\">" + HtmlEscape(limits.title) + "</h2>\n" + HtmlTable(limits.headers, limits.rows, "limits-table") + Notes(limits.notes);
  const Table search = SearchTable(doc);
  if (!search.rows.empty()) {
    out += "<h2 id=\"search\">" + HtmlEscape(search.title) + "</h2>\n" + HtmlTable(search.headers, search.rows, "search-table") +
           Notes(search.notes);
  }
  const Table curve = CurveTable(doc);
  if (!curve.rows.empty()) out += "<h2 id=\"curve\">" + HtmlEscape(curve.title) + "</h2>\n" + HtmlTable(curve.headers, curve.rows, "curve-table");
  if (!curve.notes.empty()) out += Notes(curve.notes);
  const Table agents = AgentsTable(doc);
  out += "<h2 id=\"agents\">Agents</h2>\n" + HtmlTable(agents.headers, agents.rows, "agents-table") + Notes(agents.notes);
  if (assets.effective_workload) {
    out += "<h2 id=\"workload\">Effective workload</h2>\n<pre id=\"workload-text\">" + HtmlEscape(*assets.effective_workload) + "</pre>\n";
  }
  out += "<script id=\"iofleet-charts\" type=\"application/json\">" + ScriptJson(specs) + "</script>\n";
  if (assets.chart_js) {
    // The library as installed, only made unable to close its own element early.
    std::string library = *assets.chart_js;
    for (size_t at = 0; (at = library.find("</", at)) != std::string::npos; at += 3) library.replace(at, 2, "<\\/");
    out += "<script>/* Chart.js (Debian's libjs-chart.js), inlined */\n" + library + "\n</script>\n";
    out += "<script>" + std::string(kDraw) + "</script>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace iofleet::controller
