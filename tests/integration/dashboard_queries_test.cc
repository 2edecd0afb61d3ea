// Every query of every dashboard, variables substituted, is PromQL that a real Prometheus (with
// deploy/prometheus's rules loaded) accepts; and tests/support/dashboards.h substitutes as
// Grafana would. Whether each returns data during a real run is the end-to-end test's business.
#include <gtest/gtest.h>

#include "tests/support/dashboards.h"
#include "tests/support/prometheus.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_paths.h"

namespace iofleet::testing {
namespace {

TEST(DashboardQueries, SubstituteVariablesAsGrafana) {
  EXPECT_EQ(SubstituteVariables(R"(rate(x{agent=~"$agent",step=~"${step}"}[$__rate_interval]))", {{"agent", "node1"}}, "4s"),
            R"(rate(x{agent=~"node1",step=~".+"}[4s]))");
}

TEST(DashboardQueries, EveryQueryIsValidPromQL) {
  if (!PrometheusInstalled()) GTEST_SKIP() << "needs Debian's prometheus";
  TempDir tmp;
  const std::string rules = std::string(IOFLEET_SOURCE_DIR) + "/deploy/prometheus/rules/";
  PrometheusProcess prometheus(tmp / "prometheus", {}, {rules + "iofleet-recording.yml", rules + "iofleet-alerts.yml"});
  ASSERT_TRUE(prometheus.ready());
  size_t n = 0;
  for (const auto& board : LoadDashboards()) {
    for (const auto& q : DashboardQueries(board)) {
      nlohmann::json answer = prometheus.Query(SubstituteVariables(q.expr));
      EXPECT_EQ(answer.value("status", ""), "success") << q.where << ": " << q.expr << "\n" << answer.dump();
      ++n;
    }
  }
  EXPECT_GT(n, 40u);
  // The rules loaded: Prometheus lists both groups.
  nlohmann::json groups = prometheus.Get("/api/v1/rules")["data"]["groups"];
  EXPECT_EQ(groups.size(), 2u) << groups.dump();
}

}  // namespace
}  // namespace iofleet::testing
