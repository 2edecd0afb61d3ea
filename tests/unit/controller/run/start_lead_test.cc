// The start instant's lead: conservative until a step has measured its fan-out, then from the
// step before's, and back to conservative after a Start that came too late or unsaid.
#include "controller/run/start_lead.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

TEST(StartLead, ARunsFirstStepTakesTheConservativeLead) {
  StartLead lead;
  EXPECT_EQ(lead.NextNs(50'000, 6), 100'000'000u) << "100 ms at least";
  EXPECT_EQ(lead.NextNs(10'000'000, 16), 203'200'000u) << "20 round trips of 10 ms + 200 us an agent";
  EXPECT_FALSE(lead.fan_out_ns().has_value());
}

TEST(StartLead, LaterStepsTakeFourTimesTheFanOutBeforeThem) {
  StartLead lead;
  // Chosen at 1 s for 1.1 s; the agents had their Starts 0.4 and 2.5 ms after the choice.
  lead.Observe(1'000'000'000, 1'100'000'000, {1'000'400'000, 1'002'500'000});
  ASSERT_EQ(lead.fan_out_ns(), 2'500'000u);
  EXPECT_EQ(lead.NextNs(50'000, 2), 10'000'000u);
  // A fan-out of a few microseconds still leaves a scheduling period.
  lead.Observe(1'000'000'000, 1'010'000'000, {1'000'000'300});
  EXPECT_EQ(lead.NextNs(50'000, 1), kMinMeasuredLeadNs);
  // A receipt a little before the choice is the clock offset's error: no fan-out, not a failure.
  lead.Observe(1'000'000'000, 1'010'000'000, {999'999'900});
  EXPECT_EQ(lead.fan_out_ns(), 0u);
  // Never more than the conservative lead (a slow fan-out on a large fleet).
  lead.Observe(1'000'000'000, 1'200'000'000, {1'090'000'000});
  EXPECT_EQ(lead.NextNs(50'000, 6), 100'000'000u);
}

TEST(StartLead, ALateOrUnsaidStartPutsTheNextStepBackOnTheConservativeLead) {
  StartLead lead;
  lead.Observe(1'000'000'000, 1'005'000'000, {1'001'000'000, 1'005'000'000});  // the second at its instant
  EXPECT_FALSE(lead.fan_out_ns().has_value());
  EXPECT_EQ(lead.NextNs(50'000, 2), 100'000'000u);
  lead.Observe(1'000'000'000, 1'005'000'000, {1'001'000'000, std::nullopt});  // an agent that did not say
  EXPECT_FALSE(lead.fan_out_ns().has_value());
  lead.Observe(1'000'000'000, 1'005'000'000, {});
  EXPECT_FALSE(lead.fan_out_ns().has_value());
  // An absurd receipt (a stepped clock) is no reading either.
  lead.Observe(1'000'000'000, 100'000'000'000, {90'000'000'000});
  EXPECT_FALSE(lead.fan_out_ns().has_value());
}

}  // namespace
}  // namespace iofleet::controller
