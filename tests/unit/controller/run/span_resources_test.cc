// A steady span's host counters from its windows' (controller/run/span_resources.h).
#include "controller/run/span_resources.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

v1::ResourceStats Window(uint64_t window_ms, uint64_t busy_ms, uint32_t core_permille, const char* core) {
  v1::ResourceStats r;
  r.set_window_ns(window_ms * 1'000'000);
  r.set_in_flight(16);
  r.set_direct(true);
  r.set_max_core_busy_permille(core_permille);
  r.set_max_core(core);
  v1::DeviceStats& d = *r.add_devices();
  d.set_name("loop0");
  d.set_role("target");
  d.set_major(7);
  d.set_reads(100);
  d.set_read_bytes(409'600);
  d.set_busy_ms(busy_ms);
  d.set_queue_ms(busy_ms * 4);
  v1::ThrottleStats& t = *r.add_throttles();
  t.set_major(7);
  t.set_read_bps_limit(409'600);
  t.set_read_bytes(409'600);
  t.set_reads(100);
  v1::NetworkStats& n = *r.add_networks();
  n.set_name("eth0");
  n.set_rx_bytes(1000);
  return r;
}

TEST(SpanResources, CountersAddAndTheSameBusiestCoreIsWeightedByTime) {
  v1::ResourceStats span = Window(1000, 900, 500, "cpu1");
  v1::ResourceStats next = Window(3000, 2500, 900, "cpu1");
  next.mutable_networks(0)->set_name("eth1");
  ASSERT_TRUE(AddSpanResources(next, span));
  EXPECT_EQ(span.window_ns(), 4'000'000'000u);
  EXPECT_EQ(span.devices(0).reads(), 200u);
  EXPECT_EQ(span.devices(0).busy_ms(), 3400u);
  EXPECT_EQ(span.devices(0).queue_ms(), 13'600u);
  EXPECT_EQ(span.throttles(0).read_bytes(), 819'200u);
  EXPECT_EQ(span.throttles(0).read_bps_limit(), 409'600u) << "a limit is not a counter";
  EXPECT_EQ(span.max_core_busy_permille(), 800u) << "(500 x 1 s + 900 x 3 s) / 4 s";
  EXPECT_EQ(span.max_core(), "cpu1");
  ASSERT_EQ(span.networks_size(), 2) << "an interface quiet in one window moved in the other";
  EXPECT_EQ(span.in_flight(), 16u);
}

// Another core busiest in the next window: which was busiest over the span is not known.
TEST(SpanResources, AnotherBusiestCoreLeavesTheSpanWithoutOne) {
  v1::ResourceStats span = Window(1000, 900, 500, "cpu1");
  ASSERT_TRUE(AddSpanResources(Window(1000, 900, 600, "cpu0"), span));
  EXPECT_FALSE(span.has_max_core_busy_permille());
  EXPECT_EQ(span.max_core(), "");
  EXPECT_EQ(span.window_ns(), 2'000'000'000u) << "the rest still adds";
}

TEST(SpanResources, WindowsOfOtherDevicesLimitsOrLoadsDoNotAdd) {
  const v1::ResourceStats first = Window(1000, 900, 500, "cpu1");
  auto refused = [&](v1::ResourceStats next) {
    v1::ResourceStats span = first;
    const bool added = AddSpanResources(next, span);
    EXPECT_EQ(span.SerializeAsString(), first.SerializeAsString()) << "left as it was";
    return !added;
  };
  v1::ResourceStats other = Window(1000, 900, 500, "cpu1");
  other.mutable_devices(0)->set_name("vda");
  EXPECT_TRUE(refused(other));
  other = Window(1000, 900, 500, "cpu1");
  other.mutable_throttles(0)->set_read_bps_limit(1 << 20);
  EXPECT_TRUE(refused(other));
  other = Window(1000, 900, 500, "cpu1");
  other.set_in_flight(8);
  EXPECT_TRUE(refused(other));
  other = Window(1000, 900, 500, "cpu1");
  other.add_devices()->set_name("vdb");
  EXPECT_TRUE(refused(other));
  other = Window(1000, 900, 500, "cpu1");
  other.mutable_nfs()->set_server("nas:/export");
  EXPECT_TRUE(refused(other));
}

}  // namespace
}  // namespace iofleet::controller
