// The agent's own config file (--config agent.yaml): what this host allows beyond plain I/O in
// its roots. Nothing from the wire can change it.
#pragma once

#include <string>

#include "core/base/status.h"

namespace iofleet::agent {

struct AgentConfig {
  bool allow_drop_caches = false;  // drop_caches steps may write /proc/sys/vm/drop_caches
};

// Unknown keys and bad values are errors naming file:line:col.
Result<AgentConfig> LoadAgentConfig(const std::string& path);

}  // namespace iofleet::agent
