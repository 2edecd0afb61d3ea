// What deploy/ ships, checked by the tools that will read it: systemd's units by
// `systemd-analyze verify` (every directive known, every command there, the drop-in applied).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A copy of a unit whose commands are the freshly built binaries: verify checks that they exist.
void CopyUnit(const fs::path& from, const fs::path& to) {
  std::string text = ReadAll(from);
  const std::string installed = "/usr/bin/";
  for (size_t at = text.find(installed); at != std::string::npos; at = text.find(installed, at)) {
    text.replace(at, installed.size(), std::string(IOFLEET_BIN_DIR) + "/");
  }
  std::ofstream(to) << text;
}

TEST(SystemdUnits, VerifyCleanlyWithTheDropIn) {
  if (!fs::exists("/usr/bin/systemd-analyze")) GTEST_SKIP() << "systemd-analyze is not installed";
  TempDir tmp;
  const fs::path units = tmp / "units";
  fs::create_directories(units / "iofleet-agent.service.d");
  const fs::path shipped = SourcePath("deploy/systemd");
  std::vector<std::string> argv = {"/usr/bin/env", "SYSTEMD_UNIT_PATH=" + units.string() + ":", "systemd-analyze", "verify"};
  for (const auto& entry : fs::directory_iterator(shipped)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".conf") {
      CopyUnit(entry.path(), units / "iofleet-agent.service.d" / name);
      continue;
    }
    CopyUnit(entry.path(), units / name);
    argv.push_back((units / name).string());
  }
  ASSERT_GE(argv.size(), 7u) << "the agent unit, the nightly service and its timer at least";
  CommandResult verify = RunCommand(argv, tmp.path());
  EXPECT_EQ(verify.code, 0) << verify.err;
  // Unknown directives are only warnings to systemd: here they fail.
  EXPECT_EQ(verify.err, "") << verify.err;
  EXPECT_EQ(verify.out, "") << verify.out;
}

TEST(SystemdUnits, TheAgentUnitIsHardened) {
  const std::string unit = ReadAll(SourcePath("deploy/systemd/iofleet-agent.service"));
  for (const char* directive : {"User=iofleet", "ProtectSystem=strict", "ReadWritePaths=/srv/iofleet", "LimitMEMLOCK=infinity",
                                "Restart=on-failure", "StateDirectory=iofleet-agent", "--config /etc/iofleet/agent.yaml",
                                "--tls-dir /etc/iofleet/tls", "NoNewPrivileges=true", "CapabilityBoundingSet=\n"}) {
    EXPECT_NE(unit.find(directive), std::string::npos) << directive;
  }
}

}  // namespace
}  // namespace iofleet::testing
