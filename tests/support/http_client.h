// Plain HTTP/1.1 GET for integration tests (Boost.Beast): reading a pushgateway's or Prometheus's
// pages and APIs on loopback.
#pragma once

#include <chrono>
#include <map>
#include <utility>
#include <vector>
#include <string>

namespace iofleet::testing {

struct HttpAnswer {
  int status = 0;     // 0: no answer (error says why)
  std::string body;
  std::string error;
  std::map<std::string, std::string> headers;  // names in lower case
};

// GET http://`address``target` (address "127.0.0.1:9091"), within `timeout`.
HttpAnswer HttpGet(const std::string& address, const std::string& target,
                   std::chrono::milliseconds timeout = std::chrono::seconds(5));

// Any method, with request headers ({"Authorization", "Bearer x"}) and a body.
HttpAnswer HttpCall(const std::string& method, const std::string& address, const std::string& target,
                    const std::vector<std::pair<std::string, std::string>>& headers = {}, const std::string& body = "",
                    std::chrono::milliseconds timeout = std::chrono::seconds(5));

// Percent-encodes everything but RFC 3986's unreserved characters (a PromQL query in a URL).
std::string UrlEncode(const std::string& text);

// A loopback TCP port nobody listened on a moment ago (bound to 0, read back, closed): for
// servers that cannot report the port they chose, such as Prometheus and the pushgateway.
int FreeLoopbackPort();

// A TCP socket listening on 127.0.0.1 at a port the kernel chose (written to `port`): for test
// servers that accept connections themselves. -1 on failure.
int ListenOnLoopback(int backlog, int& port);

// A TCP connection to 127.0.0.1:`port` from `source` (any address of 127.0.0.0/8: the loopback
// interface has them all, so one test can be many clients) that sends `partial` and then nothing:
// a half-open client. -1 on failure. The caller closes it.
int ConnectSilently(int port, const std::string& source = "127.0.0.1", const std::string& partial = "GET /met");

}  // namespace iofleet::testing
