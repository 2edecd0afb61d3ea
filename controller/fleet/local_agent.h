// The embedded local agent: an iofleet-agent child process on a private unix socket, driven over
// gRPC exactly like a remote agent. It dies with the controller (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace iofleet::controller {

class LocalAgent {
 public:
  ~LocalAgent();

  // Starts the agent with these "[NAME=]DIR" roots and waits until it answers.
  static Result<std::unique_ptr<LocalAgent>> Spawn(const std::vector<std::string>& roots, const std::string& config = "");

  const std::string& address() const { return address_; }

 private:
  LocalAgent() = default;

  pid_t pid_ = -1;
  std::string socket_dir_;
  std::string address_;
};

// The iofleet-agent binary: $IOFLEET_AGENT, else next to this executable.
std::string AgentBinaryPath();

}  // namespace iofleet::controller
