// `iofleet run --pushgateway`: a real pushgateway (Debian's prometheus-pushgateway) on loopback,
// real runs on a real agent; what the pushgateway then serves must be report.json's figures, with
// the grouping labels, and a failed run must still push its status.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/support/http_client.h"
#include "tests/support/process.h"
#include "tests/support/prometheus.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// The text exposition as the pushgateway writes it: `name{k="v",...} value` lines.
std::vector<Sample> ParseExposition(const std::string& text) {
  std::vector<Sample> samples;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    Sample s;
    size_t brace = line.find('{');
    size_t space = line.rfind(' ');
    s.name = line.substr(0, std::min(brace, space));
    if (brace != std::string::npos) {
      size_t i = brace + 1;
      while (i < line.size() && line[i] != '}') {
        size_t eq = line.find('=', i);
        std::string key = line.substr(i, eq - i);
        std::string value;
        size_t j = eq + 2;  // after ="
        for (; line[j] != '"'; ++j) {
          if (line[j] == '\\') ++j;
          value += line[j];
        }
        s.labels[key] = value;
        i = j + 1;
        if (line[i] == ',') ++i;
      }
    }
    s.value = std::stod(line.substr(space + 1));
    samples.push_back(s);
  }
  return samples;
}

// The one sample of `name` whose labels include every one of `want` (a wanted "" is a label
// the sample does not have, as in PromQL).
const Sample* Find(const std::vector<Sample>& samples, const std::string& name, const std::map<std::string, std::string>& want) {
  const Sample* found = nullptr;
  for (const auto& s : samples) {
    if (s.name != name) continue;
    bool all = true;
    for (const auto& [k, v] : want) all = all && (s.labels.count(k) ? s.labels.at(k) == v : v.empty());
    if (!all) continue;
    EXPECT_EQ(found, nullptr) << "two samples of " << name << " match";
    found = &s;
  }
  return found;
}

constexpr const char* kWorkload = R"(name: it-push
defaults: { engine: psync, block_size: 64KiB, jobs: 2, file_size: 4MiB }
steps:
  - name: write
    io: { op: write, runtime: 1s }
  - name: pause
    sleep: { duration: 100ms }
  - name: read
    io: { op: randread, block_size: 4KiB }
)";

class PushgatewayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PrometheusInstalled()) GTEST_SKIP() << "needs Debian's prometheus and prometheus-pushgateway";
  }
};

TEST_F(PushgatewayTest, PushedFiguresAreTheReports) {
  TempDir tmp;
  PushgatewayProcess gateway(tmp / "logs");
  ASSERT_TRUE(gateway.ready());
  AgentProcess agent(tmp / "node01", "node01", tmp / "logs");
  WriteText(tmp / "w.yaml", kWorkload);
  CommandResult run = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(), "--out",
                                  (tmp / "out").string(), "--label", "cluster=lab1", "--label", "fs=/mnt/zeb dir",
                                  "--pushgateway", gateway.url()},
                                 tmp / "logs", 60s);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.err.find("warning"), std::string::npos) << run.err;
  json report = ReadReport(tmp / "out");
  EXPECT_EQ(report["labels"], (json{{"cluster", "lab1"}, {"fs", "/mnt/zeb dir"}}));

  std::vector<Sample> samples = ParseExposition(gateway.Metrics());
  // The grouping key's labels are on every pushed series; "/" and " " went as base64 and came back.
  const std::map<std::string, std::string> group = {{"job", "iofleet"}, {"workload", "it-push"}, {"cluster", "lab1"}, {"fs", "/mnt/zeb dir"}};
  ASSERT_EQ(report["steps"].size(), 3u);
  for (const json& step : report["steps"]) {
    auto labels = group;
    labels["step"] = step["name"];
    labels["point"] = std::to_string(step["point"].get<int>());
    labels["cycle"] = std::to_string(step["cycle"].get<int>());
    SCOPED_TRACE(step["name"].get<std::string>());
    auto status_labels = labels;
    status_labels["status"] = "succeeded";
    const Sample* status = Find(samples, "iofleet_result_status", status_labels);
    ASSERT_NE(status, nullptr);
    EXPECT_EQ(status->value, 1);
    const Sample* at = Find(samples, "iofleet_result_timestamp_seconds", labels);
    ASSERT_NE(at, nullptr);
    if (step.contains("started_at_unix_ns")) {
      EXPECT_NEAR(at->value, step["started_at_unix_ns"].get<double>() / 1e9, 1e-6);
    }
    if (step["kind"] != "io") {
      EXPECT_EQ(Find(samples, "iofleet_result_iops", labels), nullptr);
      continue;
    }
    const json& agg = step["aggregate"];
    ASSERT_GT(agg["bytes"].get<double>(), 0);
    const Sample* bw = Find(samples, "iofleet_result_bytes_per_second", labels);
    const Sample* iops = Find(samples, "iofleet_result_iops", labels);
    ASSERT_NE(bw, nullptr);
    ASSERT_NE(iops, nullptr);
    EXPECT_DOUBLE_EQ(bw->value, agg["bytes_per_sec"].get<double>());
    EXPECT_DOUBLE_EQ(iops->value, agg["iops"].get<double>());
    for (const auto& [quantile, key] : {std::pair{"0.5", "p50"}, {"0.99", "p99"}, {"0.999", "p999"}}) {
      auto q = labels;
      q["quantile"] = quantile;
      const Sample* latency = Find(samples, "iofleet_result_latency_seconds", q);
      ASSERT_NE(latency, nullptr) << quantile;
      EXPECT_DOUBLE_EQ(latency->value, agg["latency_ns"][key].get<double>() / 1e9) << quantile;
      EXPECT_GT(latency->value, 0);
    }
  }
  auto run_status = group;
  run_status["status"] = "succeeded";
  run_status["step"] = "";
  const Sample* status = Find(samples, "iofleet_result_status", run_status);  // the run's own
  ASSERT_NE(status, nullptr);
  const Sample* duration = Find(samples, "iofleet_run_duration_seconds", group);
  ASSERT_NE(duration, nullptr);
  EXPECT_GT(duration->value, 1.0);  // the write alone ran 1 s
  EXPECT_LT(duration->value, run.seconds + 0.5);
}

TEST_F(PushgatewayTest, AFailedRunStillPushesItsStatus) {
  TempDir tmp;
  PushgatewayProcess gateway(tmp / "logs");
  ASSERT_TRUE(gateway.ready());
  AgentProcess agent(tmp / "node01", "node01", tmp / "logs", {}, {"IOFLEET_FAULT_INJECT=eio@50"});
  WriteText(tmp / "w.yaml", "name: it-push-fail\ndefaults: { block_size: 64KiB, file_size: 8MiB }\nsteps:\n  - name: write\n    io: { op: write }\n");
  CommandResult run = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(), "--out",
                                  (tmp / "out").string(), "--label", "night=n1", "--pushgateway", gateway.url()},
                                 tmp / "logs", 60s);
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_EQ(ReadReport(tmp / "out")["status"], "failed");
  std::vector<Sample> samples = ParseExposition(gateway.Metrics());
  const Sample* status = Find(samples, "iofleet_result_status",
                              {{"job", "iofleet"}, {"workload", "it-push-fail"}, {"night", "n1"}, {"step", "write"}});
  ASSERT_NE(status, nullptr) << gateway.Metrics();
  EXPECT_EQ(status->labels.at("status"), "failed");
  EXPECT_EQ(status->value, 1);
  EXPECT_NE(Find(samples, "iofleet_run_duration_seconds", {{"workload", "it-push-fail"}}), nullptr);
}

TEST_F(PushgatewayTest, ACtrlCRunPushesAborted) {
  TempDir tmp;
  PushgatewayProcess gateway(tmp / "logs");
  ASSERT_TRUE(gateway.ready());
  AgentProcess agent(tmp / "node01", "node01", tmp / "logs");
  WriteText(tmp / "w.yaml", "name: it-push-abort\ndefaults: { engine: psync, block_size: 4KiB, file_size: 4MiB }\nsteps:\n"
                            "  - name: read\n    io: { op: randread, runtime: 30s }\n");
  Process run({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(), "--out", (tmp / "out").string(),
               "--pushgateway", gateway.url()},
              tmp / "logs");
  auto deadline = std::chrono::steady_clock::now() + 15s;
  while (!std::filesystem::exists(tmp / "node01" / "iofleet") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(50ms);
  }
  std::this_thread::sleep_for(1500ms);  // into the step
  run.Signal(SIGINT);
  EXPECT_EQ(run.Wait(20s), 1) << run.Stderr();
  std::vector<Sample> samples = ParseExposition(gateway.Metrics());
  const Sample* step = Find(samples, "iofleet_result_status", {{"workload", "it-push-abort"}, {"step", "read"}});
  const Sample* whole = Find(samples, "iofleet_result_status", {{"workload", "it-push-abort"}, {"step", ""}});
  ASSERT_NE(step, nullptr) << gateway.Metrics();
  ASSERT_NE(whole, nullptr) << gateway.Metrics();
  EXPECT_EQ(step->labels.at("status"), "aborted");
  EXPECT_EQ(whole->labels.at("status"), "aborted");
}

TEST_F(PushgatewayTest, ARunThatCouldNotReachItsAgentsPushesFailed) {
  TempDir tmp;
  PushgatewayProcess gateway(tmp / "logs");
  ASSERT_TRUE(gateway.ready());
  WriteText(tmp / "w.yaml", "name: it-push-unreachable\nsteps:\n  - io: { op: write }\n");
  const std::string nobody = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  CommandResult run = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", nobody, "--out",
                                  (tmp / "out").string(), "--pushgateway", gateway.url()},
                                 tmp / "logs", 60s);
  EXPECT_EQ(run.code, 1) << run.err;
  std::vector<Sample> samples = ParseExposition(gateway.Metrics());
  const Sample* status = Find(samples, "iofleet_result_status", {{"job", "iofleet"}, {"workload", "it-push-unreachable"}, {"step", ""}});
  ASSERT_NE(status, nullptr) << gateway.Metrics();
  EXPECT_EQ(status->labels.at("status"), "failed");
}

TEST_F(PushgatewayTest, APushThatFailsWarnsAndKeepsTheExitStatus) {
  TempDir tmp;
  AgentProcess agent(tmp / "node01", "node01", tmp / "logs");
  WriteText(tmp / "w.yaml", "name: it-push-nowhere\ndefaults: { engine: psync, block_size: 64KiB, file_size: 1MiB }\nsteps:\n  - io: { op: write }\n");
  const std::string url = "http://127.0.0.1:" + std::to_string(FreeLoopbackPort());  // nobody listens
  CommandResult run = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", agent.address(), "--out",
                                  (tmp / "out").string(), "--pushgateway", url},
                                 tmp / "logs", 60s);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("iofleet: warning: push to " + url + "/metrics/job/iofleet/workload/it-push-nowhere failed: connect: "),
            std::string::npos) << run.err;
}

TEST_F(PushgatewayTest, ABadUrlOrLabelIsRefusedBeforeAnythingStarts) {
  TempDir tmp;
  WriteText(tmp / "w.yaml", "name: it-push-bad\nsteps:\n  - io: { op: write }\n");
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--pushgateway", "localhost:9091"},
                                               {"--label", "agent=x"}, {"--label", "no_value"}}) {
    std::vector<std::string> argv = {BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--create-local-root", "--local-root", (tmp / "data").string(),
                                     "--out", (tmp / "out").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    CommandResult run = RunCommand(argv, tmp / "logs", 30s);
    EXPECT_EQ(run.code, 2) << extra[1] << ": " << run.err;
    EXPECT_NE(run.err.find(extra[0] + " " + extra[1] + ": "), std::string::npos) << run.err;
    EXPECT_FALSE(std::filesystem::exists(tmp / "out")) << extra[1];
  }
}

}  // namespace
}  // namespace iofleet::testing
