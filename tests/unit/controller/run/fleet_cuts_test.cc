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

// A step with streams: the agent's window holds each stream's, which the report's stream rows
// are made of; each is checked as a window, and they must add up to the agent's.
TEST(CheckWindow, AStepWithStreamsHasEachStreamsWindowAddingUpToTheAgents) {
  auto with_streams = [] {
    v1::WindowResult w = GoodWindow();
    v1::WindowResult a = GoodWindow();
    v1::StreamResult& ra = *w.mutable_result()->add_streams();
    ra.set_name("probe");
    *ra.mutable_result() = a.result();
    v1::StreamResult& rb = *w.mutable_result()->add_streams();
    rb.set_name("load");
    *rb.mutable_result() = a.result();
    // The agent's is both added.
    v1::StepResult& r = *w.mutable_result();
    r.set_ops(10);
    r.mutable_read()->set_ops(10);
    for (auto* h : {r.mutable_read()->mutable_latency_ns(), r.mutable_read()->mutable_scheduled_latency_ns()}) {
      h->set_count(0, 4);
      h->set_count(1, 6);
    }
    return w;
  };
  const std::vector<std::string> names = {"probe", "load"};
  EXPECT_TRUE(CheckWindow(with_streams(), 3, 1'000'000'000, names).ok()) << CheckWindow(with_streams(), 3, 1'000'000'000, names).message();
  const auto refused = [&](const v1::WindowResult& w, const std::string& why) {
    Status s = CheckWindow(w, 3, 1'000'000'000, names);
    EXPECT_FALSE(s.ok()) << why;
    EXPECT_NE(s.message().find(why), std::string::npos) << s.message();
  };
  refused(GoodWindow(), "0 streams where the step has 2");
  v1::WindowResult w = with_streams();
  w.mutable_result()->mutable_streams(1)->set_name("other");
  refused(w, "stream 1 is not the step's load");
  w = with_streams();
  w.mutable_result()->mutable_streams(0)->mutable_result()->set_ops(6);
  refused(w, "window: stream probe: ops 6 are not its reads' and writes'");
  w = with_streams();
  *w.mutable_result()->mutable_streams(0)->mutable_result()->add_streams() = w.result().streams(1);
  refused(w, "stream probe holds streams");
  // Each stream consistent, but together more than the agent's.
  w = with_streams();
  v1::StepResult& probe = *w.mutable_result()->mutable_streams(0)->mutable_result();
  probe.set_ops(6);
  probe.mutable_read()->set_ops(6);
  probe.mutable_read()->mutable_latency_ns()->set_count(1, 4);
  probe.mutable_read()->mutable_scheduled_latency_ns()->set_count(1, 4);
  refused(w, "its streams' 11 ops and 0 bytes are not its 10 and 0");
}

}  // namespace
}  // namespace iofleet::controller
