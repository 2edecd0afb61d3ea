#include "controller/history/history_db.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/support/temp_dir.h"

namespace iofleet::controller {
namespace {

StoredRun MakeRun(const std::string& id, uint64_t started, size_t figures = 3) {
  StoredRun r;
  r.run_id = id;
  r.workload = "nightly";
  r.workload_hash = "h1";
  r.iofleet_version = "0.1.0";
  r.started_at_unix_ns = started;
  r.duration_ns = 5'000'000'000;
  r.status = v1::RUN_STATUS_SUCCEEDED;
  r.labels = {{"fs", "ext4"}};
  r.notes = {{"kernel", "6.18"}};
  r.agents = {{"a1", "127.0.0.1:7070", "0.1.0", "host1"}, {"a2", "127.0.0.1:7071", "0.1.0", "host2"}};
  r.report_json = R"({"schema": "iofleet.report/v1", "run_id": ")" + id + "\"}";
  r.samples_csv = "step,agent\n";
  for (size_t i = 0; i < figures; ++i) r.figures.push_back({"read", 0, static_cast<int>(i), -1, "", "bandwidth", 100.0 + i});
  return r;
}

TEST(HistoryDb, StoresARunWholeAndLoadsItBack) {
  testing::TempDir dir;
  auto db = HistoryDb::Open((dir.path() / "history.db").string());
  ASSERT_TRUE(db.ok()) << db.status().message();
  ASSERT_TRUE((*db)->Insert(MakeRun("r1", 100)).ok());
  auto loaded = (*db)->Load("r1");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->workload, "nightly");
  EXPECT_EQ(loaded->labels.at("fs"), "ext4");
  EXPECT_EQ(loaded->notes.at("kernel"), "6.18");
  ASSERT_EQ(loaded->agents.size(), 2u);
  EXPECT_EQ(loaded->agents[1].hostname, "host2");
  ASSERT_EQ(loaded->figures.size(), 3u);
  EXPECT_EQ(loaded->figures[2].value, 102.0);
  EXPECT_EQ(loaded->figures[2].cycle, 2);
  EXPECT_NE(loaded->report_json.find("\"r1\""), std::string::npos);
  EXPECT_EQ((*db)->Load("nope").status().code(), Code::kNotFound);
}

TEST(HistoryDb, AFailedInsertLeavesNothingBehind) {
  testing::TempDir dir;
  auto db = HistoryDb::Open((dir.path() / "history.db").string());
  ASSERT_TRUE(db.ok());
  StoredRun bad = MakeRun("r1", 100);
  bad.figures.push_back(bad.figures.front());  // a duplicate figure fails the insert half-way
  Status s = (*db)->Insert(bad);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("run r1"), std::string::npos) << s.message();
  EXPECT_EQ((*db)->Load("r1").status().code(), Code::kNotFound);
  auto runs = (*db)->Runs({});
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
  EXPECT_TRUE((*db)->Insert(MakeRun("r1", 100)).ok());  // and the same run can then go in
}

TEST(HistoryDb, FiltersByWorkloadLabelsAgentsAndExclusion) {
  testing::TempDir dir;
  auto db = HistoryDb::Open((dir.path() / "history.db").string());
  ASSERT_TRUE(db.ok());
  StoredRun other = MakeRun("r0", 50);
  other.labels = {{"fs", "xfs"}};
  ASSERT_TRUE((*db)->Insert(other).ok());
  ASSERT_TRUE((*db)->Insert(MakeRun("r1", 100)).ok());
  StoredRun more = MakeRun("r2", 200);
  more.labels["build"] = "42";
  ASSERT_TRUE((*db)->Insert(more).ok());
  ASSERT_TRUE((*db)->Insert(MakeRun("r3", 300)).ok());
  ASSERT_TRUE((*db)->SetExcluded("r3", true).ok());
  EXPECT_EQ((*db)->SetExcluded("nope", true).code(), Code::kNotFound);

  RunFilter ext4;
  ext4.labels = {{"fs", "ext4"}};
  EXPECT_EQ((*db)->Runs(ext4)->size(), 3u);  // r1, r2, r3
  ext4.exact_labels = true;
  EXPECT_EQ((*db)->Runs(ext4)->size(), 2u);  // not r2 with its extra label
  ext4.include_excluded = false;
  ASSERT_EQ((*db)->Runs(ext4)->size(), 1u);
  EXPECT_EQ((*db)->Runs(ext4)->front().run_id, "r1");
  RunFilter last;
  last.last = 2;
  auto two = (*db)->Runs(last);
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].run_id, "r2");
  EXPECT_EQ((*two)[1].run_id, "r3");
  RunFilter three;
  three.agent_count = 3;
  EXPECT_TRUE((*db)->Runs(three)->empty());
  RunFilter before;
  before.before_unix_ns = 150;
  EXPECT_EQ((*db)->Runs(before)->size(), 2u);
}

// `last` reads from the newest run back and stops at its matches (serve's history endpoint
// took longer with every run stored: it read every run of the workload, then kept the last N).
// Runs of other labels in between do not count, and the answer is in start order.
TEST(HistoryDb, TheLastRunsAreTheNewestMatchesInStartOrder) {
  testing::TempDir dir;
  auto db = HistoryDb::Open((dir.path() / "history.db").string());
  ASSERT_TRUE(db.ok());
  for (int i = 0; i < 12; ++i) {
    StoredRun r = MakeRun("r" + std::to_string(100 + i), 1000 + static_cast<uint64_t>(i));
    if (i % 3 == 2) r.labels = {{"fs", "xfs"}};  // another suite's runs, interleaved
    ASSERT_TRUE((*db)->Insert(r).ok());
  }
  RunFilter filter;
  filter.workload = "nightly";
  filter.labels = {{"fs", "ext4"}};
  filter.exact_labels = true;
  filter.last = 3;
  auto runs = (*db)->Runs(filter);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ((*runs)[0].run_id, "r107");  // r108 and r111 are the other suite's
  EXPECT_EQ((*runs)[1].run_id, "r109");
  EXPECT_EQ((*runs)[2].run_id, "r110");
  filter.last = 100;  // more than there are: all eight, oldest first
  runs = (*db)->Runs(filter);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 8u);
  EXPECT_EQ(runs->front().run_id, "r100");
  EXPECT_EQ(runs->back().run_id, "r110");
  filter.last = 0;  // no bound
  EXPECT_EQ((*db)->Runs(filter)->size(), 8u);
}

TEST(HistoryDb, RefusesANewerSchema) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "history.db").string();
  ASSERT_TRUE(HistoryDb::Open(path).ok());
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto db = HistoryDb::Open(path);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("schema version 99"), std::string::npos) << db.status().message();
  EXPECT_NE(db.status().message().find(path), std::string::npos);
}

TEST(HistoryDb, ReopeningKeepsTheSchemaAndTheRuns) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "history.db").string();
  {
    auto db = HistoryDb::Open(path);
    ASSERT_TRUE((*db)->Insert(MakeRun("r1", 100)).ok());
  }
  auto db = HistoryDb::Open(path);
  ASSERT_TRUE(db.ok());
  EXPECT_TRUE((*db)->Load("r1").ok());
}

// A database of schema 1 (iofleet before serve) is brought to the current schema and keeps its
// runs; the history makes no table of serve's (serve makes its own: serve_schema.h).
TEST(HistoryDb, MigratesASchemaOneDatabaseKeepingItsRuns) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "history.db").string();
  {
    auto db = HistoryDb::Open(path);
    ASSERT_TRUE((*db)->Insert(MakeRun("r1", 100)).ok());
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version = 1", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto db = HistoryDb::Open(path);
  ASSERT_TRUE(db.ok()) << db.status().message();
  EXPECT_TRUE((*db)->Load("r1").ok());
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  EXPECT_NE(sqlite3_exec(raw, "SELECT run_id FROM serve_runs", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_stmt* version = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &version, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(version), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(version, 0), HistoryDb::kSchemaVersion);
  sqlite3_finalize(version);
  sqlite3_close(raw);
}

// Reading needs no write lock: an up-to-date database opens and lists its runs while another
// process holds a write transaction (a long insert), instead of waiting behind it.
TEST(HistoryDb, ReadersDoNotWaitForAWriter) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "history.db").string();
  {
    auto db = HistoryDb::Open(path);
    ASSERT_TRUE((*db)->Insert(MakeRun("r1", 100)).ok());
  }
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  const auto start = std::chrono::steady_clock::now();
  auto db = HistoryDb::Open(path);
  ASSERT_TRUE(db.ok()) << db.status().message();
  auto runs = (*db)->Runs({});
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  EXPECT_EQ(runs->size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
}

// A writer killed with SIGKILL at arbitrary moments: the database stays readable, and every run
// in it is whole (its figure count matches what was stored with it).
TEST(HistoryDb, SurvivesSigkillDuringWrites) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "history.db").string();
  ASSERT_TRUE(HistoryDb::Open(path).ok());
  int runs_seen = 0;
  for (int round = 0; round < 6; ++round) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto db = HistoryDb::Open(path);
      if (!db.ok()) _exit(3);
      for (int i = 0;; ++i) {
        std::string id = "w" + std::to_string(round) + "-" + std::to_string(i);
        if (!(*db)->Insert(MakeRun(id, 1000 + static_cast<uint64_t>(round) * 100000 + i, 2000)).ok()) _exit(4);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(60 + 37 * round));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself with " << WEXITSTATUS(status);

    auto db = HistoryDb::Open(path);
    ASSERT_TRUE(db.ok()) << db.status().message();
    auto runs = (*db)->Runs({});
    ASSERT_TRUE(runs.ok()) << runs.status().message();
    for (const auto& r : *runs) {
      auto whole = (*db)->Load(r.run_id);
      ASSERT_TRUE(whole.ok()) << whole.status().message();
      EXPECT_EQ(whole->figures.size(), 2000u);
      EXPECT_EQ(whole->agents.size(), 2u);
    }
    runs_seen = static_cast<int>(runs->size());
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* check = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA integrity_check", -1, &check, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(check), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "ok");
  sqlite3_finalize(check);
  sqlite3_close(raw);
  EXPECT_GT(runs_seen, 0) << "no run was ever committed: the test proved nothing";
}

}  // namespace
}  // namespace iofleet::controller
