// The nightly-trends dashboard end to end: real runs push to a real pushgateway, a real
// Prometheus scrapes it as deploy/prometheus/prometheus.yml does (honor_labels), and every query
// of dashboards/nightly-trends.json then returns data.
#include <gtest/gtest.h>

#include "tests/support/dashboards.h"
#include "tests/support/process.h"
#include "tests/support/prometheus.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

using namespace std::chrono_literals;

TEST(NightlyDashboard, EveryQueryReturnsThePushedFigures) {
  if (!PrometheusInstalled()) GTEST_SKIP() << "needs Debian's prometheus and prometheus-pushgateway";
  TempDir tmp;
  PushgatewayProcess gateway(tmp / "logs");
  ASSERT_TRUE(gateway.ready());
  PrometheusProcess prometheus(tmp / "prometheus", {{"pushgateway", {gateway.address()}, true}});
  ASSERT_TRUE(prometheus.ready());

  // One night: a run that succeeds and one whose step fails (injected EIO).
  AgentProcess good(tmp / "good", "good", tmp / "logs");
  AgentProcess bad(tmp / "bad", "bad", tmp / "logs", {}, {"IOFLEET_FAULT_INJECT=eio@50"});
  WriteText(tmp / "ok.yaml", "name: it-nightly\ndefaults: { engine: psync, block_size: 64KiB, file_size: 4MiB }\nsteps:\n"
                             "  - name: write\n    io: { op: write }\n  - name: read\n    io: { op: read }\n");
  WriteText(tmp / "fail.yaml", "name: it-nightly-fail\ndefaults: { block_size: 64KiB, file_size: 8MiB }\nsteps:\n"
                               "  - name: write\n    io: { op: write }\n");
  CommandResult ok = RunCommand({BinPath("iofleet"), "run", (tmp / "ok.yaml").string(), "--agents", good.address(), "--out",
                                 (tmp / "out1").string(), "--label", "cluster=lab1", "--pushgateway", gateway.url()},
                                tmp / "logs", 60s);
  ASSERT_EQ(ok.code, 0) << ok.err;
  CommandResult failed = RunCommand({BinPath("iofleet"), "run", (tmp / "fail.yaml").string(), "--agents", bad.address(), "--out",
                                     (tmp / "out2").string(), "--label", "cluster=lab1", "--pushgateway", gateway.url()},
                                    tmp / "logs", 60s);
  ASSERT_EQ(failed.code, 1) << failed.err;

  ASSERT_TRUE(prometheus.WaitForData(R"(iofleet_result_status{workload="it-nightly-fail",job="iofleet"})", 20s))
      << prometheus.Targets().dump();
  // The figures arrive as pushed, under the pushed job (honor_labels), with the run's labels.
  nlohmann::json report = ReadReport(tmp / "out1");
  nlohmann::json bw = ResultOf(prometheus.Query(R"(iofleet_result_bytes_per_second{job="iofleet",workload="it-nightly",cluster="lab1",step="write"})"));
  ASSERT_EQ(bw.size(), 1u);
  EXPECT_DOUBLE_EQ(std::stod(bw[0]["value"][1].get<std::string>()), report["steps"][0]["aggregate"]["bytes_per_sec"].get<double>());

  Dashboard nightly;
  for (auto& b : LoadDashboards()) {
    if (b.file == "nightly-trends.json") nightly = b;
  }
  ASSERT_FALSE(nightly.doc.is_null());
  size_t n = 0;
  for (const auto& q : DashboardQueries(nightly)) {
    std::string expr = SubstituteVariables(q.expr, {}, "1m");
    nlohmann::json answer = prometheus.Query(expr);
    EXPECT_EQ(answer.value("status", ""), "success") << q.where << ": " << answer.dump();
    EXPECT_FALSE(ResultOf(answer).empty()) << q.where << ": no data for " << expr;
    ++n;
  }
  EXPECT_GE(n, 10u);
}

}  // namespace
}  // namespace iofleet::testing
