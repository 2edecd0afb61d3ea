// report.json read back: errors name the file, and the line and column of bad JSON; the
// latency percentile curve it stores (aggregate.latency_curve_ns).
#include "controller/report/report_document.h"

#include <gtest/gtest.h>

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

TEST(ReportDocument, OtherJsonIsNotAReport) {
  EXPECT_EQ(ParseReportDocument("[1]", "a.json").status().message(), "a.json: not an iofleet report (its \"schema\" is not \"iofleet.report/v1\")");
  EXPECT_EQ(ParseReportDocument(R"({"schema": "iofleet.report/v1"})", "a.json").status().message(),
            "a.json: not an iofleet report (no \"steps\" list)");
  EXPECT_TRUE(ParseReportDocument(R"({"schema": "iofleet.report/v1", "steps": []})", "a.json").ok());
  // The shape the renderers read: a wrong type is named, not rendered as blanks.
  EXPECT_EQ(ParseReportDocument(R"({"schema": "iofleet.report/v1", "steps": [{"name": "a", "agents": [1]}]})", "a.json").status().message(),
            "a.json: steps[0].agents[0]: not an object");
  EXPECT_EQ(ParseReportDocument(R"({"schema": "iofleet.report/v1", "steps": [{"point": "1"}]})", "a.json").status().message(),
            "a.json: steps[0].point: not a number");
  EXPECT_EQ(ParseReportDocument(R"({"schema": "iofleet.report/v1", "steps": [], "agents": {}})", "a.json").status().message(),
            "a.json: agents: not a list");
}

TEST(ReportDocument, TheStepsLatencyCurveComesFromTheExactHistogram) {
  // Ten latencies 100 us .. 1 ms per agent: p50 is the 5th (500 us, within the histogram's 1%),
  // p100 the largest exactly.
  const ReportDocument doc = ToDocument(TwoAgentRead());
  const ReportDocument& curve = doc["steps"][0]["aggregate"]["latency_curve_ns"];
  ASSERT_EQ(curve.size(), 9u) << curve;
  const double percentiles[] = {50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100};
  for (size_t i = 0; i < curve.size(); ++i) EXPECT_EQ(curve[i][0].get<double>(), percentiles[i]);
  EXPECT_NEAR(curve[0][1].get<double>(), 500'000, 5'000);
  EXPECT_EQ(curve[8][1].get<uint64_t>(), 1'000'000u);
  for (size_t i = 1; i < curve.size(); ++i) EXPECT_GE(curve[i][1].get<uint64_t>(), curve[i - 1][1].get<uint64_t>());
  // Only where the step timed anything, and on the aggregate only (kept small).
  EXPECT_FALSE(ToDocument(ThreadSweep())["steps"][0]["aggregate"].contains("latency_curve_ns"));
  EXPECT_FALSE(doc["steps"][0]["agents"][0].contains("latency_curve_ns"));
}

TEST(ReportDocument, SweptValuesReadAsWritten) {
  EXPECT_EQ(ParamText(ReportDocument(4)), "4");
  EXPECT_EQ(ParamText(ReportDocument("64KiB")), "64KiB");
}

}  // namespace
}  // namespace iofleet::controller
