// fio's flow (agent/worker/flow_share.h): jobs issue in proportion to their weights, and a job
// that ends stops holding the others.
#include "agent/worker/flow_share.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "agent/engine/null_engine.h"
#include "agent/worker/io_worker.h"
#include "core/base/clock.h"

namespace iofleet::agent {
namespace {

TEST(FlowShare, AJobAheadOfItsShareWaitsForTheOthers) {
  FlowShare flow(3);  // jobs of weight 1 and 2
  EXPECT_TRUE(flow.MayIssue(0, 1));  // none issued yet: both may
  flow.Issued();                     // the weight-1 job's first
  EXPECT_FALSE(flow.MayIssue(1, 1));  // 1 of 1 issued is more than its third
  EXPECT_TRUE(flow.MayIssue(0, 2));
  flow.Issued();
  EXPECT_FALSE(flow.MayIssue(1, 1));  // 1 of 2: still more than a third
  EXPECT_TRUE(flow.MayIssue(1, 2));
  flow.Issued();
  EXPECT_TRUE(flow.MayIssue(1, 1));  // 1 of 3: its third, as the test is before issuing
  EXPECT_TRUE(flow.MayIssue(2, 2));  // 2 of 3: its two thirds
  flow.Issued();                     // the weight-2 job's third
  EXPECT_FALSE(flow.MayIssue(3, 2));  // 3 of 4 is more than two thirds
  EXPECT_TRUE(flow.MayIssue(1, 1));   // 1 of 4: its turn
}

TEST(FlowShare, AJobThatLeavesNoLongerHoldsTheOthers) {
  FlowShare flow(2);
  flow.Issued();
  EXPECT_FALSE(flow.MayIssue(1, 1));  // waits for the other job's turn
  flow.Leave(0, 1);                    // which ends without issuing
  EXPECT_TRUE(flow.MayIssue(1, 1));
  EXPECT_EQ(flow.issued(), 1u);
}

// One job of a flow on the null engine, in a thread: time-based, depth 4.
struct FlowJob {
  FlowJob(FlowShare& flow, uint32_t weight, uint64_t runtime_ns) {
    plan.queue_depth = 4;
    plan.sequence.slots = 256;
    plan.sequence.slot_size = 4096;
    plan.sequence.read_pct = 100;
    plan.runtime_ns = runtime_ns;
    plan.flow = &flow;
    plan.flow_weight = weight;
    storage.resize(4 * 4096);
    for (uint32_t s = 0; s < 4; ++s) buffers.push_back(storage.data() + size_t{s} * 4096);
    requests.resize(4);
    completions.resize(4);
    EngineSetup setup;
    setup.queue_depth = 4;
    EXPECT_TRUE(engine.Open(setup).ok());
  }
  void Run(uint64_t start_ns, const std::atomic<bool>& stop) {
    IoWorker worker(plan, engine, stats, requests, completions, buffers, nullptr);
    worker.Run(start_ns, stop);
    plan.flow->Leave(worker.flow_issued(), plan.flow_weight);
  }
  JobPlan plan;
  NullEngine engine;
  JobStats stats;
  std::vector<std::byte> storage;
  std::vector<std::byte*> buffers;
  std::vector<IoRequest> requests;
  std::vector<Completion> completions;
};

TEST(FlowShare, TwoJobsOnTheNullEngineKeepTheirWeightsProportion) {
  FlowShare flow(1 + 3);
  FlowJob light(flow, 1, 200'000'000), heavy(flow, 3, 200'000'000);
  std::atomic<bool> stop{false};
  const uint64_t start = MonotonicNs();
  std::thread a([&] { light.Run(start, stop); });
  std::thread b([&] { heavy.Run(start, stop); });
  a.join();
  b.join();
  const uint64_t l = light.stats.issued, h = heavy.stats.issued;
  ASSERT_GT(l, 1000u) << "the null engine did next to nothing in 200 ms";
  // As fio's, the test is strict: the heavy job is never more than its share ahead, so the
  // counts stay 1:3 to within a few requests (the ends of the two windows differ a little).
  EXPECT_NEAR(static_cast<double>(h), 3.0 * static_cast<double>(l), 0.01 * static_cast<double>(h) + 8) << l << " and " << h;
}

TEST(FlowShare, ASizeBasedJobThatEndsLetsTheOtherFinish) {
  FlowShare flow(2);
  FlowJob quick(flow, 1, 0), slow(flow, 1, 0);  // size-based: 256 and 2,560 blocks
  slow.plan.loops = 10;
  std::atomic<bool> stop{false};
  const uint64_t start = MonotonicNs();
  std::thread a([&] { quick.Run(start, stop); });
  std::thread b([&] { slow.Run(start, stop); });
  a.join();
  b.join();  // would hang if the finished job still held the flow
  EXPECT_EQ(quick.stats.read.ops.load(), 256u);
  EXPECT_EQ(slow.stats.read.ops.load(), 2560u);
}

}  // namespace
}  // namespace iofleet::agent
