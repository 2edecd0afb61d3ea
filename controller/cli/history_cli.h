// The history commands: `iofleet history` (runs as a table, change points, exclude/include) and
// `iofleet compare A B`. They read the history database and exit 0 unless they fail.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

namespace iofleet::controller {

struct HistoryCommands;
// Adds `history` and `compare` to `app`; the returned object holds their options.
std::shared_ptr<HistoryCommands> AddHistoryCommands(CLI::App& app);
// The exit code when one of them was given, nothing otherwise.
std::optional<int> RunHistoryCommands(const HistoryCommands& commands);

}  // namespace iofleet::controller
