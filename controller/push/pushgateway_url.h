// `--pushgateway URL`: http://HOST[:PORT][/PREFIX], checked before a run starts.
#pragma once

#include <string>

#include "core/base/status.h"

namespace iofleet::controller {

struct PushgatewayUrl {
  std::string host;    // a name, IPv4, or IPv6 without its brackets
  std::string port;    // "80" when the URL gives none
  std::string prefix;  // a path before /metrics (behind a proxy), without a trailing "/"; usually ""
  std::string text;    // as given, for messages
};

// Only plain http (the pushgateway's own server speaks nothing else without a proxy); no user
// or password in the URL (it would be printed in warnings), no query or fragment.
Result<PushgatewayUrl> ParsePushgatewayUrl(const std::string& text);

}  // namespace iofleet::controller
