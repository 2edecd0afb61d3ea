#include "controller/serve/run_outcome.h"

#include <gtest/gtest.h>

#include "controller/run/run_manager.h"

namespace iofleet::controller {
namespace {

v1::Report Report(const std::string& status, const std::string& verdict = "", const std::string& error = "") {
  nlohmann::ordered_json doc = {{"status", status}, {"error", error}};
  if (!verdict.empty()) doc["verdicts"] = {{"verdict", verdict}};
  auto typed = TypedReport(doc, "report.json");
  EXPECT_TRUE(typed.ok()) << typed.status().message();
  return typed.ok() ? *typed : v1::Report();
}

TEST(OutcomeOf, TakesTheReportsStatusAndVerdict) {
  Interrupt none;
  v1::Report regressed = Report("succeeded", "regression");
  RunOutcome o = OutcomeOf(&regressed, kExitRegression, none, "");
  EXPECT_EQ(o.status, "succeeded");
  EXPECT_EQ(o.verdict, "regression");
  v1::Report failed = Report("failed", "", "step read: agent a1 lost");
  o = OutcomeOf(&failed, kExitFailed, none, "");
  EXPECT_EQ(o.status, "failed");
  EXPECT_EQ(o.error, "step read: agent a1 lost");
}

// The figures were right, but the history (or a report file) could not be written: not green,
// not judged, and the reason is the one the run logged.
TEST(OutcomeOf, ARunThatCouldNotBeRecordedIsFailed) {
  Interrupt none;
  v1::Report ok = Report("succeeded", "unchanged");
  const std::string log = "iofleet: run r1 on 2 agent(s)\niofleet: history database /x/h.db: disk I/O error\niofleet: warning: later\n";
  RunOutcome o = OutcomeOf(&ok, kExitFailed, none, log);
  EXPECT_EQ(o.status, "failed");
  EXPECT_EQ(o.verdict, "");
  EXPECT_EQ(o.error, "history database /x/h.db: disk I/O error");
  o = OutcomeOf(&ok, kExitFailed, none, "");
  EXPECT_EQ(o.error, "the run's report or history could not be written");
}

TEST(OutcomeOf, WithoutAReportItSaysWhy) {
  Interrupt none;
  RunOutcome o = OutcomeOf(nullptr, kExitFailed, none, "iofleet: agent 127.0.0.1:1: unreachable: connection refused\n");
  EXPECT_EQ(o.status, "failed");
  EXPECT_EQ(o.error, "agent 127.0.0.1:1: unreachable: connection refused");
  o = OutcomeOf(nullptr, kExitRejected, none, "");
  EXPECT_EQ(o.error, "the run ended before its first step (exit 2)");
  Interrupt stopping;
  stopping.Raise("iofleet serve stopping (SIGTERM)");
  o = OutcomeOf(nullptr, kExitFailed, stopping, "");
  EXPECT_EQ(o.status, "aborted");
  EXPECT_EQ(o.error, "interrupted (iofleet serve stopping (SIGTERM)) before the run's first step");
}

}  // namespace
}  // namespace iofleet::controller
