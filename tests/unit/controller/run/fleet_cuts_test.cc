#include "controller/run/fleet_cuts.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

v1::WindowResult GoodWindow() {
  v1::WindowResult w;
  w.set_window(3);
  v1::StepResult& r = *w.mutable_result();
  r.set_ops(5);
  r.set_window_ns(1'000'000'000);
  r.set_rate_limited(true);
  r.mutable_read()->set_ops(5);
  for (auto* h : {r.mutable_read()->mutable_latency_ns(), r.mutable_read()->mutable_scheduled_latency_ns()}) {
    h->add_bucket(100);
    h->add_count(2);
    h->add_bucket(200);
    h->add_count(3);
  }
  return w;
}

TEST(CheckWindow, AcceptsTheWindowDueWhoseCountsAreItsOps) {
  EXPECT_TRUE(CheckWindow(GoodWindow(), 3, 1'000'000'000).ok());
}

TEST(CheckWindow, RefusesWhatDoesNotAddUp) {
  const auto refused = [](v1::WindowResult w, const std::string& why, uint64_t expected_ns = 1'000'000'000) {
    Status s = CheckWindow(w, 3, expected_ns);
    EXPECT_FALSE(s.ok()) << why;
    EXPECT_NE(s.message().find(why), std::string::npos) << s.message();
  };
  v1::WindowResult w = GoodWindow();
  w.set_window(2);
  refused(w, "number 2 where 3 was due");
  w = GoodWindow();
  w.mutable_result()->set_ops(6);
  refused(w, "are not its reads' and writes'");
  w = GoodWindow();
  w.mutable_result()->mutable_read()->mutable_latency_ns()->set_count(1, 4);
  refused(w, "read.latency_ns: counts add up to more than its 5 ops");
  w = GoodWindow();
  w.mutable_result()->mutable_read()->mutable_scheduled_latency_ns()->set_count(1, 1);
  refused(w, "read.scheduled_latency_ns: counts add up to 3, not its 5 ops");
  w = GoodWindow();
  w.mutable_result()->mutable_read()->mutable_latency_ns()->set_bucket(0, 1u << 30);
  refused(w, "out of range");
  w = GoodWindow();
  w.mutable_result()->mutable_read()->mutable_latency_ns()->add_bucket(7);
  refused(w, "buckets and counts differ");
  refused(GoodWindow(), "lasted 1000000000 ns between cuts 3000000000 ns apart", 3'000'000'000);
  w = GoodWindow();
  w.mutable_result()->set_window_ns(0);
  refused(w, "holds ops but no time");
  w = GoodWindow();
  w.mutable_result()->mutable_write()->set_ops(UINT64_MAX);
  refused(w, "are not its reads' and writes'");
  w = GoodWindow();
  w.mutable_result()->set_bytes(4096);
  refused(w, "bytes 4096 are not its reads' and writes'");
}

}  // namespace
}  // namespace iofleet::controller
