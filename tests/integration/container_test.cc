// deploy/container/Dockerfile for real: podman builds its `prebuilt` stage (the runtime image with
// the binaries this build just made: no second compile) from a local Debian 12 base (debootstrap
// and podman import: no image registry is reachable here), runs the agent in it on the host's
// network with TLS as its unprivileged user, and the host's controller runs a workload on it.
// Podman here: cgroups are v1 and PID 1 is not systemd (--cgroup-manager=cgroupfs, runc), and
// the rlimits a container may set are at most this process's.
// What the tests leave: the base image localhost/iofleet-debian:12, a cache (debootstrap takes
// minutes); the images they build are removed and the dangling layers pruned (so every run
// rebuilds the runtime stage from that base).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <fstream>
#include <thread>

#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kBase = "localhost/iofleet-debian:12";
constexpr const char* kImage = "localhost/iofleet-test:prebuilt";

std::vector<std::string> Podman(std::vector<std::string> args) {
  std::vector<std::string> argv = {"/usr/bin/podman", "--cgroup-manager=cgroupfs", "--runtime", "runc"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// Limits no higher than ours: podman's defaults ask for more than this sandbox grants.
std::vector<std::string> Ulimits() {
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  return {"--ulimit", "nofile=" + std::to_string(files.rlim_max) + ":" + std::to_string(files.rlim_max), "--ulimit",
          "nproc=4096:4096"};
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t n = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  close(fd);
  return ntohs(a.sin_port);
}

struct RemoveContainer {
  std::string name;
  fs::path logs;
  ~RemoveContainer() { RunCommand(Podman({"rm", "-f", name}), logs, 60s); }
};

// Skips unless podman can build here; makes the Debian 12 base once per machine.
void NeedPodmanAndTheBase(const fs::path& logs) {
  if (geteuid() != 0) GTEST_SKIP() << "podman here needs root";
  for (const char* tool : {"/usr/bin/podman", "/usr/sbin/debootstrap", "/usr/sbin/runc"}) {
    if (!fs::exists(tool)) GTEST_SKIP() << tool << " is missing (scripts/install-deps installs podman, runc, debootstrap)";
  }
  if (RunCommand(Podman({"image", "exists", kBase}), logs).code != 0) {
    // Not below the checkout: debootstrap fails in a path with a space ("Failure trying to run:
    // chroot .../with space/.../rootfs /bin/true"), and a clone may sit in one.
    TempDir below(fs::path("/var/tmp") / "iofleet-test");
    const fs::path rootfs = below / "rootfs";
    CommandResult boot = RunCommand({"/usr/sbin/debootstrap", "--variant=minbase", "bookworm", rootfs.string(),
                                     "http://deb.debian.org/debian"},
                                    logs, 900s);
    ASSERT_EQ(boot.code, 0) << boot.out << boot.err;
    CommandResult import = RunCommand({"/bin/sh", "-c", "tar -C '" + rootfs.string() + "' -c . | podman --cgroup-manager=cgroupfs import - " + kBase},
                                      logs, 300s);
    ASSERT_EQ(import.code, 0) << import.err;
  }
}

// A context as a checkout after a build: the repository's .dockerignore, the binaries this build
// made where the Dockerfile's prebuilt stage takes them, and what else a build leaves under
// build/ (which .dockerignore must keep out).
fs::path MakeContext(const TempDir& tmp) {
  const fs::path context = tmp / "context";
  fs::create_directories(context / "build" / "bin");
  fs::create_directories(context / "build" / "agent");
  fs::copy(SourcePath(".dockerignore"), context / ".dockerignore");
  for (const char* binary : {"iofleet", "iofleet-agent"}) fs::copy(BinPath(binary), context / "build" / "bin" / binary);
  WriteText(context / "build" / "CMakeCache.txt", "stray\n");
  WriteText(context / "build" / "agent" / "agent.o", "stray\n");
  WriteText(context / "build" / "bin" / "iofleet_unit_tests", "stray\n");
  return context;
}

// Removes an image a test built and the dangling layers its build left.
struct RemoveImage {
  std::string name;
  fs::path logs;
  ~RemoveImage() {
    RunCommand(Podman({"rmi", "-f", name}), logs, 120s);
    RunCommand(Podman({"image", "prune", "-f"}), logs, 120s);
  }
};

std::vector<std::string> Build(const std::vector<std::string>& args) {
  std::vector<std::string> build = {"build", "--network", "host"};
  for (const auto& u : Ulimits()) build.push_back(u);
  build.insert(build.end(), args.begin(), args.end());
  return Podman(build);
}

// The context podman takes from a checkout holds build/bin/iofleet and build/bin/iofleet-agent and
// nothing else of build/ (the prebuilt stage needs the two; the rest is large and host-specific).
TEST(Container, TheContextHoldsOnlyThePrebuiltBinariesOfBuild) {
  TempDir tmp;
  const fs::path logs = tmp / "logs";
  NeedPodmanAndTheBase(logs);
  if (::testing::Test::IsSkipped() || ::testing::Test::HasFatalFailure()) return;
  const fs::path context = MakeContext(tmp);
  WriteText(tmp / "Containerfile", std::string("FROM ") + kBase + "\nCOPY . /context/\n");
  RemoveImage image{"localhost/iofleet-test:context", logs};
  CommandResult built = RunCommand(Build({"-f", (tmp / "Containerfile").string(), "-t", image.name, context.string()}), logs, 300s);
  ASSERT_EQ(built.code, 0) << built.out << built.err;
  std::vector<std::string> run = {"run", "--rm", "--network", "host"};
  for (const auto& u : Ulimits()) run.push_back(u);
  for (const std::string& a : {image.name, std::string("find"), std::string("/context/build"), std::string("-type"), std::string("f")}) {
    run.push_back(a);
  }
  CommandResult listed = RunCommand(Podman(run), logs, 120s);
  ASSERT_EQ(listed.code, 0) << listed.out << listed.err;
  std::vector<std::string> files;
  std::istringstream lines(listed.out);
  for (std::string line; std::getline(lines, line);) files.push_back(line);
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"/context/build/bin/iofleet", "/context/build/bin/iofleet-agent"})) << listed.out;
}

TEST(Container, ThePrebuiltImageRunsTheAgentForTheHostsController) {
  if (geteuid() != 0) GTEST_SKIP() << "podman here needs root";
  for (const char* tool : {"/usr/bin/podman", "/usr/sbin/debootstrap", "/usr/sbin/runc"}) {
    if (!fs::exists(tool)) GTEST_SKIP() << tool << " is missing (scripts/install-deps installs podman, runc, debootstrap)";
  }
  TempDir tmp;
  const fs::path logs = tmp / "logs";
  NeedPodmanAndTheBase(logs);
  if (::testing::Test::IsSkipped() || ::testing::Test::HasFatalFailure()) return;
  CommandResult version = RunCommand({BinPath("iofleet-agent"), "--version"}, logs);
  const std::string revision = version.out.substr(version.out.find('(') + 1, version.out.find(')') - version.out.find('(') - 1);

  // The context: a checkout's .dockerignore and build/ (the binaries this build made and strays).
  const fs::path context = MakeContext(tmp);
  RemoveImage image{kImage, logs};
  CommandResult built = RunCommand(Build({"-f", SourcePath("deploy/container/Dockerfile"), "--target", "prebuilt", "--build-arg",
                                          std::string("BASE=") + kBase, "--build-arg", "REVISION=" + revision, "-t", kImage,
                                          context.string()}),
                                   logs, 900s);
  ASSERT_EQ(built.code, 0) << built.out << built.err;
  CommandResult label = RunCommand(Podman({"image", "inspect", "--format", "{{index .Labels \"org.opencontainers.image.revision\"}}", kImage}), logs);
  EXPECT_EQ(label.out, revision + "\n");

  // TLS for the agent in the container (uid 10001 reads its folder and owns the data root).
  for (const std::vector<std::string>& args : {std::vector<std::string>{"agent", "boxed", "127.0.0.1"}, {"controller", "ctl"}}) {
    std::vector<std::string> argv = {SourcePath("deploy/tls/make-certs"), (tmp / "certs").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    ASSERT_EQ(RunCommand(argv, logs).code, 0);
  }
  fs::create_directories(tmp / "data");
  fs::permissions(tmp.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  fs::permissions(tmp / "certs", fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  ASSERT_EQ(RunCommand({"/bin/chown", "-R", "10001:10001", (tmp / "data").string(), (tmp / "certs" / "boxed").string()}, logs).code, 0);

  const std::string address = "127.0.0.1:" + std::to_string(FreePort());
  RemoveContainer guard{"iofleet-test-" + std::to_string(getpid()), logs};
  std::vector<std::string> run = {"run", "-d", "--name", guard.name, "--network", "host"};
  for (const auto& u : Ulimits()) run.push_back(u);
  for (const std::string& a : {std::string("-v"), (tmp / "data").string() + ":/data", std::string("-v"),
                               (tmp / "certs" / "boxed").string() + ":/etc/iofleet/tls:ro", std::string(kImage), std::string("--listen"),
                               address, std::string("--root"), std::string("/data"), std::string("--tls-dir"),
                               std::string("/etc/iofleet/tls"), std::string("--name"), std::string("boxed")}) {
    run.push_back(a);
  }
  CommandResult started = RunCommand(Podman(run), logs, 120s);
  ASSERT_EQ(started.code, 0) << started.err;

  const std::string controller_tls = (tmp / "certs" / "ctl").string();
  CommandResult agents;
  for (int i = 0; i < 40; ++i) {
    agents = RunCommand({BinPath("iofleet"), "agents", "--agents", address, "--tls-dir", controller_tls}, logs, 30s);
    if (agents.code == 0) break;
    std::this_thread::sleep_for(500ms);
  }
  ASSERT_EQ(agents.code, 0) << agents.err << RunCommand(Podman({"logs", guard.name}), logs).err;
  EXPECT_NE(agents.out.find("(" + revision + ")"), std::string::npos) << agents.out;

  WriteText(tmp / "w.yaml", "name: boxed\ndefaults: { engine: libaio, direct: true, block_size: 64KiB, file_size: 8MiB }\n"
                            "steps:\n  - name: write\n    io: { op: write }\n  - name: read\n    io: { op: randread, runtime: 1s }\n");
  CommandResult workload = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", address, "--tls-dir",
                                       controller_tls, "--out", (tmp / "out").string(), "--progress", "none"},
                                      logs, 120s);
  ASSERT_EQ(workload.code, 0) << workload.out << workload.err;
  auto report = ReadReport(tmp / "out");
  EXPECT_EQ(report["agents"][0]["name"], "boxed");
  EXPECT_EQ(report["steps"][0]["aggregate"]["bytes"].get<uint64_t>(), 8u << 20);
  // The agent in the container removed its files at the run's end.
  size_t left = 0;
  for (auto it = fs::recursive_directory_iterator(tmp / "data"); it != fs::recursive_directory_iterator(); ++it) left += it->is_regular_file();
  EXPECT_EQ(left, 0u);
}

}  // namespace
}  // namespace iofleet::testing
