#include "agent/worker/data_generator.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace iofleet::agent {
namespace {

constexpr size_t kChunk = DataGenerator::kChunk;

// zlib level 1 on one 4 KiB chunk, as DESIGN.md defines compressibility.
double CompressedShare(const std::byte* chunk) {
  std::vector<Bytef> out(compressBound(kChunk));
  uLongf size = out.size();
  EXPECT_EQ(compress2(out.data(), &size, reinterpret_cast<const Bytef*>(chunk), kChunk, 1), Z_OK);
  return static_cast<double>(size) / kChunk;
}

struct Buffers {
  explicit Buffers(size_t size, size_t count) : data(size * count), size(size), count(count) {}
  std::vector<std::byte> data;
  size_t size, count;
};

TEST(DataGenerator, CompressiblePctMatchesZlibLevelOne) {
  for (uint32_t pct : {0u, 25u, 50u, 75u, 100u}) {
    Buffers b(64 * 1024, 4);
    DataGenerator g;
    g.Prepare({pct, "", 0, 7, false}, b.data.data(), b.size, b.count);
    g.Stamp(b.data.data(), static_cast<uint32_t>(b.size));
    double total = 0;
    size_t chunks = b.size / kChunk;
    for (size_t c = 0; c < chunks; ++c) total += CompressedShare(b.data.data() + c * kChunk);
    double share = total / static_cast<double>(chunks);
    double expected = (100.0 - pct) / 100.0;
    // zlib adds a few bytes of framing; a fully compressible chunk still keeps its 48 stamp bytes.
    EXPECT_NEAR(share, expected, 0.04) << "compressible_pct " << pct;
  }
}

TEST(DataGenerator, PatternFillsTheCompressiblePart) {
  Buffers b(8192, 1);
  DataGenerator g;
  g.Prepare({50, DataGenerator::DecodePattern("0xdeadbeef"), 0, 1, false}, b.data.data(), b.size, b.count);
  const auto* bytes = reinterpret_cast<const unsigned char*>(b.data.data());
  size_t start = g.random_bytes_per_chunk();
  EXPECT_EQ(start, 2048u);
  EXPECT_EQ(bytes[start], 0xde);
  EXPECT_EQ(bytes[start + 1], 0xad);
  EXPECT_EQ(bytes[start + 2], 0xbe);
  EXPECT_EQ(bytes[start + 3], 0xef);
  EXPECT_EQ(bytes[kChunk - 1], 0xef);
  EXPECT_EQ(DataGenerator::DecodePattern("abc"), "abc");
}

TEST(DataGenerator, NoFourKiBChunkRepeatsAcrossWrites) {
  // Two jobs (streams) writing from 4 buffers each, 500 times: every chunk ever written differs.
  std::set<std::string> seen;
  for (uint64_t stream : {11ull, 12ull}) {
    Buffers b(16 * 1024, 4);
    DataGenerator g;
    g.Prepare({50, "", 0, stream, false}, b.data.data(), b.size, b.count);
    for (int write = 0; write < 500; ++write) {
      std::byte* buffer = b.data.data() + (write % b.count) * b.size;
      g.Stamp(buffer, static_cast<uint32_t>(b.size));
      for (size_t c = 0; c < b.size; c += kChunk) {
        ASSERT_TRUE(seen.insert(std::string(reinterpret_cast<const char*>(buffer + c), kChunk)).second)
            << "a 4 KiB chunk repeated at write " << write;
      }
    }
  }
  EXPECT_EQ(seen.size(), 2u * 500u * 4u);
}

TEST(DataGenerator, DedupePctRepeatsThatShareOfChunks) {
  Buffers b(64 * 1024, 2);
  DataGenerator g;
  g.Prepare({0, "", 30, 5, false}, b.data.data(), b.size, b.count);
  std::set<std::string> unique;
  size_t total = 0;
  for (int write = 0; write < 400; ++write) {
    std::byte* buffer = b.data.data() + (write % 2) * b.size;
    g.Stamp(buffer, static_cast<uint32_t>(b.size));
    for (size_t c = 0; c < b.size; c += kChunk, ++total) {
      unique.insert(std::string(reinterpret_cast<const char*>(buffer + c), kChunk));
    }
  }
  double duplicate_share = 1.0 - static_cast<double>(unique.size() - 1) / static_cast<double>(total);
  EXPECT_NEAR(duplicate_share, 0.30, 0.03);
}

// Writes `writes` blocks of `size` bytes from `count` buffers, and gives every full 4 KiB chunk
// written, in order (the chunks of a block start at the block, as a file's do).
std::vector<std::string> WriteChunks(DataGenerator& g, Buffers& b, int writes, uint32_t size) {
  std::vector<std::string> out;
  for (int write = 0; write < writes; ++write) {
    std::byte* buffer = b.data.data() + (write % b.count) * b.size;
    g.Stamp(buffer, size);
    for (size_t c = 0; c + kChunk <= size; c += kChunk) out.emplace_back(reinterpret_cast<const char*>(buffer + c), kChunk);
  }
  return out;
}

size_t Distinct(const std::vector<std::string>& chunks) { return std::set<std::string>(chunks.begin(), chunks.end()).size(); }

DataOptions WorkingSet(uint32_t compressible, uint32_t dedupe, uint64_t stream, uint64_t set_chunks, uint64_t first, uint64_t own) {
  DataOptions o{compressible, "", dedupe, stream, false};
  o.working_set_chunks = set_chunks;
  o.working_set_seed = 99;
  o.own_first = first;
  o.own_count = own;
  return o;
}

// fio's dedupe-global.fio arithmetic for one job: dedupe 50% from a working set of 50% of the
// range. The job's first unique chunks are the set, every repeat one of them: over a pass of
// 6,400 chunks, about half are distinct (as fio's converge), and they compress as asked.
TEST(DataGenerator, AWorkingSetsRepeatsConvergeToTheDedupeShare) {
  Buffers b(16 * 1024, 4);
  DataGenerator g;
  g.Prepare(WorkingSet(50, 50, 3, 3200, 0, 3200), b.data.data(), b.size, b.count);
  const std::vector<std::string> chunks = WriteChunks(g, b, 1600, 16 * 1024);
  ASSERT_EQ(chunks.size(), 6400u);
  EXPECT_NEAR(static_cast<double>(Distinct(chunks)) / 6400.0, 0.50, 0.02);
  double compressed = 0;
  for (size_t i = 0; i < 64; ++i) compressed += CompressedShare(reinterpret_cast<const std::byte*>(chunks[i * 100].data()));
  EXPECT_NEAR(compressed / 64, 0.50, 0.04);
  // A second pass draws from the same set: the file's share of repeats holds.
  const std::vector<std::string> again = WriteChunks(g, b, 1600, 16 * 1024);
  std::vector<std::string> both = chunks;
  both.insert(both.end(), again.begin(), again.end());
  EXPECT_LT(static_cast<double>(Distinct(both)) / 12800.0, 0.52);
}

// Blocks that are no multiple of 4 KiB start chunks where the buffers' fill does not: a set
// chunk is the same bytes wherever it lands (a set of one chunk, every chunk a repeat).
TEST(DataGenerator, ASetChunkIsTheSameWhereverItsBlockStarts) {
  Buffers b(6 * 1024, 3);
  DataGenerator g;
  g.Prepare(WorkingSet(25, 100, 4, 1, 0, 1), b.data.data(), b.size, b.count);
  const std::vector<std::string> chunks = WriteChunks(g, b, 30, 6 * 1024);
  ASSERT_EQ(chunks.size(), 30u);
  EXPECT_EQ(Distinct(chunks), 1u);
  EXPECT_NEAR(CompressedShare(reinterpret_cast<const std::byte*>(chunks[0].data())), 0.75, 0.04);
}

// dedupe_global: two jobs, each with its part of one set. Each job's file alone repeats less
// than the two together (fio's example: 34% each, 50% combined), and nothing else repeats.
TEST(DataGenerator, JobsSharingASetRepeatEachOthersChunks) {
  std::vector<std::string> all;
  std::vector<size_t> alone;
  for (uint64_t job : {0ull, 1ull}) {
    Buffers b(16 * 1024, 4);
    DataGenerator g;
    g.Prepare(WorkingSet(0, 50, 10 + job, 6400, 3200 * job, 3200), b.data.data(), b.size, b.count);
    const std::vector<std::string> chunks = WriteChunks(g, b, 1600, 16 * 1024);
    alone.push_back(Distinct(chunks));
    all.insert(all.end(), chunks.begin(), chunks.end());
  }
  for (size_t distinct : alone) EXPECT_GT(static_cast<double>(distinct) / 6400.0, 0.60);
  EXPECT_NEAR(static_cast<double>(Distinct(all)) / 12800.0, 0.50, 0.02);
}

}  // namespace
}  // namespace iofleet::agent
