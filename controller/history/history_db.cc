#include "controller/history/history_db.h"

#include <sqlite3.h>

#include <algorithm>

#include "controller/history/sqlite_statement.h"
#include "core/wire/proto_json.h"

namespace iofleet::controller {

std::string NoRunMessage(const std::string& path, const std::string& run_id) {
  return "history database " + path + " has no run " + run_id + " (--db FILE reads another; a run with --out DIR keeps DIR/history.db)";
}
namespace {

// Each entry takes the schema from version i to i + 1. Never edit one that shipped: add another.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  workload TEXT NOT NULL,
  workload_hash TEXT NOT NULL,
  iofleet_version TEXT NOT NULL,
  agent_count INTEGER NOT NULL,
  started_at_unix_ns INTEGER NOT NULL,
  duration_ns INTEGER NOT NULL,
  status TEXT NOT NULL,
  verdict TEXT NOT NULL,
  excluded INTEGER NOT NULL DEFAULT 0,
  figure_count INTEGER NOT NULL,
  report_json TEXT NOT NULL,
  samples_csv TEXT NOT NULL,
  effective_workload TEXT NOT NULL
);
CREATE INDEX runs_by_workload ON runs (workload, started_at_unix_ns);
CREATE TABLE run_labels (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  selects INTEGER NOT NULL,  -- 1: a --label (selects the baseline), 0: a --note
  PRIMARY KEY (run_id, key)
);
CREATE TABLE run_agents (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  address TEXT NOT NULL,
  version TEXT NOT NULL,
  hostname TEXT NOT NULL,
  PRIMARY KEY (run_id, position)
);
CREATE TABLE figures (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  step TEXT NOT NULL,
  point INTEGER NOT NULL,
  cycle INTEGER NOT NULL,
  group_cycle INTEGER NOT NULL,  -- a group's step: which repeat of the group; -1 otherwise
  agent TEXT NOT NULL,  -- '' for the aggregate
  figure TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (run_id, step, point, cycle, group_cycle, agent, figure)
);
)sql",
    // 1 -> 2 made iofleet serve's tables, which serve now creates and migrates itself
    // (controller/serve/serve_schema.cc): the history does not know them.
    "SELECT 1;",
    // 2 -> 3: figures per stream of an io step with streams ('' for a step's own), part of the key.
    R"sql(
CREATE TABLE figures_v3 (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  step TEXT NOT NULL,
  point INTEGER NOT NULL,
  cycle INTEGER NOT NULL,
  group_cycle INTEGER NOT NULL,
  stream TEXT NOT NULL DEFAULT '',  -- a stream of the step; '' for the step's own figures
  agent TEXT NOT NULL,
  figure TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (run_id, step, point, cycle, group_cycle, stream, agent, figure)
);
INSERT INTO figures_v3 (rowid, run_id, step, point, cycle, group_cycle, stream, agent, figure, value)
  SELECT rowid, run_id, step, point, cycle, group_cycle, '', agent, figure, value FROM figures ORDER BY rowid;
DROP TABLE figures;
ALTER TABLE figures_v3 RENAME TO figures;
)sql",
};
constexpr int kKnownVersions = sizeof(kMigrations) / sizeof(kMigrations[0]);
static_assert(kKnownVersions == HistoryDb::kSchemaVersion);

// The columns every read of a run's row starts with, and how they are read.
constexpr const char* kRunColumns =
    "run_id, workload, workload_hash, iofleet_version, started_at_unix_ns, duration_ns, status, verdict, excluded";
StoredRun RunOf(const SqlStatement& row) {
  StoredRun r;
  r.run_id = row.Text(0);
  r.workload = row.Text(1);
  r.workload_hash = row.Text(2);
  r.iofleet_version = row.Text(3);
  r.started_at_unix_ns = static_cast<uint64_t>(row.Int(4));
  r.duration_ns = static_cast<uint64_t>(row.Int(5));
  r.status = wire::EnumFromText<v1::RunStatus>(row.Text(6)).value_or(v1::RUN_STATUS_UNSPECIFIED);
  r.verdict = row.Text(7);
  r.excluded = row.Int(8) != 0;
  return r;
}

}  // namespace

Result<std::unique_ptr<HistoryDb>> HistoryDb::Open(const std::string& path) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<HistoryDb> db(new HistoryDb(raw, path));
  if (rc != SQLITE_OK) return db->Error("cannot open");
  sqlite3_busy_timeout(raw, 10000);
  if (Status s = db->Exec("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;"); !s.ok()) return s;
  if (Status s = db->Migrate(); !s.ok()) return s;
  return db;
}

HistoryDb::~HistoryDb() { sqlite3_close(db_); }

Status HistoryDb::Error(const std::string& what) const {
  return Status(Code::kInternal, "history database " + path_ + ": " + what + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory"));
}

Status HistoryDb::Exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return Status();
  std::string text = message ? message : sqlite3_errmsg(db_);
  sqlite3_free(message);
  return Status(Code::kInternal, "history database " + path_ + ": " + text);
}

Result<int64_t> HistoryDb::SchemaVersion() {
  SqlStatement version(db_, "PRAGMA user_version");
  if (!version.ok() || version.Step() != SQLITE_ROW) return Error("cannot read the schema version");
  return version.Int(0);
}

Status HistoryDb::NewerSchema(int64_t version) const {
  return Status(Code::kInvalidArgument, "history database " + path_ + " has schema version " + std::to_string(version) +
                                            ", newer than this iofleet's " + std::to_string(kSchemaVersion) + ": use a newer iofleet");
}

Status HistoryDb::Migrate() {
  // Up to date (the usual case): no write, so readers never wait for a writer here.
  auto current = SchemaVersion();
  if (!current.ok()) return current.status();
  if (*current > kSchemaVersion) return NewerSchema(*current);
  if (*current == kSchemaVersion) return Status();
  if (Status s = Exec("PRAGMA journal_mode=WAL"); !s.ok()) return s;
  if (Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  SqlTransaction transaction(db_);
  auto locked = SchemaVersion();  // another process may have migrated meanwhile
  if (!locked.ok()) return locked.status();
  const int64_t at = *locked;
  if (at > kSchemaVersion) return NewerSchema(at);
  for (int64_t v = at; v < kSchemaVersion; ++v) {
    if (Status s = Exec(kMigrations[v]); !s.ok()) return s;
  }
  if (Status s = Exec("PRAGMA user_version = " + std::to_string(kSchemaVersion)); !s.ok()) return s;
  if (Status s = Exec("COMMIT"); !s.ok()) return s;
  transaction.Committed();
  return Status();
}

Status HistoryDb::Insert(const StoredRun& run) {
  if (Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  SqlTransaction transaction(db_);
  SqlStatement insert(db_,
                   "INSERT INTO runs (run_id, workload, workload_hash, iofleet_version, agent_count, started_at_unix_ns, "
                   "duration_ns, status, verdict, excluded, figure_count, report_json, samples_csv, effective_workload) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!insert.ok()) return Error("cannot prepare the insert");
  insert.Bind(1, run.run_id).Bind(2, run.workload).Bind(3, run.workload_hash).Bind(4, run.iofleet_version);
  insert.Bind(5, static_cast<int64_t>(run.agents.size())).Bind(6, static_cast<int64_t>(run.started_at_unix_ns));
  insert.Bind(7, static_cast<int64_t>(run.duration_ns)).Bind(8, wire::EnumText(run.status)).Bind(9, run.verdict);
  insert.Bind(10, int64_t{run.excluded}).Bind(11, static_cast<int64_t>(run.figures.size()));
  insert.Bind(12, run.report_json).Bind(13, run.samples_csv).Bind(14, run.effective_workload);
  if (insert.Step() != SQLITE_DONE) return Error("cannot store run " + run.run_id);

  SqlStatement label(db_, "INSERT INTO run_labels (run_id, key, value, selects) VALUES (?, ?, ?, ?)");
  auto put_labels = [&](const std::map<std::string, std::string>& entries, int64_t selects) -> Status {
    for (const auto& [key, value] : entries) {
      label.Reset();
      label.Bind(1, run.run_id).Bind(2, key).Bind(3, value).Bind(4, selects);
      if (label.Step() != SQLITE_DONE) return Error("cannot store label " + key + " of run " + run.run_id);
    }
    return Status();
  };
  if (Status s = put_labels(run.labels, 1); !s.ok()) return s;
  if (Status s = put_labels(run.notes, 0); !s.ok()) return s;

  SqlStatement agent(db_, "INSERT INTO run_agents (run_id, position, name, address, version, hostname) VALUES (?, ?, ?, ?, ?, ?)");
  for (size_t i = 0; i < run.agents.size(); ++i) {
    const StoredAgent& a = run.agents[i];
    agent.Reset();
    agent.Bind(1, run.run_id).Bind(2, static_cast<int64_t>(i)).Bind(3, a.name).Bind(4, a.address).Bind(5, a.version).Bind(6, a.hostname);
    if (agent.Step() != SQLITE_DONE) return Error("cannot store agent " + a.name + " of run " + run.run_id);
  }

  SqlStatement figure(db_, "INSERT INTO figures (run_id, step, point, cycle, group_cycle, agent, figure, value, stream) "
                          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const StoredFigure& f : run.figures) {
    figure.Reset();
    figure.Bind(1, run.run_id).Bind(2, f.step).Bind(3, int64_t{f.point}).Bind(4, int64_t{f.cycle}).Bind(5, int64_t{f.group_cycle});
    figure.Bind(6, f.agent).Bind(7, f.figure).Bind(8, f.value).Bind(9, f.stream);
    if (figure.Step() != SQLITE_DONE) return Error("cannot store figure " + f.figure + " of step " + f.step + " of run " + run.run_id);
  }
  if (Status s = Exec("COMMIT"); !s.ok()) return s;
  transaction.Committed();
  return Status();
}

Result<std::vector<StoredRun>> HistoryDb::Runs(const RunFilter& filter) {
  std::string sql = std::string("SELECT ") + kRunColumns + " FROM runs WHERE 1";
  if (!filter.workload.empty()) sql += " AND workload = ?1";
  if (filter.agent_count) sql += " AND agent_count = ?2";
  if (filter.succeeded_only) sql += " AND status = 'succeeded'";
  if (!filter.include_excluded) sql += " AND excluded = 0";
  if (filter.before_unix_ns) sql += " AND started_at_unix_ns < ?3";
  // Newest first, so that `last` stops the walk after its matches: a suite's history is read in
  // time bounded by what is asked, not by how many runs the database holds.
  sql += " ORDER BY started_at_unix_ns DESC, run_id DESC";
  SqlStatement query(db_, sql);
  if (!query.ok()) return Error("cannot list runs");
  if (!filter.workload.empty()) query.Bind(1, filter.workload);
  if (filter.agent_count) query.Bind(2, static_cast<int64_t>(*filter.agent_count));
  if (filter.before_unix_ns) query.Bind(3, static_cast<int64_t>(filter.before_unix_ns));
  std::vector<StoredRun> runs;
  int rc = SQLITE_DONE;
  while ((!filter.last || runs.size() < filter.last) && (rc = query.Step()) == SQLITE_ROW) {
    StoredRun r = RunOf(query);
    if (Status s = LoadDetails(r, false); !s.ok()) return s;
    bool match = true;
    for (const auto& [key, value] : filter.labels) {
      auto it = r.labels.find(key);
      match = match && it != r.labels.end() && it->second == value;
    }
    if (filter.exact_labels) match = match && r.labels.size() == filter.labels.size();
    if (match) runs.push_back(std::move(r));
  }
  if (filter.last && runs.size() == filter.last) rc = SQLITE_DONE;  // stopped early: enough
  if (rc != SQLITE_DONE) return Error("cannot list runs");
  std::reverse(runs.begin(), runs.end());  // in start order, as callers read them
  return runs;
}

Status HistoryDb::LoadDetails(StoredRun& run, bool whole) {
  // A label lost to a read error would change which runs are a baseline: every error counts.
  SqlStatement labels(db_, "SELECT key, value, selects FROM run_labels WHERE run_id = ? ORDER BY key");
  if (!labels.ok()) return Error("cannot read the labels of run " + run.run_id);
  labels.Bind(1, run.run_id);
  int rc;
  while ((rc = labels.Step()) == SQLITE_ROW) (labels.Int(2) ? run.labels : run.notes)[labels.Text(0)] = labels.Text(1);
  if (rc != SQLITE_DONE) return Error("cannot read the labels of run " + run.run_id);
  SqlStatement agents(db_, "SELECT name, address, version, hostname FROM run_agents WHERE run_id = ? ORDER BY position");
  if (!agents.ok()) return Error("cannot read the agents of run " + run.run_id);
  agents.Bind(1, run.run_id);
  while ((rc = agents.Step()) == SQLITE_ROW) run.agents.push_back({agents.Text(0), agents.Text(1), agents.Text(2), agents.Text(3)});
  if (rc != SQLITE_DONE) return Error("cannot read the agents of run " + run.run_id);
  if (!whole) return Status();
  auto figures = Figures(run.run_id);
  if (!figures.ok()) return figures.status();
  run.figures = std::move(*figures);
  return Status();
}

Result<StoredRun> HistoryDb::Load(const std::string& run_id) {
  SqlStatement query(db_, std::string("SELECT ") + kRunColumns +
                           ", report_json, samples_csv, figure_count, effective_workload FROM runs WHERE run_id = ?");
  if (!query.ok()) return Error("cannot read run " + run_id);
  query.Bind(1, run_id);
  const int rc = query.Step();
  if (rc == SQLITE_DONE) return Status(Code::kNotFound, NoRunMessage(path_, run_id));
  if (rc != SQLITE_ROW) return Error("cannot read run " + run_id);
  StoredRun r = RunOf(query);
  r.report_json = query.Text(9);
  r.samples_csv = query.Text(10);
  const auto expected = static_cast<size_t>(query.Int(11));
  r.effective_workload = query.Text(12);
  if (Status s = LoadDetails(r, true); !s.ok()) return s;
  if (r.figures.size() != expected) {
    return Status(Code::kInternal, "history database " + path_ + ": run " + run_id + " has " + std::to_string(r.figures.size()) +
                                       " figures, " + std::to_string(expected) + " were stored");
  }
  return r;
}

Result<std::vector<StoredFigure>> HistoryDb::Figures(const std::string& run_id) {
  SqlStatement query(db_, "SELECT step, point, cycle, group_cycle, agent, figure, value, stream FROM figures WHERE run_id = ? ORDER BY rowid");
  if (!query.ok()) return Error("cannot read the figures of run " + run_id);
  query.Bind(1, run_id);
  std::vector<StoredFigure> out;
  int rc;
  while ((rc = query.Step()) == SQLITE_ROW) {
    out.push_back({query.Text(0), static_cast<int>(query.Int(1)), static_cast<int>(query.Int(2)), static_cast<int>(query.Int(3)),
                   query.Text(4), query.Text(5), query.Real(6), query.Text(7)});
  }
  if (rc != SQLITE_DONE) return Error("cannot read the figures of run " + run_id);
  return out;
}

Status HistoryDb::SetExcluded(const std::string& run_id, bool excluded) {
  SqlStatement update(db_, "UPDATE runs SET excluded = ? WHERE run_id = ?");
  update.Bind(1, int64_t{excluded}).Bind(2, run_id);
  if (update.Step() != SQLITE_DONE) return Error("cannot update run " + run_id);
  if (sqlite3_changes(db_) == 0) return Status(Code::kNotFound, NoRunMessage(path_, run_id));
  return Status();
}

std::string HistoryDbPath(const std::string& db, const std::string& out_dir) {
  return db.empty() ? out_dir + "/history.db" : db;
}

}  // namespace iofleet::controller
