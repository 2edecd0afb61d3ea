// Finished requests of an engine that completes them itself (psync, null), handed out in the
// order they finished: a request that waited longest is reaped first, as a device would
// complete it, so no completion waits to the end of the step for its turn.
//
// Thread-safety: one thread, like the engine that owns it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "agent/engine/io_engine.h"

namespace iofleet::agent {

class CompletionQueue {
 public:
  // Cold path: room for `capacity` completions.
  void Open(uint32_t capacity) {
    ring_.assign(capacity ? capacity : 1, Completion{0, 0});
    head_ = count_ = 0;
  }
  bool full() const noexcept { return count_ == ring_.size(); }
  bool Push(const Completion& c) noexcept {
    if (full()) return false;
    ring_[(head_ + count_++) % ring_.size()] = c;
    return true;
  }
  // The oldest completions, up to out.size(): how many.
  int PopInto(std::span<Completion> out) noexcept {
    uint32_t n = 0;
    for (; count_ > 0 && n < out.size(); --count_) {
      out[n++] = ring_[head_];
      head_ = head_ + 1 == ring_.size() ? 0 : head_ + 1;
    }
    return static_cast<int>(n);
  }

 private:
  std::vector<Completion> ring_;
  uint32_t head_ = 0;
  uint32_t count_ = 0;
};

}  // namespace iofleet::agent
