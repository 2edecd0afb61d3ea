#include "controller/fleet/fleet.h"

#include <time.h>

#include <iostream>
#include <map>

#include "controller/fleet/agent_list.h"

namespace iofleet::controller {
namespace {

constexpr std::chrono::milliseconds kHelloDeadline{5000};
constexpr int kClockSamples = 8;

// NTP's estimate from the fastest of several exchanges: the agent read its clock halfway
// through the round trip, give or take half of that (fastest) round trip.
// A failed exchange fails the agent: an offset of 0 kept silently would skew its start.
Status MeasureClock(FleetAgent& agent) {
  uint64_t best_rtt = UINT64_MAX;
  for (int i = 0; i < kClockSamples; ++i) {
    uint64_t t0 = UnixNowNs();
    auto clock = agent.client->Clock(kHelloDeadline);
    uint64_t t1 = UnixNowNs();
    if (!clock.ok()) return Status(clock.status().code(), "clock exchange failed: " + clock.status().message());
    uint64_t rtt = t1 - t0;
    if (rtt < best_rtt) {
      best_rtt = rtt;
      agent.rtt_ns = rtt;
      agent.clock_offset_ns = static_cast<int64_t>(clock->unix_ns()) - static_cast<int64_t>(t0 + rtt / 2);
    }
  }
  return Status::Ok();
}

}  // namespace

uint64_t UnixNowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

Result<Fleet> ConnectFleet(const std::vector<std::string>& addresses, const std::optional<TlsFiles>& tls, std::ostream& log) {
  Fleet fleet;
  for (const auto& address : addresses) {
    auto agent = std::make_unique<FleetAgent>();
    agent->client = std::make_unique<AgentClient>(address, tls);
    fleet.push_back(std::move(agent));
  }
  std::vector<Status> errors(fleet.size());
  ForEachAgent(fleet, [&](size_t i) {
    auto hello = fleet[i]->client->Hello(kHelloDeadline);
    if (!hello.ok()) {
      errors[i] = hello.status();
      return;
    }
    fleet[i]->hello = *hello;
    errors[i] = MeasureClock(*fleet[i]);
  });
  Status first;
  for (size_t i = 0; i < fleet.size(); ++i) {
    if (errors[i].ok()) continue;
    // gRPC does not say why a TLS handshake failed: name what must hold.
    std::string hint = !tls ? " (if it serves TLS, pass --tls-dir)"
                            : " (with TLS, check that it runs, that its certificate is signed by this --tls-dir's ca.pem "
                              "for server use and names " +
                                  (tls->server_name.empty() ? "the host part of its address" : tls->server_name) +
                                  " (--tls-server-name), and that this side's certificate is a controller's, for client use)";
    std::string message = "agent " + fleet[i]->client->address() + ": unreachable: " + errors[i].message() + hint;
    log << "iofleet: " << message << "\n";
    if (first.ok()) first = Unavailable(message);
  }
  if (!first.ok()) return first;

  std::map<std::string, int> uses;
  for (auto& a : fleet) uses[a->hello.name()]++;
  std::map<std::string, int> taken;
  for (auto& a : fleet) {
    a->name = a->hello.name();
    if (uses[a->name] > 1) {
      std::string port = PortOf(a->client->address());
      a->name += "-" + (port.empty() ? std::to_string(taken[a->name] + 1) : port);
    }
    if (taken[a->name]++ > 0) a->name += "-" + std::to_string(taken[a->name]);  // same name and port
  }
  return fleet;
}

}  // namespace iofleet::controller
