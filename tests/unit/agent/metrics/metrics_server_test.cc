// --metrics ADDR: what is accepted, and what a refusal says.
#include "agent/metrics/metrics_server.h"

#include <gtest/gtest.h>
#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

namespace iofleet::agent {
namespace {

class NoMetrics final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override { return {}; }
};

TEST(MetricsAddress, HostAndPort) {
  for (const std::string good : {"0.0.0.0:7071", "127.0.0.1:0", "localhost:7071", "[::1]:7071", "node01:65535"}) {
    EXPECT_TRUE(ParseMetricsAddress(good).ok()) << good;
  }
  auto parsed = ParseMetricsAddress("127.0.0.1:7071");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->first, "127.0.0.1");
  EXPECT_EQ(parsed->second, 7071);
}

TEST(MetricsAddress, RefusalsNameTheAddressAndWhy) {
  const std::pair<std::string, std::string> cases[] = {
      {"7071", "--metrics 7071: no port"},
      {":7071", "--metrics :7071: no host"},
      {"127.0.0.1:", "is not a port"},
      {"127.0.0.1:http", "\"http\" is not a port"},
      {"127.0.0.1:65536", "port 65536 is above 65535"},
      {"::1:7071", "an IPv6 host goes in brackets"},
      {"unix:/run/agent.sock", "is not a port"},
  };
  for (const auto& [address, expected] : cases) {
    auto parsed = ParseMetricsAddress(address);
    ASSERT_FALSE(parsed.ok()) << address;
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find(expected), std::string::npos) << parsed.status().message();
  }
}

TEST(MetricsServer, PortZeroGivesTheBoundPortAndATakenPortIsRefused) {
  auto first = MetricsServer::Start("127.0.0.1:0", std::make_shared<NoMetrics>());
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::string bound = (*first)->address();
  EXPECT_EQ(bound.rfind("127.0.0.1:", 0), 0u);
  EXPECT_NE(bound, "127.0.0.1:0");
  auto second = MetricsServer::Start(bound, std::make_shared<NoMetrics>());
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("--metrics " + bound + ": cannot serve metrics there"), std::string::npos)
      << second.status().message();
}

}  // namespace
}  // namespace iofleet::agent
