// pread/pwrite, one request at a time: Enqueue does the I/O, Reap hands out the results.
#pragma once

#include "agent/engine/completion_queue.h"
#include "agent/engine/io_engine.h"

namespace iofleet::agent {

class PsyncEngine final : public IoEngine {
 public:
  std::string_view name() const noexcept override { return "psync"; }
  Status Open(const EngineSetup& setup) override;
  int Enqueue(IoRequest& request) noexcept override;
  int Submit() noexcept override { return 0; }
  int Reap(std::span<Completion> out, uint32_t min_done, int64_t timeout_ns) noexcept override;

 private:
  CompletionQueue done_;  // finished requests, handed out oldest first
};

}  // namespace iofleet::agent
