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

}  // namespace
}  // namespace iofleet::agent
