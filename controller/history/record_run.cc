#include "controller/history/record_run.h"

#include <openssl/evp.h>

#include <fmt/format.h>

#include "controller/history/history_db.h"
#include "controller/history/run_figures.h"

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

  StoredRun run;
  run.run_id = report.value("run_id", "");
  run.workload = report.value("workload", "");
  run.workload_hash = Sha256Hex(effective_workload);
  run.iofleet_version = IOFLEET_VERSION;
  run.started_at_unix_ns = report.value("started_at_unix_ns", uint64_t{0});
  run.duration_ns = report.value("duration_ns", uint64_t{0});
  run.status = report.value("status", "");
  run.labels = options.labels;
  run.notes = options.notes;
  for (const auto& a : report.value("agents", nlohmann::ordered_json::array())) {
    std::string hostname;
    if (auto host = a.find("host"); host != a.end()) hostname = host->value("hostname", "");
    run.agents.push_back({a.value("name", ""), a.value("address", ""), a.value("version", ""), hostname});
  }
  run.figures = HeadlineFigures(nlohmann::json::parse(report.dump()));
  // SQLite's TEXT limit is 1e9 bytes: a longer samples.csv stays in the run directory only.
  constexpr size_t kMaxStoredSamples = 256u << 20;
  run.samples_csv = samples_csv.size() <= kMaxStoredSamples ? samples_csv : std::string();
  run.effective_workload = effective_workload;

  std::optional<RunVerdicts> verdicts;
  Status judged_status;
  if (options.verdicts && run.status == "succeeded") {
    auto judged = JudgeRun(**db, run, *options.verdicts);
    if (judged.ok()) {
      verdicts = std::move(*judged);
      report["verdicts"] = verdicts->json;
      run.verdict = verdicts->overall;
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
