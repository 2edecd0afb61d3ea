// The agent's /metrics with the real thing: an iofleet-agent process serving --metrics on a
// loopback port, runs driven by the real `iofleet run`, scraped over HTTP while they go and
// after they end.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/support/http_client.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// GET http://127.0.0.1:port/metrics: the body, or "" when nothing answered.
std::string Scrape(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    const std::string request = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[65536];
      ssize_t n;
      while ((n = read(fd, buffer, sizeof(buffer))) > 0) response.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  size_t body = response.find("\r\n\r\n");
  return body == std::string::npos ? "" : response.substr(body + 4);
}

// Sample lines (not # HELP / # TYPE).
std::vector<std::string> Samples(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  return out;
}

bool Has(const std::string& text, const std::string& prefix) {
  for (const auto& s : Samples(text)) {
    if (s.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// The value of the first sample starting with `prefix`; -1 when there is none.
double Value(const std::string& text, const std::string& prefix) {
  for (const auto& s : Samples(text)) {
    if (s.rfind(prefix, 0) == 0) return std::stod(s.substr(s.rfind(' ') + 1));
  }
  return -1;
}

void WriteText(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

class MetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    agent_ = std::make_unique<AgentProcess>(tmp_ / "root", "node01", tmp_ / "logs", std::vector<std::string>{},
                                            std::vector<std::string>{}, std::vector<std::string>{"--metrics", "127.0.0.1:0"});
    const std::string marker = "metrics on http://127.0.0.1:";
    ASSERT_TRUE(agent_->process().WaitForStdout(marker, 10s)) << agent_->process().Stderr();
    const std::string out = agent_->process().Stdout();
    port_ = std::stoi(out.substr(out.find(marker) + marker.size()));
  }
  // Starts `iofleet run` on a workload of one null-engine step per name in `steps`.
  std::unique_ptr<Process> StartRun(const std::string& workload, const std::vector<std::string>& steps,
                                    const std::string& runtime) {
    std::string yaml = "name: " + workload + "\ndefaults: { engine: \"null\", block_size: 4KiB, file_size: 1MiB, runtime: " +
                       runtime + " }\nsteps:\n";
    for (const auto& s : steps) yaml += "  - name: " + s + "\n    io: { op: randread }\n";
    const fs::path file = tmp_ / (workload + ".yaml");
    WriteText(file, yaml);
    return std::make_unique<Process>(std::vector<std::string>{BinPath("iofleet"), "run", file.string(), "--agents",
                                                              agent_->address(), "--out", (tmp_ / "out").string()},
                                     tmp_ / "logs");
  }
  // Scrapes until the agent is idle again (the controller's Stop may still be on its way).
  std::string ScrapeIdle() {
    std::string text;
    for (int i = 0; i < 100; ++i) {
      text = Scrape(port_);
      if (Value(text, "iofleet_agent_state{state=\"idle\"}") == 1) break;
      std::this_thread::sleep_for(50ms);
    }
    return text;
  }

  TempDir tmp_;
  std::unique_ptr<AgentProcess> agent_;
  int port_ = 0;
};

TEST_F(MetricsTest, IoSeriesWhileTheRunGoesAndNoneAfter) {
  const std::string idle = Scrape(port_);
  ASSERT_FALSE(idle.empty());
  EXPECT_EQ(Value(idle, "iofleet_agent_state{state=\"idle\"}"), 1);
  EXPECT_TRUE(Has(idle, "iofleet_agent_info{agent=\"node01\",version=\"")) << idle;
  EXPECT_FALSE(Has(idle, "iofleet_io_"));

  auto run = StartRun("metrics-live", {"hot"}, "3s");
  const std::string series = "{workload=\"metrics-live\",step=\"hot\",op=\"read\",engine=\"null\"}";
  std::string during;
  double first_ops = -1, last_ops = -1;
  for (int i = 0; i < 200 && run->Running(); ++i) {
    std::string text = Scrape(port_);
    double ops = Value(text, "iofleet_io_ops_total" + series);
    if (ops > 0) {
      if (first_ops < 0) first_ops = ops;
      EXPECT_GE(ops, last_ops);  // a counter, scraped over HTTP, never goes back
      last_ops = ops;
      // The last scrape while the step ran (after it, its series stay until the run ends).
      if (Value(text, "iofleet_agent_state{state=\"running\"}") == 1) during = text;
    }
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(run->Wait(60s), 0) << run->Stderr();
  ASSERT_FALSE(during.empty()) << "no io series seen while the step ran";
  EXPECT_GT(last_ops, first_ops);
  EXPECT_TRUE(Has(during, "iofleet_io_bytes_total" + series));
  EXPECT_TRUE(Has(during, "iofleet_io_inflight" + series));
  EXPECT_TRUE(Has(during, "iofleet_io_latency_seconds_bucket{workload=\"metrics-live\",step=\"hot\",op=\"read\",engine=\"null\",le=\"+Inf\"}"));
  EXPECT_TRUE(Has(during, "iofleet_run_info{run_id=\"")) << during;
  EXPECT_EQ(Value(during, "iofleet_agent_state{state=\"running\"}"), 1);
  EXPECT_GT(Value(during, "iofleet_agent_job_cpu_seconds_total{mode=\"user\"}") +
                Value(during, "iofleet_agent_job_cpu_seconds_total{mode=\"system\"}"),
            0);

  const std::string after = ScrapeIdle();
  EXPECT_EQ(Value(after, "iofleet_agent_state{state=\"idle\"}"), 1);
  EXPECT_FALSE(Has(after, "iofleet_io_")) << after;
  EXPECT_FALSE(Has(after, "iofleet_run_info")) << after;
  EXPECT_EQ(Samples(after).size(), Samples(idle).size());
}

// Series stay bounded: after runs with other workload and step names, an idle agent shows as
// many series as it did before the first.
TEST_F(MetricsTest, SeriesCountReturnsToIdleAfterManyRuns) {
  const size_t idle = Samples(Scrape(port_)).size();
  for (int r = 0; r < 4; ++r) {
    const std::string n = std::to_string(r);
    auto run = StartRun("bound-" + n, {"first-" + n, "second-" + n}, "200ms");
    ASSERT_EQ(run->Wait(60s), 0) << run->Stderr();
    const std::string after = ScrapeIdle();
    EXPECT_EQ(Samples(after).size(), idle) << "after run " << r << ":\n" << after;
    EXPECT_FALSE(Has(after, "iofleet_io_ops_total")) << after;
  }
}

// Two silent connections held civetweb's two threads for 30 s and every scrape waited.
// Now they hold connections only: scrapes during a run are answered, and the run is unaffected.
TEST_F(MetricsTest, SilentConnectionsDelayNoScrape) {
  std::vector<int> silent;
  for (int i = 0; i < 6; ++i) silent.push_back(ConnectSilently(port_, "127.0.0.1", i % 2 ? "GET /metrics HTTP/1.1\r\n" : ""));
  for (int i = 0; i < 100; ++i) silent.push_back(ConnectSilently(port_, "127.0.0." + std::to_string(2 + i % 10)));
  for (int fd : silent) ASSERT_GE(fd, 0);
  auto run = StartRun("metrics-silent", {"hot"}, "1s");
  for (int i = 0; i < 5; ++i) {
    // The bound is the client's: a scrape kept waiting fails rather than hangs the test.
    HttpAnswer answer = HttpGet("127.0.0.1:" + std::to_string(port_), "/metrics", 2s);
    ASSERT_EQ(answer.status, 200) << answer.error;
    EXPECT_TRUE(Has(answer.body, "iofleet_agent_info{agent=\"node01\"")) << answer.body;
  }
  EXPECT_EQ(run->Wait(60s), 0) << run->Stderr();
  for (int fd : silent) close(fd);
}

TEST(MetricsFlag, ABadOrTakenAddressIsRefusedNamingIt) {
  TempDir tmp;
  fs::create_directories(tmp / "root");
  auto start = [&](const std::string& address) {
    return RunCommand({BinPath("iofleet-agent"), "--listen", "127.0.0.1:0", "--insecure", "--root", (tmp / "root").string(),
                       "--metrics", address},
                      tmp / "logs", 10s);
  };
  CommandResult no_port = start("127.0.0.1");
  EXPECT_EQ(no_port.code, 2);
  EXPECT_NE(no_port.err.find("--metrics 127.0.0.1: no port"), std::string::npos) << no_port.err;
  CommandResult nowhere = start("no-such-host.invalid:0");
  EXPECT_EQ(nowhere.code, 2);
  EXPECT_NE(nowhere.err.find("--metrics no-such-host.invalid:0: cannot serve metrics there"), std::string::npos) << nowhere.err;
  // A port in use: this test holds it.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const std::string taken = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  CommandResult in_use = start(taken);
  close(fd);
  EXPECT_EQ(in_use.code, 2);
  EXPECT_NE(in_use.err.find("--metrics " + taken + ": cannot serve metrics there"), std::string::npos) << in_use.err;
}

}  // namespace
}  // namespace iofleet::testing
