#include "controller/serve/listen_endpoint.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(ListenEndpointTest, ResolvesAndTellsLoopback) {
  auto v4 = ResolveListenAddress("127.0.0.1:8080");
  ASSERT_TRUE(v4.ok()) << v4.status().message();
  EXPECT_EQ(v4->endpoint.port(), 8080);
  EXPECT_TRUE(v4->loopback);
  auto v6 = ResolveListenAddress("[::1]:0");
  ASSERT_TRUE(v6.ok()) << v6.status().message();
  EXPECT_TRUE(v6->loopback);
  EXPECT_TRUE(ResolveListenAddress("127.9.9.9:1")->loopback);
  EXPECT_FALSE(ResolveListenAddress("0.0.0.0:8080")->loopback);
  EXPECT_FALSE(ResolveListenAddress("[::]:8080")->loopback);
  EXPECT_FALSE(ResolveListenAddress("192.0.2.1:8080")->loopback);
}

TEST(ListenEndpointTest, BadAddressesNamed) {
  for (std::string bad : {"8080", ":8080", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:http", "::1:8080", "127.0.0.1:-1"}) {
    auto result = ResolveListenAddress(bad);
    ASSERT_FALSE(result.ok()) << bad;
    EXPECT_NE(result.status().message().find("listen \"" + bad + "\""), std::string::npos) << result.status().message();
  }
}

}  // namespace
}  // namespace iofleet::controller
