// `iofleet serve --config serve.yaml`: the nightly regression service (docs/SERVE.md).
#pragma once

#include <string>

namespace iofleet::controller {

struct ServeCommandOptions {
  std::string config;
  bool check = false;  // --check: validate the config (and the workloads it names), start nothing
};

// Runs until SIGTERM or SIGINT; 0 after a clean stop, 2 for a config that is refused (nothing
// started), 1 when serving fails.
int ServeCommand(const ServeCommandOptions& options);

}  // namespace iofleet::controller
