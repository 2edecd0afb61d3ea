#include "controller/history/record_run.h"

#include <gtest/gtest.h>

#include "controller/history/history_db.h"
#include "tests/support/temp_dir.h"

namespace iofleet::controller {
namespace {

nlohmann::ordered_json Report(const std::string& id, uint64_t started, double bandwidth, const std::string& status = "succeeded") {
  nlohmann::ordered_json r;
  r["schema"] = "iofleet.report/v1";
  r["run_id"] = id;
  r["workload"] = "nightly";
  r["status"] = status;
  r["started_at_unix_ns"] = started;
  r["duration_ns"] = 3'000'000'000ull;
  r["agents"] = {{{"name", "a1"}, {"address", "127.0.0.1:1"}, {"version", "0.1.0"}, {"host", {{"hostname", "h1"}}}}};
  r["steps"] = {{{"name", "read"}, {"kind", "io"}, {"point", 0}, {"cycle", 0}, {"status", status},
                 {"aggregate", {{"ops", 100}, {"bytes_per_sec", bandwidth}, {"iops", bandwidth / 4096}, {"latency_ns", {{"p99", 1000}}}}},
                 {"agents", nlohmann::ordered_json::array()}}};
  return r;
}

TEST(JudgeAndRecord, StoresEveryRunAndJudgesWhenAsked) {
  testing::TempDir dir;
  HistoryOptions options;
  options.db_path = (dir.path() / "history.db").string();
  options.labels = {{"fs", "ext4"}};
  options.notes = {{"kernel", "6.18"}};
  for (int i = 0; i < 3; ++i) {
    auto report = Report("b" + std::to_string(i), 100 + i, 1000 + i);
    auto v = JudgeAndRecord(options, report, "steps: []\n", "");
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_FALSE(v->has_value());  // no --compare-to: no verdicts
    EXPECT_FALSE(report.contains("verdicts"));
  }
  VerdictOptions verdicts;
  verdicts.reference = *Reference::Parse("mean-of:3");
  options.verdicts = verdicts;
  auto report = Report("now", 1000, 500);
  auto v = JudgeAndRecord(options, report, "steps: []\n", "step,agent\n");
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_TRUE(v->has_value());
  EXPECT_EQ((*v)->overall, v1::VERDICT_REGRESSION);
  EXPECT_EQ(report["verdicts"]["verdict"], "regression");

  auto db = HistoryDb::Open(options.db_path);
  auto stored = (*db)->Load("now");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->verdict, "regression");
  EXPECT_EQ(stored->workload_hash, Sha256Hex("steps: []\n"));
  EXPECT_EQ(stored->notes.at("kernel"), "6.18");
  EXPECT_EQ(stored->agents.at(0).hostname, "h1");
  EXPECT_EQ(stored->duration_ns, 3'000'000'000u);
  EXPECT_EQ(stored->samples_csv, "step,agent\n");
  EXPECT_NE(stored->report_json.find("\"verdicts\""), std::string::npos);  // stored as written
}

TEST(JudgeAndRecord, AFailedRunIsStoredWithoutAVerdict) {
  testing::TempDir dir;
  HistoryOptions options;
  options.db_path = (dir.path() / "history.db").string();
  options.verdicts = VerdictOptions{};
  auto report = Report("f", 100, 1000, "failed");
  auto v = JudgeAndRecord(options, report, "x", "");
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->has_value());
  auto db = HistoryDb::Open(options.db_path);
  EXPECT_EQ((*db)->Load("f")->status, v1::RUN_STATUS_FAILED);
}

// A judgement that cannot be made (the reference run is no baseline) still records the run.
TEST(JudgeAndRecord, ARunIsRecordedEvenWhenItCannotBeJudged) {
  testing::TempDir dir;
  HistoryOptions options;
  options.db_path = (dir.path() / "history.db").string();
  auto other = Report("other", 50, 1000);
  other["workload"] = "another";
  ASSERT_TRUE(JudgeAndRecord(options, other, "x", "").ok());
  options.verdicts = VerdictOptions{*Reference::Parse("other"), 0.05, 5};
  auto report = Report("now", 100, 1000);
  auto v = JudgeAndRecord(options, report, "x", "");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("recorded without a verdict"), std::string::npos) << v.status().message();
  EXPECT_FALSE(report.contains("verdicts"));
  auto db = HistoryDb::Open(options.db_path);
  EXPECT_TRUE((*db)->Load("now").ok());
}

TEST(Sha256Hex, KnownDigest) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace iofleet::controller
