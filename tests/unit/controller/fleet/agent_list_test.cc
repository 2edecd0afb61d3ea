#include "controller/fleet/agent_list.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(AgentList, ParsesAddresses) {
  auto list = ParseAgentList("127.0.0.1:7071,[::1]:7072,unix:/tmp/a.sock,node1:7070");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(*list, (std::vector<std::string>{"127.0.0.1:7071", "[::1]:7072", "unix:/tmp/a.sock", "node1:7070"}));
  EXPECT_EQ(PortOf("127.0.0.1:7071"), "7071");
  EXPECT_EQ(PortOf("[::1]:7072"), "7072");
  EXPECT_EQ(PortOf("unix:/tmp/a.sock"), "");
}

TEST(AgentList, RejectsBadAddresses) {
  EXPECT_FALSE(ParseAgentList("").ok());
  EXPECT_FALSE(ParseAgentList("node1").ok());
  EXPECT_FALSE(ParseAgentList("node1:99999").ok());
  EXPECT_FALSE(ParseAgentList("node1:0").ok());
  EXPECT_FALSE(ParseAgentList("a:1,a:1").ok());
  EXPECT_FALSE(ParseAgentList(":7070").ok());
}

}  // namespace
}  // namespace iofleet::controller
