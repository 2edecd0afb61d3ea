// The hot loop allocates nothing per I/O: count every global allocation while workers run
// different numbers of I/Os and check the count does not grow with them.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "agent/engine/null_engine.h"
#include "agent/worker/io_worker.h"

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

void* operator new(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace iofleet::agent {
namespace {

// Allocations made by Run() alone (the worker and its buffers are built before counting).
uint64_t AllocationsDuringRun(uint64_t slots, uint32_t depth, uint32_t read_pct, bool split) {
  NullEngine engine;
  EngineSetup setup;
  setup.queue_depth = depth;
  EXPECT_TRUE(engine.Open(setup).ok());
  JobPlan plan;
  plan.queue_depth = depth;
  plan.sequence.slots = slots;
  plan.sequence.slot_size = 65536;
  plan.sequence.random = true;
  plan.sequence.read_pct = read_pct;
  if (split) {
    plan.sequence.split_count = 2;
    plan.sequence.split_size = {4096, 65536};
    plan.sequence.split_cumulative = {1, 2};
  }
  plan.rate_ns_per_io = 1;  // the pacer's path too
  plan.verify = read_pct == 0;  // the null engine reads nothing a header could be checked in
  auto stats = std::make_unique<JobStats>();
  std::vector<std::byte> storage(size_t{depth} * 65536);
  std::vector<std::byte*> buffers;
  for (uint32_t s = 0; s < depth; ++s) buffers.push_back(storage.data() + size_t{s} * 65536);
  std::vector<IoRequest> requests(depth);
  std::vector<Completion> completions(depth);
  DataGenerator data;
  data.Prepare({50, "ab", 10, 1, false}, storage.data(), 65536, depth);
  IoWorker worker(plan, engine, *stats, requests, completions, buffers, &data);
  std::atomic<bool> stop{false};
  uint64_t before = g_allocations.load();
  worker.Run(0, stop);
  uint64_t after = g_allocations.load();
  EXPECT_EQ(stats->read.ops.load() + stats->write.ops.load(), slots);
  return after - before;
}

TEST(IoWorkerAllocations, NoneInTheHotLoop) {
  for (uint32_t depth : {1u, 32u}) {
    EXPECT_EQ(AllocationsDuringRun(1000, depth, 50, true), 0u) << "depth " << depth;
    EXPECT_EQ(AllocationsDuringRun(20000, depth, 0, false), 0u) << "depth " << depth;
  }
}

}  // namespace
}  // namespace iofleet::agent
