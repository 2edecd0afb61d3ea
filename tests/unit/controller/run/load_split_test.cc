// How a paced window's rate becomes each job's pace: even without streams; with streams, each
// stream at its full-speed share of the load, split over its jobs on every agent.
#include "controller/run/load_split.h"

#include <gtest/gtest.h>

namespace iofleet::controller {
namespace {

// An agent's full-speed window of 1 s with a stream per (name, jobs, ops, bytes).
struct StreamAt {
  const char* name;
  uint32_t jobs;
  uint64_t ops;
  uint64_t bytes;
};
v1::StepResult AgentWindow(const std::vector<StreamAt>& streams) {
  v1::StepResult r;
  r.set_window_ns(1'000'000'000);
  for (const StreamAt& s : streams) {
    v1::StreamResult& stream = *r.add_streams();
    stream.set_name(s.name);
    stream.set_jobs(s.jobs);
    stream.mutable_result()->set_ops(s.ops);
    stream.mutable_result()->set_bytes(s.bytes);
    stream.mutable_result()->set_window_ns(1'000'000'000);
    r.set_ops(r.ops() + s.ops);
    r.set_bytes(r.bytes() + s.bytes);
  }
  return r;
}

TEST(LoadSplit, WithoutStreamsEveryJobGetsAnEvenShare) {
  LoadSplit split(8);
  FleetWindow full;
  full.agents.push_back(AgentWindow({}));
  split.Learn(full, false);
  const Pace pace = split.For(1000, 1);
  EXPECT_EQ(pace.per_job, 125u);
  EXPECT_TRUE(pace.per_stream_job.empty());
  EXPECT_DOUBLE_EQ(pace.asked, 1000);
  EXPECT_EQ(split.For(3, 1).per_job, 1u) << "at least the least a job is given";
}

// Two agents; reads did 9,000 IOPS with 3 jobs a agent, writes 3,000 with 1: at half the full
// speed (6,000), reads keep 75% (4,500 over 6 jobs) and writes 25% (1,500 over 2 jobs).
TEST(LoadSplit, EachStreamKeepsItsFullSpeedShareOverItsJobs) {
  LoadSplit split(8);
  FleetWindow full;
  full.agents.push_back(AgentWindow({{"reads", 3, 4500, 4500 * 4096}, {"writes", 1, 1500, 1500 * 65536}}));
  full.agents.push_back(AgentWindow({{"reads", 3, 4500, 4500 * 4096}, {"writes", 1, 1500, 1500 * 65536}}));
  split.Learn(full, false);
  Pace pace = split.For(6000, 1);
  EXPECT_EQ(pace.per_job, 0u);
  ASSERT_EQ(pace.per_stream_job.size(), 2u);
  EXPECT_EQ(pace.per_stream_job[0], 750u);
  EXPECT_EQ(pace.per_stream_job[1], 750u);
  EXPECT_DOUBLE_EQ(pace.asked, 6000);
  // In bytes, the same windows' shares are the writes' (64 KiB blocks): 84% of the bytes.
  LoadSplit bytes(8);
  bytes.Learn(full, true);
  pace = bytes.For(1e9, 4096);
  const double reads = 9000.0 * 4096, writes = 3000.0 * 65536;
  EXPECT_NEAR(static_cast<double>(pace.per_stream_job[0]), 1e9 * reads / (reads + writes) / 6, 1);
  EXPECT_NEAR(static_cast<double>(pace.per_stream_job[1]), 1e9 * writes / (reads + writes) / 2, 1);
  EXPECT_NEAR(pace.asked, 1e9, 8);
}

// A stream that moved nothing at full speed, or has no job on any agent, is paced at the least,
// never left to run flat out in a paced window.
TEST(LoadSplit, AStreamThatMovedNothingIsPacedAtTheLeast) {
  LoadSplit split(4);
  FleetWindow full;
  full.agents.push_back(AgentWindow({{"busy", 2, 1000, 0}, {"idle", 2, 0, 0}, {"none", 0, 0, 0}}));
  split.Learn(full, false);
  const Pace pace = split.For(500, 1);
  ASSERT_EQ(pace.per_stream_job.size(), 3u);
  EXPECT_EQ(pace.per_stream_job[0], 250u);
  EXPECT_EQ(pace.per_stream_job[1], 1u);
  EXPECT_EQ(pace.per_stream_job[2], 1u);
  EXPECT_DOUBLE_EQ(pace.asked, 502);
  // Nothing moved at all: no mix to keep, the split stays even.
  LoadSplit still(4);
  FleetWindow nothing;
  nothing.agents.push_back(AgentWindow({{"a", 2, 0, 0}, {"b", 2, 0, 0}}));
  still.Learn(nothing, false);
  EXPECT_EQ(still.For(400, 1).per_job, 100u);
}

}  // namespace
}  // namespace iofleet::controller
