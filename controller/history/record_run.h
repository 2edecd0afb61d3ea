// What `iofleet run` does with the history when a run ends: judges it against its baseline
// (when --compare-to asks), adds the verdicts to its report, and stores it whole.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "controller/history/regression.h"
#include "controller/history/verdict.h"
#include "core/base/status.h"

namespace iofleet::controller {

struct HistoryOptions {
  std::string db_path;                        // the database file
  std::optional<VerdictOptions> verdicts;     // --compare-to given
  std::map<std::string, std::string> labels;  // --label: select the baseline
  std::map<std::string, std::string> notes;   // --note: recorded only
};

// `report`: the run's report.json document, which gains `verdicts` when they were asked for and
// the run succeeded. `effective_workload`: the workload with every default filled in (its hash
// tells a changed workload). Returns the verdicts, if any.
Result<std::optional<RunVerdicts>> JudgeAndRecord(const HistoryOptions& options, nlohmann::ordered_json& report,
                                                  const std::string& effective_workload, const std::string& samples_csv);

// SHA-256 of `text`, in hex.
std::string Sha256Hex(const std::string& text);

}  // namespace iofleet::controller
