// A report that cannot be written fails the run: exit 1 and the path with the error, never a
// green run without its figures.
#include <gtest/gtest.h>

#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

TEST(ReportWrite, AReportThatCannotBeWrittenFailsTheRun) {
  TempDir tmp;
  AgentProcess agent(tmp / "a1", "node1", tmp / "logs");  // unlimited: only the controller is
  ASSERT_FALSE(agent.address().empty());
  WriteText(tmp / "w.yaml", "name: small\ndefaults: { engine: psync, block_size: 64KiB, file_size: 1MiB }\n"
                            "steps:\n  - io: { op: write }\n");
  // Files of the controller may not pass 2 KiB (RLIMIT_FSIZE): workload.effective.yaml fits,
  // report.json (about 3 KiB) does not, and its write fails with EFBIG (SIGXFSZ ignored).
  // Every path single-quoted: the checkout may sit in a folder with a space in its name.
  auto quoted = [](const std::string& path) { return "'" + path + "'"; };
  const std::string run = "trap '' XFSZ; ulimit -f 2; exec " + quoted(BinPath("iofleet")) + " run " + quoted((tmp / "w.yaml").string()) +
                          " --agents " + agent.address() + " --out " + quoted((tmp / "out").string());
  CommandResult r = RunCommand({"/bin/sh", "-c", run}, tmp / "logs");
  EXPECT_EQ(r.code, 1) << r.err << r.out;
  const std::filesystem::path dir = OnlyRunDir(tmp / "out");
  EXPECT_NE(r.err.find("iofleet: " + (dir / "report.json").string() + ": File too large (EFBIG)"), std::string::npos) << r.err;
  // What was written is whole or absent: no truncated report.json for a reader to trust.
  EXPECT_FALSE(std::filesystem::exists(dir / "report.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "summary.csv"));
}

}  // namespace
}  // namespace iofleet::testing
