// The agents of one controller command: connected, introduced (Hello), named uniquely, and
// with their clock offsets measured.
#pragma once

#include <atomic>
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
  bool prepared = false;
  // A step's Start stream is open: it keeps the agent's lease alive by itself.
  std::atomic<bool> streaming{false};
  // Live figures of the current step, written by the agent's stream thread, read by the printer.
  std::atomic<uint64_t> live_ops{0};
  std::atomic<uint64_t> live_bytes{0};
  std::atomic<uint64_t> live_elapsed_ns{0};  // since the agent released its jobs
};

using Fleet = std::vector<std::unique_ptr<FleetAgent>>;

// Runs fn(i) for every agent on its own thread and waits for all of them.
template <typename Fn>
void ForEachAgent(Fleet& fleet, Fn fn) {
  std::vector<std::thread> threads;
  threads.reserve(fleet.size());
  for (size_t i = 0; i < fleet.size(); ++i) threads.emplace_back([&, i] { fn(i); });
  for (auto& t : threads) t.join();
}

// Says Hello to every address at once (5 s deadline each) and measures clock offsets. Every
// unreachable agent is printed to stderr; the status names the first.
Result<Fleet> ConnectFleet(const std::vector<std::string>& addresses, const std::optional<TlsFiles>& tls);

// The controller's wall clock in nanoseconds since the epoch.
uint64_t UnixNowNs();

}  // namespace iofleet::controller
