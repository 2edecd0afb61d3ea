// No I/O at all: every request completes at once with its full length. What remains is
// iofleet's own cost per I/O (fio's --ioengine=null).
#pragma once

#include <vector>

#include "agent/engine/io_engine.h"

namespace iofleet::agent {

class NullEngine final : public IoEngine {
 public:
  std::string_view name() const noexcept override { return "null"; }
  Status Open(const EngineSetup& setup) override {
    done_.assign(setup.queue_depth, Completion{0, 0});
    count_ = 0;
    return Status::Ok();
  }
  int Enqueue(IoRequest& r) noexcept override {
    if (count_ == done_.size()) return -EAGAIN;
    done_[count_++] = Completion{r.slot, static_cast<int64_t>(r.length - r.done)};
    return 0;
  }
  int Submit() noexcept override { return 0; }
  int Reap(std::span<Completion> out, uint32_t, int64_t) noexcept override {
    uint32_t n = 0;
    while (count_ > 0 && n < out.size()) out[n++] = done_[--count_];
    return static_cast<int>(n);
  }

 private:
  std::vector<Completion> done_;
  uint32_t count_ = 0;
};

}  // namespace iofleet::agent
