// Every engine must write and read back the same bytes, accept requests up to its queue depth,
// push back beyond it, and report errors as -errno completions.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "agent/engine/fault_engine.h"
#include "agent/engine/io_engine.h"
#include "agent/engine/null_engine.h"
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

struct EngineCase {
  std::string engine;
  bool fixed_buffers = false;
  bool registered_files = false;
  std::string label;
};

void PrintTo(const EngineCase& c, std::ostream* os) { *os << c.label; }

class EngineConformance : public ::testing::TestWithParam<EngineCase> {
 protected:
  void SetUp() override {
    auto engine = MakeEngine(*EngineKindNamed(GetParam().engine));
    ASSERT_TRUE(engine.ok());
    engine_ = std::move(*engine);
    fd_ = open((tmp_ / "data").c_str(), O_RDWR | O_CREAT | O_DIRECT, 0644);
    ASSERT_GE(fd_, 0);
    read_only_ = open((tmp_ / "data").c_str(), O_RDONLY);
    ASSERT_GE(read_only_, 0);
    for (uint32_t i = 0; i < kDepth; ++i) iovecs_.push_back(iovec{buffers_.data + i * kBlock, kBlock});
    files_ = {fd_, read_only_};
    EngineSetup setup;
    setup.queue_depth = kDepth;
    setup.buffers = iovecs_;
    setup.files = files_;
    setup.fixed_buffers = GetParam().fixed_buffers;
    setup.registered_files = GetParam().registered_files;
    Status opened = engine_->Open(setup);
    ASSERT_TRUE(opened.ok()) << opened.message();
  }
  bool DoesIo() const { return GetParam().engine != "null"; }
  void TearDown() override {
    engine_.reset();
    close(fd_);
    close(read_only_);
  }
  // Submits every request and reaps until all complete; returns results by slot.
  std::vector<int64_t> RunAll(std::vector<IoRequest>& requests) {
    std::vector<int64_t> results(requests.size(), INT64_MIN);
    for (auto& r : requests) EXPECT_EQ(engine_->Enqueue(r), 0);
    EXPECT_GE(engine_->Submit(), 0);
    std::vector<Completion> done(kDepth);
    size_t seen = 0;
    while (seen < requests.size()) {
      int n = engine_->Reap(done, 1, -1);
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
  AlignedBuffer buffers_{kDepth * kBlock};  // registered with io_uring when fixed_buffers
  std::vector<iovec> iovecs_;
  std::vector<int> files_;
  std::unique_ptr<IoEngine> engine_;
  int fd_ = -1;
  int read_only_ = -1;
};

TEST_P(EngineConformance, WriteThenReadBackSameBytes) {
  // The engine's own (possibly registered) buffers: written out, cleared, read back.
  std::vector<std::byte> expected(kDepth * kBlock);
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<std::byte>(i * 7 + 3);
  std::memcpy(buffers_.data, expected.data(), expected.size());
  auto writes = Requests(IoDir::kWrite, buffers_.data, fd_);
  for (int64_t r : RunAll(writes)) EXPECT_EQ(r, kBlock);
  std::memset(buffers_.data, 0, buffers_.size);
  auto reads = Requests(IoDir::kRead, buffers_.data, fd_);
  for (int64_t r : RunAll(reads)) EXPECT_EQ(r, kBlock);
  if (!DoesIo()) GTEST_SKIP() << "the null engine transfers nothing";
  EXPECT_EQ(std::memcmp(expected.data(), buffers_.data, expected.size()), 0);
  std::vector<std::byte> on_disk(kDepth * kBlock);
  ASSERT_EQ(pread(read_only_, on_disk.data(), on_disk.size(), 0), static_cast<ssize_t>(on_disk.size()));
  EXPECT_EQ(on_disk, expected);
}

TEST_P(EngineConformance, ShortReadAtEndOfFile) {
  if (!DoesIo()) GTEST_SKIP() << "the null engine transfers nothing";
  std::byte* buf = buffers_.data;
  std::memset(buf, 1, kBlock);
  ASSERT_EQ(pwrite(fd_, buf, kBlock / 2, 0), kBlock / 2);
  IoRequest r{0, IoDir::kRead, fd_, 0, kBlock, 0, buf, 0};
  std::vector<IoRequest> one{r};
  EXPECT_EQ(RunAll(one)[0], kBlock / 2);  // only what exists
  IoRequest past{0, IoDir::kRead, fd_, 4 * kBlock, kBlock, 0, buf, 0};
  std::vector<IoRequest> eof{past};
  EXPECT_EQ(RunAll(eof)[0], 0);
}

TEST_P(EngineConformance, BackPressureBeyondQueueDepth) {
  std::memset(buffers_.data, 2, buffers_.size);
  auto rs = Requests(IoDir::kWrite, buffers_.data, fd_);
  for (auto& r : rs) ASSERT_EQ(engine_->Enqueue(r), 0);
  IoRequest extra{0, IoDir::kWrite, fd_, kDepth * kBlock, kBlock, 0, buffers_.data, 0};
  EXPECT_EQ(engine_->Enqueue(extra), -EAGAIN);
  ASSERT_GE(engine_->Submit(), 0);
  std::vector<Completion> done(kDepth);
  size_t seen = 0;
  while (seen < kDepth) {
    int n = engine_->Reap(done, 1, -1);
    ASSERT_GT(n, 0);
    seen += static_cast<size_t>(n);
  }
}

TEST_P(EngineConformance, ErrorsArriveAsNegativeErrno) {
  if (!DoesIo()) GTEST_SKIP() << "the null engine transfers nothing";
  IoRequest w{0, IoDir::kWrite, read_only_, 0, kBlock, 0, buffers_.data, 0};
  std::vector<IoRequest> one{w};
  EXPECT_EQ(RunAll(one)[0], -EBADF);
  // Misaligned O_DIRECT transfer: the kernel refuses it.
  IoRequest misaligned{0, IoDir::kWrite, fd_, 100, kBlock, 0, buffers_.data, 0};
  std::vector<IoRequest> two{misaligned};
  EXPECT_EQ(RunAll(two)[0], -EINVAL);
}

std::vector<EngineCase> AllCases() {
  std::vector<EngineCase> cases;
  for (EngineKind kind : kEngineKinds) {
    const std::string name(EngineKindName(kind));
    cases.push_back({name, false, false, name});
  }
  cases.push_back({"io_uring", true, false, "io_uring_fixed_buffers"});
  cases.push_back({"io_uring", false, true, "io_uring_registered_files"});
  cases.push_back({"io_uring", true, true, "io_uring_fixed_buffers_and_files"});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllEngines, EngineConformance, ::testing::ValuesIn(AllCases()),
                         [](const auto& info) { return info.param.label; });

TEST(EngineRegistry, EveryKindIsMadeAndNamed) {
  for (EngineKind kind : kEngineKinds) {
    EXPECT_TRUE(MakeEngine(kind).ok()) << EngineKindName(kind);
    EXPECT_EQ(EngineKindNamed(EngineKindName(kind)), kind);
  }
  EXPECT_FALSE(EngineKindNamed("nope").has_value());
  EXPECT_FALSE(MakeEngine(static_cast<EngineKind>(99)).ok());
}

TEST(FaultEngine, FailsAndDelaysChosenRequests) {
  auto faults = ParseFaults("eio@2,enospc@3,delay=30ms@4");
  ASSERT_TRUE(faults.ok()) << faults.status().message();
  FaultEngine engine(std::make_unique<NullEngine>(), *faults);
  EngineSetup setup;
  setup.queue_depth = 1;
  ASSERT_TRUE(engine.Open(setup).ok());
  std::vector<int64_t> results;
  std::vector<double> millis;
  std::byte buffer[512];
  for (uint32_t i = 0; i < 5; ++i) {
    IoRequest r{0, IoDir::kWrite, -1, 0, 512, 0, buffer, 0};
    auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(engine.Enqueue(r), 0);
    Completion c[1];
    ASSERT_EQ(engine.Reap(c, 1, -1), 1);
    millis.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    results.push_back(c[0].result);
  }
  EXPECT_EQ(results, (std::vector<int64_t>{512, -EIO, -ENOSPC, 512, 512}));
  EXPECT_GE(millis[3], 30.0);
  EXPECT_FALSE(ParseFaults("eio").ok());
  EXPECT_FALSE(ParseFaults("boom@1").ok());
}

}  // namespace
}  // namespace iofleet::agent
