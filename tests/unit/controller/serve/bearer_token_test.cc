#include "controller/serve/bearer_token.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(BearerTokenTest, MatchesOnlyTheExactToken) {
  const std::string token = "s3cret-Token_value";
  EXPECT_TRUE(BearerTokenMatches("Bearer s3cret-Token_value", token));
  EXPECT_TRUE(BearerTokenMatches("bearer s3cret-Token_value", token));  // the scheme in any case
  EXPECT_TRUE(BearerTokenMatches("BEARER  s3cret-Token_value", token));
  EXPECT_FALSE(BearerTokenMatches("Bearer s3cret-Token_valuE", token));
  EXPECT_FALSE(BearerTokenMatches("Bearer s3cret-Token_valu", token));   // a prefix
  EXPECT_FALSE(BearerTokenMatches("Bearer s3cret-Token_value1", token));  // longer
  EXPECT_FALSE(BearerTokenMatches("Bearer s3cret-Token_value ", token));
  EXPECT_FALSE(BearerTokenMatches("s3cret-Token_value", token));          // no scheme
  EXPECT_FALSE(BearerTokenMatches("Basic s3cret-Token_value", token));
  EXPECT_FALSE(BearerTokenMatches("Bearers3cret-Token_value", token));
  EXPECT_FALSE(BearerTokenMatches("", token));
  EXPECT_FALSE(BearerTokenMatches("Bearer ", token));
  EXPECT_FALSE(BearerTokenMatches("Bearer    ", token));
}

TEST(BearerTokenTest, AnEmptyTokenAdmitsNobody) {
  EXPECT_FALSE(BearerTokenMatches("Bearer ", ""));
  EXPECT_FALSE(BearerTokenMatches("Bearer", ""));
  EXPECT_FALSE(BearerTokenMatches("", ""));
  EXPECT_FALSE(BearerTokenMatches("Bearer x", ""));
}

}  // namespace
}  // namespace iofleet::controller
