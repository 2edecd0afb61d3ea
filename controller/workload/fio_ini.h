// An fio job file as INI, read into sections and options with the place of each, and nothing
// else: what an option means is fio_options.h's and fio_import.cc's. A value's ${NAME} is
// replaced with the environment's NAME, as fio does. Refused here, for every front end: include
// files, ${NAME} not set, fio's $ncpus-style keywords, lines that are neither a header nor an
// option, options outside a section.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace iofleet::controller {

// Where something was written, and the option (or header) it belongs to, for messages.
struct FioPlace {
  int line = 0;
  int col = 0;
  std::string option;
};

struct FioOption {
  std::string key;
  std::string value;
  bool has_value = false;  // `key=value`, not a bare `key`
  int line = 0;
  int key_col = 0;
  int value_col = 0;
};

struct FioSection {
  std::string name;
  int line = 0;
  int col = 0;
  std::vector<FioOption> options;
  bool skipped = false;  // a job section not among those asked for: its lines were not read
};

struct FioIniError {
  FioPlace at;
  std::string message;
};

// The environment ${NAME} reads: NAME's value, or nullopt where it is not set.
using FioEnvironment = std::function<std::optional<std::string>(const std::string& name)>;
// The process's own environment (getenv).
FioEnvironment ProcessEnvironment();

// The file's sections in order; each line it refuses is an error (and is left out). Each ${NAME}
// replaced goes to `expanded` as "${NAME}=value", once. With `only` (fio's --section), a job
// section not named there is `skipped`: its lines are not read at all, as fio skips them, so a
// variable it names need not be set. [global] is always read.
std::vector<FioSection> ReadFioIni(const std::string& text, const FioEnvironment& env, std::vector<FioIniError>& errors,
                                   std::vector<std::string>& expanded, const std::vector<std::string>& only = {});

// Without blanks, tabs and carriage returns at either end.
std::string TrimFio(const std::string& s);

}  // namespace iofleet::controller
