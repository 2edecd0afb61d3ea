// The live-run and agent dashboards against series shaped exactly as DESIGN.md section 5b names
// them (fake exporters standing in for an agent's and the controller's /metrics), scraped by a
// real Prometheus with deploy/prometheus's rules: every panel's, annotation's and variable's
// query returns data. It checks the dashboards' queries against the metric contract; the
// end-to-end test with real agents and a real controller checks the exporters against it.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "tests/support/dashboards.h"
#include "tests/support/fake_exporter.h"
#include "tests/support/prometheus.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_paths.h"

namespace iofleet::testing {
namespace {

using namespace std::chrono_literals;

// The io series of one agent at scrape `n`; `extra` is prepended to every label set (the
// controller's `agent="..."`).
std::string IoSeries(int n, const std::string& extra, double speed) {
  const std::string io = extra + R"(workload="it-live",step="write",op="write",engine="libaio")";
  const std::string files = extra + R"(workload="it-live",step="tree",phase="create")";
  const std::string copy = extra + R"(workload="it-live",step="copy")";
  std::string s;
  s += fmt::format("iofleet_io_ops_total{{{}}} {}\n", io, 1000 * n * speed);
  s += fmt::format("iofleet_io_bytes_total{{{}}} {}\n", io, 65536000.0 * n * speed);
  s += fmt::format("iofleet_io_errors_total{{{},reason=\"eio\"}} {}\n", io, n / 3);
  s += fmt::format("iofleet_io_fsyncs_total{{{}}} {}\n", io, n);
  s += fmt::format("iofleet_io_inflight{{{}}} 4\n", io);
  const std::pair<const char*, int> buckets[] = {{"1e-05", 0}, {"0.0001", 600}, {"0.001", 990}, {"+Inf", 1000}};
  for (const auto& [le, per] : buckets) s += fmt::format("iofleet_io_latency_seconds_bucket{{{},le=\"{}\"}} {}\n", io, le, per * n);
  s += fmt::format("iofleet_io_latency_seconds_sum{{{}}} {}\n", io, 0.12 * n);
  s += fmt::format("iofleet_io_latency_seconds_count{{{}}} {}\n", io, 1000 * n);
  s += fmt::format("iofleet_files_ops_total{{{}}} {}\n", files, 10 * n);
  for (const auto& [le, per] : buckets) s += fmt::format("iofleet_files_latency_seconds_bucket{{{},le=\"{}\"}} {}\n", files, le, per * n / 100);
  s += fmt::format("iofleet_files_latency_seconds_sum{{{}}} {}\n", files, 0.001 * n);
  s += fmt::format("iofleet_files_latency_seconds_count{{{}}} {}\n", files, 10 * n);
  s += fmt::format("iofleet_copy_bytes_total{{{}}} {}\n", copy, 1048576 * n);
  s += fmt::format("iofleet_copy_files_total{{{}}} {}\n", copy, n);
  return s;
}

const char* kRunInfo = "iofleet_run_info{run_id=\"r1\",workload=\"it-live\",step=\"write\",point=\"0\",cycle=\"0\"} 1\n";

TEST(LiveDashboards, EveryQueryReturnsDataFromTheDesignsSeries) {
  if (!PrometheusInstalled()) GTEST_SKIP() << "needs Debian's prometheus";
  FakeExporter agent([](int n) {
    return IoSeries(n, "", 1.0) + kRunInfo +
           "iofleet_agent_info{agent=\"node01\",version=\"0.1.0\",revision=\"abc1234\"} 1\n"
           "iofleet_agent_state{state=\"idle\"} 0\niofleet_agent_state{state=\"running\"} 1\n" +
           fmt::format("iofleet_agent_job_cpu_seconds_total{{mode=\"user\"}} {}\n", 0.5 * n) +
           fmt::format("iofleet_agent_job_cpu_seconds_total{{mode=\"system\"}} {}\n", 0.2 * n);
  });
  FakeExporter controller([](int n) {
    return IoSeries(n, "agent=\"node01\",", 1.0) + IoSeries(n, "agent=\"node02\",", 0.5) + kRunInfo +
           "iofleet_fleet_agents{state=\"connected\"} 2\niofleet_fleet_agents{state=\"lost\"} 0\n"
           "iofleet_step_start_skew_seconds 0.00012\n";
  });
  TempDir tmp;
  const std::string rules = std::string(IOFLEET_SOURCE_DIR) + "/deploy/prometheus/rules/";
  PrometheusProcess prometheus(tmp / "prometheus",
                               {{"iofleet-agents", {agent.address()}, false}, {"iofleet-controller", {controller.address()}, false}},
                               {rules + "iofleet-recording.yml", rules + "iofleet-alerts.yml"});
  ASSERT_TRUE(prometheus.ready());
  // The recording rules need two scrapes in their window, then an evaluation.
  ASSERT_TRUE(prometheus.WaitForData("agent_workload_step_le:iofleet_io_latency_seconds_bucket:rate30s", 30s))
      << prometheus.Targets().dump();
  ASSERT_TRUE(prometheus.WaitForData("workload_step:iofleet_io_bytes:rate30s > 0", 10s));
  // And the agent's own target: under load a scrape may come late, and the drill-down's rates
  // need two samples of it in their window.
  ASSERT_TRUE(prometheus.WaitForData("rate(iofleet_io_bytes_total{instance=\"" + agent.address() + "\"}[20s]) > 0", 20s));

  // The fleet sums read the controller's series only (node01, and node02 at half its speed), never
  // the agent's own copy of node01's figures as well. Both rules are evaluated at one instant.
  auto value = [&](const std::string& promql) {
    nlohmann::json r = ResultOf(prometheus.Query(promql));
    EXPECT_EQ(r.size(), 1u) << promql;
    return r.empty() ? -1.0 : std::stod(r[0]["value"][1].get<std::string>());
  };
  EXPECT_EQ(value("count(agent_workload_step:iofleet_io_bytes:rate30s)"), 2);
  double fleet = value("sum(workload_step:iofleet_io_bytes:rate30s)");
  double node01 = value(R"(agent_workload_step:iofleet_io_bytes:rate30s{agent="node01"})");
  double node02 = value(R"(agent_workload_step:iofleet_io_bytes:rate30s{agent="node02"})");
  EXPECT_NEAR(node02 / node01, 0.5, 0.01);
  EXPECT_NEAR(fleet, node01 + node02, 1e-6 * fleet) << "counted twice, or not at all";

  const std::map<std::string, std::map<std::string, std::string>> values = {
      // The stream variable as All (".*"): these series are a step without streams, no stream label.
      {"live-run.json", {{"stream", ".*"}}}, {"agent.json", {{"agent", "node01"}, {"instance", agent.address()}}}};
  size_t n = 0;
  for (const auto& board : LoadDashboards()) {
    if (!values.count(board.file)) continue;
    for (const auto& q : DashboardQueries(board)) {
      std::string expr = SubstituteVariables(q.expr, values.at(board.file), "20s");
      nlohmann::json answer = prometheus.Query(expr);
      EXPECT_EQ(answer.value("status", ""), "success") << q.where << ": " << answer.dump();
      EXPECT_FALSE(ResultOf(answer).empty()) << q.where << ": no data for " << expr;
      ++n;
    }
  }
  EXPECT_GT(n, 35u);
  // The slowest agent is node02.
  nlohmann::json slowest = ResultOf(prometheus.Query(R"(bottomk(1, sum by (agent) (rate(iofleet_io_bytes_total{agent=~".+"}[10s]))))"));
  ASSERT_EQ(slowest.size(), 1u);
  EXPECT_EQ(slowest[0]["metric"]["agent"], "node02");
}

}  // namespace
}  // namespace iofleet::testing
