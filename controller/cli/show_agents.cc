#include "controller/cli/show_agents.h"

#include <fmt/format.h>

#include <iostream>

#include "controller/fleet/fleet.h"
#include "core/base/exit_code.h"
#include "core/base/version.h"

namespace iofleet::controller {

int ShowAgents(const std::vector<std::string>& addresses, const std::optional<TlsFiles>& tls) {
  // The agents that answered get their rows; each one that did not is named on stderr (with why)
  // and makes the exit code 1.
  size_t unreachable = 0;
  Fleet fleet = ConnectReachable(addresses, tls, std::cerr, unreachable);
  int code = kExitOk;
  std::cout << fmt::format("{:<16} {:<24} {:<22} {:>10} {:>14}  {:<28} {}\n", "agent", "address", "version (revision)", "rtt",
                           "clock offset", "engines", "roots");
  for (const auto& a : fleet) {
    std::string engines, roots;
    for (const auto& e : a->hello.engines()) engines += (engines.empty() ? "" : ",") + e;
    for (const auto& r : a->hello.roots()) roots += (roots.empty() ? "" : " ") + r.name() + "=" + r.path();
    const std::string version = a->hello.version() + " (" + (a->hello.revision().empty() ? "?" : a->hello.revision()) + ")";
    std::cout << fmt::format("{:<16} {:<24} {:<22} {:>8.3f}ms {:>12.3f}ms  {:<28} {}\n", a->name, a->client->address(),
                             version, a->rtt_ns / 1e6, a->clock_offset_ns / 1e6, engines, roots);
    if (!CompatibleVersion(a->hello.version())) {
      std::cerr << "iofleet: agent " << a->name << " runs version " << a->hello.version() << ", this controller "
                << kVersion << ": use the same major.minor version\n";
      code = kExitRejected;
    }
  }
  if (unreachable > 0) {
    std::cerr << "iofleet: " << unreachable << " of " << addresses.size() << " agent(s) did not answer\n";
    if (code == kExitOk) code = kExitFailed;
  }
  return code;
}

}  // namespace iofleet::controller
