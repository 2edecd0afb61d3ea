#include "controller/push/pushgateway_url.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(PushgatewayUrlTest, HostAndPort) {
  auto url = ParsePushgatewayUrl("http://pushgateway:9091");
  ASSERT_TRUE(url.ok()) << url.status().message();
  EXPECT_EQ(url->host, "pushgateway");
  EXPECT_EQ(url->port, "9091");
  EXPECT_EQ(url->prefix, "");
}

TEST(PushgatewayUrlTest, Ipv6PrefixAndDefaultPort) {
  auto url = ParsePushgatewayUrl("http://[::1]:9091/");
  ASSERT_TRUE(url.ok()) << url.status().message();
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->prefix, "");
  url = ParsePushgatewayUrl("http://proxy/pushgateway/");
  ASSERT_TRUE(url.ok()) << url.status().message();
  EXPECT_EQ(url->port, "80");
  EXPECT_EQ(url->prefix, "/pushgateway");
}

TEST(PushgatewayUrlTest, BadUrlsNameTheArgument) {
  for (const char* bad : {"pushgateway:9091", "https://pg:9091", "http://:9091", "http://pg:", "http://pg:0",
                          "http://pg:70000", "http://pg:9x", "http://user:secret@pg:9091", "http://pg:9091/?a=b",
                          "http://[::1:9091"}) {
    auto url = ParsePushgatewayUrl(bad);
    ASSERT_FALSE(url.ok()) << bad;
    EXPECT_EQ(url.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(url.status().message().rfind(std::string("--pushgateway ") + bad + ": ", 0), 0u) << url.status().message();
  }
}

}  // namespace
}  // namespace iofleet::controller
