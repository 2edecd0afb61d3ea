#include "controller/fleet/agent_list.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.h"

namespace iofleet::controller {
namespace {

using Addresses = std::vector<std::string>;

TEST(AgentList, ParsesAddresses) {
  auto list = ParseAgentList("127.0.0.1:7071,[::1]:7072,unix:/tmp/a.sock,node1:7070");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(*list, (Addresses{"127.0.0.1:7071", "[::1]:7072", "unix:/tmp/a.sock", "node1:7070"}));
  EXPECT_EQ(PortOf("127.0.0.1:7071"), "7071");
  EXPECT_EQ(PortOf("[::1]:7072"), "7072");
  EXPECT_EQ(PortOf("unix:/tmp/a.sock"), "");
}

// "a:1 b:2" (one shell word, as from a quoted variable) once passed as one address with a space.
TEST(AgentList, ASpaceSeparatedListIsRefused) {
  auto spaced = ParseAgentList("127.0.0.1:7071 127.0.0.1:7072");
  ASSERT_FALSE(spaced.ok());
  EXPECT_EQ(spaced.status().message(),
            "--agents: \"127.0.0.1:7071 127.0.0.1:7072\" holds white space: separate addresses with commas (a,b), not spaces");
  EXPECT_FALSE(ParseAgentList("node1:7070,\tnode2:7070").ok());
  // A socket in a folder whose name has a space is one address.
  auto socket = ParseAgentList("unix:/tmp/a clone/agent.sock");
  ASSERT_TRUE(socket.ok()) << socket.status().message();
  EXPECT_EQ(*socket, (Addresses{"unix:/tmp/a clone/agent.sock"}));
}

TEST(AgentList, ExpandsRanges) {
  auto list = ParseAgentList("node[01-03]:7070,rack[1-2]-n[8-9]:1,x[7,10-11]:2");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(*list, (Addresses{"node01:7070", "node02:7070", "node03:7070", "rack1-n8:1", "rack1-n9:1",
                              "rack2-n8:1", "rack2-n9:1", "x7:2", "x10:2", "x11:2"}));
  auto sixteen = ParseAgentList("node[01-16]:7070");
  ASSERT_TRUE(sixteen.ok());
  EXPECT_EQ(sixteen->size(), 16u);
  EXPECT_EQ(sixteen->back(), "node16:7070");
  EXPECT_FALSE(ParseAgentList("node[3-1]:7070").ok());
  EXPECT_FALSE(ParseAgentList("node[a-b]:7070").ok());
  EXPECT_FALSE(ParseAgentList("node[1-2:7070").ok());
}

TEST(AgentList, ReadsAgentsFiles) {
  testing::TempDir tmp;
  std::ofstream(tmp / "agents.yaml") << "agents:\n  - 127.0.0.1:7071\n  - node[1-2]:7070\n";
  std::ofstream(tmp / "list.yaml") << "- unix:/run/a.sock\n- bad address\n";
  auto list = ParseAgentList("@" + (tmp / "agents.yaml").string());
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(*list, (Addresses{"127.0.0.1:7071", "node1:7070", "node2:7070"}));
  auto bad = ParseAgentList("@" + (tmp / "list.yaml").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad address"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(ParseAgentList("@" + (tmp / "missing.yaml").string()).ok());
}

TEST(AgentList, ResolvesDnsNames) {
  auto list = ParseAgentList("dns:localhost:7070");
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_FALSE(list->empty());
  for (const auto& a : *list) EXPECT_TRUE(a == "127.0.0.1:7070" || a == "[::1]:7070") << a;
  EXPECT_FALSE(ParseAgentList("dns:localhost").ok());
  EXPECT_FALSE(ParseAgentList("dns:no-such-host.invalid:7070").ok());
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
