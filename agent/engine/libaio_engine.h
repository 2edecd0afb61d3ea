// Linux native AIO: requests are staged as iocbs and submitted in one io_submit per batch;
// completions are reaped in batches with io_getevents.
#pragma once

#include <libaio.h>

#include <vector>

#include "agent/engine/io_engine.h"

namespace iofleet::agent {

class LibaioEngine final : public IoEngine {
 public:
  ~LibaioEngine() override;
  std::string_view name() const noexcept override { return "libaio"; }
  Status Open(const EngineSetup& setup) override;
  int Enqueue(IoRequest& request) noexcept override;
  int Submit() noexcept override;
  int Reap(std::span<Completion> out, uint32_t min_done, int64_t timeout_ns) noexcept override;

 private:
  io_context_t ctx_{};
  bool open_ = false;
  std::vector<iocb> iocbs_;         // one per slot
  std::vector<iocb*> staged_;       // sized at Open
  std::vector<io_event> events_;    // sized at Open
  std::vector<Completion> refused_; // requests the kernel refused at submission, as completions
  uint32_t staged_count_ = 0;
  uint32_t refused_count_ = 0;
};

}  // namespace iofleet::agent
