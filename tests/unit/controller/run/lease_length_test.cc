#include "controller/run/lease_length.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;

TEST(LeaseLength, TheRunsLeaseWhereARoundOfTheFleetFitsAQuarterOfIt) {
  EXPECT_EQ(LeaseForFleet(10 * kSecond, 16, kSecond / 5), 10 * kSecond);  // 16 agents, 0.2 s to connect
  EXPECT_EQ(LeaseForFleet(10 * kSecond, 1000, 2 * kSecond), 10 * kSecond);
  EXPECT_EQ(LeaseForFleet(10 * kSecond, 0, 100 * kSecond), 10 * kSecond);
}

TEST(LeaseLength, LongerWhereConnectingShowsARoundTakesLonger) {
  // 10,000 simulated agents on 2 cores took 30 s to connect (9 calls each): a round of one call
  // each is about 3.3 s, and a period of the lease holds two.
  const uint64_t lease = LeaseForFleet(10 * kSecond, 10'000, 30 * kSecond);
  EXPECT_EQ(lease, 30 * kSecond / kConnectCallsPerAgent * 8);
  EXPECT_GE(lease / 4, 2 * (30 * kSecond / kConnectCallsPerAgent));
  EXPECT_EQ(LeaseForFleet(10 * kSecond, 2, UINT64_MAX), UINT64_MAX / kConnectCallsPerAgent * 8) << "no wrap";
}

}  // namespace
}  // namespace iofleet::controller
