// One HTTP/1.1 request with a deadline (Boost.Beast, with OpenSSL for https): enough for the
// pushgateway's push API and serve's webhooks, so the controller needs no HTTP client library.
#pragma once

#include <chrono>
#include <string>

#include "core/base/status.h"

namespace iofleet::controller {

struct HttpEndpoint {
  std::string host;  // a name, IPv4, or IPv6 without its brackets
  std::string port;
  bool tls = false;  // https: the server's certificate is checked against the system's CAs and `host`
};

// `method` (PUT or POST) `body` (Content-Type `content_type`) to the endpoint's `target`. Ok on a
// 2xx answer; otherwise a Status naming what failed: resolve, connect, TLS, timeout, or
// "HTTP 400: <answer>".
Status HttpSend(const std::string& method, const HttpEndpoint& endpoint, const std::string& target, const std::string& body,
                const std::string& content_type, std::chrono::milliseconds timeout);

inline Status HttpPut(const std::string& host, const std::string& port, const std::string& target, const std::string& body,
                      const std::string& content_type, std::chrono::milliseconds timeout) {
  return HttpSend("PUT", {host, port, false}, target, body, content_type, timeout);
}

}  // namespace iofleet::controller
