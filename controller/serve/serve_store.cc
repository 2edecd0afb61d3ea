#include "controller/serve/serve_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <set>

#include "controller/history/history_db.h"
#include "controller/history/sqlite_statement.h"
#include "controller/serve/serve_schema.h"

namespace iofleet::controller {
namespace {

constexpr const char* kColumns =
    "run_id, suite, fleet, reason, due_unix_ns, queued_at_unix_ns, state, started_at_unix_ns, finished_at_unix_ns, "
    "status, verdict, exit_code, error, labels";

ServeRun RunOf(const SqlStatement& row) {
  ServeRun r;
  r.run_id = row.Text(0);
  r.suite = row.Text(1);
  r.fleet = row.Text(2);
  r.reason = row.Text(3);
  r.due_unix_ns = static_cast<uint64_t>(row.Int(4));
  r.queued_at_unix_ns = static_cast<uint64_t>(row.Int(5));
  r.state = row.Text(6);
  r.started_at_unix_ns = static_cast<uint64_t>(row.Int(7));
  r.finished_at_unix_ns = static_cast<uint64_t>(row.Int(8));
  r.status = row.Text(9);
  r.verdict = row.Text(10);
  r.exit_code = static_cast<int>(row.Int(11));
  r.error = row.Text(12);
  r.labels_json = row.Text(13);
  return r;
}

int64_t Signed(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

Result<std::unique_ptr<ServeStore>> ServeStore::Open(const std::string& path) {
  {
    auto history = HistoryDb::Open(path);  // creates or migrates the history's schema (WAL mode)
    if (!history.ok()) return history.status();
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<ServeStore> store(new ServeStore(raw, path));
  if (rc != SQLITE_OK) return store->Error("cannot open");
  sqlite3_busy_timeout(raw, 10000);
  if (Status s = MigrateServeSchema(raw, path); !s.ok()) return s;
  return store;
}

ServeStore::~ServeStore() { sqlite3_close(db_); }

Status ServeStore::Error(const std::string& what) const {
  return Status(Code::kInternal, "history database " + path_ + ": " + what + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory"));
}

Status ServeStore::Exec(const char* sql) {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK) return Status();
  return Error(sql);
}

Result<std::optional<ServeRun>> ServeStore::InsertQueued(const ServeRun& run, uint64_t now_unix_ns) {
  // The partial unique index keeps one waiting run per suite: the insert is ignored then.
  SqlStatement insert(db_,
                      "INSERT OR IGNORE INTO serve_runs (run_id, suite, fleet, labels, reason, due_unix_ns, queued_at_unix_ns, state) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, 'queued')");
  if (!insert.ok()) return Error("cannot prepare the queue insert");
  insert.Bind(1, run.run_id).Bind(2, run.suite).Bind(3, run.fleet).Bind(4, run.labels_json).Bind(5, run.reason);
  insert.Bind(6, Signed(run.due_unix_ns)).Bind(7, Signed(now_unix_ns));
  if (insert.Step() != SQLITE_DONE) return Error("cannot queue a run of " + run.suite);
  if (sqlite3_changes(db_) == 0) return std::optional<ServeRun>();
  ServeRun queued = run;
  queued.queued_at_unix_ns = now_unix_ns;
  queued.state = "queued";
  return std::optional<ServeRun>(queued);
}

Result<std::optional<ServeRun>> ServeStore::Enqueue(ServeRun run, uint64_t now_unix_ns) {
  std::lock_guard lock(mu_);
  return InsertQueued(run, now_unix_ns);
}

Result<std::optional<ServeRun>> ServeStore::EnqueueDue(const std::optional<ServeRun>& run, const std::string& suite,
                                                       uint64_t last_due_unix_ns, uint64_t now_unix_ns) {
  std::lock_guard lock(mu_);
  if (Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  SqlTransaction transaction(db_);
  std::optional<ServeRun> queued;
  if (run) {
    auto paused = ReadPaused(suite);
    if (!paused.ok()) return paused.status();
    if (!*paused) {
      auto inserted = InsertQueued(*run, now_unix_ns);
      if (!inserted.ok()) return inserted.status();
      queued = *inserted;
    }
  }
  if (Status s = WriteLastDue(suite, last_due_unix_ns); !s.ok()) return s;
  if (Status s = Exec("COMMIT"); !s.ok()) return s;
  transaction.Committed();
  return queued;
}

Result<std::optional<ServeRun>> ServeStore::TakeNext(const std::string& fleet, uint64_t now_unix_ns) {
  std::lock_guard lock(mu_);
  // Read and mark in one write transaction: another process on the same database (refused by
  // serve's lock file, but a copy run by hand) cannot take the same run.
  if (Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  SqlTransaction transaction(db_);
  ServeRun run;
  {
    SqlStatement next(db_, std::string("SELECT ") + kColumns +
                               " FROM serve_runs WHERE state = 'queued' AND fleet = ? ORDER BY queued_at_unix_ns, rowid LIMIT 1");
    if (!next.ok()) return Error("cannot prepare the queue read");
    next.Bind(1, fleet);
    int rc = next.Step();
    if (rc == SQLITE_DONE) return std::optional<ServeRun>();
    if (rc != SQLITE_ROW) return Error("cannot read the queue");
    run = RunOf(next);
  }
  SqlStatement take(db_, "UPDATE serve_runs SET state = 'running', started_at_unix_ns = ? WHERE run_id = ? AND state = 'queued'");
  if (!take.ok()) return Error("cannot prepare the queue update");
  take.Bind(1, Signed(now_unix_ns)).Bind(2, run.run_id);
  if (take.Step() != SQLITE_DONE || sqlite3_changes(db_) != 1) return Error("cannot start run " + run.run_id);
  if (Status s = Exec("COMMIT"); !s.ok()) return s;
  transaction.Committed();
  run.state = "running";
  run.started_at_unix_ns = now_unix_ns;
  return std::optional<ServeRun>(run);
}

Result<std::vector<ServeRun>> ServeStore::Rehome(const std::map<std::string, std::string>& fleet_of, uint64_t now_unix_ns) {
  auto queued = Runs({"", "queued", 0});
  if (!queued.ok()) return queued.status();
  std::lock_guard lock(mu_);
  std::vector<ServeRun> dropped;
  for (ServeRun& run : *queued) {
    auto it = fleet_of.find(run.suite);
    if (it == fleet_of.end()) {
      SqlStatement drop(db_,
                        "UPDATE serve_runs SET state = 'done', status = 'cancelled', error = ?, finished_at_unix_ns = ? "
                        "WHERE run_id = ? AND state = 'queued'");
      if (!drop.ok()) return Error("cannot prepare the queue update");
      run.error = "suite " + run.suite + " is no longer in the config";
      drop.Bind(1, run.error).Bind(2, Signed(now_unix_ns)).Bind(3, run.run_id);
      if (drop.Step() != SQLITE_DONE) return Error("cannot cancel run " + run.run_id);
      dropped.push_back(run);
    } else if (it->second != run.fleet) {
      SqlStatement move(db_, "UPDATE serve_runs SET fleet = ? WHERE run_id = ? AND state = 'queued'");
      if (!move.ok()) return Error("cannot prepare the queue update");
      move.Bind(1, it->second).Bind(2, run.run_id);
      if (move.Step() != SQLITE_DONE) return Error("cannot move run " + run.run_id);
    }
  }
  return dropped;
}

Status ServeStore::WriteFinish(const ServeRun& ended) {
  SqlStatement done(db_,
                    "UPDATE serve_runs SET state = 'done', status = ?, verdict = ?, exit_code = ?, error = ?, "
                    "finished_at_unix_ns = ? WHERE run_id = ?");
  if (!done.ok()) return Error("cannot prepare the queue update");
  done.Bind(1, ended.status).Bind(2, ended.verdict).Bind(3, static_cast<int64_t>(ended.exit_code)).Bind(4, ended.error);
  done.Bind(5, Signed(ended.finished_at_unix_ns)).Bind(6, ended.run_id);
  if (done.Step() != SQLITE_DONE) return Error("cannot record the end of run " + ended.run_id);
  return Status();
}

Status ServeStore::Finish(const std::string& run_id, const std::string& status, const std::string& verdict, int exit_code,
                          const std::string& error, uint64_t now_unix_ns) {
  std::lock_guard lock(mu_);
  ServeRun ended;
  // The rest of the row, for the reads that show an end not yet written (reading needs no room).
  if (auto row = SelectRun(run_id); row.ok() && row->has_value()) ended = **row;
  ended.run_id = run_id;
  ended.state = "done";
  ended.status = status;
  ended.verdict = verdict;
  ended.exit_code = exit_code;
  ended.error = error;
  ended.finished_at_unix_ns = now_unix_ns;
  Status written = WriteFinish(ended);
  if (written.ok()) unwritten_.erase(run_id);
  else unwritten_[run_id] = std::move(ended);
  return written;
}

Status ServeStore::WriteUnwritten(std::vector<std::string>& written) {
  std::lock_guard lock(mu_);
  for (auto it = unwritten_.begin(); it != unwritten_.end();) {
    if (Status s = WriteFinish(it->second); !s.ok()) return s;
    written.push_back(it->first);
    it = unwritten_.erase(it);
  }
  return Status();
}

std::vector<ServeRun> ServeStore::Unwritten() {
  std::lock_guard lock(mu_);
  std::vector<ServeRun> runs;
  for (const auto& [id, run] : unwritten_) runs.push_back(run);
  return runs;
}

void ServeStore::ShowUnwritten(ServeRun& run) const {
  auto it = unwritten_.find(run.run_id);
  if (it == unwritten_.end()) return;
  const ServeRun& ended = it->second;
  run.state = ended.state;
  run.status = ended.status;
  run.verdict = ended.verdict;
  run.exit_code = ended.exit_code;
  run.error = ended.error;
  run.finished_at_unix_ns = ended.finished_at_unix_ns;
}

Result<bool> ServeStore::CancelQueued(const std::string& run_id, uint64_t now_unix_ns) {
  std::lock_guard lock(mu_);
  SqlStatement cancel(db_,
                      "UPDATE serve_runs SET state = 'done', status = 'cancelled', error = 'cancelled while queued', "
                      "finished_at_unix_ns = ? WHERE run_id = ? AND state = 'queued'");
  if (!cancel.ok()) return Error("cannot prepare the queue update");
  cancel.Bind(1, Signed(now_unix_ns)).Bind(2, run_id);
  if (cancel.Step() != SQLITE_DONE) return Error("cannot cancel run " + run_id);
  return sqlite3_changes(db_) > 0;
}

Result<std::vector<ServeRun>> ServeStore::MarkLost(uint64_t now_unix_ns) {
  auto running = Runs({"", "running", 0});
  if (!running.ok()) return running.status();
  for (auto& run : *running) {
    const std::string error = "iofleet serve stopped during the run without ending it (killed or crashed)";
    if (Status s = Finish(run.run_id, "lost", "", -1, error, now_unix_ns); !s.ok()) return s;
    run.state = "done";
    run.status = "lost";
    run.error = error;
  }
  return running;
}

Result<std::vector<ServeRun>> ServeStore::SelectRuns(const std::string& suite, const std::string& state, size_t last) {
  std::string sql = std::string("SELECT ") + kColumns + " FROM serve_runs WHERE (? = '' OR suite = ?) AND (? = '' OR state = ?) "
                                                          "ORDER BY queued_at_unix_ns DESC, rowid DESC";
  if (last) sql += " LIMIT " + std::to_string(last);
  SqlStatement select(db_, sql);
  if (!select.ok()) return Error("cannot prepare the queue read");
  select.Bind(1, suite).Bind(2, suite).Bind(3, state).Bind(4, state);
  std::vector<ServeRun> runs;
  int rc;
  while ((rc = select.Step()) == SQLITE_ROW) runs.push_back(RunOf(select));
  if (rc != SQLITE_DONE) return Error("cannot read the queue");
  return runs;
}

Result<std::vector<ServeRun>> ServeStore::Runs(const ServeRunFilter& filter) {
  std::lock_guard lock(mu_);
  if (unwritten_.empty()) return SelectRuns(filter.suite, filter.state, filter.last);
  // Ends not yet written: rows the database has as running are done. Read as many more rows as
  // there are such ends (those may drop out of a "running" read), then show them as they ended.
  auto rows = SelectRuns(filter.suite, filter.state, filter.last ? filter.last + unwritten_.size() : 0);
  if (!rows.ok()) return rows.status();
  std::vector<ServeRun> runs;
  std::set<std::string> read;
  for (ServeRun& run : *rows) {
    read.insert(run.run_id);
    ShowUnwritten(run);
    if (filter.state.empty() || run.state == filter.state) runs.push_back(std::move(run));
  }
  if (filter.state == "done") {
    for (const auto& [id, run] : unwritten_) {
      if (!read.count(id) && (filter.suite.empty() || run.suite == filter.suite)) runs.push_back(run);
    }
  }
  std::stable_sort(runs.begin(), runs.end(),
                   [](const ServeRun& a, const ServeRun& b) { return a.queued_at_unix_ns > b.queued_at_unix_ns; });
  if (filter.last && runs.size() > filter.last) runs.resize(filter.last);
  return runs;
}

Result<std::optional<ServeRun>> ServeStore::SelectRun(const std::string& run_id) {
  SqlStatement select(db_, std::string("SELECT ") + kColumns + " FROM serve_runs WHERE run_id = ?");
  if (!select.ok()) return Error("cannot prepare the queue read");
  select.Bind(1, run_id);
  int rc = select.Step();
  if (rc == SQLITE_DONE) return std::optional<ServeRun>();
  if (rc != SQLITE_ROW) return Error("cannot read the queue");
  return std::optional<ServeRun>(RunOf(select));
}

Result<std::optional<ServeRun>> ServeStore::Find(const std::string& run_id) {
  std::lock_guard lock(mu_);
  auto run = SelectRun(run_id);
  if (run.ok() && run->has_value()) ShowUnwritten(**run);
  return run;
}

Result<std::map<std::string, int64_t>> ServeStore::QueueLengths() {
  std::lock_guard lock(mu_);
  SqlStatement select(db_, "SELECT fleet, COUNT(*) FROM serve_runs WHERE state = 'queued' GROUP BY fleet");
  if (!select.ok()) return Error("cannot prepare the queue read");
  std::map<std::string, int64_t> lengths;
  int rc;
  while ((rc = select.Step()) == SQLITE_ROW) lengths[select.Text(0)] = select.Int(1);
  if (rc != SQLITE_DONE) return Error("cannot read the queue");
  return lengths;
}

Result<std::map<std::pair<std::string, std::string>, int64_t>> ServeStore::DoneCounts() {
  std::lock_guard lock(mu_);
  SqlStatement select(db_, "SELECT suite, status, COUNT(*) FROM serve_runs WHERE state = 'done' GROUP BY suite, status");
  if (!select.ok()) return Error("cannot prepare the queue read");
  std::map<std::pair<std::string, std::string>, int64_t> counts;
  int rc;
  while ((rc = select.Step()) == SQLITE_ROW) counts[{select.Text(0), select.Text(1)}] = select.Int(2);
  if (rc != SQLITE_DONE) return Error("cannot read the queue");
  for (const auto& [id, run] : unwritten_) ++counts[{run.suite, run.status}];  // running in the database
  return counts;
}

Result<std::optional<uint64_t>> ServeStore::LastDue(const std::string& suite) {
  std::lock_guard lock(mu_);
  SqlStatement select(db_, "SELECT last_due_unix_ns FROM serve_schedules WHERE suite = ?");
  if (!select.ok()) return Error("cannot prepare the schedule read");
  select.Bind(1, suite);
  int rc = select.Step();
  if (rc == SQLITE_DONE) return std::optional<uint64_t>();
  if (rc != SQLITE_ROW) return Error("cannot read the schedule of " + suite);
  return std::optional<uint64_t>(static_cast<uint64_t>(select.Int(0)));
}

Status ServeStore::SetLastDue(const std::string& suite, uint64_t due_unix_ns) {
  std::lock_guard lock(mu_);
  return WriteLastDue(suite, due_unix_ns);
}

Status ServeStore::WriteLastDue(const std::string& suite, uint64_t due_unix_ns) {
  SqlStatement upsert(db_,
                      "INSERT INTO serve_schedules (suite, last_due_unix_ns) VALUES (?, ?) "
                      "ON CONFLICT (suite) DO UPDATE SET last_due_unix_ns = excluded.last_due_unix_ns");
  if (!upsert.ok()) return Error("cannot prepare the schedule update");
  upsert.Bind(1, suite).Bind(2, Signed(due_unix_ns));
  if (upsert.Step() != SQLITE_DONE) return Error("cannot record the schedule of " + suite);
  return Status();
}

Result<bool> ServeStore::Paused(const std::string& suite) {
  std::lock_guard lock(mu_);
  return ReadPaused(suite);
}

Result<bool> ServeStore::ReadPaused(const std::string& suite) {
  SqlStatement select(db_, "SELECT paused FROM serve_schedules WHERE suite = ?");
  if (!select.ok()) return Error("cannot prepare the schedule read");
  select.Bind(1, suite);
  int rc = select.Step();
  if (rc == SQLITE_DONE) return false;
  if (rc != SQLITE_ROW) return Error("cannot read the schedule of " + suite);
  return select.Int(0) != 0;
}

Status ServeStore::SetPaused(const std::string& suite, bool paused, uint64_t now_unix_ns) {
  std::lock_guard lock(mu_);
  // A suite never scheduled before starts its schedule from now.
  SqlStatement upsert(db_,
                      "INSERT INTO serve_schedules (suite, last_due_unix_ns, paused) VALUES (?, ?, ?) "
                      "ON CONFLICT (suite) DO UPDATE SET paused = excluded.paused");
  if (!upsert.ok()) return Error("cannot prepare the schedule update");
  upsert.Bind(1, suite).Bind(2, Signed(now_unix_ns)).Bind(3, static_cast<int64_t>(paused ? 1 : 0));
  if (upsert.Step() != SQLITE_DONE) return Error("cannot record the schedule of " + suite);
  return Status();
}

}  // namespace iofleet::controller
