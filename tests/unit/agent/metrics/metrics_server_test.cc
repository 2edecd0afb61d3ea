// --metrics ADDR: what is accepted, and what a refusal says.
#include "agent/metrics/metrics_server.h"

#include <gtest/gtest.h>
#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "tests/support/http_client.h"

namespace iofleet::agent {
namespace {

class NoMetrics final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override { return {}; }
};

class OneGauge final : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    prometheus::MetricFamily family;
    family.name = "iofleet_test_up";
    family.help = "1";
    family.type = prometheus::MetricType::Gauge;
    family.metric.emplace_back().gauge.value = 1;
    return {family};
  }
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

// Civetweb's two threads each sat on a silent connection until its 30 s request timeout,
// and the scrape behind them waited as long. Silent clients hold connections, never threads.
TEST(MetricsServer, SilentConnectionsDoNotDelayAScrape) {
  auto server = MetricsServer::Start("127.0.0.1:0", std::make_shared<OneGauge>());
  ASSERT_TRUE(server.ok()) << server.status().message();
  const std::string address = (*server)->address();
  const int port = std::stoi(address.substr(address.rfind(':') + 1));
  auto scrape = [&](const std::string& when) {
    for (int i = 0; i < 3; ++i) {
      // The bound is the client's: a scrape kept waiting fails rather than hangs the test.
      testing::HttpAnswer answer = testing::HttpGet(address, "/metrics", std::chrono::seconds(2));
      ASSERT_EQ(answer.status, 200) << when << ": " << answer.error;
      EXPECT_NE(answer.body.find("iofleet_test_up 1"), std::string::npos) << answer.body;
    }
  };
  std::vector<int> silent;
  // More than the server has threads, from the scraper's own address: connected and silent, or
  // a partial request line and silent.
  for (int i = 0; i < 8; ++i) silent.push_back(testing::ConnectSilently(port, "127.0.0.1", i % 2 ? "GET /met" : ""));
  for (int fd : silent) ASSERT_GE(fd, 0);
  scrape("8 silent connections");
  for (int fd : silent) ::close(fd);
  silent.clear();
  // More than the server keeps open at once, from eight other addresses.
  for (int i = 0; i < 80; ++i) silent.push_back(testing::ConnectSilently(port, "127.0.0." + std::to_string(2 + i % 8)));
  for (int fd : silent) ASSERT_GE(fd, 0);
  scrape("80 silent connections from 8 addresses");
  for (int fd : silent) ::close(fd);
}

}  // namespace
}  // namespace iofleet::agent
