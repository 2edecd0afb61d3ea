#include "agent/worker/io_worker.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "agent/engine/null_engine.h"
#include "agent/engine/psync_engine.h"
#include "core/base/clock.h"

namespace iofleet::agent {
namespace {

// Completes every request at once; can shorten transfers and fail one chosen offset.
class FakeEngine final : public IoEngine {
 public:
  std::string_view name() const noexcept override { return "fake"; }
  Status Open(const EngineSetup& setup) override {
    done_.resize(setup.queue_depth);
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
    if (r.dir == IoDir::kWrite) writes++;
    done_[count_++] = {r.slot, result};
    return 0;
  }
  int Submit() noexcept override { return 0; }
  int Reap(std::span<Completion> out, uint32_t, int64_t) noexcept override {
    if (watched) {  // what the collector would read as in flight, against what is
      const OpCounters& c = watched->write;
      const uint64_t inflight = c.submitted.load() - c.reaped.load();
      if (inflight != count_) inflight_mismatch = true;
      max_inflight = std::max<uint64_t>(max_inflight, inflight);
    }
    uint32_t n = 0;
    while (count_ > 0 && n < out.size()) out[n++] = done_[--count_];
    return static_cast<int>(n);
  }

  uint64_t fail_offset = UINT64_MAX;
  int64_t short_by = 0;
  uint64_t enqueued = 0;
  uint64_t writes = 0;
  std::vector<uint64_t> offsets;
  const JobStats* watched = nullptr;
  bool inflight_mismatch = false;
  uint64_t max_inflight = 0;

 private:
  std::vector<Completion> done_;
  uint32_t count_ = 0;
};

constexpr uint32_t kWorkerBlock = 4096;
constexpr uint64_t kSlots = 64;

struct Harness {
  explicit Harness(uint32_t depth, bool random = false) {
    plan.queue_depth = depth;
    plan.sequence.slots = kSlots;
    plan.sequence.slot_size = kWorkerBlock;
    plan.sequence.random = random;
    plan.sequence.read_pct = 0;
    storage.resize(size_t{depth} * kWorkerBlock);
    for (uint32_t s = 0; s < depth; ++s) buffers.push_back(storage.data() + size_t{s} * kWorkerBlock);
    requests.resize(depth);
    completions.resize(depth);
    EngineSetup setup;
    setup.queue_depth = depth;
    EXPECT_TRUE(engine.Open(setup).ok());
  }
  void Run(bool stop_now = false) {
    std::atomic<bool> stop{stop_now};
    IoWorker(plan, engine, stats, requests, completions, buffers, nullptr).Run(1, stop);
  }
  // On the null engine from now: time-based plans (runtime, ramp) measure real time.
  void RunOnNullEngine() {
    NullEngine null;
    EngineSetup setup;
    setup.queue_depth = plan.queue_depth;
    ASSERT_TRUE(null.Open(setup).ok());
    std::atomic<bool> stop{false};
    IoWorker(plan, null, stats, requests, completions, buffers, nullptr).Run(iofleet::MonotonicNs(), stop);
  }
  JobPlan plan;
  FakeEngine engine;
  JobStats stats;
  std::vector<std::byte> storage;
  std::vector<std::byte*> buffers;
  std::vector<IoRequest> requests;
  std::vector<Completion> completions;
};

TEST(IoWorker, SizeBasedCoversEveryBlockOnce) {
  for (bool random : {false, true}) {
    Harness h(4, random);
    h.Run();
    EXPECT_EQ(h.stats.error, 0);
    EXPECT_EQ(h.stats.write.ops.load(), kSlots);
    EXPECT_EQ(h.stats.write.bytes.load(), kSlots * kWorkerBlock);
    EXPECT_EQ(h.stats.write.latency.count(), kSlots);
    EXPECT_EQ(h.stats.passes, 1u);
    std::vector<uint64_t> sorted = h.engine.offsets;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], i * kWorkerBlock);
    EXPECT_EQ(std::is_sorted(h.engine.offsets.begin(), h.engine.offsets.end()), !random);
  }
}

TEST(IoWorker, ShortTransfersAreCompletedNotCounted) {
  Harness h(2);
  h.engine.short_by = 1000;
  h.Run();
  EXPECT_EQ(h.stats.error, 0);
  EXPECT_EQ(h.stats.write.ops.load(), kSlots);           // each block counted once
  EXPECT_EQ(h.stats.write.bytes.load(), kSlots * kWorkerBlock);  // with its full length
  EXPECT_EQ(h.engine.enqueued, 2 * kSlots);              // the rest of every block was resubmitted
}

TEST(IoWorker, FirstErrorStopsTheJobAndNamesTheOffset) {
  Harness h(4);
  h.engine.fail_offset = 10 * kWorkerBlock;
  h.Run();
  EXPECT_EQ(h.stats.error, EIO);
  EXPECT_EQ(h.stats.error_offset, 10u * kWorkerBlock);
  EXPECT_LT(h.stats.write.ops.load(), kSlots);
}

TEST(IoWorker, ContinueOnErrorCountsByKind) {
  Harness h(4);
  h.engine.fail_offset = 10 * kWorkerBlock;
  h.plan.continue_on_error = true;
  h.Run();
  EXPECT_EQ(h.stats.error, 0);
  EXPECT_EQ(h.stats.write.errors[EIO].load(), 1u);  // counted under the request's direction
  EXPECT_EQ(h.stats.ErrorCount(), 1u);
  EXPECT_EQ(h.stats.write.ops.load(), kSlots - 1);
}

// The collector's in-flight gauge is submitted - reaped: it follows the engine's queue while
// the job runs and is 0 once it has returned, short transfers counted once.
TEST(IoWorker, SubmittedMinusReapedIsWhatIsInFlight) {
  for (int64_t short_by : {0, 1000}) {
    Harness h(4);
    h.engine.short_by = short_by;
    h.engine.watched = &h.stats;
    h.Run();
    EXPECT_FALSE(h.engine.inflight_mismatch) << short_by;
    EXPECT_EQ(h.engine.max_inflight, 4u) << short_by;
    EXPECT_EQ(h.stats.write.submitted.load(), kSlots) << short_by;
    EXPECT_EQ(h.stats.write.reaped.load(), kSlots) << short_by;
    EXPECT_EQ(h.stats.read.submitted.load(), 0u) << short_by;
  }
}

TEST(IoWorker, NothingIsLeftInFlightAfterAnError) {
  Harness h(4);
  h.engine.fail_offset = 10 * kWorkerBlock;
  h.Run();
  EXPECT_EQ(h.stats.error, EIO);
  EXPECT_EQ(h.stats.write.submitted.load(), h.stats.write.reaped.load());
}

TEST(IoWorker, MixedOpsFollowReadPct) {
  Harness h(8, true);
  h.plan.sequence.slots = 20000;
  h.plan.sequence.read_pct = 70;
  h.storage.resize(8 * kWorkerBlock);
  h.Run();
  uint64_t reads = h.stats.read.ops.load(), writes = h.stats.write.ops.load();
  EXPECT_EQ(reads + writes, 20000u);
  EXPECT_NEAR(static_cast<double>(reads) / 20000.0, 0.70, 0.02);
}

TEST(IoWorker, TimeBasedWrapsAndCountsPasses) {
  Harness h(1);
  h.plan.runtime_ns = 20'000'000;  // 20 ms of the null engine: many passes over 64 blocks
  h.RunOnNullEngine();
  EXPECT_GT(h.stats.passes, 10u);
  // Every I/O of a complete pass was issued; the window counts all but the one in flight as it
  // closed (it completes after the window, uncounted: CI saw 279615 of 279616).
  EXPECT_GE(h.stats.write.submitted.load(), h.stats.passes * kSlots);
  EXPECT_GE(h.stats.write.ops.load() + 1, h.stats.passes * kSlots);
}

// The ramp's I/O was counted nowhere: samples.csv and the charts showed it as zero throughput.
TEST(IoWorker, RampIoIsCountedApartFromTheWindow) {
  Harness h(1);
  h.plan.ramp_ns = 10'000'000;     // 10 ms of ramp, then
  h.plan.runtime_ns = 10'000'000;  // 10 ms measured
  h.RunOnNullEngine();
  const OpCounters& w = h.stats.write;
  EXPECT_GT(w.ramp_ops.load(), 0u);
  EXPECT_EQ(w.ramp_bytes.load(), w.ramp_ops.load() * kWorkerBlock);
  EXPECT_GT(w.ops.load(), 0u);
  EXPECT_EQ(w.latency.count(), w.ops.load()) << "the window's figures hold the window's I/O only";
  EXPECT_EQ(w.reaped.load(), w.submitted.load());
  EXPECT_LE(w.ramp_ops.load() + w.ops.load(), w.reaped.load());
}

TEST(IoWorker, StopFlagEndsTheLoop) {
  Harness h(1);
  h.plan.runtime_ns = 3'600'000'000'000;  // an hour: only the flag can end it
  h.Run(/*stop_now=*/true);
  EXPECT_LE(h.stats.write.ops.load(), 1u);
}

TEST(IoWorker, RateLimitPacesRequests) {
  NullEngine null;
  Harness h(1);
  EngineSetup setup;
  setup.queue_depth = 1;
  ASSERT_TRUE(null.Open(setup).ok());
  h.plan.rate_ns_per_io = 1e9 / 2000;  // 2000 IOPS: 64 I/Os take about 32 ms
  std::atomic<bool> stop{false};
  uint64_t start = iofleet::MonotonicNs();
  IoWorker(h.plan, null, h.stats, h.requests, h.completions, h.buffers, nullptr).Run(start, stop);
  double ms = static_cast<double>(iofleet::MonotonicNs() - start) / 1e6;
  EXPECT_EQ(h.stats.write.ops.load(), kSlots);
  EXPECT_GE(ms, 31.0);
  EXPECT_EQ(h.stats.write.scheduled.count(), kSlots);
}

// Completes requests oldest first, after a pause in each Submit: as a device that takes a
// while to accept a request.
class SlowSubmitEngine final : public IoEngine {
 public:
  std::string_view name() const noexcept override { return "slow-submit"; }
  Status Open(const EngineSetup& setup) override {
    done_.resize(setup.queue_depth);
    return Status::Ok();
  }
  int Enqueue(IoRequest& r) noexcept override {
    done_[(head_ + count_++) % done_.size()] = {r.slot, static_cast<int64_t>(r.length - r.done)};
    return 0;
  }
  int Submit() noexcept override {
    const uint64_t began = iofleet::MonotonicNs();
    timespec pause{0, 5'000'000};
    nanosleep(&pause, nullptr);
    if (submits_ < 2) submit_span[submits_++] = {began, iofleet::MonotonicNs()};
    return 1;
  }
  // When each of the first two submits began and ended: the pauses as slept, not as asked.
  struct Span {
    uint64_t began, ended;
  };
  Span submit_span[2]{};
  int Reap(std::span<Completion> out, uint32_t, int64_t) noexcept override {
    uint32_t n = 0;
    for (; count_ > 0 && n < out.size(); --count_, head_ = (head_ + 1) % done_.size()) out[n++] = done_[head_];
    return static_cast<int>(n);
  }

 private:
  std::vector<Completion> done_;
  uint32_t head_ = 0;
  uint32_t count_ = 0;
  int submits_ = 0;
};

// A time-based job whose range holds no block used to spin forever, deaf
// to its stop flag. It fails at once (EINVAL): a job with nothing to do is a plan error.
TEST(IoWorker, TimeBasedJobWithoutBlocksFailsAtOnce) {
  struct State {
    NullEngine null;
    Harness h{1};
    std::atomic<bool> stop{false};
    std::atomic<bool> returned{false};
  };
  auto state = std::make_shared<State>();  // outlives the test if the worker never returns
  EngineSetup setup;
  setup.queue_depth = 1;
  ASSERT_TRUE(state->null.Open(setup).ok());
  state->h.plan.sequence.slots = 0;
  state->h.plan.runtime_ns = 3'600'000'000'000;
  std::thread job([state] {
    Harness& h = state->h;
    IoWorker(h.plan, state->null, h.stats, h.requests, h.completions, h.buffers, nullptr).Run(iofleet::MonotonicNs(), state->stop);
    state->returned = true;
  });
  for (int i = 0; i < 200 && !state->returned; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!state->returned) {
    job.detach();  // it spins on; the failure is reported rather than the test hanging
    FAIL() << "the worker did not return within 2 s";
  }
  job.join();
  EXPECT_EQ(state->h.stats.error, EINVAL);
  EXPECT_EQ(state->h.stats.write.ops.load(), 0u);
}

// Worker CPU is measured exactly (CLOCK_THREAD_CPUTIME_ID): getrusage alone lags a running
// thread by up to a tick, and a 2 ms window of a busy thread read as 0 ns.
TEST(IoWorker, WorkerCpuOfAShortWindowIsMeasured) {
  NullEngine null;
  Harness h(1);
  EngineSetup setup;
  setup.queue_depth = 1;
  ASSERT_TRUE(null.Open(setup).ok());
  h.plan.runtime_ns = 2'000'000;
  std::atomic<bool> stop{false};
  IoWorker(h.plan, null, h.stats, h.requests, h.completions, h.buffers, nullptr).Run(iofleet::MonotonicNs(), stop);
  const uint64_t cpu = h.stats.cpu_user_ns + h.stats.cpu_sys_ns;
  EXPECT_GT(cpu, 20'000u);       // a busy null-engine loop: on the CPU for part of its 2 ms at least
  EXPECT_LT(cpu, 50'000'000u);   // and not a tick-sized guess of some other thread's
}

// A split by rusage's shares can shrink between two readings: each difference is split on its
// own, so user time never wraps below zero.
TEST(ThreadCpu, ASplitNeverWraps) {
  uint64_t user = 0, sys = 0;
  SplitThreadCpu({37'929'462, 4'000'000, 100'000'000}, {38'929'462, 4'000'000, 104'000'000}, user, sys);
  EXPECT_EQ(user, 0u);  // rusage's user time did not move: all of it system
  EXPECT_EQ(sys, 1'000'000u);
  SplitThreadCpu({1'000, 8'000'000, 0}, {3'000, 12'000'000, 4'000'000}, user, sys);
  EXPECT_EQ(user + sys, 2'000u);
  EXPECT_EQ(user, 1'000u);
  SplitThreadCpu({5'000, 0, 0}, {4'000, 0, 0}, user, sys);  // a total that went back: nothing
  EXPECT_EQ(user + sys, 0u);
}

// Item 4: latency starts just before each request goes to the kernel, not at the loop's
// earlier clock reading (which here includes the previous request's 5 ms submit).
TEST(IoWorker, LatencyStartsAtEachRequestsOwnSubmit) {
  SlowSubmitEngine engine;
  Harness h(2);
  EngineSetup setup;
  setup.queue_depth = 2;
  ASSERT_TRUE(engine.Open(setup).ok());
  h.plan.sequence.slots = 2;
  std::atomic<bool> stop{false};
  IoWorker(h.plan, engine, h.stats, h.requests, h.completions, h.buffers, nullptr).Run(iofleet::MonotonicNs(), stop);
  ASSERT_EQ(h.stats.write.ops.load(), 2u);
  // Both go out in one refill and are reaped together after both submits: the second waited for
  // its own submit only; timed from the loop's clock it waited for both. The bound is between
  // the two, from the pauses as slept (a loaded machine oversleeps: a fixed 9 ms bound failed).
  const auto& [first, second] = engine.submit_span;
  const uint64_t both = second.ended - first.began;
  const uint64_t own = second.ended - second.began;
  ASSERT_GT(both, own);
  EXPECT_LT(h.stats.write.latency.min(), own + (both - own) / 2);
}

// Item 5: synchronous engines hand out completions oldest first; newest first left the first
// request of a queue waiting to the end of the step.
TEST(IoWorker, SynchronousEnginesCompleteInOrder) {
  for (int which = 0; which < 2; ++which) {
    NullEngine null;
    PsyncEngine psync;
    IoEngine& engine = which == 0 ? static_cast<IoEngine&>(null) : psync;
    EngineSetup setup;
    setup.queue_depth = 4;
    ASSERT_TRUE(engine.Open(setup).ok());
    int fd = open("/dev/zero", O_RDWR);
    ASSERT_GE(fd, 0);
    std::vector<std::byte> buffer(4 * kWorkerBlock);
    std::vector<IoRequest> requests(4);
    for (uint32_t s = 0; s < 4; ++s) {
      requests[s] = IoRequest{s, IoDir::kRead, fd, s * kWorkerBlock, kWorkerBlock, 0, buffer.data() + s * kWorkerBlock, 0};
      ASSERT_EQ(engine.Enqueue(requests[s]), 0);
    }
    std::vector<Completion> out(4);
    ASSERT_EQ(engine.Reap(std::span<Completion>(out).first(1), 1, -1), 1);
    EXPECT_EQ(out[0].slot, 0u) << engine.name();
    ASSERT_EQ(engine.Enqueue(requests[0]), 0) << engine.name() << ": a reaped slot takes a new request";
    ASSERT_EQ(engine.Reap(out, 1, -1), 4);
    EXPECT_EQ(out[0].slot, 1u) << engine.name();
    EXPECT_EQ(out[3].slot, 0u) << engine.name();
    close(fd);
  }
}

// fio's loops: a size-based job does its range that many times, a random one in a new order
// each time, so every block is done once per loop.
TEST(IoWorker, LoopsRepeatTheRangeThatManyTimes) {
  Harness h(4, /*random=*/true);
  h.plan.loops = 3;
  h.plan.sequence.seed = 11;
  h.Run();
  EXPECT_EQ(h.stats.write.ops.load(), 3 * kSlots);
  EXPECT_EQ(h.stats.passes, 3u);
  EXPECT_EQ(h.stats.issued, 3 * kSlots);
}

// A rate of 1 IOPS in a 300 ms window: the job sleeps toward its next release only until its
// time to stop issuing, not a whole second past its runtime.
TEST(IoWorker, ASparseRateEndsWithItsRuntime) {
  NullEngine null;
  EngineSetup setup;
  setup.queue_depth = 1;
  ASSERT_TRUE(null.Open(setup).ok());
  Harness h(1);
  h.plan.runtime_ns = 300'000'000;
  h.plan.rate_ns_per_io = 1e9;
  std::atomic<bool> stop{false};
  const uint64_t start = iofleet::MonotonicNs();
  IoWorker(h.plan, null, h.stats, h.requests, h.completions, h.buffers, nullptr).Run(start, stop);
  const uint64_t took = iofleet::MonotonicNs() - start;
  EXPECT_EQ(h.stats.write.ops.load(), 1u);
  EXPECT_GE(took, 300'000'000u);
  EXPECT_LT(took, 700'000'000u) << "slept on to the next release, past the runtime";
}

// fio's io_size: the job stops after that many bytes, going around its range when it is more
// than the range, stopping inside it when less.
TEST(IoWorker, IoSizeMovesThatManyBytesWithinTheRange) {
  for (uint64_t blocks : {100u, 40u}) {
    Harness h(4);
    h.plan.io_limit_bytes = blocks * kWorkerBlock;
    h.Run();
    EXPECT_EQ(h.stats.write.ops.load(), blocks);
    EXPECT_EQ(h.stats.write.bytes.load(), blocks * kWorkerBlock);
    EXPECT_EQ(h.stats.passes, blocks / kSlots);
  }
}

// fio's ratemin: a job held to 200 IOPS under a minimum of 1000 fails at the end of its first
// cycle, saying when and what it did; one that keeps its minimum runs its time out.
TEST(IoWorker, RateMinStopsAJobThatFallsUnderIt) {
  NullEngine null;
  EngineSetup setup;
  setup.queue_depth = 1;
  ASSERT_TRUE(null.Open(setup).ok());
  Harness slow(1);
  slow.plan.runtime_ns = 5'000'000'000;
  slow.plan.rate_ns_per_io = 1e9 / 200;
  slow.plan.min_iops = 1000;
  slow.plan.rate_cycle_ns = 100'000'000;
  std::atomic<bool> stop{false};
  const uint64_t start = iofleet::MonotonicNs();
  IoWorker(slow.plan, null, slow.stats, slow.requests, slow.completions, slow.buffers, nullptr).Run(start, stop);
  const uint64_t took = iofleet::MonotonicNs() - start;
  ASSERT_TRUE(slow.stats.below_rate_min);
  EXPECT_LT(took, 2'000'000'000u) << "the job stopped at its first short cycle, not at its runtime";
  EXPECT_EQ(slow.stats.rate_min_cycle_from_ns, 0u);
  EXPECT_GE(slow.stats.rate_min_cycle_to_ns, 100'000'000u);
  EXPECT_GT(slow.stats.rate_min_achieved, 100.0);
  EXPECT_LT(slow.stats.rate_min_achieved, 300.0);

  Harness kept(1);
  kept.plan.runtime_ns = 350'000'000;
  kept.plan.rate_ns_per_io = 1e9 / 4000;
  kept.plan.min_iops = 1000;
  kept.plan.rate_cycle_ns = 100'000'000;
  IoWorker(kept.plan, null, kept.stats, kept.requests, kept.completions, kept.buffers, nullptr)
      .Run(iofleet::MonotonicNs(), stop);
  EXPECT_FALSE(kept.stats.below_rate_min) << kept.stats.rate_min_achieved;
  EXPECT_GT(kept.stats.write.ops.load(), 1000u);
}

// fio's thinktime: after every 8 completions a 10 ms pause, so 64 blocks at QD1 on the null
// engine take at least 7 pauses; with thinktime_spin the pause is spent on the CPU.
TEST(IoWorker, ThinkTimePausesAfterEveryBlocksAndSpinsWhenAsked) {
  NullEngine null;
  EngineSetup setup;
  setup.queue_depth = 1;
  ASSERT_TRUE(null.Open(setup).ok());
  std::atomic<bool> stop{false};
  uint64_t cpu_ns[2] = {0, 0};
  for (int spin = 0; spin < 2; ++spin) {
    Harness h(1);
    h.plan.think_ns = 10'000'000;
    h.plan.think_blocks = 8;
    h.plan.think_spin_ns = spin ? 10'000'000 : 0;
    const uint64_t start = iofleet::MonotonicNs();
    IoWorker(h.plan, null, h.stats, h.requests, h.completions, h.buffers, nullptr).Run(start, stop);
    const uint64_t took = iofleet::MonotonicNs() - start;
    EXPECT_EQ(h.stats.write.ops.load(), kSlots);
    EXPECT_GE(took, 70'000'000u) << (spin ? "spinning" : "sleeping");
    EXPECT_LT(took, 2'000'000'000u);
    cpu_ns[spin] = h.stats.cpu_user_ns + h.stats.cpu_sys_ns;
  }
  EXPECT_GT(cpu_ns[1], 20'000'000u) << "spinning takes the CPU";
  EXPECT_GT(cpu_ns[1], 4 * cpu_ns[0]) << "sleeping does not";
}

// A step cut into windows (target_latency): the job makes each cut itself, so every completion
// is in exactly one window, and from the cut on it keeps the new pace.
TEST(IoWorker, CutsSplitTheWindowExactlyAndSetTheNewPace) {
  Harness h(1);
  h.plan.runtime_ns = 450'000'000;
  WindowCuts cuts;
  WindowSnapshot snapshot;
  h.plan.cuts = &cuts;
  h.plan.snapshot = &snapshot;
  NullEngine null;
  EngineSetup setup;
  setup.queue_depth = 1;
  ASSERT_TRUE(null.Open(setup).ok());
  std::atomic<bool> stop{false};
  const uint64_t start = iofleet::MonotonicNs();
  // Cut 1 at 100 ms: from then on 1000 IOPS.
  ASSERT_TRUE(cuts.Order(1, {start + 100'000'000, 1e9 / 1000, 0}));
  EXPECT_FALSE(cuts.Order(3, {start + 200'000'000, 0, 0})) << "out of turn";
  std::thread job([&] { IoWorker(h.plan, null, h.stats, h.requests, h.completions, h.buffers, nullptr).Run(start, stop); });
  while (snapshot.cuts_done.load() < 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const OpSnapshot first = snapshot.write;
  EXPECT_EQ(snapshot.at_ns, start + 100'000'000);
  // Cut 2 at 300 ms: unpaced again.
  ASSERT_TRUE(cuts.Order(2, {start + 300'000'000, 0, 0}));
  job.join();
  ASSERT_EQ(snapshot.cuts_done.load(), 2u);
  const OpSnapshot& second = snapshot.write;
  // Window 0, unpaced: the null engine's speed; its own extremes, no schedule.
  EXPECT_GT(first.ops, 10'000u);
  EXPECT_EQ(first.latency.count(), first.ops);
  EXPECT_LE(first.latency_min, first.latency_max);
  EXPECT_EQ(first.scheduled.count(), 0u);
  // Window 1, 200 ms at 1000 IOPS: about 200 I/Os, each with a schedule.
  const uint64_t paced = second.ops - first.ops;
  EXPECT_GE(paced, 190u);
  EXPECT_LE(paced, 202u);
  EXPECT_EQ(second.scheduled.count(), paced) << "every paced completion has its lateness";
  EXPECT_EQ(second.latency.count() - first.latency.count(), paced);
  EXPECT_NE(second.scheduled_max, 0u);
  // Window 2, unpaced to the end: the three windows hold every completion of the step once.
  const uint64_t last = h.stats.write.ops.load() - second.ops;
  EXPECT_GT(last, paced * 10);
  EXPECT_EQ(first.ops + paced + last, h.stats.write.latency.count());
}

// A search that varies the queue depth (target_latency's vary: queue_depth): from a cut on, the
// job keeps at most the cut's depth in flight, and 0 gives it back its own.
TEST(IoWorker, ACutsQueueDepthBoundsTheRequestsInFlight) {
  for (uint32_t depth : {3u, 0u}) {
    Harness h(8);
    h.engine.watched = &h.stats;
    WindowCuts cuts;
    WindowSnapshot snapshot;
    h.plan.cuts = &cuts;
    h.plan.snapshot = &snapshot;
    CutOrder order;
    order.at_ns = 1;  // the job's start: cut before its first request
    order.queue_depth = depth;
    ASSERT_TRUE(cuts.Order(1, order));
    h.Run();
    EXPECT_EQ(snapshot.cuts_done.load(), 1u);
    EXPECT_EQ(h.stats.write.ops.load(), kSlots) << depth;
    EXPECT_EQ(h.engine.max_inflight, depth == 0 ? 8u : depth);
  }
}

}  // namespace
}  // namespace iofleet::agent
