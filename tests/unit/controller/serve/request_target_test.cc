// The request target checks every route relies on: what reaches a handler is decoded once and
// cannot climb out of a directory or hide a separator.
#include "controller/serve/request_target.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

std::string Refusal(const std::string& target) {
  auto parsed = ParseRequestTarget(target);
  return parsed.ok() ? "accepted as " + parsed->path : parsed.status().message();
}

TEST(RequestTargetTest, DecodesThePathOnce) {
  auto parsed = ParseRequestTarget("/reports/run%20one/report.html");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->path, "/reports/run one/report.html");
  EXPECT_TRUE(parsed->query.empty());
  // "%2541" is "%41" after one decoding, not "A".
  EXPECT_EQ(ParseRequestTarget("/a%2541")->path, "/a%41");
  EXPECT_EQ(ParseRequestTarget("/")->path, "/");
  EXPECT_EQ(ParseRequestTarget("/api/v1/runs/")->path, "/api/v1/runs/");
  // '+' is a plus in a path, a space in a query.
  EXPECT_EQ(ParseRequestTarget("/a+b")->path, "/a+b");
}

TEST(RequestTargetTest, RefusesClimbingAndHiddenSeparators) {
  EXPECT_NE(Refusal("/reports/../etc/passwd").find(".."), std::string::npos);
  EXPECT_NE(Refusal("/reports/%2e%2e/x").find(".."), std::string::npos);
  EXPECT_NE(Refusal("/reports/%2E%2E/x").find(".."), std::string::npos);
  EXPECT_NE(Refusal("/reports/.%2e/x").find(".."), std::string::npos);
  EXPECT_NE(Refusal("/reports/..").find(".."), std::string::npos);
  EXPECT_NE(Refusal("/reports%2fx").find("%2f"), std::string::npos);
  EXPECT_NE(Refusal("/reports%2Fx").find("%2f"), std::string::npos);
  EXPECT_NE(Refusal("/reports//x").find("//"), std::string::npos);
  EXPECT_NE(Refusal("/reports/%2f/x").find("%2f"), std::string::npos);
  EXPECT_NE(Refusal("/reports/a%5cb").find("backslash"), std::string::npos);
  EXPECT_NE(Refusal("/reports/a\\b").find("backslash"), std::string::npos);
  EXPECT_NE(Refusal("/reports/a%00b").find("control"), std::string::npos);
  EXPECT_NE(Refusal("/reports/a%0ab").find("control"), std::string::npos);
  EXPECT_NE(Refusal("/reports/./x").find("\".\""), std::string::npos);
  EXPECT_NE(Refusal("/reports/.").find("\".\""), std::string::npos);
  // A double encoding stays encoded: "%252e%252e" is the name "%2e%2e", harmless.
  EXPECT_EQ(ParseRequestTarget("/reports/%252e%252e/x")->path, "/reports/%2e%2e/x");
}

TEST(RequestTargetTest, RefusesBadEscapesAndOtherForms) {
  EXPECT_NE(Refusal("/a%").find("truncated"), std::string::npos);
  EXPECT_NE(Refusal("/a%4").find("truncated"), std::string::npos);
  EXPECT_NE(Refusal("/a%zz").find("bad percent escape"), std::string::npos);
  EXPECT_NE(Refusal("http://host/a").find("start with"), std::string::npos);
  EXPECT_NE(Refusal("*").find("start with"), std::string::npos);
  EXPECT_NE(Refusal("").find("start with"), std::string::npos);
}

TEST(RequestTargetTest, ParsesTheQuery) {
  auto parsed = ParseRequestTarget("/api/v1/runs?suite=zeb%2Dnightly&limit=20&label=a+b&flag&&x=%26%3D");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->path, "/api/v1/runs");
  std::map<std::string, std::string> expected{{"suite", "zeb-nightly"}, {"limit", "20"}, {"label", "a b"}, {"flag", ""}, {"x", "&="}};
  EXPECT_EQ(parsed->query, expected);
  // An encoded '/' and ".." are fine in a query value: it is data, not a path.
  EXPECT_EQ(ParseRequestTarget("/x?p=a%2F..%2Fb")->query.at("p"), "a/../b");
  EXPECT_EQ(ParseRequestTarget("/x?")->query.size(), 0u);
}

TEST(RequestTargetTest, RefusesBadQueries) {
  EXPECT_NE(Refusal("/x?a=1&a=2").find("given twice"), std::string::npos);
  EXPECT_NE(Refusal("/x?=1").find("no name"), std::string::npos);
  EXPECT_NE(Refusal("/x?a=%zz").find("bad percent escape"), std::string::npos);
  EXPECT_NE(Refusal("/x?a=%00").find("control"), std::string::npos);
}

}  // namespace
}  // namespace iofleet::controller
