// The `listen:` address of `iofleet serve` (HOST:PORT), resolved to the endpoint to bind.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <string>

#include "core/base/status.h"

namespace iofleet::controller {

struct ListenEndpoint {
  boost::asio::ip::tcp::endpoint endpoint;
  bool loopback = false;  // every address HOST resolves to is a loopback address
};

// HOST:PORT with HOST an IPv4 address, [IPv6] or a host name (resolved; the first address is
// bound), PORT 0..65535 (0: any free port). Errors name `what` ("listen") and the address.
Result<ListenEndpoint> ResolveListenAddress(const std::string& address, const std::string& what = "listen");

}  // namespace iofleet::controller
