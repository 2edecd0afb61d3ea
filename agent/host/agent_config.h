// The agent's own config file (--config agent.yaml): what this host allows beyond plain I/O in
// its roots. Nothing from the wire can change it: a workload can only name what is here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace iofleet::agent {

// A command a hook step may run by name: argv as written (no shell unless the config asks for
// one), run in the run directory with IOFLEET_RUN_ID, IOFLEET_RUN_DIR and IOFLEET_AGENT set.
struct HookCommand {
  std::vector<std::string> argv;
  uint64_t timeout_ns = 3600ull * 1'000'000'000;  // killed (and failed) after this
};

struct AgentConfig {
  bool allow_drop_caches = false;  // drop_caches steps may write /proc/sys/vm/drop_caches
  bool allow_readahead = false;    // readahead steps may change the target's device read-ahead
  // Where the agent keeps what it must undo after a crash (the original read-ahead values).
  std::string state_dir = "/var/lib/iofleet-agent";
  std::map<std::string, HookCommand> hooks;
};

// Unknown keys and bad values are errors naming file:line:col.
Result<AgentConfig> LoadAgentConfig(const std::string& path);

}  // namespace iofleet::agent
