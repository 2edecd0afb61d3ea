// How far ahead of now a step's one start instant is set: far enough that every agent has its
// Start before it, no further (the lead is part of every step's fixed cost).
//
// The first io step of a run has nothing measured: the conservative lead, 100 ms or 20 round
// trips plus 200 us per agent. Each step after it takes 4x the fan-out of the step before (from
// choosing the instant to the last agent's receipt of its Start, on the controller's clock: the
// agents say when, StepResult.start_received_unix_ns), and at least kMinMeasuredLeadNs; never
// more than the conservative lead. A step whose Start reached an agent at or after its instant,
// or an agent that did not say, puts the next step back on the conservative lead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace iofleet::controller {

// One scheduling period of a busy Linux core (CFS's default latency target is 6 ms on one or two
// CPUs): an agent thread woken by the Start may wait that long for a core.
inline constexpr uint64_t kMinMeasuredLeadNs = 5'000'000;

uint64_t ConservativeLeadNs(uint64_t max_rtt_ns, size_t agents);

class StartLead {
 public:
  // The lead for the next step.
  uint64_t NextNs(uint64_t max_rtt_ns, size_t agents) const;
  // What the step just run showed: when its instant was chosen and the instant (controller's
  // clock), and when each agent received its Start (controller's clock; nullopt: not said).
  void Observe(uint64_t decided_ns, uint64_t start_at_ns, const std::vector<std::optional<int64_t>>& received_ns);
  // The last fan-out measured (nullopt: the next lead is the conservative one).
  std::optional<uint64_t> fan_out_ns() const { return fan_out_ns_; }

 private:
  std::optional<uint64_t> fan_out_ns_;
};

}  // namespace iofleet::controller
