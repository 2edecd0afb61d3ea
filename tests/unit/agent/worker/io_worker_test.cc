#include "agent/worker/io_worker.h"

#include <gtest/gtest.h>

#include <vector>

namespace iofleet::agent {
namespace {

// Completes every request at once; can shorten transfers and fail one chosen offset.
class FakeEngine final : public IoEngine {
 public:
  std::string_view name() const noexcept override { return "fake"; }
  Status Open(uint32_t depth) override {
    done_.resize(depth);
    return Status::Ok();
  }
  int Enqueue(IoRequest& r) noexcept override {
    if (count_ == done_.size()) return -EAGAIN;
    ++enqueued;
    uint64_t offset = r.offset + r.done;
    int64_t result = r.length - r.done;
    if (offset == fail_offset) result = -EIO;
    else if (short_by > 0 && r.done == 0) result -= short_by;
    offsets.push_back(offset);
    done_[count_++] = {r.slot, result};
    return 0;
  }
  int Submit() noexcept override { return 0; }
  int Reap(std::span<Completion> out, uint32_t) noexcept override {
    uint32_t n = 0;
    while (count_ > 0 && n < out.size()) out[n++] = done_[--count_];
    return static_cast<int>(n);
  }

  uint64_t fail_offset = UINT64_MAX;
  int64_t short_by = 0;
  uint64_t enqueued = 0;
  std::vector<uint64_t> offsets;

 private:
  std::vector<Completion> done_;
  uint32_t count_ = 0;
};

struct Harness {
  explicit Harness(JobPlan p) : plan(p), requests(p.queue_depth), completions(p.queue_depth) {
    EXPECT_TRUE(engine.Open(p.queue_depth).ok());
  }
  void Run() {
    std::atomic<bool> stop{false};
    IoWorker(plan, engine, stats, requests, completions).Run(0, stop);
  }
  JobPlan plan;
  FakeEngine engine;
  JobStats stats;
  std::vector<IoRequest> requests;
  std::vector<Completion> completions;
  std::vector<std::byte> buffers = std::vector<std::byte>(1 << 20);
};

JobPlan Plan(uint32_t depth) {
  return JobPlan{3, IoDir::kWrite, 64 * 4096, 4096, depth, 0, nullptr};
}

TEST(IoWorker, SizeBasedCoversEveryBlockOnce) {
  Harness h(Plan(4));
  h.plan.buffers = h.buffers.data();
  h.Run();
  EXPECT_EQ(h.stats.error, 0);
  EXPECT_EQ(h.stats.ops.load(), 64u);
  EXPECT_EQ(h.stats.bytes.load(), 64u * 4096);
  EXPECT_EQ(h.stats.latency.count(), 64u);
  std::vector<uint64_t> sorted = h.engine.offsets;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], i * 4096);
}

TEST(IoWorker, ShortTransfersAreCompletedNotCounted) {
  Harness h(Plan(2));
  h.plan.buffers = h.buffers.data();
  h.engine.short_by = 1000;
  h.Run();
  EXPECT_EQ(h.stats.error, 0);
  EXPECT_EQ(h.stats.ops.load(), 64u);              // each block counted once
  EXPECT_EQ(h.stats.bytes.load(), 64u * 4096);     // with its full length
  EXPECT_EQ(h.engine.enqueued, 128u);              // the rest of every block was resubmitted
}

TEST(IoWorker, FirstErrorStopsTheJobAndNamesTheOffset) {
  Harness h(Plan(4));
  h.plan.buffers = h.buffers.data();
  h.engine.fail_offset = 10 * 4096;
  h.Run();
  EXPECT_EQ(h.stats.error, EIO);
  EXPECT_EQ(h.stats.error_offset, 10u * 4096);
  EXPECT_LT(h.stats.ops.load(), 64u);
}

TEST(IoWorker, StopFlagEndsTheLoop) {
  Harness h(Plan(1));
  h.plan.buffers = h.buffers.data();
  h.plan.runtime_ns = 3'600'000'000'000;  // an hour: only the flag can end it
  std::atomic<bool> stop{true};
  IoWorker(h.plan, h.engine, h.stats, h.requests, h.completions).Run(0, stop);
  EXPECT_LE(h.stats.ops.load(), 1u);
}

}  // namespace
}  // namespace iofleet::agent
