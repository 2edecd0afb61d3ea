// The test support for real Prometheus servers works: a Prometheus started by
// tests/support/prometheus.h scrapes a pushgateway's own metrics, and its query API answers.
#include <gtest/gtest.h>

#include "tests/support/prometheus.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

using namespace std::chrono_literals;

TEST(PrometheusSupport, ScrapesAPushgatewayAndAnswersQueries) {
  if (!PrometheusInstalled()) GTEST_SKIP() << "needs Debian's prometheus and prometheus-pushgateway";
  TempDir tmp;
  PushgatewayProcess gateway(tmp / "logs");
  ASSERT_TRUE(gateway.ready());
  PrometheusProcess prometheus(tmp / "prometheus", {{"pushgateway", {gateway.address()}, true}});
  ASSERT_TRUE(prometheus.ready());
  // The pushgateway's own process metrics, scraped within a few 1 s intervals.
  ASSERT_TRUE(prometheus.WaitForData("up{job=\"pushgateway\"} == 1", 20s)) << prometheus.Targets().dump();
  nlohmann::json answer = prometheus.Query("pushgateway_build_info");
  ASSERT_EQ(answer["status"], "success") << answer.dump();
  nlohmann::json result = ResultOf(answer);
  ASSERT_EQ(result.size(), 1u) << answer.dump();
  EXPECT_EQ(result[0]["metric"]["instance"], gateway.address());
  // A range query over what was scraped so far, and an error for a bad query.
  EXPECT_FALSE(ResultOf(prometheus.QueryRange("up", 30s)).empty());
  EXPECT_EQ(prometheus.Query("rate(up[")["status"], "error");
}

}  // namespace
}  // namespace iofleet::testing
