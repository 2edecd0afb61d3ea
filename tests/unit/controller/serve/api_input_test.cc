// What serve's API reads from a request besides its path: a POST's body and ?last=N. Every bad
// input is kInvalidArgument (a 400) naming what is wrong, never an exception (a 500).
#include "controller/serve/api_input.h"

#include <gtest/gtest.h>

#include <string>

namespace iofleet::controller {
namespace {

HttpRequest Post(const std::string& body) {
  HttpRequest r;
  r.method = "POST";
  r.content_type = "application/json";
  r.body = body;
  return r;
}

HttpRequest WithLast(const std::string& last) {
  HttpRequest r;
  r.method = "GET";
  r.query["last"] = last;
  return r;
}

// The refusal's message; "" when the body was accepted. An exception fails the test.
std::string Refusal(const std::string& body, const std::string& suite = "nightly") {
  Status s = CheckPostBody(Post(body), suite);
  if (s.ok()) return "";
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.message();
  return s.message();
}

TEST(PostBody, TheSuiteOrNothing) {
  EXPECT_EQ(Refusal(""), "");
  EXPECT_EQ(Refusal(" \r\n"), "");
  EXPECT_EQ(Refusal("{}"), "");
  EXPECT_EQ(Refusal(R"({"suite": "nightly"})"), "");
  EXPECT_NE(Refusal(R"({"suite": "other"})").find("\"suite\" must be \"nightly\""), std::string::npos);
  EXPECT_NE(Refusal(R"({"suite": "nightly", "set": {"jobs": 64}})").find("unknown field \"set\""), std::string::npos);
  EXPECT_NE(Refusal(R"({"suite": "nightly"})", "").find("unknown field \"suite\""), std::string::npos);
  EXPECT_NE(Refusal("[1]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(Refusal(R"({"suite": )").find("bad JSON"), std::string::npos);
  HttpRequest text = Post(R"({"suite": "nightly"})");
  text.content_type = "text/plain";
  EXPECT_FALSE(CheckPostBody(text, "nightly").ok());
}

// nlohmann's parser throws out_of_range (not parse_error) for a number beyond a double: it was
// a 500 "internal error". Each is a 400 naming the field it sat in.
TEST(PostBody, NumbersTooLargeForADoubleNameTheirField) {
  for (const std::string& number : {std::string("1e999999"), std::string("-1e999999"), std::string("1e309"), std::string(400, '9') + ".5"}) {
    const std::string message = Refusal(R"({"suite": )" + number + "}");
    EXPECT_NE(message.find("field \"suite\""), std::string::npos) << number << ": " << message;
    EXPECT_NE(message.find("bad JSON"), std::string::npos) << message;
  }
  std::string nested = Refusal(R"({"suite": "nightly", "set": {"jobs": [1, {"depth": 1e999}]}})");
  EXPECT_NE(nested.find("field \"set\""), std::string::npos) << nested;
  EXPECT_NE(Refusal("1e999999").find("bad JSON"), std::string::npos);
}

TEST(PostBody, OtherHostileBodies) {
  // Deep nesting up to the body limit (64 KiB): parsed and refused, the stack intact.
  const std::string deep = std::string(32 * 1024, '[') + std::string(32 * 1024, ']');
  EXPECT_NE(Refusal(deep).find("must be a JSON object"), std::string::npos);
  EXPECT_NE(Refusal(R"({"suite": )" + std::string(30000, '[')).find("field \"suite\""), std::string::npos);
  EXPECT_NE(Refusal(R"({"suite": 18446744073709551616})").find("\"suite\" must be"), std::string::npos);
  EXPECT_NE(Refusal(R"({"suite": "nightly", "suite": "nightly"})").find("field \"suite\" given twice"), std::string::npos);
  EXPECT_NE(Refusal(R"({"suite": "night\u0000ly"})").find("\"suite\" must be"), std::string::npos);
  EXPECT_NE(Refusal("{\"suite\": \"\xff\"}").find("bad JSON"), std::string::npos);
  EXPECT_NE(Refusal(R"({"suite": "\ud800"})").find("field \"suite\""), std::string::npos);
  EXPECT_NE(Refusal(R"({"": 1})").find("unknown field \"\""), std::string::npos);
}

TEST(LastParameter, OneToTheMaximumElseAnErrorNamingIt) {
  EXPECT_EQ(*LastParameter(HttpRequest{}), kDefaultLast);
  EXPECT_EQ(*LastParameter(WithLast("1")), 1u);
  EXPECT_EQ(*LastParameter(WithLast(std::to_string(kMaxLast))), kMaxLast);
  for (const std::string bad : {"0", "-1", "", "abc", "1.5", "+5", " 5", "0x10", "1001", "99999999999999999999"}) {
    auto last = LastParameter(WithLast(bad));
    ASSERT_FALSE(last.ok()) << bad;
    EXPECT_EQ(last.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(last.status().message().rfind("last=" + bad + ": ", 0), 0u) << last.status().message();
  }
}

}  // namespace
}  // namespace iofleet::controller
