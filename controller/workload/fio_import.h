// Imports an fio job file (INI: [global] and [job] sections, `key=value` or bare `key`, `;` and
// `#` comments) into the workload model, so that `iofleet run job.fio` measures what `fio job.fio`
// would, with iofleet's own engine and report. [global] becomes `defaults`; each job section
// becomes one `io` step, in file order. docs/workloads.md lists the options and their mapping.
//
// Nothing in a job file is ever executed: options that would run a command (exec_prerun, ...,
// ioengine=exec) are refused, or skipped with a warning when unsupported options are allowed.
#pragma once

#include <string>
#include <vector>

#include "controller/workload/fio_ini.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

struct FioImport {
  v1::Workload workload;
  // Each "file:line:col: option: message"; errors empty means the workload was imported and
  // passed core/rules validation.
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
};

// How a job file is read. `allow_unsupported`: an option iofleet cannot honour (or one that runs
// a command) becomes a warning and is left out, instead of an error. `relative_paths`
// (--fio-paths relative): an absolute filename= is taken as its base name in each agent's run
// directory, and an absolute directory= as the run directory itself, each with a warning and a
// note in the description; a device is never mapped. `sections` (--fio-section, fio's
// --section): only these job sections, in the file's order, with every [global]; the others are
// not read. Empty: all.
struct FioImportOptions {
  bool allow_unsupported = false;
  bool relative_paths = false;
  std::vector<std::string> sections;
};

// A value's ${NAME} reads `env` (the process's environment unless given), and the workload's
// description says what each was.
FioImport ImportFioJobFile(const std::string& path, const FioImportOptions& options, const FioEnvironment& env = ProcessEnvironment());
// The same for job file text; `file_name` names it in messages and gives the workload its name.
FioImport ImportFioJobText(const std::string& text, const std::string& file_name, const FioImportOptions& options,
                           const FioEnvironment& env = ProcessEnvironment());
// The same with every job section.
FioImport ImportFioJobFile(const std::string& path, bool allow_unsupported, bool relative_paths = false,
                           const FioEnvironment& env = ProcessEnvironment());
FioImport ImportFioJobText(const std::string& text, const std::string& file_name, bool allow_unsupported,
                           bool relative_paths = false, const FioEnvironment& env = ProcessEnvironment());

// The options the import supports and what each becomes, as the markdown table of
// docs/workloads.md's "Importing fio job files" (a test keeps the two the same).
std::string FioOptionReference();

// True for a `.fio` file, or one whose first line that is neither blank nor a comment is a
// `[section]` header (a YAML workload never starts that way: it is a map).
bool IsFioJobFile(const std::string& path);

}  // namespace iofleet::controller
