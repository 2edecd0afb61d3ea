#include "agent/service/listen_address.h"

#include "core/base/loopback.h"

namespace iofleet::agent {

bool IsLoopbackOrUnix(const std::string& address) {
  if (address.rfind("unix:", 0) == 0) return address.size() > 5;
  std::string host;
  if (!address.empty() && address[0] == '[') {
    size_t close = address.find(']');
    if (close == std::string::npos || address.compare(close + 1, 1, ":") != 0) return false;
    host = address.substr(1, close - 1);
  } else {
    size_t colon = address.rfind(':');
    if (colon == std::string::npos) return false;
    host = address.substr(0, colon);
  }
  return IsLoopbackHost(host);
}

}  // namespace iofleet::agent
