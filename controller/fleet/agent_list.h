// Parses --agents SPEC into agent addresses:
//   host:port,host:port     a list
//   node[01-16]:7070        a range (zero-padding follows the first bound); node[1-3,7]:7070
//   [::1]:7070              brackets holding ':' are an IPv6 address
//   unix:/run/iofleet.sock  a unix socket
//   @agents.yaml            a YAML list of any of these (or { agents: [...] })
//   dns:NAME:PORT           every address NAME resolves to (e.g. a Kubernetes headless service)
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"

namespace iofleet::controller {

Result<std::vector<std::string>> ParseAgentList(const std::string& spec);

// The port of "host:port" or "[v6]:port", or "" (unix sockets).
std::string PortOf(const std::string& address);

}  // namespace iofleet::controller
