// The agents of one controller command: connected, introduced (Hello), named uniquely, and
// with their clock offsets measured.
#pragma once

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "controller/fleet/agent_client.h"
#include "core/base/status.h"
#include "core/base/tls_files.h"

namespace iofleet::controller {

struct FleetAgent {
  std::unique_ptr<AgentClient> client;
  v1::HelloResponse hello;
  std::string name;         // unique within the run: hello name, "-<port>" added on a clash
  int64_t clock_offset_ns = 0;  // agent wall clock minus the controller's
  uint64_t rtt_ns = 0;          // of the fastest clock exchange
  std::atomic<bool> prepared{false};  // read by the lease keeper's thread
  // Lost mid-run (stream broken, keepalive timed out): not renewed, stopped with a short
  // deadline only; its lease ends its run on its side.
  std::atomic<bool> lost{false};
  // A step's Start stream is open: it keeps the agent's lease alive by itself.
  std::atomic<bool> streaming{false};
  // When (steady clock, ns) the agent's lease was last renewed, at the earliest: a Prepare or
  // Renew when it was sent, a SetupStep (which renews when it ends) a round trip before its
  // answer. The lease keeper renews only agents a period past it, the stalest first.
  std::atomic<int64_t> contact_ns{0};
};

// The steady clock in ns, for FleetAgent::contact_ns.
int64_t SteadyNowNs();

using Fleet = std::vector<std::unique_ptr<FleetAgent>>;

// Runs fn(i) for every agent and waits for all of them, on at most kFanOut threads at once: a
// thousand agents do not make a thousand threads (each call still runs in parallel with up to
// kFanOut - 1 others, so one slow agent does not hold up the rest).
inline constexpr size_t kFanOut = 64;
template <typename Fn>
void ForEachIndex(size_t count, Fn fn) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  const size_t workers = std::min(count, kFanOut);
  threads.reserve(workers);
  for (size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < count; i = next++) fn(i);
    });
  }
  for (auto& t : threads) t.join();
}
template <typename Fn>
void ForEachAgent(Fleet& fleet, Fn fn) {
  ForEachIndex(fleet.size(), fn);
}

// Clock exchanges per agent while connecting (the fastest one's offset is kept); with Hello,
// the calls connecting makes to each agent.
inline constexpr int kClockSamples = 8;
inline constexpr uint64_t kConnectCallsPerAgent = 1 + kClockSamples;

// Says Hello to every address at once (5 s deadline each) and measures clock offsets. Every
// unreachable agent is printed to stderr; the status names the first.
Result<Fleet> ConnectFleet(const std::vector<std::string>& addresses, const std::optional<TlsFiles>& tls,
                           std::ostream& log = std::cerr);

// The same, but keeps the agents that answered (named uniquely, clocks measured) and prints each
// one that did not; `unreachable` counts those. For `iofleet agents`, which shows what it can.
Fleet ConnectReachable(const std::vector<std::string>& addresses, const std::optional<TlsFiles>& tls, std::ostream& log,
                       size_t& unreachable);

// The controller's wall clock in nanoseconds since the epoch.
uint64_t UnixNowNs();

}  // namespace iofleet::controller
