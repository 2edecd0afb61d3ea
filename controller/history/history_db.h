// The run history: one SQLite file (by default history.db in the results directory), so a
// single machine needs no server. Every run goes in whole, in one transaction, or not at all: a
// process killed while writing leaves the database readable and the run absent (WAL mode). The
// schema has a version (PRAGMA user_version) and migrations from every older one; iofleet serve keeps
// its tables in the same file with a version of their own (controller/serve/serve_schema.h).
//
// Thread-safety: one HistoryDb per thread; several processes may share the file (SQLite locks,
// with a busy timeout).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "iofleet/v1/report.pb.h"

struct sqlite3;

namespace iofleet::controller {

// One figure of one step instance of a run: the aggregate (agent "") or one agent's.
struct StoredFigure {
  std::string step;
  int point = 0;
  int cycle = 0;
  int group_cycle = -1;  // a group's step: which repeat of the group
  std::string agent;   // "" for the aggregate
  std::string figure;  // e.g. bandwidth, iops, p99_latency, files_per_sec:create, copy_seconds
  double value = 0;
  std::string stream = {};  // an io step with streams: the stream's figure; "" for the step's own
};

struct StoredAgent {
  std::string name, address, version, hostname;
};

struct StoredRun {
  std::string run_id;
  std::string workload;
  std::string workload_hash;  // of the effective workload: a changed one is warned about
  std::string iofleet_version;
  uint64_t started_at_unix_ns = 0;
  uint64_t duration_ns = 0;
  v1::RunStatus status = v1::RUN_STATUS_UNSPECIFIED;  // stored as report.json spells it
  std::string verdict;  // regression | improvement | unchanged | not enough history | "" (none asked)
  std::map<std::string, std::string> labels;  // --label: select the baseline
  std::map<std::string, std::string> notes;   // --note: recorded, select nothing
  std::vector<StoredAgent> agents;
  bool excluded = false;  // kept out of every baseline (history --exclude)
  std::string report_json;  // the whole report: `iofleet report RUN_ID` renders it again
  std::string samples_csv;
  std::string effective_workload;  // every default filled in, as workload.effective.yaml has it
  std::vector<StoredFigure> figures;
};

// Which runs: all filters together. Newest last.
// The database a command uses: --db, else history.db in the results directory.
std::string HistoryDbPath(const std::string& db, const std::string& out_dir);

struct RunFilter {
  std::string workload;                       // "" any
  std::map<std::string, std::string> labels;  // each must be set to that value
  bool exact_labels = false;                  // and no other label set (baselines)
  std::optional<size_t> agent_count;
  bool succeeded_only = false;
  bool include_excluded = true;
  uint64_t before_unix_ns = 0;  // 0: any time
  size_t last = 0;              // 0: all
};

// "history database PATH has no run ID", and how to read another: a run with --out DIR kept its
// history in DIR/history.db, which `history`, `compare` and `report` do not read unless told.
std::string NoRunMessage(const std::string& path, const std::string& run_id);

class HistoryDb {
 public:
  // Opens or creates the database at `path`, migrating an older schema; refuses a newer one.
  static Result<std::unique_ptr<HistoryDb>> Open(const std::string& path);
  ~HistoryDb();

  static constexpr int kSchemaVersion = 3;

  Status Insert(const StoredRun& run);
  // The runs (without report, samples and figures) in start order.
  Result<std::vector<StoredRun>> Runs(const RunFilter& filter);
  // One run whole, or kNotFound.
  Result<StoredRun> Load(const std::string& run_id);
  Result<std::vector<StoredFigure>> Figures(const std::string& run_id);
  Status SetExcluded(const std::string& run_id, bool excluded);

  const std::string& path() const { return path_; }

 private:
  HistoryDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Exec(const std::string& sql);
  Status Error(const std::string& what) const;
  Status Migrate();
  Result<int64_t> SchemaVersion();
  Status NewerSchema(int64_t version) const;
  Status LoadDetails(StoredRun& run, bool whole);

  sqlite3* db_;
  std::string path_;
};

}  // namespace iofleet::controller
