// What a step's streams share on an agent, as the supervisor lays it out before their tasks run:
// one FlowShare per flow id, and each sharing stream's place in one working set.
#include "agent/tasks/stream_shares.h"

#include <gtest/gtest.h>

namespace iofleet::agent {
namespace {

v1::IoSpec Stream(uint32_t jobs, uint64_t file_size, bool global_set) {
  v1::IoSpec io;
  io.set_jobs(jobs);
  io.set_block_size(4096);
  io.set_file_size(file_size);
  io.set_file_layout(v1::FILE_LAYOUT_PER_JOB);
  io.mutable_data()->set_dedupe_pct(50);
  io.mutable_data()->set_dedupe_working_set_pct(25);
  io.mutable_data()->set_dedupe_global(global_set);
  return io;
}

// The sharing streams one after another, each job's part after the one before; a stream with
// a set of its own is no part of it.
TEST(StreamShares, SharingStreamsLieOneAfterAnotherInOneSet) {
  const v1::IoSpec a = Stream(2, 1 << 20, true);    // 64 chunks a job
  const v1::IoSpec own = Stream(1, 1 << 20, false);
  const v1::IoSpec b = Stream(3, 4 << 20, true);    // 256 chunks a job
  EXPECT_EQ(WorkingSetChunks(a, 1), 64u);
  const std::vector<DedupeSetPlace> sets = DedupeSetsOf({&a, &own, &b}, 1);
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0].first, 0u);
  EXPECT_EQ(sets[0].chunks, 2u * 64 + 3u * 256);
  EXPECT_EQ(sets[1].chunks, 0u) << "its own set";
  EXPECT_EQ(sets[2].first, 2u * 64);
  EXPECT_EQ(sets[2].chunks, sets[0].chunks);
  // A set is at least one chunk; without repeats there is none.
  v1::IoSpec tiny = Stream(1, 4096, false);
  tiny.mutable_data()->set_dedupe_working_set_pct(1);
  EXPECT_EQ(WorkingSetChunks(tiny, 1), 1u);
  tiny.mutable_data()->set_dedupe_pct(0);
  EXPECT_EQ(WorkingSetChunks(tiny, 1), 0u);
}

TEST(StreamShares, StreamsOfOneFlowIdShareOneFlow) {
  v1::IoSpec x = Stream(1, 1 << 20, false), y = x, z = x, none = x;
  x.mutable_flow()->set_weight(1);
  y.mutable_flow()->set_weight(8);
  z.mutable_flow()->set_weight(2);
  z.mutable_flow()->set_id(7);
  const auto flows = FlowSharesOf({&x, &y, &z, &none});
  ASSERT_EQ(flows.size(), 4u);
  EXPECT_NE(flows[0], nullptr);
  EXPECT_EQ(flows[0], flows[1]) << "flow id 0, both";
  EXPECT_NE(flows[2], flows[0]);
  EXPECT_EQ(flows[3], nullptr);
}

}  // namespace
}  // namespace iofleet::agent
