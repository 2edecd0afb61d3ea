#include "agent/tasks/window_cutter.h"

#include <gtest/gtest.h>

namespace iofleet::agent {
namespace {

constexpr uint64_t kOpen = 1'000'000'000;

v1::CutWindowRequest Load(uint64_t rate_iops, uint64_t rate_bytes_per_sec, uint32_t queue_depth = 0) {
  v1::CutWindowRequest r;
  r.set_rate_iops(rate_iops);
  r.set_rate_bytes_per_sec(rate_bytes_per_sec);
  r.set_queue_depth(queue_depth);
  return r;
}

// What a job's worker does at a cut (agent/worker/io_worker.cc), by hand.
void MakeCut(WindowCutter& cutter, size_t job, uint32_t number, uint64_t ops, uint64_t latency, uint64_t min, uint64_t max) {
  WindowSnapshot& s = *cutter.snapshot(job);
  s.write.ops = ops;
  s.write.bytes = ops * 4096;
  s.write.latency.Record(latency);
  s.write.latency_min = min;
  s.write.latency_max = max;
  s.at_ns = cutter.cuts()->Ordered(number)->at_ns;
  s.cuts_done.store(number);
}

TEST(WindowCutter, RefusesACutOutOfTurnBeforeTheWindowOrInThePast) {
  WindowCutter cutter(1, 4);
  EXPECT_NE(cutter.Order(1, kOpen + 10, kOpen, Load(0, 0)).message().find("before the step's window opened"), std::string::npos);
  cutter.Opened(kOpen);
  EXPECT_NE(cutter.Order(2, kOpen + 10, kOpen, Load(0, 0)).message().find("out of turn"), std::string::npos);
  EXPECT_NE(cutter.Order(1, kOpen + 10, kOpen + 20, Load(0, 0)).message().find("ahead of now"), std::string::npos);
  EXPECT_NE(cutter.Order(1, kOpen - 1, kOpen - 5, Load(0, 0)).message().find("not after"), std::string::npos);
  EXPECT_EQ(cutter.Order(1, kOpen + 10, kOpen, Load(5, 4096)).code(), Code::kInvalidArgument) << "two rates";
  EXPECT_NE(cutter.Order(1, kOpen + 10, kOpen, Load(0, 0, 5)).message().find("queue depth 5 is more than the step's 4"), std::string::npos);
  ASSERT_TRUE(cutter.Order(1, kOpen + 10, kOpen, Load(5, 0, 4)).ok());
  EXPECT_EQ(cutter.cuts()->Ordered(1)->queue_depth, 4u);
  EXPECT_NE(cutter.Order(2, kOpen + 20, kOpen, Load(0, 0)).message().find("before window 0 came back"), std::string::npos);
}

TEST(WindowCutter, AWindowIsTheDifferenceOfEveryJobsSnapshotsWithItsOwnExtremes) {
  WindowCutter cutter(2, 1);
  cutter.Opened(kOpen);
  ASSERT_TRUE(cutter.Order(1, kOpen + 100, kOpen, Load(0, 0)).ok());
  MakeCut(cutter, 0, 1, 10, 500, 400, 600);
  EXPECT_FALSE(cutter.Take()) << "job 1 has not made the cut";
  MakeCut(cutter, 1, 1, 20, 700, 300, 900);
  auto w0 = cutter.Take();
  ASSERT_TRUE(w0);
  EXPECT_EQ(w0->window(), 0u);
  EXPECT_EQ(w0->result().ops(), 30u);
  EXPECT_EQ(w0->result().bytes(), 30u * 4096);
  EXPECT_EQ(w0->result().window_ns(), 100u);
  EXPECT_EQ(w0->result().write().latency_ns().min(), 300u);
  EXPECT_EQ(w0->result().write().latency_ns().max(), 900u);
  EXPECT_FALSE(w0->result().rate_limited());
  EXPECT_FALSE(cutter.Take()) << "each window once";

  // Cut 2, paced: the second window holds only what came after cut 1.
  ASSERT_TRUE(cutter.Order(2, kOpen + 300, kOpen + 150, Load(1000, 0)).ok());
  MakeCut(cutter, 0, 2, 15, 800, 800, 800);
  MakeCut(cutter, 1, 2, 26, 900, 900, 900);
  auto w1 = cutter.Take();
  ASSERT_TRUE(w1);
  EXPECT_EQ(w1->window(), 1u);
  EXPECT_EQ(w1->result().ops(), 11u);
  EXPECT_EQ(w1->result().window_ns(), 200u);
  // Both jobs recorded one latency per cut by hand: the window's buckets are the cut's two.
  uint64_t counted = 0;
  for (uint64_t c : w1->result().write().latency_ns().count()) counted += c;
  EXPECT_EQ(counted, 2u);
  EXPECT_EQ(w1->result().write().latency_ns().min(), 800u);
  EXPECT_FALSE(w1->result().rate_limited()) << "window 1 ran at the pace cut 1 set: unpaced";
  ASSERT_TRUE(cutter.Order(3, kOpen + 400, kOpen + 310, Load(0, 0)).ok());
  MakeCut(cutter, 0, 3, 15, 1, 0, 0);
  MakeCut(cutter, 1, 3, 26, 1, 0, 0);
  auto w2 = cutter.Take();
  ASSERT_TRUE(w2);
  EXPECT_TRUE(w2->result().rate_limited()) << "window 2 ran at cut 2's 1000 IOPS";
}

TEST(WindowCutter, AnAgentWithoutJobsCutsAtOnce) {
  WindowCutter cutter(0, 1);
  ASSERT_TRUE(cutter.Order(1, kOpen + 10, kOpen, Load(0, 0)).ok());
  auto w = cutter.Take();
  ASSERT_TRUE(w);
  EXPECT_EQ(w->result().ops(), 0u);
}

}  // namespace
}  // namespace iofleet::agent
