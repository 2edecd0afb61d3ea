#include "controller/fleet/fleet.h"

#include <time.h>

#include <chrono>
#include <iostream>
#include <map>

#include "controller/fleet/agent_list.h"
#include "controller/fleet/connect_diagnosis.h"

namespace iofleet::controller {
namespace {

constexpr std::chrono::milliseconds kHelloDeadline{5000};
// A plain connect that tells why Hello failed; short, since Hello already waited its deadline.
constexpr std::chrono::milliseconds kDiagnoseTimeout{2000};

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

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

uint64_t UnixNowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

namespace {

// Hello and clock for every address; the status of each, in order, unreachable ones printed.
std::vector<Status> Introduce(Fleet& fleet, const std::vector<std::string>& addresses, const std::optional<TlsFiles>& tls,
                              std::ostream& log) {
  for (const auto& address : addresses) {
    auto agent = std::make_unique<FleetAgent>();
    agent->client = std::make_unique<AgentClient>(address, tls);
    fleet.push_back(std::move(agent));
  }
  std::vector<Status> errors(fleet.size());
  // A Hello that failed in transport says only "unavailable" or "deadline exceeded": each agent's
  // own thread asks the network why (refused, unresolved, timed out, or a port that connects: TLS
  // or not gRPC), so many dead agents cost one diagnosis time, not one each.
  ForEachAgent(fleet, [&](size_t i) {
    const std::string& address = fleet[i]->client->address();
    auto hello = fleet[i]->client->Hello(kHelloDeadline);
    if (!hello.ok()) {
      const Status& st = hello.status();
      const bool transport = st.code() == Code::kUnavailable || st.code() == Code::kDeadlineExceeded;
      errors[i] = Unavailable("agent " + address + ": unreachable: " +
                              (transport ? UnreachableReason(address, st.message(), tls.has_value(),
                                                             tls ? tls->server_name : "", kDiagnoseTimeout)
                                         : st.message()));
      return;
    }
    fleet[i]->hello = *hello;
    Status clock = MeasureClock(*fleet[i]);
    if (!clock.ok()) errors[i] = Unavailable("agent " + address + ": unreachable: " + clock.message());
  });
  for (const Status& st : errors) {
    if (!st.ok()) log << "iofleet: " << st.message() << "\n";
  }
  return errors;
}

// Unique names: the hello name, "-<port>" added on a clash.
void NameUniquely(Fleet& fleet) {
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
}

}  // namespace

Result<Fleet> ConnectFleet(const std::vector<std::string>& addresses, const std::optional<TlsFiles>& tls, std::ostream& log) {
  Fleet fleet;
  for (const Status& st : Introduce(fleet, addresses, tls, log)) {
    if (!st.ok()) return st;
  }
  NameUniquely(fleet);
  return fleet;
}

Fleet ConnectReachable(const std::vector<std::string>& addresses, const std::optional<TlsFiles>& tls, std::ostream& log,
                       size_t& unreachable) {
  Fleet all;
  std::vector<Status> errors = Introduce(all, addresses, tls, log);
  Fleet answered;
  unreachable = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (errors[i].ok()) answered.push_back(std::move(all[i]));
    else ++unreachable;
  }
  NameUniquely(answered);
  return answered;
}

}  // namespace iofleet::controller
