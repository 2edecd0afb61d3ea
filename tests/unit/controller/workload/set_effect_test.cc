#include "controller/workload/set_effect.h"

#include <gtest/gtest.h>

#include "controller/workload/yaml_loader.h"

namespace iofleet::controller {
namespace {

v1::Workload Load(const std::string& yaml) {
  LoadedWorkload loaded = LoadWorkloadText(yaml, "w.yaml");
  EXPECT_TRUE(loaded.errors.empty()) << loaded.errors[0];
  return loaded.workload;
}

// The warning for `--set path=value` on `yaml`, or "" when the --set changes what runs.
std::string WarningFor(const std::string& yaml, const std::string& path, const std::string& value) {
  const v1::Workload before = Load(yaml);
  v1::Workload after = before;
  Status st = SetWorkloadPath(after, path, value, "--set " + path + "=" + value);
  EXPECT_TRUE(st.ok()) << st.message();
  return UnchangingSetWarning(before, after, path, path + "=" + value).value_or("");
}

// `--set runtime=3s` on a workload whose every step sets its own runtime ran as before, silently.
TEST(SetEffect, ADefaultEveryStepSetsForItselfIsNamed) {
  const std::string yaml = "name: t\nsteps:\n  - io: { op: write, runtime: 10s }\n  - name: rd\n    io: { op: read, runtime: 20s }\n";
  EXPECT_EQ(WarningFor(yaml, "runtime", "3s"),
            "warning: --set runtime=3s changes nothing any step runs: steps[0] (io-0) sets its own runtime; steps[1] (rd) "
            "sets its own runtime (set one step's with --set steps[N].io.runtime=...)");
  EXPECT_EQ(WarningFor(yaml, "defaults.runtime", "3s").rfind("warning: --set defaults.runtime=3s changes nothing any step runs: ", 0), 0u);
}

TEST(SetEffect, ASetThatReachesOneStepIsNoWarning) {
  const std::string yaml = "name: t\nsteps:\n  - io: { op: write, runtime: 10s }\n  - io: { op: read }\n";
  EXPECT_EQ(WarningFor(yaml, "runtime", "3s"), "");
  EXPECT_EQ(WarningFor(yaml, "block_size", "64KiB"), "");
  EXPECT_EQ(WarningFor(yaml, "steps[0].io.runtime", "3s"), "");
}

// `--set jobs=4` where the sweep sets total_jobs at every point: total_jobs decides.
TEST(SetEffect, ADefaultASweepSetsAtEveryPointIsNamed) {
  const std::string yaml = "name: t\nsweep: { total_jobs: [1, 2, 4] }\nsteps:\n  - io: { op: read, file_size: 1MiB }\n";
  std::string warning = WarningFor(yaml, "jobs", "4");
  EXPECT_EQ(warning, "warning: --set jobs=4 changes nothing any step runs: sweep.total_jobs (at every point)") << warning;
  EXPECT_NE(WarningFor(yaml, "total_jobs", "8").find("sweep.total_jobs (at every point)"), std::string::npos)
      << "setting the swept field itself changes nothing either";
}

TEST(SetEffect, ASetOfTheSameValueChangesNothing) {
  const std::string yaml = "name: t\ndefaults: { queue_depth: 4 }\nsteps:\n  - io: { op: read, engine: libaio }\n";
  EXPECT_EQ(WarningFor(yaml, "queue_depth", "4"), "warning: --set queue_depth=4 changes nothing any step runs (they run with that value already)");
}

}  // namespace
}  // namespace iofleet::controller
