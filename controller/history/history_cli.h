// The history commands: `iofleet history` (runs as a table, change points, exclude/include) and
// `iofleet compare A B`. They read the history database and exit 0 unless they fail.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

namespace iofleet::controller {

class HistoryDb;

// The database a command uses: --db, else history.db in the results directory.
std::string HistoryDbPath(const std::string& db, const std::string& out_dir);

struct HistoryCommands;
// Adds `history` and `compare` to `app`; the returned object holds their options.
std::shared_ptr<HistoryCommands> AddHistoryCommands(CLI::App& app);
// The exit code when one of them was given, nothing otherwise.
std::optional<int> RunHistoryCommands(const HistoryCommands& commands);

// The verdicts of a run (report.json's `verdicts`) as console lines, for `iofleet run`.
std::string VerdictLines(const nlohmann::ordered_json& verdicts);

}  // namespace iofleet::controller
