// How long the agents' lease is for a fleet: the run's lease (10 s by default), or longer where
// the fleet is so large that one round of calls to every agent would not fit a quarter of it.
// The lease keeper renews each agent a quarter lease after its last renewing call; if renewing
// the whole fleet takes longer than that, agents lose their run while the controller is busy
// renewing the others (10,000 simulated agents on 2 cores: 30 s to connect, 13.7 s for one round
// of Renew, and half the leases ran out). The round's length is not guessed: connecting made
// 1 + kClockSamples calls to every agent through the same fan-out, so a round of one call each
// takes about connect time / (1 + kClockSamples), and the lease leaves two such rounds a period.
#pragma once

#include <cstddef>
#include <cstdint>

#include "controller/fleet/fleet.h"

namespace iofleet::controller {

// The lease for `agents` that took `connect_ns` to connect, at least `lease_ns`.
inline uint64_t LeaseForFleet(uint64_t lease_ns, size_t agents, uint64_t connect_ns) {
  if (agents == 0) return lease_ns;
  const uint64_t round_ns = connect_ns / kConnectCallsPerAgent;
  const uint64_t needed = round_ns > UINT64_MAX / 8 ? UINT64_MAX : round_ns * 8;  // a period (lease / 4) holds two rounds
  return needed > lease_ns ? needed : lease_ns;
}

}  // namespace iofleet::controller
