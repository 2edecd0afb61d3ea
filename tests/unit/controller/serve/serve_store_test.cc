#include "controller/serve/serve_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "controller/history/history_db.h"
#include "controller/serve/serve_schema.h"
#include "tests/support/temp_dir.h"

namespace iofleet::controller {
namespace {

ServeRun Q(const std::string& id, const std::string& suite, const std::string& fleet, const std::string& reason, uint64_t due) {
  ServeRun r;
  r.run_id = id;
  r.suite = suite;
  r.fleet = fleet;
  r.reason = reason;
  r.due_unix_ns = due;
  return r;
}

std::unique_ptr<ServeStore> OpenStore(const testing::TempDir& dir) {
  auto store = ServeStore::Open((dir.path() / "history.db").string());
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(*store) : nullptr;
}

int Exec(const std::string& path, const char* sql) {
  sqlite3* raw = nullptr;
  if (sqlite3_open(path.c_str(), &raw) != SQLITE_OK) return -1;
  const int rc = sqlite3_exec(raw, sql, nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  return rc;
}

// Serve owns its tables: a history database without them (what `iofleet run` makes) gains them
// when serve opens it, and its version is serve's own.
TEST(ServeStore, MakesItsTablesInAHistoryDatabaseWithoutThem) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "history.db").string();
  ASSERT_TRUE(HistoryDb::Open(path).ok());
  EXPECT_NE(Exec(path, "SELECT run_id FROM serve_runs"), SQLITE_OK);
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Enqueue(Q("r1", "nightly", "lab", "manual", 100), 100).ok());
  EXPECT_EQ(Exec(path, "SELECT version FROM schema_versions WHERE owner = 'serve' AND version = 1"), SQLITE_OK);
  store.reset();
  auto again = OpenStore(dir);  // reopened: the version holds, the queue too
  ASSERT_TRUE(again);
  auto found = again->Find("r1");
  ASSERT_TRUE(found.ok() && found->has_value());
}

// The history's schema 2 made serve's tables before serve owned them: such a database keeps its
// queue when serve first opens it with its own version.
TEST(ServeStore, KeepsTheQueueOfADatabaseWhoseHistorySchemaMadeItsTables) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "history.db").string();
  ASSERT_TRUE(HistoryDb::Open(path).ok());
  ASSERT_EQ(Exec(path,
                 "CREATE TABLE serve_runs (run_id TEXT PRIMARY KEY, suite TEXT NOT NULL, fleet TEXT NOT NULL, reason TEXT NOT NULL, "
                 "labels TEXT NOT NULL DEFAULT '{}', due_unix_ns INTEGER NOT NULL, queued_at_unix_ns INTEGER NOT NULL, "
                 "state TEXT NOT NULL, started_at_unix_ns INTEGER NOT NULL DEFAULT 0, finished_at_unix_ns INTEGER NOT NULL "
                 "DEFAULT 0, status TEXT NOT NULL DEFAULT '', verdict TEXT NOT NULL DEFAULT '', exit_code INTEGER NOT NULL "
                 "DEFAULT -1, error TEXT NOT NULL DEFAULT '');"
                 "CREATE UNIQUE INDEX serve_runs_one_waiting ON serve_runs (suite) WHERE state = 'queued';"
                 "CREATE TABLE serve_schedules (suite TEXT PRIMARY KEY, last_due_unix_ns INTEGER NOT NULL, paused INTEGER NOT NULL "
                 "DEFAULT 0);"
                 "INSERT INTO serve_runs (run_id, suite, fleet, reason, due_unix_ns, queued_at_unix_ns, state) "
                 "VALUES ('old', 'nightly', 'lab', 'schedule', 5, 5, 'queued');"),
            SQLITE_OK);
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  auto old = store->Find("old");
  ASSERT_TRUE(old.ok() && old->has_value());
  EXPECT_EQ((*old)->state, "queued");
  auto twice = store->Enqueue(Q("new", "nightly", "lab", "manual", 10), 10);
  ASSERT_TRUE(twice.ok());
  EXPECT_FALSE(twice->has_value()) << "the one-waiting index still holds";
}

TEST(ServeStore, RefusesNewerTablesOfItsOwn) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "history.db").string();
  ASSERT_TRUE(OpenStore(dir));
  ASSERT_EQ(Exec(path, "UPDATE schema_versions SET version = 7 WHERE owner = 'serve'"), SQLITE_OK);
  auto store = ServeStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("serve's tables at version 7, newer than this iofleet's 1"), std::string::npos)
      << store.status().message();
  EXPECT_NE(store.status().message().find(path), std::string::npos);
}

TEST(ServeStore, ASuiteWaitsInTheQueueOnceAndRunsInOrderPerFleet) {
  testing::TempDir dir;
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  auto a = store->Enqueue(Q("r1", "nightly", "lab", "schedule", 100), 100);
  ASSERT_TRUE(a.ok() && a->has_value());
  auto again = store->Enqueue(Q("r2", "nightly", "lab", "manual", 150), 150);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value()) << "a suite already waiting is not queued twice";
  ASSERT_TRUE(store->Enqueue(Q("r3", "other", "lab", "manual", 200), 200).ok());
  ASSERT_TRUE(store->Enqueue(Q("r4", "elsewhere", "lab2", "manual", 50), 50).ok());

  auto lengths = store->QueueLengths();
  ASSERT_TRUE(lengths.ok());
  EXPECT_EQ((*lengths)["lab"], 2);
  EXPECT_EQ((*lengths)["lab2"], 1);

  auto first = store->TakeNext("lab", 300);
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->run_id, "r1");
  EXPECT_EQ((*first)->state, "running");
  // Running, it no longer waits: the suite may be queued again.
  auto requeued = store->Enqueue(Q("r5", "nightly", "lab", "manual", 310), 310);
  ASSERT_TRUE(requeued.ok() && requeued->has_value());
  auto second = store->TakeNext("lab", 320);
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->run_id, "r3");

  ASSERT_TRUE(store->Finish("r1", "succeeded", "unchanged", 0, "", 400).ok());
  auto done = store->Find("r1");
  ASSERT_TRUE(done.ok() && done->has_value());
  EXPECT_EQ((*done)->state, "done");
  EXPECT_EQ((*done)->status, "succeeded");
  EXPECT_EQ((*done)->verdict, "unchanged");
  EXPECT_EQ((*done)->finished_at_unix_ns, 400u);
}

TEST(ServeStore, AQueuedRunSurvivesAReopenAndARunningOneIsMarkedLost) {
  testing::TempDir dir;
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->Enqueue(Q("r1", "a", "lab", "schedule", 1), 1).ok());
    ASSERT_TRUE(store->Enqueue(Q("r2", "b", "lab", "schedule", 2), 2).ok());
    ASSERT_TRUE(store->TakeNext("lab", 3).ok());  // r1 running when the service dies
    ASSERT_TRUE(store->SetLastDue("a", 1).ok());
  }
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  auto lost = store->MarkLost(10);
  ASSERT_TRUE(lost.ok());
  ASSERT_EQ(lost->size(), 1u);
  EXPECT_EQ((*lost)[0].run_id, "r1");
  auto r1 = store->Find("r1");
  EXPECT_EQ((*r1)->status, "lost");
  auto next = store->TakeNext("lab", 11);
  ASSERT_TRUE(next.ok() && next->has_value());
  EXPECT_EQ((*next)->run_id, "r2") << "the queued run is still there, and r1 is not run again";
  auto due = store->LastDue("a");
  ASSERT_TRUE(due.ok() && due->has_value());
  EXPECT_EQ(**due, 1u);
  auto never = store->LastDue("never-seen");
  ASSERT_TRUE(never.ok());
  EXPECT_FALSE(never->has_value());
}

TEST(ServeStore, CancelsOnlyAQueuedRun) {
  testing::TempDir dir;
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Enqueue(Q("r1", "a", "lab", "manual", 1), 1).ok());
  ASSERT_TRUE(store->Enqueue(Q("r2", "b", "lab", "manual", 2), 2).ok());
  ASSERT_TRUE(store->TakeNext("lab", 3).ok());
  auto running = store->CancelQueued("r1", 4);
  ASSERT_TRUE(running.ok());
  EXPECT_FALSE(*running);
  auto queued = store->CancelQueued("r2", 5);
  ASSERT_TRUE(queued.ok());
  EXPECT_TRUE(*queued);
  EXPECT_EQ((*store->Find("r2"))->status, "cancelled");
  auto next = store->TakeNext("lab", 6);
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next->has_value());
  auto counts = store->DoneCounts();
  ASSERT_TRUE(counts.ok());
  auto cancelled = (*counts)[std::make_pair(std::string("b"), std::string("cancelled"))];
  EXPECT_EQ(cancelled, 1);
}

TEST(ServeStore, PausedIsKeptAndASuiteFirstPausedStartsItsScheduleNow) {
  testing::TempDir dir;
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  EXPECT_FALSE(*store->Paused("a"));
  ASSERT_TRUE(store->SetPaused("a", true, 77).ok());
  EXPECT_TRUE(*store->Paused("a"));
  EXPECT_EQ(**store->LastDue("a"), 77u);
  ASSERT_TRUE(store->SetLastDue("a", 99).ok());
  EXPECT_TRUE(*store->Paused("a")) << "a new due time keeps the pause";
  ASSERT_TRUE(store->SetPaused("a", false, 200).ok());
  EXPECT_FALSE(*store->Paused("a"));
  EXPECT_EQ(**store->LastDue("a"), 99u);
}

TEST(ServeStore, ADueRunIsQueuedWithItsTimeInOneStepAndNotWhilePaused) {
  testing::TempDir dir;
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  ServeRun due = Q("r1", "a", "lab", "schedule", 60);
  due.labels_json = R"({"cluster":"lab"})";
  auto queued = store->EnqueueDue(due, "a", 60, 61);
  ASSERT_TRUE(queued.ok() && queued->has_value()) << queued.status().message();
  EXPECT_EQ(**store->LastDue("a"), 60u);
  EXPECT_EQ((*store->Find("r1"))->labels_json, R"({"cluster":"lab"})");
  ASSERT_TRUE(store->SetPaused("a", true, 70).ok());
  ASSERT_TRUE(store->TakeNext("lab", 71).ok());
  auto paused = store->EnqueueDue(Q("r2", "a", "lab", "schedule", 120), "a", 120, 121);
  ASSERT_TRUE(paused.ok());
  EXPECT_FALSE(paused->has_value()) << "a paused suite queues nothing";
  EXPECT_EQ(**store->LastDue("a"), 120u) << "and still moves on";
  auto skipped = store->EnqueueDue(std::nullopt, "b", 500, 501);
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(**store->LastDue("b"), 500u);
}

TEST(ServeStore, QueuedRunsFollowTheirSuiteToItsNewFleetOrAreDroppedWithIt) {
  testing::TempDir dir;
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Enqueue(Q("r1", "moved", "old", "schedule", 1), 1).ok());
  ASSERT_TRUE(store->Enqueue(Q("r2", "gone", "old", "schedule", 2), 2).ok());
  ASSERT_TRUE(store->Enqueue(Q("r3", "stays", "lab", "schedule", 3), 3).ok());
  auto dropped = store->Rehome({{"moved", "new"}, {"stays", "lab"}}, 10);
  ASSERT_TRUE(dropped.ok()) << dropped.status().message();
  ASSERT_EQ(dropped->size(), 1u);
  EXPECT_EQ((*dropped)[0].run_id, "r2");
  EXPECT_EQ((*store->Find("r2"))->status, "cancelled");
  EXPECT_NE((*store->Find("r2"))->error.find("no longer in the config"), std::string::npos);
  auto old = store->TakeNext("old", 11);
  ASSERT_TRUE(old.ok());
  EXPECT_FALSE(old->has_value());
  auto moved = store->TakeNext("new", 12);
  ASSERT_TRUE(moved.ok() && moved->has_value());
  EXPECT_EQ((*moved)->run_id, "r1");
  // The suite's schedule can queue it again: nothing is left waiting under the old fleet.
  auto again = store->Enqueue(Q("r4", "gone", "x", "manual", 20), 20);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->has_value());
}

TEST(ServeStore, NewestFirstAndFilteredBySuiteAndState) {
  testing::TempDir dir;
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  for (int i = 0; i < 5; ++i) {
    std::string id = "r" + std::to_string(i);
    ASSERT_TRUE(store->Enqueue(Q(id, i % 2 ? "odd" : "even", "lab", "manual", i), i).ok());
    ASSERT_TRUE(store->TakeNext("lab", i).ok());
    ASSERT_TRUE(store->Finish(id, "succeeded", "", 0, "", i).ok());
  }
  auto even = store->Runs({"even", "", 2});
  ASSERT_TRUE(even.ok());
  ASSERT_EQ(even->size(), 2u);
  EXPECT_EQ((*even)[0].run_id, "r4");
  EXPECT_EQ((*even)[1].run_id, "r2");
  auto queued = store->Runs({"", "queued", 0});
  ASSERT_TRUE(queued.ok());
  EXPECT_TRUE(queued->empty());
}

// A small tmpfs of its own (needs root: skipped with the reason otherwise), unmounted at the end.
class SmallFileSystem {
 public:
  explicit SmallFileSystem(const std::filesystem::path& dir) : dir_(dir) {
    std::filesystem::create_directories(dir_);
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=2m") == 0) mounted_ = true;
    else why_ = std::string("cannot mount a 2 MiB tmpfs at ") + dir_.string() + ": " + std::strerror(errno);
  }
  ~SmallFileSystem() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }
  // Writes a file until the file system has not one byte left (ENOSPC at 1 byte).
  void Fill() {
    int fd = ::open((dir_ / "filler").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    std::string chunk(1 << 16, 'f');
    for (size_t size = chunk.size(); size > 0; size /= 2) {
      while (::write(fd, chunk.data(), size) == static_cast<ssize_t>(size)) {
      }
    }
    ::close(fd);
  }
  void Empty() { std::filesystem::remove(dir_ / "filler"); }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
  std::string why_;
};

// The database fills up as a run ends. The run's end that could not be written
// is what every read shows (never "running"), and it is written once there is room again.
TEST(ServeStore, AnEndThatCannotBeWrittenIsShownAsDoneAndWrittenOnceThereIsRoom) {
  testing::TempDir dir;
  SmallFileSystem small(dir / "small");
  if (!small.mounted()) GTEST_SKIP() << small.why();
  const std::string path = (dir / "small" / "history.db").string();
  auto opened = ServeStore::Open(path);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  ServeStore& store = **opened;
  ASSERT_TRUE(store.Enqueue(Q("r1", "nightly", "lab", "manual", 1), 1).ok());
  ASSERT_TRUE(store.Enqueue(Q("r2", "other", "lab", "manual", 2), 2).ok());
  ASSERT_TRUE(store.TakeNext("lab", 3).ok());
  ASSERT_TRUE(store.TakeNext("lab", 4).ok());

  small.Fill();
  Status full = store.Finish("r1", "failed", "", 1, "history database: database or disk is full", 10);
  ASSERT_FALSE(full.ok()) << "the file system is full: the write must fail for this test to mean anything";
  EXPECT_NE(full.message().find("full"), std::string::npos) << full.message();

  auto r1 = store.Find("r1");
  ASSERT_TRUE(r1.ok() && r1->has_value()) << r1.status().message();
  EXPECT_EQ((*r1)->state, "done");
  EXPECT_EQ((*r1)->status, "failed");
  EXPECT_EQ((*r1)->exit_code, 1);
  EXPECT_EQ((*r1)->finished_at_unix_ns, 10u);
  EXPECT_EQ((*r1)->suite, "nightly") << "the rest of the row is the database's";
  auto running = store.Runs({"", "running", 0});
  ASSERT_TRUE(running.ok());
  ASSERT_EQ(running->size(), 1u);
  EXPECT_EQ((*running)[0].run_id, "r2");
  auto done = store.Runs({"nightly", "done", 1});
  ASSERT_TRUE(done.ok());
  ASSERT_EQ(done->size(), 1u);
  EXPECT_EQ((*done)[0].run_id, "r1");
  EXPECT_EQ((*done)[0].status, "failed");
  auto all = store.Runs({"", "", 0});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].run_id, "r2");
  EXPECT_EQ((*all)[1].state, "done");
  auto counts = store.DoneCounts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ((*counts)[std::make_pair(std::string("nightly"), std::string("failed"))], 1);
  std::vector<std::string> written;
  EXPECT_FALSE(store.WriteUnwritten(written).ok()) << "still full";
  EXPECT_TRUE(written.empty());
  ASSERT_EQ(store.Unwritten().size(), 1u);

  small.Empty();
  Status landed = store.WriteUnwritten(written);
  ASSERT_TRUE(landed.ok()) << landed.message();
  EXPECT_EQ(written, std::vector<std::string>{"r1"});
  EXPECT_TRUE(store.Unwritten().empty());
  // What another connection (a restart, `iofleet history`) reads.
  auto reopened = ServeStore::Open(path);
  ASSERT_TRUE(reopened.ok()) << reopened.status().message();
  auto stored = (*reopened)->Find("r1");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->state, "done");
  EXPECT_EQ((*stored)->status, "failed");
  EXPECT_EQ((*stored)->error, "history database: database or disk is full");
  auto lost = (*reopened)->MarkLost(20);
  ASSERT_TRUE(lost.ok());
  ASSERT_EQ(lost->size(), 1u);
  EXPECT_EQ((*lost)[0].run_id, "r2") << "r1 ended: a restart does not take it for lost";
}

TEST(ServeStore, TwoThreadsQueueingTheSameSuiteQueueItOnce) {
  testing::TempDir dir;
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  std::atomic<int> queued{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        auto r = store->Enqueue(Q("t" + std::to_string(t) + "-" + std::to_string(i), "nightly", "lab", "manual", 1), 1);
        if (r.ok() && r->has_value()) ++queued;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(queued.load(), 1);
}

}  // namespace
}  // namespace iofleet::controller
