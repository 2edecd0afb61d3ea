// One HTTP/1.1 PUT with a deadline (Boost.Beast): enough for the pushgateway's push API, so the
// controller needs no HTTP client library.
#pragma once

#include <chrono>
#include <string>

#include "core/base/status.h"

namespace iofleet::controller {

// PUT `body` (Content-Type `content_type`) to http://host:port`target`. Ok on a 2xx answer;
// otherwise a Status naming what failed: resolve, connect, timeout, or "HTTP 400: <answer>".
Status HttpPut(const std::string& host, const std::string& port, const std::string& target, const std::string& body,
               const std::string& content_type, std::chrono::milliseconds timeout);

}  // namespace iofleet::controller
