#include "controller/serve/serve_schema.h"

#include "controller/history/sqlite_statement.h"

namespace iofleet::controller {
namespace {

// Each entry takes serve's tables from version i to i + 1. Never edit one that shipped: add
// another. The first is IF NOT EXISTS: the history's schema 2 made the same tables.
const char* const kServeMigrations[] = {
    R"sql(
CREATE TABLE IF NOT EXISTS serve_runs (
  run_id TEXT PRIMARY KEY,             -- given when queued; the run's id in runs once it ran
  suite TEXT NOT NULL,
  fleet TEXT NOT NULL,
  reason TEXT NOT NULL,                -- schedule | missed | manual
  labels TEXT NOT NULL DEFAULT '{}',   -- the suite's labels when it was queued (JSON object)
  due_unix_ns INTEGER NOT NULL,        -- the scheduled time, or when it was asked for
  queued_at_unix_ns INTEGER NOT NULL,
  state TEXT NOT NULL,                 -- queued | running | done
  started_at_unix_ns INTEGER NOT NULL DEFAULT 0,
  finished_at_unix_ns INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT '',     -- succeeded | failed | aborted | cancelled | lost
  verdict TEXT NOT NULL DEFAULT '',
  exit_code INTEGER NOT NULL DEFAULT -1,
  error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS serve_runs_by_state ON serve_runs (state, queued_at_unix_ns);
CREATE INDEX IF NOT EXISTS serve_runs_by_suite ON serve_runs (suite, queued_at_unix_ns);
-- A suite that falls due while already waiting is not queued twice.
CREATE UNIQUE INDEX IF NOT EXISTS serve_runs_one_waiting ON serve_runs (suite) WHERE state = 'queued';
CREATE TABLE IF NOT EXISTS serve_schedules (
  suite TEXT PRIMARY KEY,
  last_due_unix_ns INTEGER NOT NULL,   -- the latest scheduled time handled (queued or skipped)
  paused INTEGER NOT NULL DEFAULT 0
);
)sql",
};
static_assert(sizeof(kServeMigrations) / sizeof(kServeMigrations[0]) == kServeSchemaVersion);

constexpr const char* kVersions = "CREATE TABLE IF NOT EXISTS schema_versions (owner TEXT PRIMARY KEY, version INTEGER NOT NULL)";

Status Failed(sqlite3* db, const std::string& path, const std::string& what) {
  return Status(Code::kInternal, "history database " + path + ": " + what + ": " + sqlite3_errmsg(db));
}

Status Exec(sqlite3* db, const std::string& path, const char* sql) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK) return Status();
  return Failed(db, path, "serve's tables");
}

// Serve's version, 0 when it has none yet (or no schema_versions table); -1 on an error.
int64_t ServeVersion(sqlite3* db) {
  SqlStatement exists(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_versions'");
  if (!exists.ok()) return -1;
  const int found = exists.Step();
  if (found == SQLITE_DONE) return 0;
  if (found != SQLITE_ROW) return -1;
  SqlStatement version(db, "SELECT version FROM schema_versions WHERE owner = 'serve'");
  if (!version.ok()) return -1;
  const int row = version.Step();
  if (row == SQLITE_DONE) return 0;
  return row == SQLITE_ROW ? version.Int(0) : -1;
}

Status Newer(const std::string& path, int64_t version) {
  return Status(Code::kInvalidArgument, "history database " + path + " has serve's tables at version " + std::to_string(version) +
                                            ", newer than this iofleet's " + std::to_string(kServeSchemaVersion) +
                                            ": use a newer iofleet");
}

}  // namespace

Status MigrateServeSchema(sqlite3* db, const std::string& path) {
  // Up to date (the usual case): no write, so readers never wait for a writer here.
  int64_t current = ServeVersion(db);
  if (current < 0) return Failed(db, path, "cannot read serve's schema version");
  if (current > kServeSchemaVersion) return Newer(path, current);
  if (current == kServeSchemaVersion) return Status();
  if (Status s = Exec(db, path, "BEGIN IMMEDIATE"); !s.ok()) return s;
  SqlTransaction transaction(db);
  if (Status s = Exec(db, path, kVersions); !s.ok()) return s;
  const int64_t at = ServeVersion(db);  // another process may have migrated meanwhile
  if (at < 0) return Failed(db, path, "cannot read serve's schema version");
  if (at > kServeSchemaVersion) return Newer(path, at);
  for (int64_t v = at; v < kServeSchemaVersion; ++v) {
    if (Status s = Exec(db, path, kServeMigrations[v]); !s.ok()) return s;
  }
  SqlStatement set(db, "INSERT OR REPLACE INTO schema_versions (owner, version) VALUES ('serve', ?)");
  if (!set.ok()) return Failed(db, path, "cannot prepare serve's schema version");
  set.Bind(1, int64_t{kServeSchemaVersion});
  if (set.Step() != SQLITE_DONE) return Failed(db, path, "cannot store serve's schema version");
  if (Status s = Exec(db, path, "COMMIT"); !s.ok()) return s;
  transaction.Committed();
  return Status();
}

}  // namespace iofleet::controller
