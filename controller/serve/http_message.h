// What `iofleet serve`'s HTTP layer hands a handler and what the handler gives back: plain
// structs, no Beast types, so the routes are written and tested without a socket.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/base/unique_fd.h"

namespace iofleet::controller {

struct HttpRequest {
  std::string method;      // "GET", "HEAD", "POST" or "DELETE" (others never reach a handler)
  std::string path;        // percent-decoded once, checked (controller/serve/request_target.h)
  std::string raw_target;  // as sent
  std::map<std::string, std::string> query;  // decoded
  std::string authorization;  // the Authorization header, empty when absent
  std::string content_type;
  std::string host;  // the Host header
  std::string body;
  std::string peer;  // the client's IP address
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // When valid, the body is this whole file, streamed from its start (`body` is then ignored).
  // Open it with OpenBeneath.
  UniqueFd file;
  // Extra headers. Set-Cookie is dropped (no cookies, ever), and so is any header whose name or
  // value holds CR, LF or NUL. A Cache-Control here replaces the default "no-store".
  std::vector<std::pair<std::string, std::string>> headers;

  static HttpResponse Json(int status, std::string body);
  // {"error": reason}
  static HttpResponse Error(int status, const std::string& reason);
};

// Called on the server's threads, several at once for different connections; may block briefly
// (SQLite reads) but not for long: each call holds one of the server's threads.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

}  // namespace iofleet::controller
