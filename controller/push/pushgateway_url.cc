#include "controller/push/pushgateway_url.h"

#include <algorithm>
#include <cctype>

namespace iofleet::controller {

Result<PushgatewayUrl> ParsePushgatewayUrl(const std::string& text) {
  const std::string where = "--pushgateway " + text + ": ";
  const std::string scheme = "http://";
  if (text.rfind(scheme, 0) != 0) {
    return InvalidArgument(where + "write http://HOST:PORT, e.g. http://pushgateway:9091 (https needs a proxy in front)");
  }
  PushgatewayUrl url;
  url.text = text;
  std::string rest = text.substr(scheme.size());
  if (rest.find_first_of("?#") != std::string::npos) return InvalidArgument(where + "a query or fragment has no meaning here");
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) url.prefix = rest.substr(slash);
  while (!url.prefix.empty() && url.prefix.back() == '/') url.prefix.pop_back();
  if (authority.find('@') != std::string::npos) {
    return InvalidArgument(where + "no user or password in the URL (it would show in logs)");
  }
  if (!authority.empty() && authority[0] == '[') {  // [v6]:port
    size_t close = authority.find(']');
    if (close == std::string::npos) return InvalidArgument(where + "an IPv6 address needs its closing ]");
    url.host = authority.substr(1, close - 1);
    std::string after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return InvalidArgument(where + "expected :PORT after ]");
      url.port = after.substr(1);
    }
  } else {
    size_t colon = authority.find(':');
    url.host = authority.substr(0, colon);
    if (colon != std::string::npos) url.port = authority.substr(colon + 1);
    if (colon != std::string::npos && url.port.empty()) return InvalidArgument(where + "the port is empty");
  }
  if (url.host.empty()) return InvalidArgument(where + "no host");
  if (url.port.empty()) url.port = "80";
  bool digits = std::all_of(url.port.begin(), url.port.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!digits || url.port.size() > 5 || std::stoi(url.port) == 0 || std::stoi(url.port) > 65535) {
    return InvalidArgument(where + "\"" + url.port + "\" is not a port (1..65535)");
  }
  return url;
}

}  // namespace iofleet::controller
