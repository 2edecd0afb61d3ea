// Every engine must write and read back the same bytes, accept requests up to its queue depth,
// push back beyond it, and report errors as -errno completions.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "agent/engine/io_engine.h"
#include "tests/support/temp_dir.h"

namespace iofleet::agent {
namespace {

constexpr uint32_t kBlock = 4096;
constexpr uint32_t kDepth = 8;

struct AlignedBuffer {
  explicit AlignedBuffer(size_t n) : data(static_cast<std::byte*>(std::aligned_alloc(4096, n))), size(n) {}
  ~AlignedBuffer() { std::free(data); }
  std::byte* data;
  size_t size;
};

class EngineConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto engine = MakeEngine(GetParam());
    ASSERT_TRUE(engine.ok());
    engine_ = std::move(*engine);
    ASSERT_TRUE(engine_->Open(kDepth).ok());
    fd_ = open((tmp_ / "data").c_str(), O_RDWR | O_CREAT | O_DIRECT, 0644);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    engine_.reset();
    close(fd_);
  }
  // Submits every request and reaps until all complete; returns results by slot.
  std::vector<int64_t> RunAll(std::vector<IoRequest>& requests) {
    std::vector<int64_t> results(requests.size(), INT64_MIN);
    for (auto& r : requests) EXPECT_EQ(engine_->Enqueue(r), 0);
    EXPECT_GE(engine_->Submit(), 0);
    std::vector<Completion> done(kDepth);
    size_t seen = 0;
    while (seen < requests.size()) {
      int n = engine_->Reap(done, 1);
      EXPECT_GT(n, 0);
      if (n <= 0) break;
      for (int i = 0; i < n; ++i) results[done[i].slot] = done[i].result;
      seen += static_cast<size_t>(n);
    }
    return results;
  }
  std::vector<IoRequest> Requests(IoDir dir, std::byte* base, int fd) {
    std::vector<IoRequest> rs(kDepth);
    for (uint32_t i = 0; i < kDepth; ++i) {
      rs[i] = IoRequest{i, dir, fd, uint64_t{i} * kBlock, kBlock, 0, base + size_t{i} * kBlock, 0};
    }
    return rs;
  }

  testing::TempDir tmp_;
  std::unique_ptr<IoEngine> engine_;
  int fd_ = -1;
};

TEST_P(EngineConformance, WriteThenReadBackSameBytes) {
  AlignedBuffer out(kDepth * kBlock), in(kDepth * kBlock);
  for (size_t i = 0; i < out.size; ++i) out.data[i] = static_cast<std::byte>(i * 7 + 3);
  std::memset(in.data, 0, in.size);
  auto writes = Requests(IoDir::kWrite, out.data, fd_);
  for (int64_t r : RunAll(writes)) EXPECT_EQ(r, kBlock);
  auto reads = Requests(IoDir::kRead, in.data, fd_);
  for (int64_t r : RunAll(reads)) EXPECT_EQ(r, kBlock);
  EXPECT_EQ(std::memcmp(out.data, in.data, out.size), 0);
}

TEST_P(EngineConformance, ShortReadAtEndOfFile) {
  AlignedBuffer buf(2 * kBlock);
  std::memset(buf.data, 1, buf.size);
  ASSERT_EQ(pwrite(fd_, buf.data, kBlock, 0), kBlock);
  IoRequest r{0, IoDir::kRead, fd_, 0, 2 * kBlock, 0, buf.data, 0};
  std::vector<IoRequest> one{r};
  EXPECT_EQ(RunAll(one)[0], kBlock);  // only what exists
  IoRequest past{0, IoDir::kRead, fd_, 4 * kBlock, kBlock, 0, buf.data, 0};
  std::vector<IoRequest> eof{past};
  EXPECT_EQ(RunAll(eof)[0], 0);
}

TEST_P(EngineConformance, BackPressureBeyondQueueDepth) {
  AlignedBuffer buf((kDepth + 1) * kBlock);
  std::memset(buf.data, 2, buf.size);
  auto rs = Requests(IoDir::kWrite, buf.data, fd_);
  for (auto& r : rs) ASSERT_EQ(engine_->Enqueue(r), 0);
  IoRequest extra{0, IoDir::kWrite, fd_, kDepth * kBlock, kBlock, 0, buf.data + kDepth * kBlock, 0};
  EXPECT_EQ(engine_->Enqueue(extra), -EAGAIN);
  ASSERT_GE(engine_->Submit(), 0);
  std::vector<Completion> done(kDepth);
  size_t seen = 0;
  while (seen < kDepth) {
    int n = engine_->Reap(done, 1);
    ASSERT_GT(n, 0);
    seen += static_cast<size_t>(n);
  }
}

TEST_P(EngineConformance, ErrorsArriveAsNegativeErrno) {
  AlignedBuffer buf(kBlock);
  int read_only = open((tmp_ / "data").c_str(), O_RDONLY);
  ASSERT_GE(read_only, 0);
  IoRequest w{0, IoDir::kWrite, read_only, 0, kBlock, 0, buf.data, 0};
  std::vector<IoRequest> one{w};
  EXPECT_EQ(RunAll(one)[0], -EBADF);
  close(read_only);
  // Misaligned O_DIRECT transfer: the kernel refuses it.
  IoRequest misaligned{0, IoDir::kWrite, fd_, 100, kBlock, 0, buf.data, 0};
  std::vector<IoRequest> two{misaligned};
  EXPECT_EQ(RunAll(two)[0], -EINVAL);
}

INSTANTIATE_TEST_SUITE_P(AllEngines, EngineConformance, ::testing::ValuesIn(EngineNames()),
                         [](const auto& info) { return info.param; });

TEST(EngineRegistry, UnknownEngine) { EXPECT_FALSE(MakeEngine("nope").ok()); }

}  // namespace
}  // namespace iofleet::agent
