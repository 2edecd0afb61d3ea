#include "controller/run/depth_search.h"

#include <gtest/gtest.h>

#include <cmath>

namespace iofleet::controller {
namespace {

constexpr uint64_t kTarget = 1'000'000;  // 1 ms

// A device that serves 10,000 IOPS per request in flight up to `knee` requests, and no more
// past it, so that its latency grows with the queue beyond the knee (Little's law): at depth d,
// d / IOPS. `flaky_confirm`: the first confirming window fails (a neighbour's burst).
struct QueueDevice {
  uint32_t knee;
  bool flaky_confirm = false;
  double iops(uint32_t depth) const { return 10'000.0 * std::min(depth, knee); }
  uint64_t latency(uint32_t depth) const { return static_cast<uint64_t>(1e9 * depth / iops(depth)); }
};

DepthSearch RunSearch(QueueDevice device, uint32_t queue_depth, uint64_t target = kTarget, uint32_t max_probes = 12) {
  DepthSearch search(target, max_probes, queue_depth);
  for (auto next = search.next(); !next.done; next = search.next()) {
    uint64_t latency = device.latency(next.queue_depth);
    if (next.confirm && device.flaky_confirm) {
      latency = 10 * target;
      device.flaky_confirm = false;
    }
    search.Record(next.queue_depth, next.confirm, device.iops(next.queue_depth), latency, 10'000'000'000, 1000);
  }
  return search;
}

// The latency is 0.1 ms up to the knee and depth / (10,000 x knee) s past it: 1 ms holds up to
// a depth of 10 x knee.
TEST(DepthSearch, FindsTheHighestDepthThatMeetsTheTargetExactly) {
  for (uint32_t knee : {1u, 3u, 7u, 12u}) {
    DepthSearch search = RunSearch({knee}, 128);
    ASSERT_TRUE(search.met()) << "knee " << knee;
    EXPECT_EQ(*search.found(), 10 * knee) << "the deepest queue at or under 1 ms";
    EXPECT_DOUBLE_EQ(*search.found_rate(), 10'000.0 * knee) << "what the confirming window achieved";
    EXPECT_LE(search.probes().size(), 9u) << "log2(128) + 2";
    EXPECT_EQ(*search.probes().front().queue_depth, 128u) << "the first window at the step's depth";
    EXPECT_TRUE(search.probes().back().confirm);
    EXPECT_TRUE(search.probes().back().passed);
    EXPECT_TRUE(search.converged());
    EXPECT_EQ(search.failed_above(), 10 * knee + 1) << "exact: the depth one above failed";
  }
}

TEST(DepthSearch, AStepDepthThatMeetsTheTargetIsConfirmedThere) {
  DepthSearch search = RunSearch({64}, 32);
  ASSERT_TRUE(search.met());
  EXPECT_EQ(search.probes().size(), 2u);
  EXPECT_EQ(*search.found(), 32u);
}

TEST(DepthSearch, ADepthOfOneThatFailsEndsTheSearchSayingSo) {
  DepthSearch search = RunSearch({1}, 16, 50'000);  // 0.1 ms at depth 1: over 50 us
  EXPECT_FALSE(search.met());
  EXPECT_EQ(*search.probes().back().queue_depth, 1u);
  EXPECT_EQ(search.probes().size(), 5u) << "16, 8, 4, 2, 1";
  EXPECT_NE(search.Failure("99").find("not even queue depth 1 met p99 <= 50us"), std::string::npos) << search.Failure("99");
}

TEST(DepthSearch, AConfirmingWindowThatFailsSendsTheSearchBelowIt) {
  DepthSearch search = RunSearch({3, true}, 64);
  ASSERT_TRUE(search.met());
  EXPECT_LT(*search.found(), 30u) << "the depth that failed its confirmation is not the answer";
  int confirms = 0;
  for (const SearchProbe& p : search.probes()) confirms += p.confirm;
  EXPECT_EQ(confirms, 2);
}

TEST(DepthSearch, TheLastWindowConfirmsTheBestSoFar) {
  DepthSearch search = RunSearch({5}, 4096, kTarget, 5);  // 4096, 2048, 1024, 512: then confirm
  EXPECT_EQ(search.probes().size(), 4u) << "nothing passed by the last window: nothing to confirm";
  EXPECT_FALSE(search.met());
  EXPECT_NE(search.Failure("99").find("not the lowest tried, queue depth 512"), std::string::npos) << search.Failure("99");
  DepthSearch more = RunSearch({5}, 64, kTarget, 4);  // 64 fails, 32 and 48 pass: the last confirms 48
  ASSERT_TRUE(more.met());
  EXPECT_EQ(*more.found(), 48u);
  EXPECT_EQ(more.probes().size(), 4u);
  EXPECT_FALSE(more.converged()) << "64 failed, 49..63 untried: 48 meets, but is not the deepest that does";
  EXPECT_EQ(more.failed_above(), 64u);
  EXPECT_TRUE(RunSearch({64}, 32).converged()) << "the step's depth met the target";
}

TEST(DepthSearch, AWindowWithoutCompletionsFails) {
  DepthSearch search(kTarget, 12, 4);
  search.Record(4, false, 0, 0, 10'000'000'000, 0);
  EXPECT_FALSE(search.probes().back().passed) << "no latency is not a latency under the target";
}

}  // namespace
}  // namespace iofleet::controller
