#include "agent/service/listen_address.h"

#include <arpa/inet.h>

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
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

}  // namespace iofleet::agent
