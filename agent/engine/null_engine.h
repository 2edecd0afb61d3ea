// No I/O at all: every request completes at once with its full length. What remains is
// iofleet's own cost per I/O (fio's --ioengine=null).
#pragma once

#include "agent/engine/completion_queue.h"
#include "agent/engine/io_engine.h"

namespace iofleet::agent {

class NullEngine final : public IoEngine {
 public:
  std::string_view name() const noexcept override { return "null"; }
  Status Open(const EngineSetup& setup) override {
    done_.Open(setup.queue_depth);
    return Status::Ok();
  }
  int Enqueue(IoRequest& r) noexcept override {
    return done_.Push(Completion{r.slot, static_cast<int64_t>(r.length - r.done)}) ? 0 : -EAGAIN;
  }
  int Submit() noexcept override { return 0; }
  int Reap(std::span<Completion> out, uint32_t, int64_t) noexcept override { return done_.PopInto(out); }

 private:
  CompletionQueue done_;
};

}  // namespace iofleet::agent
