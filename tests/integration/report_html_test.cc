// The reports a run leaves, read again: `iofleet run` writes report.md and report.html beside
// report.json; `iofleet report DIR` renders them again from report.json alone, and names bad
// input; and report.html, opened in headless Chromium, draws every chart, logs no error and makes
// no request (read through the DevTools protocol, tests/support/cdp_client.h).
#include <gtest/gtest.h>

#include <optional>
#include <tuple>
#include <unistd.h>

#include <set>

#include "controller/report/report_writers.h"
#include "controller/report/samples_csv.h"
#include "core/base/histogram.h"
#include "core/wire/proto_json.h"
#include "tests/support/cdp_client.h"
#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/controller/report/report_fixtures.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;
using controller::ReportDocument;
using nlohmann::json;

constexpr const char* kChromium = "/usr/bin/chromium";

// A stored run with every kind of chart: a read swept over total_jobs (1, 2), 3 cycles at each
// point on two agents (node2 the slower), progress samples on one step, and verdicts.
ReportDocument EveryChart() {
  using namespace controller::report_fixtures;  // NOLINT
  std::vector<controller::StepReport> steps;
  for (int point = 0; point < 2; ++point) {
    for (int cycle = 0; cycle < 3; ++cycle) {
      controller::StepReport step = TwoAgentRead().steps[0];
      step.point = point;
      step.cycle = cycle;
      step.params = {{"total_jobs", std::to_string(point + 1)}};
      steps.push_back(step);
      steps.back().agents[0].stats.window_ns = kSec + cycle * kSec / 10;  // cycles differ a little
      steps.back().aggregate.window_ns = steps.back().agents[0].stats.window_ns;
    }
  }
  // The first step searched for its latency target: four windows, the last confirming.
  controller::SearchReport search;
  search.max_latency_ns = 1'000'000;
  search.unit = "iops";
  search.probes = {{std::nullopt, 1000, 9'000'000, 1, 1, false, false}, {500.0, 500, 300'000, 1, 1, true, false},
                   {707.0, 700, 2'000'000, 1, 1, false, false}, {500.0, 500, 310'000, 1, 1, true, true}};
  search.found_rate = 500;
  search.met = true;
  steps[0].search = search;
  // The second measured a load curve (full speed, then 50%), the third waited for steady state.
  controller::CurveReport curve;
  curve.unit = "iops";
  curve.max_rate = 1000;
  for (const auto& [level, rate, p99] : {std::tuple<std::optional<uint32_t>, double, uint64_t>{std::nullopt, 1000, 4'000'000}, {50, 500, 300'000}}) {
    controller::CurvePoint point{level, level ? std::optional<double>(rate) : std::nullopt, rate, 1'000'000'000, 500};
    for (int i = 0; i < 100; ++i) point.latency->Record(i < 98 ? p99 / 4 : p99);
    curve.points.push_back(point);
  }
  steps[1].curve = curve;
  controller::SteadyReport steady;
  steady.metric = "iops";
  steady.criterion = "slope";
  steady.window_ns = 3'000'000'000;
  steady.interval_ns = 1'000'000'000;
  steady.reached = true;
  steady.steady_from_ns = 2'000'000'000;
  steady.samples = {400, 900, 1000, 1010, 990};
  steps[2].steady = steady;
  controller::RunReport run = TwoAgentRead();
  run.steps = steps;
  run.workload = "nightly</script><script>window.injected=1</script>";
  ReportDocument doc = WithVerdicts(controller::ToDocument(run));
  // The run's own verdict, as the history writes it: stored without one, report.json would hold
  // VERDICT_UNSPECIFIED, which its reader refuses.
  doc.mutable_verdicts()->set_verdict(v1::VERDICT_REGRESSION);
  return doc;
}

// samples.csv of EveryChart's first step instance on one agent: four intervals, with latency.
std::string EveryChartSamples(const ReportDocument& doc) {
  const controller::SampleStep step{0, doc.steps(0).name(), "io", 0, 0, -1};
  std::string csv = controller::SamplesCsv::kHeader;
  v1::Progress before;
  const uint64_t bytes[] = {52428800, 157286400, 209715200, 314572800};
  for (int i = 0; i < 4; ++i) {
    v1::Progress now;
    now.set_elapsed_ns(250'000'000ull * (i + 1));
    now.set_bytes(bytes[i]);
    now.set_ops(bytes[i] >> 16);
    auto* delta = now.mutable_read()->mutable_latency_ns_delta();
    delta->add_bucket(LatencyHistogram::BucketOf(100'000 * (i + 1)));
    delta->add_count(10);
    csv += controller::SamplesCsv::Row(step, "node1", now, i ? &before : nullptr);
    before = now;
  }
  // The next cycle as 20 agents would send it: drawn as the spread of each interval.
  const controller::SampleStep many{0, doc.steps(1).name(), "io", static_cast<int>(doc.steps(1).point()), static_cast<int>(doc.steps(1).cycle()), -1};
  for (int agent = 0; agent < 20; ++agent) {
    v1::Progress last;
    for (int i = 0; i < 4; ++i) {
      v1::Progress now;
      now.set_elapsed_ns(250'000'000ull * (i + 1));
      now.set_bytes(bytes[i] / 20 * (agent + 1) / 10);
      now.set_ops(now.bytes() >> 16);
      auto* delta = now.mutable_read()->mutable_latency_ns_delta();
      delta->add_bucket(LatencyHistogram::BucketOf(100'000 * (agent + 1)));
      delta->add_count(10);
      csv += controller::SamplesCsv::Row(many, "agent" + std::to_string(agent), now, i ? &last : nullptr);
      last = now;
    }
  }
  return csv;
}

fs::path StoreRun(const TempDir& tmp, const ReportDocument& doc, const std::string& samples_csv = "") {
  const fs::path dir = tmp / "run";
  fs::create_directories(dir);
  WriteText(dir / "report.json", wire::ToJson(doc).dump(2) + "\n");
  WriteText(dir / "workload.effective.yaml", "name: nightly\n# <b>escaped</b>\n");
  if (!samples_csv.empty()) WriteText(dir / "samples.csv", samples_csv);
  return dir;
}

TEST(ReportCommand, RendersAStoredRunAgainInEachFormat) {
  TempDir tmp;
  const ReportDocument doc = EveryChart();
  const fs::path dir = StoreRun(tmp, doc);
  CommandResult md = RunCommand({BinPath("iofleet"), "report", dir.string(), "--format", "md"}, tmp / "logs");
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_EQ(md.out, controller::ReportMarkdown(doc));
  CommandResult csv = RunCommand({BinPath("iofleet"), "report", (dir / "report.json").string(), "--format", "csv"}, tmp / "logs");
  EXPECT_EQ(csv.out, controller::SummaryCsv(doc));
  CommandResult same = RunCommand({BinPath("iofleet"), "report", dir.string(), "--format", "json"}, tmp / "logs");
  EXPECT_EQ(same.out, ReadAll(dir / "report.json"));
  CommandResult html = RunCommand({BinPath("iofleet"), "report", dir.string(), "--format", "html", "--out", (tmp / "r.html").string()},
                                  tmp / "logs");
  ASSERT_EQ(html.code, 0) << html.err;
  EXPECT_EQ(html.out, "");
  EXPECT_NE(ReadAll(tmp / "r.html").find("# &lt;b&gt;escaped&lt;/b&gt;"), std::string::npos);  // the workload beside it
}

TEST(ReportCommand, WithoutChartJsTheTablesAreWrittenAndTheGapIsSaid) {
  TempDir tmp;
  const fs::path dir = StoreRun(tmp, EveryChart());
  Process report({BinPath("iofleet"), "report", dir.string(), "--format", "html", "--out", (tmp / "r.html").string()}, tmp / "logs",
                 {"IOFLEET_CHART_JS=" + (tmp / "none.js").string()});
  EXPECT_EQ(report.Wait(std::chrono::seconds(30)), 0) << report.Stderr();
  EXPECT_NE(report.Stderr().find("report.html without charts: " + (tmp / "none.js").string() + " cannot be read (install libjs-chart.js)"),
            std::string::npos)
      << report.Stderr();
  const std::string html = ReadAll(tmp / "r.html");
  EXPECT_NE(html.find("id=\"no-charts\""), std::string::npos);
  EXPECT_NE(html.find("id=\"steps-table\""), std::string::npos);
}

TEST(ReportCommand, BadInputExitsTwoNamingTheFile) {
  TempDir tmp;
  fs::create_directories(tmp / "run");
  WriteText(tmp / "run" / "report.json", "{\n  \"schema\": \"iofleet.report/v1\",\n  \"steps\": [\n}\n");
  CommandResult bad = RunCommand({BinPath("iofleet"), "report", (tmp / "run").string()}, tmp / "logs");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find((tmp / "run" / "report.json").string() + ":4:1: not valid JSON: "), std::string::npos) << bad.err;
  CommandResult missing = RunCommand({BinPath("iofleet"), "report", (tmp / "nothing").string()}, tmp / "logs");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find((tmp / "nothing").string() + ": no such run directory or report.json file"), std::string::npos) << missing.err;
  WriteText(tmp / "run" / "report.json", R"({"schema": "iofleet.report/v1", "steps": 3})");
  CommandResult shape = RunCommand({BinPath("iofleet"), "report", (tmp / "run").string()}, tmp / "logs");
  EXPECT_EQ(shape.code, 2);
  EXPECT_NE(shape.err.find("not an iofleet report (no \"steps\" list)"), std::string::npos) << shape.err;
  WriteText(tmp / "run" / "report.json", R"({"schema": "iofleet.report/v1", "steps": [{"params": 3, "agents": [1]}]})");
  CommandResult wrong = RunCommand({BinPath("iofleet"), "report", (tmp / "run").string(), "--format", "csv"}, tmp / "logs");
  EXPECT_EQ(wrong.code, 2) << wrong.out;
  EXPECT_NE(wrong.err.find((tmp / "run" / "report.json").string() + ": steps[0].params: expected an object, got an integer"), std::string::npos) << wrong.err;
  CommandResult format = RunCommand({BinPath("iofleet"), "report", (tmp / "run").string(), "--format", "pdf"}, tmp / "logs");
  EXPECT_EQ(format.code, 2);
  EXPECT_NE(format.err.find("--format pdf: not one of json, csv, md, html"), std::string::npos) << format.err;
}

TEST(ReportCommand, ARunWritesReportMdAndHtmlBesideReportJson) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", "name: tiny\ndefaults: { engine: psync, block_size: 64KiB, file_size: 1MiB }\n"
                            "steps:\n  - name: write\n    io: { op: write }\n");
  fs::create_directories(tmp / "data");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--create-local-root", "--local-root", (tmp / "data").string(), "--out",
                                (tmp / "out").string()},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const fs::path run = OnlyRunDir(tmp / "out");
  const std::string md = ReadAll(run / "report.md");
  EXPECT_NE(md.find("Workload **tiny**, status **succeeded**."), std::string::npos) << md;
  const std::string html = ReadAll(run / "report.html");
  EXPECT_NE(html.find("<canvas "), std::string::npos);
  EXPECT_NE(html.find("name: &quot;tiny&quot;"), std::string::npos);  // its effective workload
  // And `iofleet report` renders the same pages from the directory.
  EXPECT_EQ(RunCommand({BinPath("iofleet"), "report", run.string(), "--format", "md"}, tmp / "logs").out, md);
  EXPECT_EQ(RunCommand({BinPath("iofleet"), "report", run.string(), "--format", "html"}, tmp / "logs").out, html);
}

// A run is in the history whole: `iofleet report RUN_ID` renders it from the database alone,
// after its directory is gone, with its samples and effective workload.
TEST(ReportCommand, ARunRendersFromTheHistoryAfterItsDirectoryIsGone) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", "name: tiny\ndefaults: { engine: psync, block_size: 4KiB, file_size: 8MiB }\n"
                            "steps:\n  - name: read\n    io: { op: randread, runtime: 3s }\n");
  fs::create_directories(tmp / "data");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--create-local-root", "--local-root", (tmp / "data").string(), "--out",
                                (tmp / "out").string(), "--progress", "none"},
                               tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const fs::path run = OnlyRunDir(tmp / "out");
  const std::string run_id = run.filename().string();
  const std::string json_text = ReadAll(run / "report.json");
  const std::string samples = ReadAll(run / "samples.csv");
  // samples.csv: a row per sample interval (3 s at 1 s), each with the interval's p99.
  ASSERT_EQ(samples.rfind(controller::SamplesCsv::kHeader, 0), 0u) << samples;
  size_t rows = 0;
  for (char c : samples) rows += c == '\n';
  EXPECT_GE(rows, 1u + 2);
  EXPECT_NE(samples.find(",read,io,0,0,,local,"), std::string::npos) << samples;
  EXPECT_EQ(samples.find(",,\n", std::string(controller::SamplesCsv::kHeader).size()), std::string::npos)
      << "an interval of a running random read without latency: " << samples;
  fs::remove_all(run);

  const std::string db = (tmp / "out" / "history.db").string();
  CommandResult json = RunCommand({BinPath("iofleet"), "report", run_id, "--db", db, "--format", "json"}, tmp / "logs");
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(json.out, json_text);
  CommandResult html = RunCommand({BinPath("iofleet"), "report", run_id, "--db", db, "--format", "html"}, tmp / "logs");
  ASSERT_EQ(html.code, 0) << html.err;
  EXPECT_NE(html.out.find("throughput over time"), std::string::npos) << "the samples came from the database";
  EXPECT_NE(html.out.find("name: &quot;tiny&quot;"), std::string::npos) << "and the effective workload";
  CommandResult missing = RunCommand({BinPath("iofleet"), "report", "20990101-000000-000000", "--db", db}, tmp / "logs");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("and history database " + db), std::string::npos) << missing.err;
}

TEST(ReportHtmlInChromium, ChartsDrawWithNoErrorAndNoRequest) {
  if (access(kChromium, X_OK) != 0) GTEST_SKIP() << kChromium << " is missing: install Debian's chromium to check report.html in a browser";
  TempDir tmp;
  const ReportDocument doc = EveryChart();
  const fs::path dir = StoreRun(tmp, doc, EveryChartSamples(doc));
  CommandResult html = RunCommand({BinPath("iofleet"), "report", dir.string(), "--format", "html", "--out", (dir / "report.html").string()},
                                  tmp / "logs");
  ASSERT_EQ(html.code, 0) << html.err;
  ASSERT_EQ(html.err, "") << "Chart.js should be installed (libjs-chart.js)";

  CdpBrowser browser(kChromium, tmp / "profile");
  ASSERT_TRUE(browser.ok()) << browser.error();
  const std::string page = browser.AttachToPage();
  ASSERT_FALSE(page.empty()) << browser.error() << ReadAll(tmp / "profile" / "stderr");
  for (const char* domain : {"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"}) {
    ASSERT_TRUE(browser.Call(domain, json::object(), page)) << browser.error();
  }
  const std::string url = "file://" + fs::absolute(dir / "report.html").string();
  ASSERT_TRUE(browser.Call("Page.navigate", {{"url", url}}, page)) << browser.error();
  ASSERT_TRUE(browser.WaitForEvent("Page.loadEventFired", std::chrono::seconds(10))) << browser.error();

  // Every canvas holds a Chart with data and has pixels that are not blank.
  const char* check = R"JS((() => {
    const canvases = [...document.querySelectorAll('canvas')];
    const drawn = canvases.filter(c => {
      const chart = window.Chart && Chart.getChart(c);
      if (!chart || !chart.data.datasets.some(d => d.data.length > 0)) return false;
      const pixels = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return true;
      return false;
    });
    return JSON.stringify({canvases: canvases.length, drawn: drawn.length, injected: !!window.injected,
                           sections: [...document.querySelectorAll('h3')].map(h => h.textContent)});
  })())JS";
  auto result = browser.Call("Runtime.evaluate", {{"expression", check}, {"returnByValue", true}}, page);
  ASSERT_TRUE(result) << browser.error();
  ASSERT_TRUE((*result)["result"].contains("value")) << result->dump();
  const json seen = json::parse((*result)["result"]["value"].get<std::string>());
  // Sweep, 2 x cycles, 6 x bandwidth, a latency search, a load curve and a steady wait, 4
  // timelines (throughput and p99 of one agent, and of 20 agents' spread), 1 latency curve.
  EXPECT_EQ(seen["canvases"], 17) << seen;
  EXPECT_EQ(seen["drawn"], seen["canvases"]) << seen;
  EXPECT_EQ(seen["injected"], false);  // the workload's name stayed text
  for (const char* section : {"By swept value", "Cycles", "Bandwidth and IOPS by agent", "Latency search, load curves and steady state", "Throughput over time",
                              "Latency percentiles"}) {
    EXPECT_NE(seen["sections"].dump().find(section), std::string::npos) << section << " " << seen;
  }

  browser.Call("Runtime.evaluate", {{"expression", "1"}}, page);  // let late events arrive
  const auto problems = PageProblems(browser.events(), [](const std::string& url) {
    return url.rfind("file:", 0) == 0 || url.rfind("data:", 0) == 0;
  });
  EXPECT_TRUE(problems.empty()) << JoinLines(problems);
}

}  // namespace
}  // namespace iofleet::testing
