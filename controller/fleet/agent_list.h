// Parses --agents: "host:port,host:port", "[::1]:7070", "unix:/path".
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"

namespace iofleet::controller {

Result<std::vector<std::string>> ParseAgentList(const std::string& spec);

// The port of "host:port" or "[v6]:port", or "" (unix sockets).
std::string PortOf(const std::string& address);

}  // namespace iofleet::controller
