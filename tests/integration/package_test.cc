// `make package` end to end: CPack builds the two .debs from this build, lintian finds no error,
// dpkg installs them here, the installed binaries and units work (an agent started from the
// installed unit's command line, as the user the package made, serves a run over TLS with
// certificates from the installed make-certs), and dpkg --purge removes them cleanly. The user
// iofleet the packages make is removed afterwards if the test's install made it.
#include <gtest/gtest.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_paths.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Installed(const std::string& package, const fs::path& logs) {
  CommandResult r = RunCommand({"/usr/bin/dpkg-query", "-W", "-f=${Status}", package}, logs);
  return r.code == 0 && r.out.find("install ok installed") != std::string::npos;
}

// Purges what the test installed, however it ends, and the system user and group iofleet if the
// install made them (they did not exist before; Debian's postrm keeps them on purge).
struct Purge {
  fs::path logs;
  bool user_existed = getpwnam("iofleet") != nullptr;
  bool group_existed = getgrnam("iofleet") != nullptr;
  ~Purge() {
    RunCommand({"/usr/bin/dpkg", "--purge", "iofleet", "iofleet-agent"}, logs, 120s);
    if (!user_existed && getpwnam("iofleet") != nullptr) RunCommand({"/usr/sbin/deluser", "--system", "--quiet", "iofleet"}, logs, 60s);
    if (!group_existed && getgrnam("iofleet") != nullptr) RunCommand({"/usr/sbin/delgroup", "--system", "--quiet", "iofleet"}, logs, 60s);
  }
};

// The installed unit's ExecStart, its ${VARS} replaced from `values`, split into words.
std::vector<std::string> ExecStart(const std::string& unit, const std::map<std::string, std::string>& values) {
  std::string line;
  std::istringstream in(unit);
  std::string command;
  bool continued = false;
  while (std::getline(in, line)) {
    if (!continued && line.rfind("ExecStart=", 0) != 0) continue;
    command += continued ? line : line.substr(10);
    continued = !command.empty() && command.back() == '\\';
    if (continued) command.pop_back();
    else break;
  }
  for (const auto& [name, value] : values) {
    for (size_t at; (at = command.find("${" + name + "}")) != std::string::npos;) command.replace(at, name.size() + 3, value);
  }
  std::vector<std::string> words;
  std::istringstream split(command);
  for (std::string w; split >> w;) words.push_back(w);
  return words;
}

TEST(Package, BuildsLintsInstallsRunsAndPurgesCleanly) {
  if (geteuid() != 0) GTEST_SKIP() << "installing packages needs root";
  TempDir tmp;
  const fs::path logs = tmp / "logs";
  if (Installed("iofleet", logs) || Installed("iofleet-agent", logs)) {
    GTEST_SKIP() << "iofleet or iofleet-agent is installed on this machine: the test would replace it";
  }
  const fs::path build_dir = fs::path(IOFLEET_BIN_DIR).parent_path();
  CommandResult cpack = RunCommand({"/usr/bin/cpack", "-G", "DEB", "--config", (build_dir / "CPackConfig.cmake").string(), "-B",
                                    (tmp / "debs").string()},
                                   logs, 300s);
  ASSERT_EQ(cpack.code, 0) << cpack.out << cpack.err;
  const std::string version = IOFLEET_VERSION;
  const fs::path agent_deb = tmp / "debs" / ("iofleet-agent_" + version + "-1_amd64.deb");
  const fs::path controller_deb = tmp / "debs" / ("iofleet_" + version + "-1_amd64.deb");
  ASSERT_TRUE(fs::exists(agent_deb) && fs::exists(controller_deb)) << cpack.out;

  CommandResult depends = RunCommand({"/usr/bin/dpkg-deb", "-f", controller_deb.string(), "Depends"}, logs);
  EXPECT_NE(depends.out.find("libjs-chart.js"), std::string::npos) << depends.out;
  EXPECT_NE(depends.out.find("libsqlite3-0"), std::string::npos) << "shlibdeps: " << depends.out;
  if (fs::exists("/usr/bin/lintian")) {
    CommandResult lint = RunCommand({"/usr/bin/lintian", "--fail-on", "error", agent_deb.string(), controller_deb.string()}, logs, 300s);
    EXPECT_EQ(lint.code, 0) << lint.out << lint.err;
    EXPECT_EQ(lint.out.find("E: "), std::string::npos) << lint.out;
  } else {
    ADD_FAILURE() << "lintian is not installed (scripts/install-deps installs it)";
  }

  // The agent's stop on removal and systemd's reload after it (no systemd here to run them).
  CommandResult control = RunCommand({"/usr/bin/dpkg-deb", "-e", agent_deb.string(), (tmp / "agent-control").string()}, logs);
  ASSERT_EQ(control.code, 0) << control.err;
  EXPECT_NE(ReadText(tmp / "agent-control" / "prerm").find("stop iofleet-agent.service"), std::string::npos);
  EXPECT_NE(ReadText(tmp / "agent-control" / "postrm").find("daemon-reload"), std::string::npos);
  // The same for serve, in the controller's package.
  control = RunCommand({"/usr/bin/dpkg-deb", "-e", controller_deb.string(), (tmp / "controller-control").string()}, logs);
  ASSERT_EQ(control.code, 0) << control.err;
  EXPECT_NE(ReadText(tmp / "controller-control" / "prerm").find("stop iofleet-serve.service"), std::string::npos);
  EXPECT_NE(ReadText(tmp / "controller-control" / "postrm").find("daemon-reload"), std::string::npos);

  Purge purge{logs};
  // The controller alone first: its nightly unit runs as iofleet, which its postinst makes.
  CommandResult install = RunCommand({"/usr/bin/dpkg", "-i", controller_deb.string()}, logs, 300s);
  ASSERT_EQ(install.code, 0) << install.out << install.err;
  EXPECT_NE(getpwnam("iofleet"), nullptr) << "the controller package's postinst makes the nightly unit's user";
  install = RunCommand({"/usr/bin/dpkg", "-i", agent_deb.string()}, logs, 300s);
  ASSERT_EQ(install.code, 0) << install.out << install.err;
  CommandResult version_out = RunCommand({"/usr/bin/iofleet", "--version"}, logs);
  EXPECT_EQ(version_out.out.rfind("iofleet " + version + " (", 0), 0u) << version_out.out;
  ASSERT_NE(getpwnam("iofleet"), nullptr) << "the package's postinst makes the agent's user";
  // The installed configuration grants only what the unprivileged unit can do (the agent below
  // starts with it).
  const std::string config = ReadText("/etc/iofleet/agent.yaml");
  EXPECT_NE(config.find("allow_drop_caches: false"), std::string::npos) << config;
  EXPECT_NE(config.find("allow_readahead: false"), std::string::npos) << config;
  EXPECT_EQ(config.find("hooks:"), std::string::npos) << config;
  EXPECT_TRUE(fs::exists("/usr/share/iofleet/workloads/quickstart.yaml"));
  EXPECT_TRUE(fs::exists("/usr/share/iofleet/dashboards/live-run.json"));
  EXPECT_TRUE(fs::exists("/usr/lib/systemd/system/iofleet-serve.service"));
  EXPECT_TRUE(fs::exists("/usr/share/doc/iofleet/examples/serve.example.yaml"));
  if (fs::exists("/usr/bin/systemd-analyze")) {
    CommandResult verify = RunCommand({"/usr/bin/systemd-analyze", "verify", "/usr/lib/systemd/system/iofleet-agent.service",
                                       "/usr/lib/systemd/system/iofleet-nightly.service", "/usr/lib/systemd/system/iofleet-nightly.timer",
                                       "/usr/lib/systemd/system/iofleet-serve.service"},
                                      logs);
    EXPECT_EQ(verify.code, 0) << verify.err;
    EXPECT_EQ(verify.err, "") << verify.err;
  }

  // Certificates from the installed make-certs, readable by the agent's user, and its root: where
  // that user can reach them, whatever folder the checkout (and so the build tree) is in.
  TempDir reachable = TempDirReachableByAll();
  const fs::path certs = reachable / "certs";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"agent", "node01", "127.0.0.1"}, {"controller", "ctl"}}) {
    std::vector<std::string> argv = {"/usr/share/iofleet/deploy/tls/make-certs", certs.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    CommandResult made = RunCommand(argv, logs);
    ASSERT_EQ(made.code, 0) << made.err;
  }
  fs::create_directories(reachable / "root");
  fs::permissions(certs, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  ASSERT_EQ(RunCommand({"/bin/chown", "-R", "iofleet:iofleet", (reachable / "root").string(), (certs / "node01").string()}, logs).code, 0);

  // The agent as the installed unit starts it (its own listen, root and TLS folder), as its user.
  std::vector<std::string> argv = {"/usr/bin/setpriv", "--reuid=iofleet", "--regid=iofleet", "--clear-groups"};
  for (const auto& word : ExecStart(ReadText("/usr/lib/systemd/system/iofleet-agent.service"),
                                    {{"IOFLEET_LISTEN", "127.0.0.1:0"}, {"IOFLEET_METRICS", "127.0.0.1:0"},
                                     {"IOFLEET_ROOT", (reachable / "root").string()}})) {
    argv.push_back(word == "/etc/iofleet/tls" ? (certs / "node01").string() : word);
  }
  ASSERT_EQ(argv[4], "/usr/bin/iofleet-agent");
  Process agent(argv, tmp / "agent-logs");
  ASSERT_TRUE(agent.WaitForStdout("listening on ", 10s)) << agent.Stderr();
  const std::string out = agent.Stdout();
  const size_t at = out.find("listening on ") + 13;
  const std::string address = out.substr(at, out.find('\n', at) - at);
  std::ofstream(tmp / "w.yaml") << "name: packaged\ndefaults: { block_size: 64KiB, file_size: 4MiB }\nsteps:\n  - io: { op: write }\n";
  CommandResult run = RunCommand({"/usr/bin/iofleet", "run", (tmp / "w.yaml").string(), "--agents", address, "--tls-dir",
                                  (certs / "ctl").string(), "--out", (tmp / "out").string(), "--progress", "none"},
                                 logs, 120s);
  EXPECT_EQ(run.code, 0) << run.out << run.err;
  agent.Signal(SIGTERM);
  EXPECT_EQ(agent.Wait(20s), 0) << agent.Stderr();

  // The default root StateDirectory= makes, left empty: purge removes it with the state folder.
  fs::create_directories("/var/lib/iofleet-agent/root");
  CommandResult purged = RunCommand({"/usr/bin/dpkg", "--purge", "iofleet", "iofleet-agent"}, logs, 120s);
  EXPECT_EQ(purged.code, 0) << purged.out << purged.err;
  for (const char* gone : {"/usr/bin/iofleet", "/usr/bin/iofleet-agent", "/etc/iofleet/agent.yaml",
                           "/usr/lib/systemd/system/iofleet-agent.service", "/usr/lib/systemd/system/iofleet-serve.service", "/usr/share/iofleet", "/usr/share/doc/iofleet-agent",
                           "/var/lib/iofleet-agent"}) {
    EXPECT_FALSE(fs::exists(gone)) << gone << " is left after dpkg --purge";
  }
  EXPECT_FALSE(Installed("iofleet", logs) || Installed("iofleet-agent", logs));
}

}  // namespace
}  // namespace iofleet::testing
