#include "agent/worker/io_sequence.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace iofleet::agent {
namespace {

std::vector<IoChoice> Pass(IoSequence& s) {
  std::vector<IoChoice> out;
  IoChoice c;
  while (s.Next(c)) out.push_back(c);
  return out;
}

TEST(IoSequence, RandomCoversEveryBlockOncePerPassInANewOrder) {
  SequenceSpec spec;
  spec.slots = 5000;
  spec.slot_size = 4096;
  spec.random = true;
  spec.seed = 9;
  IoSequence s(spec);
  auto first = Pass(s);
  s.NextPass();
  auto second = Pass(s);
  ASSERT_EQ(first.size(), 5000u);
  ASSERT_EQ(second.size(), 5000u);
  std::set<uint64_t> a, b;
  size_t same_position = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    a.insert(first[i].offset);
    b.insert(second[i].offset);
    same_position += first[i].offset == second[i].offset;
  }
  EXPECT_EQ(a.size(), 5000u);
  EXPECT_EQ(a, b);
  EXPECT_EQ(*a.rbegin(), 4999u * 4096);
  EXPECT_LT(same_position, 20u);
}

TEST(IoSequence, StridedAndRegionLayoutsPartitionTheSharedFile) {
  const uint32_t jobs = 3;
  std::set<uint64_t> all;
  for (uint32_t j = 0; j < jobs; ++j) {
    SequenceSpec strided;
    strided.slots = 10;
    strided.slot_size = 512;
    strided.stride = jobs;
    strided.first = j;
    IoSequence s(strided);
    for (const auto& c : Pass(s)) {
      EXPECT_EQ(c.offset / 512 % jobs, j);
      EXPECT_TRUE(all.insert(c.offset).second);
    }
  }
  EXPECT_EQ(all.size(), 30u);
  SequenceSpec region;
  region.base = 1 << 20;
  region.slots = 4;
  region.slot_size = 4096;
  IoSequence r(region);
  auto pass = Pass(r);
  EXPECT_EQ(pass.front().offset, 1u << 20);
  EXPECT_EQ(pass.back().offset, (1u << 20) + 3 * 4096);
}

TEST(IoSequence, BlockSizeSplitFollowsWeightsAndReplaysExactly) {
  SequenceSpec spec;
  spec.slots = 20000;
  spec.slot_size = 65536;
  spec.random = true;
  spec.read_pct = 70;
  spec.split_count = 2;
  spec.split_size = {4096, 65536};
  spec.split_cumulative = {60, 100};
  spec.seed = 3;
  IoSequence s(spec), replay(spec);
  std::map<uint32_t, int> sizes;
  int reads = 0;
  IoChoice c, r;
  while (s.Next(c)) {
    ASSERT_TRUE(replay.Next(r));
    ASSERT_EQ(c.offset, r.offset);
    ASSERT_EQ(c.length, r.length);
    ASSERT_EQ(c.dir, r.dir);
    sizes[c.length]++;
    reads += c.dir == IoDir::kRead;
  }
  EXPECT_NEAR(sizes[4096] / 20000.0, 0.60, 0.02);
  EXPECT_NEAR(sizes[65536] / 20000.0, 0.40, 0.02);
  EXPECT_NEAR(reads / 20000.0, 0.70, 0.02);
}

}  // namespace
}  // namespace iofleet::agent
