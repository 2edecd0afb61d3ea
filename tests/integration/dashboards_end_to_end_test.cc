// The dashboards end to end: a real Prometheus (rules of deploy/prometheus loaded) scrapes two
// real agents' and the real controller's /metrics every second, and a real pushgateway takes the
// run's final figures. A workload with a files, a copy and an io step (one agent injecting EIO
// under continue_on_error, so that errors exist) runs; while its last step goes and after the
// run, every query of every panel, annotation and variable of every dashboard, with its template
// variables substituted, must return data.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <thread>

#include "tests/support/dashboards.h"
#include "tests/support/prometheus.h"
#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// "http://127.0.0.1:PORT/metrics" printed by a process: "127.0.0.1:PORT".
std::string MetricsAddress(const std::string& output) {
  const std::string marker = "metrics on http://";
  const size_t at = output.find(marker);
  if (at == std::string::npos) return "";
  const size_t begin = at + marker.size();
  return output.substr(begin, output.find("/metrics", begin) - begin);
}

bool WaitFor(const std::function<bool()>& ready, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return ready();
}

TEST(DashboardsEndToEnd, EveryQueryReturnsDataWhileARealRunGoesAndAfterIt) {
  if (!PrometheusInstalled()) GTEST_SKIP() << "needs Debian's prometheus and prometheus-pushgateway";
  TempDir tmp;
  AgentProcess node01(tmp / "root1", "node01", tmp / "logs1", {}, {}, {"--metrics", "127.0.0.1:0"});
  AgentProcess node02(tmp / "root2", "node02", tmp / "logs2", {}, {"IOFLEET_FAULT_INJECT=eio@100"},
                      {"--metrics", "127.0.0.1:0"});
  std::string agent_metrics[2];
  AgentProcess* agents[2] = {&node01, &node02};
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(agents[i]->process().WaitForStdout("metrics on http://", 10s)) << agents[i]->process().Stderr();
    agent_metrics[i] = MetricsAddress(agents[i]->process().Stdout());
    ASSERT_FALSE(agent_metrics[i].empty()) << agents[i]->process().Stdout();
  }
  PushgatewayProcess pushgateway(tmp / "pushgateway-logs");
  ASSERT_TRUE(pushgateway.ready());

  WriteText(tmp / "w.yaml",
            "name: dash-e2e\n"
            "defaults: { engine: libaio, direct: true, block_size: 64KiB, queue_depth: 4, jobs: 2, file_size: 16MiB }\n"
            "steps:\n"
            "  - name: tree\n"
            "    files: { dirs: 2, files_per_dir: 40, file_size: 64KiB, ops: [mkdir, create] }\n"
            "  - name: copy\n"
            "    copy: { from: tree, to: copied, jobs: 1 }\n"
            "  - name: write\n"
            // Two streams, so that the stream variable and the panels by stream have series.
            "    io: { runtime: 12s, continue_on_error: true, streams: [ { name: rand, op: randwrite },\n"
            "          { name: seq, op: write, jobs: 1 } ] }\n");
  Process run({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", node01.address() + "," + node02.address(),
               "--metrics", "127.0.0.1:0", "--progress", "plain", "--pushgateway", pushgateway.url(), "--label", "suite=e2e",
               "--out", (tmp / "out").string()},
              tmp / "run-logs");
  ASSERT_TRUE(WaitFor([&] { return !MetricsAddress(run.Stderr()).empty(); }, 15s)) << run.Stderr();
  const std::string controller_metrics = MetricsAddress(run.Stderr());

  const std::string rules = SourcePath("deploy/prometheus/rules/");
  PrometheusProcess prometheus(tmp / "prometheus",
                               {{"iofleet-agents", {agent_metrics[0], agent_metrics[1]}, false},
                                {"iofleet-controller", {controller_metrics}, false},
                                {"pushgateway", {pushgateway.address()}, true}},
                               {rules + "iofleet-recording.yml", rules + "iofleet-alerts.yml"});
  ASSERT_TRUE(prometheus.ready());

  // The last step has run a while: every step's series exist, and rates have two scrapes.
  ASSERT_TRUE(prometheus.WaitForData(R"(iofleet_run_info{step="write"})", 40s)) << run.Stderr();
  ASSERT_TRUE(prometheus.WaitForData(R"(workload_step:iofleet_io_bytes:rate30s > 0)", 15s)) << prometheus.Targets().dump();
  // Both agents' own targets too (a scrape may come late under load: two samples in the window).
  for (const auto& address : agent_metrics) {
    ASSERT_TRUE(prometheus.WaitForData("rate(iofleet_io_bytes_total{instance=\"" + address + "\"}[20s]) > 0", 20s));
  }
  std::this_thread::sleep_for(2s);

  const std::map<std::string, std::map<std::string, std::string>> during = {
      {"live-run.json", {{"workload", "dash-e2e"}}},
      {"agent.json", {{"workload", "dash-e2e"}, {"agent", "node02"}, {"instance", agent_metrics[1]}}}};
  size_t asked = 0;
  std::vector<std::string> empty_during;
  for (const auto& board : LoadDashboards()) {
    if (!during.count(board.file)) continue;
    for (const auto& q : DashboardQueries(board)) {
      const std::string expr = SubstituteVariables(q.expr, during.at(board.file), "20s");
      nlohmann::json answer = prometheus.Query(expr);
      EXPECT_EQ(answer.value("status", ""), "success") << q.where << ": " << answer.dump();
      if (ResultOf(answer).empty()) empty_during.push_back(q.where + ": " + expr);
      ++asked;
    }
  }
  EXPECT_GT(asked, 35u);
  EXPECT_TRUE(empty_during.empty()) << "no data while the run goes:\n" << fmt::format("{}", fmt::join(empty_during, "\n"));

  ASSERT_EQ(run.Wait(60s), 0) << run.Stderr();
  // After the run its series are gone from the exporters: the dashboards show it over the time
  // range it ran in, as Grafana asks (query_range), and the nightly board shows its pushed figures.
  ASSERT_TRUE(prometheus.WaitForData(R"(iofleet_result_status{workload="dash-e2e",step="write"})", 15s));
  std::this_thread::sleep_for(2s);
  std::vector<std::string> empty_after;
  for (const auto& board : LoadDashboards()) {
    std::map<std::string, std::string> values = {{"workload", "dash-e2e"}};
    if (board.file == "agent.json") values = during.at("agent.json");
    for (const auto& q : DashboardQueries(board)) {
      const std::string expr = SubstituteVariables(q.expr, values, "20s");
      nlohmann::json answer = prometheus.QueryRange(expr, 120s);
      EXPECT_EQ(answer.value("status", ""), "success") << q.where << ": " << answer.dump();
      if (ResultOf(answer).empty()) empty_after.push_back(q.where + ": " + expr);
    }
  }
  EXPECT_TRUE(empty_after.empty()) << "no data over the run's time range:\n" << fmt::format("{}", fmt::join(empty_after, "\n"));

  // The fleet view tracks what the report says: the controller's byte counter of the io step,
  // summed over agents, never above report.json's aggregate bytes, and behind it by at most the
  // last sample interval before the step ended (1 s of 12; the final figures are the report's and
  // the pushgateway's, not the live view's).
  nlohmann::json report = ReadReport(tmp / "out");
  nlohmann::json bytes = ResultOf(prometheus.QueryRange(
      R"(sum(max_over_time(iofleet_io_bytes_total{job="iofleet-controller",workload="dash-e2e",step="write"}[5m])))", 30s));
  ASSERT_FALSE(bytes.empty());
  double last = 0;
  for (const auto& v : bytes[0]["values"]) last = std::max(last, std::stod(v[1].get<std::string>()));
  for (const auto& step : report["steps"]) {
    if (step["name"] == "write") {
      const double reported = step["aggregate"]["bytes"].get<double>();
      EXPECT_LE(last, reported) << "the live view counted more than the agents did";
      EXPECT_GE(last, 0.8 * reported) << "the live view fell far behind";
    }
  }
}

}  // namespace
}  // namespace iofleet::testing
