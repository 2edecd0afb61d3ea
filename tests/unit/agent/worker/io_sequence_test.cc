#include "agent/worker/io_sequence.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

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

// fio's rw=read:-8k with 4k blocks: every slot, last to first; with a stride (holes) the
// visited slots, last to first, the range's last slot the first one done.
TEST(IoSequence, ReverseGoesFromTheLastSlotToTheFirst) {
  SequenceSpec back;
  back.slots = 5;
  back.slot_size = 4096;
  back.reverse = true;
  IoSequence s(back);
  std::vector<uint64_t> offsets;
  for (const auto& c : Pass(s)) offsets.push_back(c.offset / 4096);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{4, 3, 2, 1, 0}));
  back.stride = 3;
  back.slots = 3;
  back.first = 1;  // slots 7, 4, 1 of an 8-slot range
  IoSequence holes(back);
  offsets.clear();
  for (const auto& c : Pass(holes)) offsets.push_back(c.offset / 4096);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{7, 4, 1}));
  holes.NextPass();
  EXPECT_EQ(Pass(holes).size(), 3u) << "a new pass goes backward again";
}

// fio's sequence distribution: the slots in the order given, over and over; strided, each round
// a group further on, back at the start where a round would pass the range's end.
TEST(IoSequence, ASequenceVisitsItsSlotsInOrderAndStridedMovesOn) {
  SequenceSpec spec;
  spec.slots = 12;
  spec.slot_size = 4096;
  spec.random = true;
  spec.pattern_count = 3;
  spec.pattern[0] = 2;
  spec.pattern[1] = 0;
  spec.pattern[2] = 1;
  spec.pattern_max = 2;
  auto first = [](IoSequence& s, size_t n) {
    std::vector<uint64_t> slots;
    IoChoice c;
    while (slots.size() < n && (s.Next(c) || (s.NextPass(), s.Next(c)))) slots.push_back(c.offset / 4096);
    return slots;
  };
  IoSequence fixed(spec);
  EXPECT_EQ(first(fixed, 7), (std::vector<uint64_t>{2, 0, 1, 2, 0, 1, 2}));
  spec.pattern_strided = true;
  IoSequence strided(spec);
  EXPECT_EQ(first(strided, 15), (std::vector<uint64_t>{2, 0, 1, 5, 3, 4, 8, 6, 7, 11, 9, 10, 2, 0, 1}));
  spec.slots = 13;  // a last group of one slot: the round that would pass the end starts over
  IoSequence short_tail(spec);
  EXPECT_EQ(first(short_tail, 15), (std::vector<uint64_t>{2, 0, 1, 5, 3, 4, 8, 6, 7, 11, 9, 10, 2, 0, 1}));
}

// fio's rw=rw: the reads and the writes each go through the range from its start, one after the
// other (an offset per direction), not one walk whose blocks are read or written.
TEST(IoSequence, MixedSequentialKeepsAnOffsetPerDirection) {
  SequenceSpec mixed;
  mixed.slots = 1000;
  mixed.slot_size = 4096;
  mixed.read_pct = 60;
  mixed.seed = 3;
  IoSequence s(mixed);
  uint64_t next[2] = {0, 0};
  uint64_t reads = 0;
  for (const auto& c : Pass(s)) {
    const int d = c.dir == IoDir::kRead ? 0 : 1;
    EXPECT_EQ(c.offset / 4096, next[d]) << (d ? "write" : "read");
    ++next[d];
    reads += d == 0;
  }
  EXPECT_EQ(next[0] + next[1], 1000u);
  EXPECT_NEAR(static_cast<double>(reads), 600.0, 60.0);
  s.NextPass();
  IoChoice first;
  ASSERT_TRUE(s.Next(first));
  EXPECT_EQ(first.offset, 0u) << "each pass starts both offsets at the range's start again";
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

// norandommap: a pass is as many I/Os as blocks, drawn with repeats: about 1/e of the blocks are
// missed (the chance a block is never drawn in n draws over n blocks), and a replay is exact.
TEST(IoSequence, UniformWithRepeatsMissesAboutOneBlockInE) {
  SequenceSpec spec;
  spec.slots = 20000;
  spec.slot_size = 4096;
  spec.random = true;
  spec.repeats = true;
  spec.seed = 3;
  IoSequence s(spec);
  auto first = Pass(s);
  ASSERT_EQ(first.size(), 20000u);
  std::set<uint64_t> seen;
  for (const auto& c : first) {
    ASSERT_LT(c.offset, 20000u * 4096);
    seen.insert(c.offset);
  }
  const double missed = 1.0 - static_cast<double>(seen.size()) / 20000.0;
  EXPECT_NEAR(missed, 0.3679, 0.01);  // e^-1; sd about 0.0025 at this size
  IoSequence replay(spec);
  auto again = Pass(replay);
  for (size_t i = 0; i < first.size(); ++i) ASSERT_EQ(again[i].offset, first[i].offset);
}

// A distribution's table picks every offset (its own laws are tested in
// offset_distribution_test.cc): zipf's hottest blocks take their share, and a replay is exact.
TEST(IoSequence, ADistributionPicksTheOffsets) {
  auto spec_text = ParseDistribution("zipf:1.2");
  ASSERT_TRUE(spec_text.ok()) << spec_text.status().message();
  auto table = OffsetDistribution::Build(*spec_text, 10000);
  ASSERT_TRUE(table.ok()) << table.status().message();
  SequenceSpec spec;
  spec.slots = 10000;
  spec.slot_size = 4096;
  spec.random = true;
  spec.distribution = table->get();
  spec.seed = 11;
  IoSequence s(spec);
  auto pass = Pass(s);
  ASSERT_EQ(pass.size(), 10000u);
  std::map<uint64_t, uint64_t> hits;
  for (const auto& c : pass) ++hits[c.offset / 4096];
  std::vector<uint64_t> counts;
  for (const auto& [slot, n] : hits) counts.push_back(n);
  std::sort(counts.rbegin(), counts.rend());
  // zipf:1.2 over 10^4 ranks: the hottest rank takes 1/H(10^4, 1.2) of the draws, about 22%.
  double h = 0;
  for (int k = 1; k <= 10000; ++k) h += std::pow(k, -1.2);
  EXPECT_NEAR(static_cast<double>(counts[0]) / 10000.0, 1.0 / h, 0.02);
  EXPECT_LT(hits.size(), 5000u);  // far from every block once
  IoSequence replay(spec);
  auto again = Pass(replay);
  for (size_t i = 0; i < pass.size(); ++i) ASSERT_EQ(again[i].offset, pass[i].offset);
}

}  // namespace
}  // namespace iofleet::agent
