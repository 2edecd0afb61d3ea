// One `iofleet run` of a workload against one agent, and its first step as report.json has it:
// for the integration tests of one kind of step.
#pragma once

#include <filesystem>
#include <string>

#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {

struct StepRun {
  CommandResult command;
  nlohmann::json step;             // steps[0] of report.json (null when the run wrote none)
  std::filesystem::path run_dir;   // where its report files are
};

// Writes `yaml` to <tmp>/<name>.yaml and runs it with --out <tmp>/out-<name>.
inline StepRun RunFirstStep(const TempDir& tmp, const std::string& address, const std::string& name, const std::string& yaml) {
  WriteText(tmp / (name + ".yaml"), yaml);
  const std::filesystem::path out = tmp / ("out-" + name);
  StepRun run;
  run.command = RunCommand({BinPath("iofleet"), "run", (tmp / (name + ".yaml")).string(), "--agents", address, "--out", out.string(),
                            "--progress", "none"},
                           tmp.path());
  if (std::filesystem::exists(out)) {
    run.run_dir = OnlyRunDir(out);
    run.step = ReadJson(run.run_dir / "report.json")["steps"][0];
  }
  return run;
}

}  // namespace iofleet::testing
