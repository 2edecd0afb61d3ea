// report.json read back: errors name the file, and the line and column of bad JSON; the
// latency percentile curve it stores (aggregate.latency_curve_ns).
#include "controller/report/report_document.h"

#include <gtest/gtest.h>

#include "controller/report/report_writers.h"
#include "core/wire/proto_json.h"
#include "tests/unit/controller/report/report_fixtures.h"

namespace iofleet::controller {
namespace {

using namespace report_fixtures;  // NOLINT: the runs the tests render

TEST(ReportDocument, BadJsonNamesTheFileLineAndColumn) {
  auto doc = ParseReportDocument("{\n  \"schema\": \"iofleet.report/v1\",\n  \"steps\": [,]\n}\n", "run/report.json");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message().rfind("run/report.json:3:13: not valid JSON: ", 0), 0u) << doc.status().message();
  auto first = ParseReportDocument("x", "r.json");
  EXPECT_EQ(first.status().message().rfind("r.json:1:1: not valid JSON", 0), 0u) << first.status().message();
}

// A number JSON can spell but no double holds: nlohmann throws out_of_range, not parse_error, and
// it ended `iofleet report` (found by report_json_fuzz).
TEST(ReportDocument, ANumberTooLargeForAnyTypeIsNotValidJson) {
  auto doc = ParseReportDocument(R"({"schema": "iofleet.report/v1", "steps": [], "duration_ns": 1E05861})", "run/report.json");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message().rfind("run/report.json: not valid JSON: number overflow", 0), 0u) << doc.status().message();
}

TEST(ReportDocument, OtherJsonIsNotAReport) {
  EXPECT_EQ(ParseReportDocument("[1]", "a.json").status().message(), "a.json: not an iofleet report (its \"schema\" is not \"iofleet.report/v1\")");
  EXPECT_EQ(ParseReportDocument(R"({"schema": "iofleet.report/v1"})", "a.json").status().message(),
            "a.json: not an iofleet report (no \"steps\" list)");
  EXPECT_TRUE(ParseReportDocument(R"({"schema": "iofleet.report/v1", "steps": []})", "a.json").ok());
  // The shape the renderers read: a wrong type is named, not rendered as blanks.
  EXPECT_EQ(ParseReportDocument(R"({"schema": "iofleet.report/v1", "steps": [{"name": "a", "agents": [1]}]})", "a.json").status().message(),
            "a.json: steps[0].agents[0]: expected an object, got an integer");
  EXPECT_EQ(ParseReportDocument(R"({"schema": "iofleet.report/v1", "steps": [{"point": "1"}]})", "a.json").status().message(),
            "a.json: steps[0].point: expected an integer, got a string");
  EXPECT_EQ(ParseReportDocument(R"({"schema": "iofleet.report/v1", "steps": [], "agents": {}})", "a.json").status().message(),
            "a.json: agents: expected a list, got an object");
}

TEST(ReportDocument, TheStepsLatencyCurveComesFromTheExactHistogram) {
  // Ten latencies 100 us .. 1 ms per agent: p50 is the 5th (500 us, within the histogram's 1%),
  // p100 the largest exactly.
  const ReportDocument doc = ToDocument(TwoAgentRead());
  const auto& curve = doc.steps(0).aggregate().latency_curve_ns();
  ASSERT_EQ(curve.size(), 9);
  const double percentiles[] = {50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100};
  for (int i = 0; i < curve.size(); ++i) EXPECT_EQ(curve[i].percentile(), percentiles[i]);
  EXPECT_NEAR(static_cast<double>(curve[0].ns()), 500'000, 5'000);
  EXPECT_EQ(curve[8].ns(), 1'000'000u);
  for (int i = 1; i < curve.size(); ++i) EXPECT_GE(curve[i].ns(), curve[i - 1].ns());
  // Only where the step timed anything, and on the aggregate only (kept small: the agents'
  // rows have no such field).
  EXPECT_TRUE(ToDocument(ThreadSweep()).steps(0).aggregate().latency_curve_ns().empty());
}

// The schema reads back every document its writer wrote, and writes it again to the byte: the
// one schema holds every key of sweeps, copies, files phases, hosts and verdicts.
TEST(ReportDocument, ReadingAndWritingAgainGiveTheSameText) {
  for (const RunReport& run : {ThreadSweep(), CopyCycles(), FilesSweep(), TwoAgentRead()}) {
    const std::string text = ReportJson(run);
    auto doc = ParseReportDocument(text, "report.json");
    ASSERT_TRUE(doc.ok()) << doc.status().message();
    EXPECT_EQ(wire::ToJson(*doc).dump(2) + "\n", text);
    ReportDocument judged = WithVerdicts(*doc);
    auto again = ParseReportDocument(wire::ToJson(judged).dump(2), "report.json");
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(wire::ToJson(*again).dump(), wire::ToJson(judged).dump());
    EXPECT_EQ(again->verdicts().verdict(), v1::VERDICT_REGRESSION);
  }
}

// A document an older version wrote, with fewer keys, still reads: what it lacks is absent.
TEST(ReportDocument, AnOlderDocumentWithFewerKeysReads) {
  auto doc = ParseReportDocument(R"({"schema": "iofleet.report/v1", "run_id": "r1", "status": "succeeded",
    "steps": [{"index": 0, "name": "read", "kind": "io", "status": "succeeded", "aggregate": {"ops": 4, "bytes_per_sec": 1e6}}]})",
                                 "report.json");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_FALSE(doc->has_started_at_unix_ns());
  EXPECT_FALSE(doc->steps(0).has_start_skew_ns());
  EXPECT_FALSE(doc->steps(0).aggregate().figures().has_cpu());
  EXPECT_DOUBLE_EQ(doc->steps(0).aggregate().figures().bytes_per_sec(), 1e6);
  EXPECT_NE(ConsoleSummary(*doc).find("read"), std::string::npos);
}

TEST(ReportDocument, SweptValuesReadAsWritten) {
  v1::ReportParam number, text;
  number.set_number(4);
  text.set_text("64KiB");
  EXPECT_EQ(ParamText(number), "4");
  EXPECT_EQ(ParamText(text), "64KiB");
}

}  // namespace
}  // namespace iofleet::controller
