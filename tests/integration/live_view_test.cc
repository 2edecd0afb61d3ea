// The controller's live part, end to end: the real `iofleet run` with a real agent.
// Through a pseudo-terminal it draws one line redrawn in place; on a file it prints plain lines
// at most once a second; `--progress json` prints one object a line; `--metrics` serves the
// fleet's /metrics over HTTP while the run goes, and a bad address rejects the run.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A ramp, then a runtime: the live view shows the ramp as ramp, then rates.
constexpr const char* kWorkload = R"(name: live
defaults: { engine: psync, direct: false, block_size: 64KiB, file_size: 32MiB, jobs: 2 }
steps:
  - name: write
    io: { op: write, ramp: 1s, runtime: 3s }
)";

std::vector<std::string> RunArgs(const TempDir& tmp, const AgentProcess& agent) {
  WriteText(tmp / "w.yaml", kWorkload);
  return {BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(), "--out", (tmp / "out").string()};
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// With the controller's own local agent (a child process), as `make demo` runs.
TEST(LiveView, OnATerminalOneLineIsRedrawnInPlace) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", kWorkload);
  std::vector<std::string> args = {BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--create-local-root", "--local-root", (tmp / "data").string(),
                                   "--out", (tmp / "out").string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int master = -1;
  winsize size{};
  size.ws_col = 200;
  size.ws_row = 40;
  pid_t pid = forkpty(&master, nullptr, nullptr, &size);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execv(argv[0], argv.data());
    _exit(127);
  }
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buffer[4096];
    ssize_t n = read(master, buffer, sizeof(buffer));
    if (n <= 0) break;  // EIO once the child is gone
    out.append(buffer, static_cast<size_t>(n));
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  close(master);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
  // The step's line: drawn with \r and cleared to its end with ESC[K, many times, one newline.
  const size_t first = out.find("\rwrite [");
  ASSERT_NE(first, std::string::npos) << out;
  const std::string live = out.substr(first, out.find('\n', first) - first);
  EXPECT_GE(std::count(live.begin(), live.end(), '\r'), 4) << live;
  EXPECT_NE(live.find("\x1b[K"), std::string::npos);
  EXPECT_NE(live.find("ramp  1/1 agents"), std::string::npos) << live;
  // After the ramp: a bar, elapsed and ETA, rates over the last interval, p99, agents.
  std::regex running(R"(write \[#+\.*\] \ds ETA \ds  [0-9.]+ MiB/s  [0-9]+ IOPS  p99 [0-9.]+ (ns|us|ms)  1/1 agents)");
  EXPECT_TRUE(std::regex_search(live, running)) << live;
  EXPECT_NE(out.find("status succeeded"), std::string::npos) << out;
}

TEST(LiveView, NotOnATerminalAPlainLineAtMostOnceASecond) {
  TempDir tmp;
  AgentProcess agent(tmp / "a1", "node1", tmp / "logs");
  CommandResult r = RunCommand(RunArgs(tmp, agent), tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos);
  EXPECT_EQ(r.err.find("\x1b["), std::string::npos);
  size_t lines = 0;
  std::regex plain(R"(^\[write\] \ds  ETA \ds  (ramp|[0-9.]+ MiB/s  [0-9]+ IOPS  p99 [0-9.]+ (ns|us|ms))  1/1 agents$)");
  for (const auto& line : Lines(r.err)) {
    if (line.rfind("[write]", 0) != 0) continue;
    ++lines;
    EXPECT_TRUE(std::regex_match(line, plain)) << line;
  }
  // 4 s of step with a sample a second: a line each, no more.
  EXPECT_GE(lines, 2u) << r.err;
  EXPECT_LE(lines, 5u) << r.err;
}

TEST(LiveView, JsonIsOneObjectALineWithTheDocumentedKeys) {
  TempDir tmp;
  AgentProcess agent(tmp / "a1", "node1", tmp / "logs");
  std::vector<std::string> args = RunArgs(tmp, agent);
  args.insert(args.end(), {"--progress", "json"});
  CommandResult r = RunCommand(args, tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  size_t progress = 0, ends = 0, measured = 0;
  for (const auto& line : Lines(r.err)) {
    if (line.empty() || line[0] != '{') continue;
    nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j["step"], "write");
    EXPECT_EQ(j["workload"], "live");
    EXPECT_EQ(j["agents"].size(), 1u);
    if (j["event"] == "progress") ++progress;
    if (j["event"] == "step_end") ++ends;
    if (j["phase"] == "run" && j["bytes_per_sec"].is_number() && j["bytes_per_sec"].get<double>() > 0) {
      ++measured;
      EXPECT_TRUE(j["p99_ns"].is_number()) << line;
      EXPECT_DOUBLE_EQ(j["expected_seconds"].get<double>(), 4.0);
    }
  }
  EXPECT_GE(progress, 2u) << r.err;
  EXPECT_GE(measured, 1u) << r.err;
  EXPECT_EQ(ends, 1u) << r.err;
}

TEST(LiveView, NonePrintsNoLiveLine) {
  TempDir tmp;
  AgentProcess agent(tmp / "a1", "node1", tmp / "logs");
  std::vector<std::string> args = RunArgs(tmp, agent);
  args.insert(args.end(), {"--progress", "none"});
  CommandResult r = RunCommand(args, tmp / "logs");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("[write]"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("{"), std::string::npos) << r.err;
}

// GET http://127.0.0.1:port/metrics; "" when it could not be fetched.
std::string Scrape(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    const std::string request = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[8192];
      for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) response.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  return response;
}

TEST(LiveMetrics, TheControllerServesTheFleetsViewWhileTheRunGoes) {
  TempDir tmp;
  AgentProcess agent(tmp / "a1", "node1", tmp / "logs");
  std::vector<std::string> args = RunArgs(tmp, agent);
  args.insert(args.end(), {"--metrics", "127.0.0.1:0"});
  Process run(args, tmp / "logs");
  std::smatch m;
  int port = 0;
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (port == 0 && std::chrono::steady_clock::now() < deadline && run.Running()) {
    const std::string err = run.Stderr();
    if (std::regex_search(err, m, std::regex(R"(metrics on http://127\.0\.0\.1:(\d+)/metrics)"))) port = std::stoi(m[1]);
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_GT(port, 0) << run.Stderr();
  // Scrape until the write step's counters move (after its ramp), while it still runs.
  const std::string series = R"(workload="live",step="write",op="write",engine="psync",agent="node1")";
  std::string text;
  while (std::chrono::steady_clock::now() < deadline && run.Running()) {
    text = Scrape(port);
    if (std::regex_search(text, m, std::regex("iofleet_io_ops_total\\{" + series + "\\} ([0-9.e+]+)")) && std::stod(m[1]) > 0 &&
        text.find("iofleet_run_info{") != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_NE(text.find("HTTP/1.1 200 OK"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE iofleet_io_latency_seconds histogram"), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_io_latency_seconds_bucket{" + series + ",le=\"+Inf\"}"), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_io_bytes_total{" + series + "}"), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_fleet_agents{state=\"connected\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_fleet_agents{state=\"lost\"} 0"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(iofleet_run_info\{run_id="[0-9a-f-]+",workload="live",step="write",point="0",cycle="0"\} 1)")))
      << text;
  EXPECT_NE(text.find("iofleet_step_expected_seconds{workload=\"live\",step=\"write\"} 4"), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_step_elapsed_seconds{workload=\"live\",step=\"write\"}"), std::string::npos) << text;
  EXPECT_NE(text.find("iofleet_step_start_skew_seconds{workload=\"live\",step=\"write\"}"), std::string::npos) << text;
  EXPECT_EQ(run.Wait(60s), 0) << run.Stderr();
  // The run's end ends /metrics too.
  EXPECT_EQ(Scrape(port), "");
}

TEST(LiveMetrics, ABadOrBusyAddressRejectsTheRunBeforeAnythingStarts) {
  TempDir tmp;
  AgentProcess agent(tmp / "a1", "node1", tmp / "logs");
  // A port in use: a listening socket of this test's.
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t length = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  const std::string busy = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  for (const std::string& bad : {busy, std::string("127.0.0.1"), std::string("127.0.0.1:70000")}) {
    std::vector<std::string> args = RunArgs(tmp, agent);
    args.insert(args.end(), {"--metrics", bad});
    CommandResult r = RunCommand(args, tmp / "logs");
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("iofleet: --metrics " + bad + ": "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(tmp / "out")) << r.err;            // no run started
    EXPECT_FALSE(fs::exists(tmp / "a1" / "iofleet")) << r.err;  // the agent was not prepared
  }
  close(fd);
}

}  // namespace
}  // namespace iofleet::testing
