// The jobs of one flow (workload.proto's FlowSpec, fio's flow and flow_id) issue requests in
// proportion to their weights: a job may issue its next request only while its share of the
// flow's requests so far is at most its share of the flow's weight. As fio's, the test is strict,
// so jobs of equal weight take turns request by request; one that is ahead waits for the others.
// A job that ends takes its requests and its weight out, so that the others are not held by a
// share that can no longer grow.
//
// Two relaxed atomics per flow, shared by its jobs (an add per request, no lock); each job keeps
// its own count.
//
// Thread-safety: every member from any job thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace iofleet::agent {

class FlowShare {
 public:
  // `total_weight`: every job's weight added up, over every stream of the step in this flow.
  explicit FlowShare(uint64_t total_weight) : weight_(total_weight) {}
  FlowShare(const FlowShare&) = delete;
  FlowShare& operator=(const FlowShare&) = delete;

  // Whether a job of `weight` that has issued `mine` requests may issue another:
  // mine / issued <= weight / total_weight, in integers (a job that issued none always may).
  bool MayIssue(uint64_t mine, uint32_t weight) const noexcept {
    const uint64_t issued = issued_.load(std::memory_order_relaxed);
    const uint64_t total_weight = weight_.load(std::memory_order_relaxed);
    return static_cast<unsigned __int128>(mine) * total_weight <= static_cast<unsigned __int128>(weight) * issued;
  }
  void Issued() noexcept { issued_.fetch_add(1, std::memory_order_relaxed); }
  // A job's end: its requests and weight leave the flow.
  void Leave(uint64_t mine, uint32_t weight) noexcept {
    issued_.fetch_sub(mine, std::memory_order_relaxed);
    weight_.fetch_sub(weight, std::memory_order_relaxed);
  }
  uint64_t issued() const noexcept { return issued_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> issued_{0};
  std::atomic<uint64_t> weight_;
};

}  // namespace iofleet::agent
