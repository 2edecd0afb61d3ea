#include "controller/fleet/agent_list.h"

#include <set>

namespace iofleet::controller {
namespace {

bool ValidAddress(const std::string& a) {
  if (a.rfind("unix:", 0) == 0) return a.size() > 5;
  std::string port = PortOf(a);
  if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos) return false;
  if (std::stoul(port) == 0 || std::stoul(port) > 65535) return false;
  return a.size() > port.size() + 1;
}

}  // namespace

std::string PortOf(const std::string& address) {
  if (address.rfind("unix:", 0) == 0) return "";
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return "";
  if (address.find(']') != std::string::npos && address.find(']') > colon) return "";
  return address.substr(colon + 1);
}

Result<std::vector<std::string>> ParseAgentList(const std::string& spec) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    if (!ValidAddress(item)) {
      return InvalidArgument("--agents: \"" + item + "\" is not host:port, [v6]:port or unix:PATH");
    }
    if (!seen.insert(item).second) return InvalidArgument("--agents: \"" + item + "\" is listed twice");
    out.push_back(item);
  }
  if (out.empty()) return InvalidArgument("--agents: no agent address given");
  return out;
}

}  // namespace iofleet::controller
