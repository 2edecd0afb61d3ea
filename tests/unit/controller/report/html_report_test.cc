// report.html's structure: one page with everything inlined, every string from the document
// escaped (in the text and inside <script>), a canvas per chart, the library inlined or its
// absence said. Whether the charts draw is tested in Chromium (tests/integration/report_html_test.cc).
#include "controller/report/html_report.h"
#include "controller/report/samples_csv.h"

#include <gtest/gtest.h>

#include <regex>

#include <fmt/format.h>

#include "controller/report/report_charts.h"
#include "tests/unit/controller/report/report_fixtures.h"

namespace iofleet::controller {
namespace {

using namespace report_fixtures;  // NOLINT: the runs the tests render

HtmlAssets FakeLibrary() {
  HtmlAssets assets;
  assets.chart_js = "window.Chart = function () {}; /* </script> inside the library */";
  assets.chart_js_path = "/lib/chart.min.js";
  assets.effective_workload = "name: nightly-read\n# <b>not bold</b> & more\n";
  return assets;
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(needle, at)) != std::string::npos; at += needle.size()) ++n;
  return n;
}

TEST(ReportHtml, OnePageWithItsTablesChartsLibraryAndWorkload) {
  const std::string html = ReportHtml(WithVerdicts(ToDocument(TwoAgentRead())), FakeLibrary());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_NE(html.find("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"), std::string::npos);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);  // nothing may be fetched
  for (const char* id : {"id=\"verdicts-table\"", "id=\"steps-table\"", "id=\"agents-table\"", "id=\"workload-text\"", "id=\"iofleet-charts\""}) {
    EXPECT_EQ(Count(html, id), 1u) << id;
  }
  EXPECT_NE(html.find("<td class=\"regression\">regression</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>node2 (slowest, 50% below the median)</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>node1.example</td>"), std::string::npos);
  // A bandwidth chart (one step) and a latency curve: a canvas for each spec, nothing else.
  const nlohmann::ordered_json specs = ChartSpecs(WithVerdicts(ToDocument(TwoAgentRead())));
  ASSERT_EQ(specs.size(), 2u) << specs.dump(1);
  EXPECT_EQ(specs[0]["section"], "bandwidth");
  EXPECT_EQ(specs[0]["config"]["data"]["labels"], nlohmann::ordered_json::parse(R"j(["node1", "node2 (slowest)"])j"));
  EXPECT_EQ(specs[0]["config"]["data"]["datasets"][0]["backgroundColor"][1], "#d62728");  // the slowest in red
  EXPECT_EQ(specs[1]["section"], "latency");
  EXPECT_EQ(Count(html, "<canvas "), 2u);
  EXPECT_NE(html.find("No throughput over time: this report holds no progress samples."), std::string::npos);
  // The library, unable to close its own element; no address outside the page.
  EXPECT_NE(html.find("window.Chart = function () {}; /* <\\/script> inside the library */"), std::string::npos);
  EXPECT_EQ(Count(html, "</script>"), Count(html, "<script"));
  EXPECT_FALSE(std::regex_search(html, std::regex("(src|href)=")));
  EXPECT_NE(html.find("# &lt;b&gt;not bold&lt;/b&gt; &amp; more"), std::string::npos);
}

// Sweep charts named points by index ("write point 2 cycle 0"), and the summary table came after
// the per-point charts.
TEST(ReportHtml, ASweepsPointsAreNamedByTheirValuesAfterItsSummaryTable) {
  RunReport sweep = ThreadSweep();
  for (auto& step : sweep.steps) {
    if (step.kind == "io") step.aggregate.latency->Record(1'000'000);
  }
  const ReportDocument doc = ToDocument(sweep);
  const nlohmann::ordered_json specs = ChartSpecs(doc);
  bool named = false;
  for (const auto& s : specs) {
    const std::string text = s.dump();
    EXPECT_EQ(text.find("point "), std::string::npos) << text;
    named = named || text.find("write total_jobs=4 cycle 0") != std::string::npos;
  }
  EXPECT_TRUE(named) << specs.dump(1);
  const std::string html = ReportHtml(doc, FakeLibrary());
  ASSERT_NE(html.find("id=\"headline\""), std::string::npos);
  EXPECT_LT(html.find("id=\"headline\""), html.find("<canvas ")) << "the summary table before the per-point charts";
}

// The quickstart's steps took under 1.2 s, got one sample each, and the timeline charts stood empty.
TEST(ReportHtml, AStepWithTooFewSamplesSaysSoInsteadOfEmptyAxes) {
  const ReportDocument doc = ToDocument(TwoAgentRead());
  SampleStep step{0, doc.steps(0).name(), "io", 0, 0, -1};
  v1::Progress only;
  only.set_elapsed_ns(900'000'000);
  only.set_bytes(104857600);
  only.set_ops(100);
  const std::string csv = std::string(SamplesCsv::kHeader) + SamplesCsv::Row(step, "node1", only, nullptr) +
                          SamplesCsv::Row(step, "node2", only, nullptr);
  const nlohmann::ordered_json specs = ChartSpecs(doc, csv);
  bool noted = false;
  for (const auto& s : specs) {
    if (s.value("section", "") != "timeline") continue;
    EXPECT_FALSE(s.contains("config")) << "no chart of one point per line: " << s.dump();
    noted = noted || s.value("note", "").find("1 progress sample per agent") != std::string::npos;
  }
  EXPECT_TRUE(noted) << specs.dump(1);
}

// The throughput-over-time chart of ChartSpecs' answer (not its p99 twin); null: none.
const nlohmann::ordered_json* ThroughputTimeline(const nlohmann::ordered_json& specs) {
  const nlohmann::ordered_json* timeline = nullptr;
  for (const auto& s : specs) {
    if (s.value("section", "") == "timeline" && s.contains("config") && s["title"].get<std::string>().find(" p99") == std::string::npos) {
      timeline = &s;
    }
  }
  return timeline;
}

// A mixed workload's 5 s ramp was drawn as a flat 0 MiB/s line the charts climbed from.
TEST(ReportHtml, TheRampIsDrawnApartFromTheWindow) {
  const ReportDocument doc = ToDocument(TwoAgentRead());
  SampleStep step{0, doc.steps(0).name(), "io", 0, 0, -1, 1'000'000'000};
  std::string csv = SamplesCsv::kHeader;
  v1::Progress before;
  for (int i = 1; i <= 4; ++i) {
    v1::Progress p;
    p.set_elapsed_ns(i * 500'000'000ull);
    p.set_ramp_bytes(std::min(i, 2) * 50'000'000ull);
    p.set_bytes(i > 2 ? (i - 2) * 60'000'000ull : 0);
    csv += SamplesCsv::Row(step, "node1", p, i > 1 ? &before : nullptr);
    before = p;
  }
  const nlohmann::ordered_json specs = ChartSpecs(doc, csv);
  const nlohmann::ordered_json* timeline = ThroughputTimeline(specs);
  ASSERT_NE(timeline, nullptr) << specs.dump(1);
  const auto& datasets = (*timeline)["config"]["data"]["datasets"];
  ASSERT_EQ(datasets.size(), 2u) << datasets.dump();
  EXPECT_EQ(datasets[0]["label"], "node1");
  EXPECT_EQ(datasets[0]["data"].size(), 2u);  // the window's samples only
  for (const auto& point : datasets[0]["data"]) EXPECT_GT(point["y"].get<double>(), 0) << "no zero-throughput ramp points";
  EXPECT_EQ(datasets[1]["label"], "node1 (ramp)");
  EXPECT_EQ(datasets[1]["data"].size(), 2u);
  EXPECT_TRUE(datasets[1].contains("borderDash"));
}

TEST(ReportHtml, StringsFromTheDocumentAreEscapedInTextAndInScript) {
  RunReport run = TwoAgentRead();
  run.workload = "</script><script>alert(1)</script>";
  run.steps[0].name = "x</script>\xe2\x80\xa8y";  // and a U+2028 line separator
  run.steps[0].agents[0].agent = "<img src=x onerror=alert(1)>";
  const std::string html = ReportHtml(ToDocument(run), FakeLibrary());
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  const size_t data = html.find("<script id=\"iofleet-charts\"");
  const std::string script = html.substr(data, html.find("</script>", data) - data);
  EXPECT_EQ(script.find("\xe2\x80\xa8"), std::string::npos);  // in <script> JSON: \u2028, no line break for old parsers
  EXPECT_NE(script.find("x\\u003c/script\\u003e\\u2028y"), std::string::npos) << script;
  EXPECT_EQ(ScriptJson(nlohmann::ordered_json("a</b>&\xe2\x80\xa9")), "\"a\\u003c/b\\u003e\\u0026\\u2029\"");
}

TEST(ReportHtml, WithoutTheLibraryTheTablesStayAndThePageSaysWhy) {
  HtmlAssets assets;
  assets.chart_js_path = "/nowhere/chart.min.js";
  const std::string html = ReportHtml(ToDocument(TwoAgentRead()), assets);
  EXPECT_NE(html.find("No charts: the chart library (Debian's libjs-chart.js) was not found at /nowhere/chart.min.js"), std::string::npos);
  EXPECT_EQ(html.find("<canvas"), std::string::npos);
  EXPECT_NE(html.find("id=\"steps-table\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"workload\""), std::string::npos);  // not given: not shown
}

TEST(ReportCharts, ASweepIsDrawnAgainstItsSweptValuesAndARepeatWithItsInterval) {
  const nlohmann::ordered_json sweep = ChartSpecs(ToDocument(ThreadSweep()));
  ASSERT_FALSE(sweep.empty());
  EXPECT_EQ(sweep[0]["section"], "sweep");
  EXPECT_EQ(sweep[0]["config"]["data"]["labels"], nlohmann::ordered_json::parse(R"(["total_jobs=1", "total_jobs=2", "total_jobs=4"])"));
  EXPECT_EQ(sweep[0]["config"]["data"]["datasets"][0]["data"], nlohmann::ordered_json::parse("[100.0, 200.0, 400.0]"));

  // Copies of 1 GB in 1, 2 and 4 s: 953.7, 476.8 and 238.4 MiB/s, their mean and 95% interval
  // as lines across (report.json's summaries).
  const ReportDocument doc = ToDocument(CopyCycles());
  const nlohmann::ordered_json cycles = ChartSpecs(doc);
  // (the drop_caches step only prepares: no chart; the hook is timed: a chart of seconds)
  ASSERT_EQ(cycles.size(), 2u) << cycles.dump(1);  // copy and hook cycles; one agent, so no bars by agent for each copy
  const auto& c = cycles[0];
  ASSERT_EQ(c["section"], "cycles") << cycles.dump(1);
  EXPECT_EQ(cycles[1]["section"], "cycles");
  EXPECT_EQ(cycles[1]["config"]["options"]["scales"]["y"]["title"]["text"], "seconds");
  EXPECT_EQ(c["config"]["data"]["labels"], nlohmann::ordered_json::parse(R"(["cycle 0", "cycle 1", "cycle 2"])"));
  const auto& datasets = c["config"]["data"]["datasets"];
  EXPECT_NEAR(datasets[0]["data"][2].get<double>(), 1e9 / 4 / (1 << 20), 1e-9);
  double mean = 0;
  for (const v1::ReportSummary& summary : doc.summaries().values()) {
    if (summary.name() == "copy-in") mean = summary.bytes_per_sec().mean() / (1 << 20);
  }
  EXPECT_NEAR(mean, (953.674 + 476.837 + 238.419) / 3, 1e-3);
  EXPECT_DOUBLE_EQ(datasets[1]["data"][0].get<double>(), mean);
  EXPECT_EQ(datasets[2]["label"], "95% interval");
  EXPECT_LT(datasets[2]["data"][0].get<double>(), mean);
  EXPECT_GT(datasets[3]["data"][0].get<double>(), mean);
}

TEST(ReportCharts, SamplesDrawEachAgentsThroughputAndP99OverTime) {
  ReportDocument doc = ToDocument(TwoAgentRead());
  SampleStep step{0, doc.steps(0).name(), "io", 0, 0, -1};
  v1::Progress first, second;
  first.set_elapsed_ns(500'000'000);
  first.set_bytes(104857600);
  first.set_ops(100);
  second.set_elapsed_ns(1'000'000'000);
  second.set_bytes(314572800);
  second.set_ops(300);
  auto* delta = second.mutable_read()->mutable_latency_ns_delta();
  delta->add_bucket(LatencyHistogram::BucketOf(2'000'000));
  delta->add_count(200);
  delta->set_sum(400'000'000);
  const std::string csv = std::string(SamplesCsv::kHeader) + SamplesCsv::Row(step, "node01", first, nullptr) +
                          SamplesCsv::Row(step, "node01", second, &first);
  const nlohmann::ordered_json specs = ChartSpecs(doc, csv);
  std::vector<const nlohmann::ordered_json*> timelines;
  for (const auto& s : specs) {
    if (s["section"] == "timeline") timelines.push_back(&s);
  }
  ASSERT_EQ(timelines.size(), 2u) << specs.dump(1);
  const auto& rates = (*timelines[0])["config"]["data"]["datasets"][0];
  EXPECT_EQ(rates["label"], "node01");
  EXPECT_EQ(rates["data"], nlohmann::ordered_json::parse(R"([{"x": 0.5, "y": 200.0}, {"x": 1.0, "y": 400.0}])"));
  const auto& p99 = (*timelines[1])["config"]["data"]["datasets"][0]["data"];
  ASSERT_EQ(p99.size(), 1u);  // the first interval carried no latency
  EXPECT_NEAR(p99[0]["y"].get<double>(), 2.0, 0.02);
  EXPECT_TRUE(ChartSpecs(doc).dump().find("timeline") == std::string::npos);
}

// 40 agents: a line per agent was 40 lines no one could tell apart (and 1,000 at 1,000 agents);
// past kMaxAgentLines the chart draws each interval's slowest, median and fastest agent instead.
TEST(ReportCharts, ManyAgentsAreDrawnAsTheSpreadOfEachInterval) {
  ReportDocument doc = ToDocument(TwoAgentRead());
  SampleStep step{0, doc.steps(0).name(), "io", 0, 0, -1};
  std::string csv = SamplesCsv::kHeader;
  for (int a = 0; a < 40; ++a) {
    v1::Progress before;
    for (int i = 1; i <= 3; ++i) {
      v1::Progress p;
      p.set_elapsed_ns(i * 1'000'000'000ull);
      p.set_bytes(i * (a + 1) * 10ull * 1048576);  // agent a: (a + 1) x 10 MiB/s
      p.set_ops(i * 10);
      csv += SamplesCsv::Row(step, fmt::format("n{:02}", a), p, i > 1 ? &before : nullptr);
      before = p;
    }
  }
  const nlohmann::ordered_json specs = ChartSpecs(doc, csv);
  const nlohmann::ordered_json* timeline = ThroughputTimeline(specs);
  ASSERT_NE(timeline, nullptr) << specs.dump(1);
  const auto& datasets = (*timeline)["config"]["data"]["datasets"];
  ASSERT_EQ(datasets.size(), 3u) << datasets.dump();
  EXPECT_EQ(datasets[0]["label"], "slowest agent of each interval");
  EXPECT_EQ(datasets[1]["label"], "median of 40 agents");
  EXPECT_EQ(datasets[2]["label"], "fastest agent of each interval");
  ASSERT_EQ(datasets[1]["data"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(datasets[0]["data"][i]["y"].get<double>(), 10.0);
    EXPECT_DOUBLE_EQ(datasets[1]["data"][i]["y"].get<double>(), 205.0);  // between the 20th and 21st of 10 ... 400
    EXPECT_DOUBLE_EQ(datasets[2]["data"][i]["y"].get<double>(), 400.0);
    EXPECT_DOUBLE_EQ(datasets[1]["data"][i]["x"].get<double>(), i + 1.0);
  }
}

// 100 agents' bars side by side in their fleet's order hide the spread; past kMaxAgentLines they
// stand slowest first, every agent still there.
TEST(ReportCharts, ManyAgentsBarsStandSlowestFirst) {
  ReportDocument doc = ToDocument(TwoAgentRead());
  v1::ReportStep& step = *doc.mutable_steps(0);
  const v1::ReportAgentFigures model = step.agents(0);
  step.clear_agents();
  for (int a = 0; a < 100; ++a) {
    v1::ReportAgentFigures& row = *step.add_agents();
    row = model;
    row.set_agent(fmt::format("n{:03}", a));
    row.mutable_figures()->set_bytes_per_sec(static_cast<double>((a * 37) % 100 + 1) * 1048576);
  }
  const nlohmann::ordered_json specs = ChartSpecs(doc);
  const nlohmann::ordered_json* bars = nullptr;
  for (const auto& s : specs) {
    if (s.value("section", "") == "bandwidth" && s.contains("config")) bars = &s;
  }
  ASSERT_NE(bars, nullptr) << specs.dump(1);
  const auto& mib = (*bars)["config"]["data"]["datasets"][0]["data"];
  ASSERT_EQ(mib.size(), 100u);
  for (size_t i = 0; i < mib.size(); ++i) EXPECT_DOUBLE_EQ(mib[i].get<double>(), static_cast<double>(i + 1)) << i;
  EXPECT_NE((*bars)["config"]["options"]["plugins"]["title"]["text"].get<std::string>().find("slowest first"), std::string::npos);
}

}  // namespace
}  // namespace iofleet::controller
