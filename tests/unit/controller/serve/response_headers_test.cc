#include "controller/serve/response_headers.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

namespace http = boost::beast::http;

TEST(ResponseHeadersTest, EveryAnswerCarriesTheSecurityHeaders) {
  http::fields fields;
  SetResponseHeaders(HttpResponse::Json(200, "{}"), false, fields);
  EXPECT_EQ(fields["X-Content-Type-Options"], "nosniff");
  EXPECT_EQ(fields["Cache-Control"], "no-store");
  EXPECT_EQ(fields["Referrer-Policy"], "no-referrer");
  EXPECT_EQ(fields["X-Frame-Options"], "DENY");
  EXPECT_EQ(fields["Content-Type"], "application/json");
  EXPECT_EQ(fields.count("Strict-Transport-Security"), 0u);
  http::fields tls;
  SetResponseHeaders(HttpResponse::Json(200, "{}"), true, tls);
  EXPECT_EQ(tls["Strict-Transport-Security"], "max-age=31536000");
}

TEST(ResponseHeadersTest, TheHandlersHeadersFiltered) {
  HttpResponse response;
  response.content_type = "text/html; charset=utf-8";
  response.headers = {{"Cache-Control", "max-age=60"}, {"Set-Cookie", "a=b"}, {"set-cookie", "c=d"},
                      {"X-Injected", "a\r\nSet-Cookie: x=y"}, {"Location", "/runs"}, {"Content-Length", "5"},
                      {"X-Frame-Options", "ALLOW"}};
  http::fields fields;
  SetResponseHeaders(response, false, fields);
  EXPECT_EQ(fields["Cache-Control"], "max-age=60");
  EXPECT_EQ(fields.count("Set-Cookie"), 0u);
  EXPECT_EQ(fields.count("X-Injected"), 0u);
  EXPECT_EQ(fields.count("Content-Length"), 0u);
  EXPECT_EQ(fields["Location"], "/runs");
  EXPECT_EQ(fields["Content-Type"], "text/html; charset=utf-8");
  EXPECT_EQ(fields.count("X-Frame-Options"), 1u);
  EXPECT_EQ(fields["X-Frame-Options"], "DENY");
}

TEST(ResponseHeadersTest, ErrorIsAJsonReason) {
  HttpResponse response = HttpResponse::Error(404, "no run \"7\"");
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(response.content_type, "application/json");
  EXPECT_EQ(response.body, "{\"error\":\"no run \\\"7\\\"\"}\n");
  // Bytes that are not UTF-8 (a client's target quoted back) do not throw.
  EXPECT_NO_THROW(HttpResponse::Error(400, std::string("bad \xff name")));
}

}  // namespace
}  // namespace iofleet::controller
