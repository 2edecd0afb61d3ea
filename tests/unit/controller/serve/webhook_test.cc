#include "controller/serve/webhook.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(ParseWebhookUrl, TakesHttpAndHttpsWithPortsPathsAndIpv6) {
  auto plain = ParseWebhookUrl("http://hooks.lab:8080/iofleet?team=storage");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->endpoint.host, "hooks.lab");
  EXPECT_EQ(plain->endpoint.port, "8080");
  EXPECT_FALSE(plain->endpoint.tls);
  EXPECT_EQ(plain->target, "/iofleet?team=storage");
  auto secure = ParseWebhookUrl("https://chat.example.org");
  ASSERT_TRUE(secure.ok());
  EXPECT_TRUE(secure->endpoint.tls);
  EXPECT_EQ(secure->endpoint.port, "443");
  EXPECT_EQ(secure->target, "/");
  auto v6 = ParseWebhookUrl("http://[::1]:9/x");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->endpoint.host, "::1");
  EXPECT_EQ(v6->endpoint.port, "9");
}

TEST(ParseWebhookUrl, RefusesWhatCannotBeSentOrWouldLeakASecret) {
  for (const char* bad : {"ftp://x/", "hooks.lab/x", "http://user:pw@hooks/x", "http:///x", "http://h:0/", "http://h:70000/",
                          "http://h:x/", "http://h/a b", "http://h/#frag", "http://[::1/x"}) {
    auto url = ParseWebhookUrl(bad);
    EXPECT_FALSE(url.ok()) << bad;
    if (!url.ok()) EXPECT_NE(url.status().message().find(bad), std::string::npos) << url.status().message();
  }
}

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
  auto report = nlohmann::ordered_json::parse(R"({
    "run_id": "r1", "workload": "nightly", "labels": {"cluster": "lab"},
    "started_at_unix_ns": 2000000000, "duration_ns": 61500000000,
    "verdicts": {"steps": [
      {"step": "read", "point": 0, "figures": [
        {"figure": "bandwidth", "unit": "bytes_per_sec", "baseline": 100.0, "now": 50.0, "change_pct": -50.0, "p_value": 0.0001, "verdict": "regression"},
        {"figure": "iops", "verdict": "unchanged"}]},
      {"step": "write", "point": 1, "figures": [{"figure": "p99_latency", "verdict": "regression", "change_pct": 20.0}]}],
     "verdict": "regression"}})");
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

}  // namespace
}  // namespace iofleet::controller
