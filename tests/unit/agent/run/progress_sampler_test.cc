// The progress stream's latency deltas: every completed I/O is in exactly one message, so the
// controller's merge of the deltas equals the step's exact histogram.
#include "agent/run/progress_sampler.h"

#include <gtest/gtest.h>

#include "agent/tasks/io_task.h"
#include "core/rules/defaults.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

TEST(HistogramDelta, SendsOnlyTheBucketsThatGrewAndTheirSum) {
  LatencyHistogram before, now;
  before.Record(100);
  now.Record(100);
  now.Record(100);
  now.Record(5000);
  v1::Histogram out;
  HistogramDelta(before, now, out);
  ASSERT_EQ(out.bucket_size(), 2);
  ASSERT_EQ(out.count_size(), 2);
  EXPECT_EQ(out.bucket(0), LatencyHistogram::BucketOf(100));
  EXPECT_EQ(out.count(0), 1u);
  EXPECT_EQ(out.bucket(1), LatencyHistogram::BucketOf(5000));
  EXPECT_EQ(out.count(1), 1u);
  EXPECT_EQ(out.sum(), 5100u);
}

TEST(ProgressSampler, TheDeltasOfAStreamAddUpToTheStepsHistogram) {
  testing::TempDir tmp;
  fs::create_directories(tmp / "root");
  auto roots = Roots::Open({(tmp / "root").string()});
  ASSERT_TRUE(roots.ok()) << roots.status().message();
  auto ws = Workspace::Create(*roots->Find("default"), "", "run-1", "node1");
  ASSERT_TRUE(ws.ok()) << ws.status().message();
  IoPlan c;
  c.workspace = *ws;
  c.agent_name = "node1";
  c.run_token = 7;
  c.coverage = std::make_shared<FileCoverage>();
  c.io = rules::BuiltinIoDefaults();
  c.io.set_op(v1::OP_WRITE);
  c.io.set_engine(v1::ENGINE_PSYNC);
  c.io.set_direct(false);
  c.io.set_block_size(4096);
  c.io.set_file_size(4 << 20);
  c.io.set_jobs(2);
  std::vector<std::unique_ptr<StepTask>> tasks;
  tasks.push_back(std::make_unique<IoTask>(std::move(c)));
  auto runner = StepRunner::Prepare(std::move(tasks));
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  (*runner)->Launch();
  ProgressSampler sampler(**runner);
  LatencyHistogram merged;
  uint64_t messages = 0;
  auto take = [&] {
    v1::Progress p = sampler.Next();
    ++messages;
    ASSERT_TRUE(p.has_write());
    const v1::Histogram& d = p.write().latency_ns_delta();
    ASSERT_EQ(d.bucket_size(), d.count_size());
    for (int i = 0; i < d.bucket_size(); ++i) merged.AddBucket(d.bucket(i), d.count(i));
    EXPECT_EQ(p.read().ops(), 0u);
    EXPECT_EQ(p.expected_ops(), 2u * 1024u);  // size-bound: every slot of both jobs once
  };
  (*runner)->Go();
  while (!(*runner)->WaitFor(std::chrono::milliseconds(1))) take();
  take();
  auto result = (*runner)->Finish();
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_GE(messages, 1u);
  EXPECT_EQ(merged.count(), result->write().ops());
  for (uint32_t b = 0; b < LatencyHistogram::kBuckets; ++b) {
    uint64_t exact = 0;
    const v1::Histogram& h = result->write().latency_ns();
    for (int i = 0; i < h.bucket_size(); ++i) exact += h.bucket(i) == b ? h.count(i) : 0;
    ASSERT_EQ(merged.bucket_count(b), exact) << "bucket " << b;
  }
}

}  // namespace
}  // namespace iofleet::agent
