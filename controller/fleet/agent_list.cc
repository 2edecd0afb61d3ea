#include "controller/fleet/agent_list.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <yaml-cpp/yaml.h>

#include <set>

namespace iofleet::controller {
namespace {

constexpr size_t kMaxAgents = 100000;

bool ValidAddress(const std::string& a) {
  if (a.rfind("unix:", 0) == 0) return a.size() > 5;
  std::string port = PortOf(a);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return false;
  if (std::stoul(port) == 0 || std::stoul(port) > 65535) return false;
  return a.size() > port.size() + 1;
}

// Splits on commas that are not inside brackets.
std::vector<std::string> SplitTopLevel(const std::string& spec) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : spec) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);
  return parts;
}

// "node[01-03,7]:70" -> node01:70 node02:70 node03:70 node7:70 (every bracket group expands).
Status ExpandRanges(const std::string& item, std::vector<std::string>& out) {
  size_t open = item.find('[');
  if (open == std::string::npos) {
    out.push_back(item);
    return Status::Ok();
  }
  size_t close = item.find(']', open);
  if (close == std::string::npos) return InvalidArgument("--agents: \"" + item + "\" has an unclosed '['");
  std::string body = item.substr(open + 1, close - open - 1);
  if (body.find(':') != std::string::npos && open == 0) {  // [::1]:7070
    out.push_back(item);
    return Status::Ok();
  }
  std::string prefix = item.substr(0, open), suffix = item.substr(close + 1);
  for (const std::string& element : SplitTopLevel(body)) {
    size_t dash = element.find('-');
    std::string first = element.substr(0, dash);
    std::string last = dash == std::string::npos ? first : element.substr(dash + 1);
    bool digits = !first.empty() && !last.empty() && first.find_first_not_of("0123456789") == std::string::npos &&
                  last.find_first_not_of("0123456789") == std::string::npos && first.size() < 10 && last.size() < 10;
    if (!digits) return InvalidArgument("--agents: \"" + element + "\" in \"" + item + "\" is not N or N-M");
    unsigned long from = std::stoul(first), to = std::stoul(last);
    if (from > to) return InvalidArgument("--agents: range \"" + element + "\" in \"" + item + "\" runs backwards");
    if (to - from >= kMaxAgents) return InvalidArgument("--agents: range \"" + element + "\" is too large");
    for (unsigned long n = from; n <= to; ++n) {
      std::string number = std::to_string(n);
      if (number.size() < first.size()) number.insert(0, first.size() - number.size(), '0');
      IOFLEET_RETURN_IF_ERROR(ExpandRanges(prefix + number + suffix, out));
      if (out.size() > kMaxAgents) return InvalidArgument("--agents: more than 100000 agents");
    }
  }
  return Status::Ok();
}

Status ResolveDns(const std::string& item, std::vector<std::string>& out) {
  std::string rest = item.substr(4);
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) return InvalidArgument("--agents: \"" + item + "\" is not dns:NAME:PORT");
  std::string name = rest.substr(0, colon), port = rest.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  int rc = getaddrinfo(name.c_str(), port.c_str(), &hints, &result);
  if (rc != 0) return Unavailable("--agents: " + item + ": cannot resolve " + name + ": " + gai_strerror(rc));
  std::set<std::string> seen;
  for (addrinfo* ai = result; ai; ai = ai->ai_next) {
    char host[INET6_ADDRSTRLEN] = {};
    if (ai->ai_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr, host, sizeof(host));
      if (seen.insert(host).second) out.push_back(std::string(host) + ":" + port);
    } else if (ai->ai_family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr, host, sizeof(host));
      if (seen.insert(host).second) out.push_back("[" + std::string(host) + "]:" + port);
    }
  }
  freeaddrinfo(result);
  return Status::Ok();
}

Status ParseInto(const std::string& spec, std::vector<std::string>& out, int nesting);

Status LoadFile(const std::string& path, std::vector<std::string>& out, int nesting) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return InvalidArgument("--agents @" + path + ": cannot read the file");
  } catch (const YAML::Exception& e) {
    return InvalidArgument(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  YAML::Node list = root.IsMap() ? root["agents"] : root;
  if (root.IsMap() && root.size() != 1) {
    return InvalidArgument(path + ":1:1: an agents file is a list of addresses, or a map with only \"agents\"");
  }
  if (!list || !list.IsSequence()) return InvalidArgument(path + ":1:1: expected a list of agent addresses");
  for (const auto& item : list) {
    auto where = [&] { return path + ":" + std::to_string(item.Mark().line + 1) + ":" + std::to_string(item.Mark().column + 1); };
    if (!item.IsScalar()) return InvalidArgument(where() + ": expected an address");
    Status st = ParseInto(item.Scalar(), out, nesting + 1);
    if (!st.ok()) return InvalidArgument(where() + ": " + st.message());
  }
  return Status::Ok();
}

Status ParseInto(const std::string& spec, std::vector<std::string>& out, int nesting) {
  if (nesting > 4) return InvalidArgument("--agents: agents files nest too deep");
  for (const std::string& item : SplitTopLevel(spec)) {
    if (item.empty()) continue;
    if (item[0] == '@') {
      IOFLEET_RETURN_IF_ERROR(LoadFile(item.substr(1), out, nesting));
    } else if (item.rfind("dns:", 0) == 0) {
      IOFLEET_RETURN_IF_ERROR(ResolveDns(item, out));
    } else if (item.rfind("unix:", 0) == 0) {
      out.push_back(item);
    } else {
      IOFLEET_RETURN_IF_ERROR(ExpandRanges(item, out));
    }
  }
  return Status::Ok();
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
  std::vector<std::string> expanded;
  IOFLEET_RETURN_IF_ERROR(ParseInto(spec, expanded, 0));
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& item : expanded) {
    // A host:port never holds white space; a unix: path may (a folder with a space in its name).
    if (item.rfind("unix:", 0) != 0 && item.find_first_of(" \t\n") != std::string::npos) {
      return InvalidArgument("--agents: \"" + item + "\" holds white space: separate addresses with commas (a,b), not spaces");
    }
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
