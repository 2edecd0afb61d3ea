#include "controller/serve/response_headers.h"

#include <strings.h>

#include <string_view>

namespace iofleet::controller {
namespace {

namespace http = boost::beast::http;

bool SafeHeaderText(std::string_view text) { return text.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos; }

bool SameName(const std::string& a, const char* b) { return strcasecmp(a.c_str(), b) == 0; }

}  // namespace

void SetResponseHeaders(const HttpResponse& response, bool tls, http::fields& fields) {
  bool cache_control = false;
  for (const auto& [name, value] : response.headers) {
    if (name.empty() || !SafeHeaderText(name) || !SafeHeaderText(value)) continue;
    // The server's own headers are not the handler's to replace or repeat.
    if (SameName(name, "Set-Cookie") || SameName(name, "Set-Cookie2") || SameName(name, "Content-Length") ||
        SameName(name, "Transfer-Encoding") || SameName(name, "Connection") || SameName(name, "Content-Type")) {
      continue;
    }
    if (SameName(name, "Cache-Control")) cache_control = true;
    fields.insert(name, value);
  }
  if (SafeHeaderText(response.content_type) && !response.content_type.empty()) {
    fields.set(http::field::content_type, response.content_type);
  }
  if (!cache_control) fields.set(http::field::cache_control, "no-store");
  fields.set("X-Content-Type-Options", "nosniff");
  fields.set("Referrer-Policy", "no-referrer");
  fields.set("X-Frame-Options", "DENY");
  if (tls) fields.set(http::field::strict_transport_security, "max-age=31536000");
  fields.set(http::field::server, "iofleet");
}

}  // namespace iofleet::controller
