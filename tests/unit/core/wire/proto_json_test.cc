// iofleet's JSON form of a message (report.json): numbers stay numbers, keys keep their order,
// absent stays absent, and the reader refuses what the schema does not have, naming the key.
#include "core/wire/proto_json.h"

#include <gtest/gtest.h>

#include <google/protobuf/util/message_differencer.h>

#include "iofleet/v1/report.pb.h"

namespace iofleet::wire {
namespace {

using Json = nlohmann::ordered_json;

v1::Report Parsed(const std::string& text) {
  v1::Report r;
  Status s = FromJson(Json::parse(text), r, "report.json");
  EXPECT_TRUE(s.ok()) << s.message();
  return r;
}

std::string ReadError(const std::string& text) {
  v1::Report r;
  Status s = FromJson(Json::parse(text), r, "report.json");
  return s.ok() ? "(read)" : s.message();
}

TEST(ProtoJson, LargeIntegersAreNumbersNotStrings) {
  v1::Report r;
  r.set_started_at_unix_ns(1'764'633'600'123'456'789ull);
  r.add_steps()->mutable_aggregate()->mutable_figures()->set_bytes(18'446'744'073'709'551'615ull);
  const Json j = ToJson(r);
  EXPECT_TRUE(j["started_at_unix_ns"].is_number_unsigned());
  EXPECT_EQ(j.dump().find("\"1764633600123456789\""), std::string::npos) << j.dump();
  EXPECT_EQ(j["steps"][0]["aggregate"]["bytes"].get<uint64_t>(), 18'446'744'073'709'551'615ull);
}

TEST(ProtoJson, DoublesKeepAFractionAndKeysFollowTheSchema) {
  v1::ReportLatency l;
  l.set_mean(2);
  l.set_max(7);
  EXPECT_EQ(ToJson(l).dump(), R"({"mean":2.0,"p50":0,"p90":0,"p99":0,"p999":0,"p9999":0,"max":7})");
}

TEST(ProtoJson, AbsentOptionalKeysAreLeftOutAndReadAsAbsent) {
  v1::Report r;
  r.set_schema("iofleet.report/v1");
  const Json j = ToJson(r);
  EXPECT_FALSE(j.contains("error"));
  EXPECT_FALSE(j.contains("started_at_unix_ns"));
  EXPECT_FALSE(j.contains("notes"));      // omit_empty
  EXPECT_TRUE(j.contains("labels"));      // an empty object, always written
  EXPECT_FALSE(j.contains("summaries"));  // a LIST: absent unless set
  EXPECT_FALSE(j.contains("verdicts"));
  v1::Report back = Parsed(j.dump());
  EXPECT_FALSE(back.has_error());
  EXPECT_FALSE(back.has_started_at_unix_ns());
  EXPECT_FALSE(back.has_summaries());
  EXPECT_FALSE(back.has_verdicts());
}

TEST(ProtoJson, ObjectsKeepTheEntriesOrderAndParamsAreNumbersOrText) {
  v1::Report r;
  for (const char* key : {"zone", "app", "build"}) {
    v1::ReportLabel* l = r.add_labels();
    l->set_key(key);
    l->set_value(std::string(key) + "-v");
  }
  v1::ReportStep* s = r.add_steps();
  v1::ReportParam* p = s->add_params();
  p->set_key("io.queue_depth");
  p->set_number(32);
  p = s->add_params();
  p->set_key("io.block_size");
  p->set_text("64KiB");
  const Json j = ToJson(r);
  EXPECT_EQ(j["labels"].dump(), R"({"zone":"zone-v","app":"app-v","build":"build-v"})");
  EXPECT_EQ(j["steps"][0]["params"].dump(), R"({"io.queue_depth":32,"io.block_size":"64KiB"})");
  v1::Report back = Parsed(j.dump());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(r, back)) << back.DebugString();
  EXPECT_EQ(back.steps(0).params(0).value_case(), v1::ReportParam::kNumber);
  EXPECT_EQ(back.steps(0).params(1).value_case(), v1::ReportParam::kText);
}

TEST(ProtoJson, PairsInlinedMessagesAndPresentEmptyLists) {
  v1::ReportAggregate a;
  a.mutable_figures()->set_ops(5);
  v1::ReportCurvePoint* c = a.add_latency_curve_ns();
  c->set_percentile(99.9);
  c->set_ns(1200);
  v1::ReportCycleStats stats;
  stats.mutable_outlier_cycles();  // computed, none flagged: [] says so; absent says not computed
  const Json j = ToJson(a);
  EXPECT_EQ(j["ops"], 5);  // the figures' keys are the aggregate's own
  EXPECT_FALSE(j.contains("figures"));
  EXPECT_FALSE(j.contains("files"));  // no copy figures: nothing inlined
  EXPECT_EQ(j["latency_curve_ns"].dump(), "[[99.9,1200]]");
  EXPECT_EQ(ToJson(stats)["outlier_cycles"].dump(), "[]");
  v1::ReportAggregate back;
  ASSERT_TRUE(FromJson(j, back, "x").ok());
  EXPECT_TRUE(back.has_figures());
  EXPECT_FALSE(back.has_copy());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(a, back));
  v1::ReportCycleStats stats_back;
  ASSERT_TRUE(FromJson(ToJson(stats), stats_back, "x").ok());
  EXPECT_TRUE(stats_back.has_outlier_cycles());
}

TEST(ProtoJson, EnumsAreTheirTextBothWays) {
  v1::Report r;
  r.set_status(v1::RUN_STATUS_ABORTED);
  r.mutable_verdicts()->set_verdict(v1::VERDICT_NOT_ENOUGH_HISTORY);
  const Json j = ToJson(r);
  EXPECT_EQ(j["status"], "aborted");
  EXPECT_EQ(j["verdicts"]["verdict"], "not enough history");
  EXPECT_EQ(Parsed(j.dump()).verdicts().verdict(), v1::VERDICT_NOT_ENOUGH_HISTORY);
  // A document without the key reads as UNSPECIFIED, whose text is none (as a missing key's was).
  EXPECT_EQ(EnumText(v1::VERDICT_UNSPECIFIED), "");
  EXPECT_FALSE(ToJson(v1::Report()).contains("status"));
  EXPECT_EQ(ReadError(R"({"status": "finished"})"),
            R"(report.json: status: "finished" is not one of succeeded, failed, aborted)");
}

TEST(ProtoJson, TheReaderNamesTheKeyThatDoesNotMatch) {
  EXPECT_EQ(ReadError(R"({"steps": [{"index": 0}, {"aggregate": {"ops": "12"}}]})"),
            "report.json: steps[1].aggregate.ops: expected an integer, got a string");
  EXPECT_EQ(ReadError(R"({"steps": [{"aggregate": {"opz": 1}}]})"),
            "report.json: steps[0].aggregate.opz: not a key of ReportAggregate");
  EXPECT_EQ(ReadError(R"({"steps": [{"index": -1}]})"), "report.json: steps[0].index: -1 is negative");
  EXPECT_EQ(ReadError(R"({"steps": [{"index": 4294967296}]})"),
            "report.json: steps[0].index: 4294967296 is out of range (at most 4294967295)");
  EXPECT_EQ(ReadError(R"({"steps": {}})"), "report.json: steps: expected a list, got an object");
  EXPECT_EQ(ReadError(R"({"labels": {"a": 1}})"), "report.json: labels.a: expected a string, got an integer");
  EXPECT_EQ(ReadError(R"({"steps": [{"aggregate": {"latency_curve_ns": [[50]]}}]})"),
            "report.json: steps[0].aggregate.latency_curve_ns[0]: expected a pair [a, b], got a list");
  EXPECT_EQ(ReadError("[]"), "report.json: the document: expected an object, got a list");
}

TEST(ProtoJson, IntegersReadIntoDoublesAndNullDoublesAreAbsent) {
  // nlohmann writes NaN and infinities as null; a figure written as 3 (not 3.0) is still 3.
  v1::Report r = Parsed(R"({"steps": [{"slowest_trails_median_pct": null, "aggregate": {"seconds": 3}}]})");
  EXPECT_FALSE(r.steps(0).has_slowest_trails_median_pct());
  EXPECT_DOUBLE_EQ(r.steps(0).aggregate().figures().seconds(), 3.0);
}

}  // namespace
}  // namespace iofleet::wire
