// `iofleet agents`: one line per agent with what a user checks before a run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/base/tls_files.h"

namespace iofleet::controller {

// Prints the table of the agents that answer and names the others; exit code 0, 1 when an agent
// is unreachable, 2 on a version mismatch.
int ShowAgents(const std::vector<std::string>& addresses, const std::optional<TlsFiles>& tls);

}  // namespace iofleet::controller
