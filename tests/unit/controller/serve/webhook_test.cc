#include "controller/serve/webhook.h"

#include <gtest/gtest.h>

#include "core/wire/proto_json.h"

namespace iofleet::controller {
namespace {

TEST(WebhookEvent, AFailureOrARegressionOnly) {
  EXPECT_EQ(WebhookEvent("failed", ""), "failed");
  EXPECT_EQ(WebhookEvent("lost", ""), "failed");
  EXPECT_EQ(WebhookEvent("succeeded", "regression"), "regression");
  EXPECT_EQ(WebhookEvent("succeeded", "unchanged"), "");
  EXPECT_EQ(WebhookEvent("succeeded", "improvement"), "");
  EXPECT_EQ(WebhookEvent("aborted", ""), "");
  EXPECT_EQ(WebhookEvent("cancelled", ""), "");
}

TEST(WebhookBody, NamesEachRegressedFigure) {
  v1::Report report;
  ASSERT_TRUE(wire::FromJson(nlohmann::ordered_json::parse(R"({
    "run_id": "r1", "workload": "nightly", "labels": {"cluster": "lab"},
    "started_at_unix_ns": 2000000000, "duration_ns": 61500000000,
    "verdicts": {"steps": [
      {"step": "read", "point": 0, "figures": [
        {"figure": "bandwidth", "unit": "bytes_per_sec", "baseline": 100.0, "now": 50.0, "change_pct": -50.0, "p_value": 0.0001, "verdict": "regression"},
        {"figure": "iops", "verdict": "unchanged"}]},
      {"step": "write", "point": 1, "figures": [{"figure": "p99_latency", "verdict": "regression", "change_pct": 20.0}]}],
     "verdict": "regression"}})"), report, "report.json").ok());
  auto body = WebhookBody("regression", "zeb-nightly", "r1", "succeeded", "regression", "", &report, "/reports/zeb-nightly/r1/report.html");
  EXPECT_EQ(body["event"], "regression");
  EXPECT_EQ(body["suite"], "zeb-nightly");
  EXPECT_EQ(body["workload"], "nightly");
  EXPECT_EQ(body["labels"]["cluster"], "lab");
  EXPECT_DOUBLE_EQ(body["duration_seconds"].get<double>(), 61.5);
  EXPECT_EQ(body["report"], "/reports/zeb-nightly/r1/report.html");
  ASSERT_EQ(body["regressions"].size(), 2u);
  EXPECT_EQ(body["regressions"][0]["step"], "read");
  EXPECT_EQ(body["regressions"][0]["figure"], "bandwidth");
  EXPECT_DOUBLE_EQ(body["regressions"][0]["change_pct"].get<double>(), -50.0);
  EXPECT_EQ(body["regressions"][1]["point"], 1);
}

TEST(WebhookBody, ARunWithoutAReportStillSaysWhatFailed) {
  auto body = WebhookBody("failed", "s", "r2", "failed", "", "agent node01:7070: busy with another run", nullptr, "");
  EXPECT_EQ(body["error"], "agent node01:7070: busy with another run");
  EXPECT_TRUE(body["regressions"].empty());
  EXPECT_FALSE(body.contains("report"));
}

TEST(PostWebhook, AFailureNamesTheUrlWithoutItsSecretPath) {
  auto url = ParseWebhookUrl("http://127.0.0.1:1/services/T000/B000/SECRET");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(RedactedWebhook(*url), "http://127.0.0.1:1/...");
  Status s = PostWebhook(*url, nlohmann::ordered_json::object(), std::chrono::seconds(2));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().find("SECRET"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("http://127.0.0.1:1/..."), std::string::npos) << s.message();
}

}  // namespace
}  // namespace iofleet::controller
