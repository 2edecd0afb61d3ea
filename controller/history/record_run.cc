#include "controller/history/record_run.h"

#include <openssl/evp.h>

#include <fmt/format.h>

#include "controller/history/history_db.h"
#include "controller/history/run_figures.h"
#include "core/wire/proto_json.h"

namespace iofleet::controller {

std::string Sha256Hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

Result<std::optional<RunVerdicts>> JudgeAndRecord(const HistoryOptions& options, nlohmann::ordered_json& report,
                                                  const std::string& effective_workload, const std::string& samples_csv) {
  auto db = HistoryDb::Open(options.db_path);
  if (!db.ok()) return db.status();

  v1::Report typed;
  IOFLEET_RETURN_IF_ERROR(wire::FromJson(report, typed, "the run's report.json"));
  StoredRun run;
  run.run_id = typed.run_id();
  run.workload = typed.workload();
  run.workload_hash = Sha256Hex(effective_workload);
  run.iofleet_version = IOFLEET_VERSION;
  run.started_at_unix_ns = typed.started_at_unix_ns();
  run.duration_ns = typed.duration_ns();
  run.status = typed.status();
  run.labels = options.labels;
  run.notes = options.notes;
  for (const v1::ReportAgent& a : typed.agents()) {
    run.agents.push_back({a.name(), a.address(), a.version(), a.host().hostname()});
  }
  run.figures = HeadlineFigures(typed);
  // SQLite's TEXT limit is 1e9 bytes: a longer samples.csv stays in the run directory only.
  constexpr size_t kMaxStoredSamples = 256u << 20;
  run.samples_csv = samples_csv.size() <= kMaxStoredSamples ? samples_csv : std::string();
  run.effective_workload = effective_workload;

  std::optional<RunVerdicts> verdicts;
  Status judged_status;
  if (options.verdicts && typed.status() == v1::RUN_STATUS_SUCCEEDED) {
    auto judged = JudgeRun(**db, run, *options.verdicts);
    if (judged.ok()) {
      verdicts = std::move(*judged);
      report["verdicts"] = wire::ToJson(verdicts->verdicts);
      run.verdict = wire::EnumText(verdicts->overall);
    } else {
      judged_status = judged.status();  // the run is still recorded, without a verdict
    }
  }
  run.report_json = report.dump(2) + "\n";
  if (Status s = (*db)->Insert(run); !s.ok()) return s;
  if (!judged_status.ok()) {
    return Status(judged_status.code(), "run " + run.run_id + " recorded without a verdict: " + judged_status.message());
  }
  return verdicts;
}

}  // namespace iofleet::controller
