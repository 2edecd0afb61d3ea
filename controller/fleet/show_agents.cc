#include "controller/fleet/show_agents.h"

#include <fmt/format.h>

#include <iostream>

#include "controller/fleet/fleet.h"

namespace iofleet::controller {

int ShowAgents(const std::vector<std::string>& addresses, const std::optional<TlsFiles>& tls) {
  auto fleet = ConnectFleet(addresses, tls);
  if (!fleet.ok()) return 1;
  int code = 0;
  std::cout << fmt::format("{:<16} {:<24} {:<8} {:>10} {:>14}  {:<28} {}\n", "agent", "address", "version", "rtt",
                           "clock offset", "engines", "roots");
  for (const auto& a : *fleet) {
    std::string engines, roots;
    for (const auto& e : a->hello.engines()) engines += (engines.empty() ? "" : ",") + e;
    for (const auto& r : a->hello.roots()) roots += (roots.empty() ? "" : " ") + r.name() + "=" + r.path();
    std::cout << fmt::format("{:<16} {:<24} {:<8} {:>8.3f}ms {:>12.3f}ms  {:<28} {}\n", a->name, a->client->address(),
                             a->hello.version(), a->rtt_ns / 1e6, a->clock_offset_ns / 1e6, engines, roots);
    if (a->hello.version() != IOFLEET_VERSION) {
      std::cerr << "iofleet: agent " << a->name << " runs version " << a->hello.version() << ", this controller "
                << IOFLEET_VERSION << "\n";
      code = 2;
    }
  }
  return code;
}

}  // namespace iofleet::controller
