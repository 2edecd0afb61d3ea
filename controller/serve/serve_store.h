// iofleet serve's queue and schedules, in the history database (tables serve_runs and
// serve_schedules, created by controller/history/history_db.cc's migrations). Every run the
// service makes has a row from the moment it is queued until it is done, so a restart loses
// none and runs none twice.
//
// Thread-safety: one connection behind a mutex; every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"

struct sqlite3;

namespace iofleet::controller {

struct ServeRun {
  std::string run_id;
  std::string suite, fleet;
  std::string reason;  // schedule | missed | manual
  std::string labels_json = "{}";  // the suite's labels when it was queued: what the run ran with
  uint64_t due_unix_ns = 0;
  uint64_t queued_at_unix_ns = 0;
  std::string state;  // queued | running | done
  uint64_t started_at_unix_ns = 0;
  uint64_t finished_at_unix_ns = 0;
  std::string status;   // done: succeeded | failed | aborted | cancelled | lost
  std::string verdict;  // from the history: regression | improvement | unchanged | not enough history | ""
  int exit_code = -1;
  std::string error;
};

struct ServeRunFilter {
  std::string suite;  // "" any
  std::string state;  // "" any
  size_t last = 0;    // 0: all; else the newest N
};

class ServeStore {
 public:
  // Opens (migrating it first, through HistoryDb) the database at `path`.
  static Result<std::unique_ptr<ServeStore>> Open(const std::string& path);
  ~ServeStore();

  // A run of `run.suite` queued (run_id, suite, fleet, labels_json, reason, due_unix_ns given),
  // unless one is already waiting: then nullopt (and nothing changes).
  Result<std::optional<ServeRun>> Enqueue(ServeRun run, uint64_t now_unix_ns);
  // The scheduler's step, in one transaction: the schedule's latest handled time becomes
  // `last_due`, and `run` is queued unless the suite is paused (read in the same transaction, so
  // a pause that was answered is never followed by a scheduled run) or already waits. A crash
  // between the two cannot queue one time twice.
  Result<std::optional<ServeRun>> EnqueueDue(const std::optional<ServeRun>& run, const std::string& suite, uint64_t last_due_unix_ns,
                                             uint64_t now_unix_ns);
  // The oldest queued run of `fleet`, now marked running; nullopt when none waits.
  Result<std::optional<ServeRun>> TakeNext(const std::string& fleet, uint64_t now_unix_ns);
  // At start, after a config edit: each suite's queued runs go to the fleet the suite now names
  // (`fleet_of` suite -> fleet); queued runs of suites no longer configured are cancelled.
  Result<std::vector<ServeRun>> Rehome(const std::map<std::string, std::string>& fleet_of, uint64_t now_unix_ns);
  // A run ended. When the write fails (the database's file system full, the database locked)
  // the run's end is kept here and every read below shows it (state done, never running) until
  // WriteUnwritten lands it; the error is returned all the same.
  Status Finish(const std::string& run_id, const std::string& status, const std::string& verdict, int exit_code,
                const std::string& error, uint64_t now_unix_ns);
  // Writes the ends Finish could not, adding the run ids it wrote to `written`; the first error
  // ends the try (what is left waits for the next).
  Status WriteUnwritten(std::vector<std::string>& written);
  // The runs whose end is still not in the database.
  std::vector<ServeRun> Unwritten();
  // A queued run cancelled (done, status cancelled): true; false when it is not queued.
  Result<bool> CancelQueued(const std::string& run_id, uint64_t now_unix_ns);
  // At start: runs left running by a service that died (SIGKILL, power) are done, status lost.
  Result<std::vector<ServeRun>> MarkLost(uint64_t now_unix_ns);

  // Newest first.
  Result<std::vector<ServeRun>> Runs(const ServeRunFilter& filter);
  Result<std::optional<ServeRun>> Find(const std::string& run_id);
  // Queued runs per fleet.
  Result<std::map<std::string, int64_t>> QueueLengths();
  // Done runs per suite and status.
  Result<std::map<std::pair<std::string, std::string>, int64_t>> DoneCounts();

  // The latest scheduled time of `suite` that was handled (queued or skipped); nullopt for a
  // suite never seen.
  Result<std::optional<uint64_t>> LastDue(const std::string& suite);
  Status SetLastDue(const std::string& suite, uint64_t due_unix_ns);
  Result<bool> Paused(const std::string& suite);
  Status SetPaused(const std::string& suite, bool paused, uint64_t now_unix_ns);

  const std::string& path() const { return path_; }

 private:
  ServeStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Error(const std::string& what) const;
  Status Exec(const char* sql);
  // The ones below: with mu_ held.
  Result<std::optional<ServeRun>> InsertQueued(const ServeRun& run, uint64_t now_unix_ns);
  Status WriteFinish(const ServeRun& ended);
  Result<std::vector<ServeRun>> SelectRuns(const std::string& suite, const std::string& state, size_t last);
  Result<std::optional<ServeRun>> SelectRun(const std::string& run_id);
  // `run` as it ended, when its end is one Finish could not write.
  void ShowUnwritten(ServeRun& run) const;
  Status WriteLastDue(const std::string& suite, uint64_t due_unix_ns);
  Result<bool> ReadPaused(const std::string& suite);

  std::mutex mu_;
  // run id -> the run as it ended (state done), for the ends Finish could not write.
  std::map<std::string, ServeRun> unwritten_;
  sqlite3* db_;
  std::string path_;
};

}  // namespace iofleet::controller
