// The headers every answer of `iofleet serve` carries, and the handler's own headers, filtered.
#pragma once

#include <boost/beast/http/fields.hpp>

#include "controller/serve/http_message.h"

namespace iofleet::controller {

// Content-Type, the handler's headers (without Set-Cookie, and without any name or value holding
// CR, LF or NUL), X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer,
// X-Frame-Options: DENY, Cache-Control: no-store unless the handler set one, and
// Strict-Transport-Security when `tls`.
void SetResponseHeaders(const HttpResponse& response, bool tls, boost::beast::http::fields& fields);

}  // namespace iofleet::controller
