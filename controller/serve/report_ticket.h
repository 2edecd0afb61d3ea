// Report links that work without the bearer token for a while: a browser opens report.html in a
// new tab by navigation, which carries no Authorization header (and serve sets no cookies). The
// API hands out each report's path with an expiry and an HMAC-SHA256 of both under the token,
// as object stores presign URLs; only a holder of the token can make one.
#pragma once

#include <cstdint>
#include <string>

namespace iofleet::controller {

constexpr uint64_t kReportTicketSeconds = 3600;

// "PATH?expires=UNIX_S&sig=HEX".
std::string SignedReportUrl(const std::string& token, const std::string& path, uint64_t expires_unix_s);

// Whether `sig` is the signature of `path` until `expires` (decimal text) and that is not past.
bool ReportTicketValid(const std::string& token, const std::string& path, const std::string& expires, const std::string& sig,
                       uint64_t now_unix_s);

}  // namespace iofleet::controller
