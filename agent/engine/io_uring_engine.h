// io_uring through liburing: SQEs are prepared in Enqueue and submitted in one io_uring_submit
// per batch; completions are reaped in batches. The ring is single-issuer with deferred task
// work where the kernel offers it. Registered buffers (READ_FIXED/WRITE_FIXED) and
// registered files (IOSQE_FIXED_FILE) are options.
#pragma once

#include <liburing.h>

#include <vector>

#include "agent/engine/io_engine.h"

namespace iofleet::agent {

class IoUringEngine final : public IoEngine {
 public:
  ~IoUringEngine() override;
  std::string_view name() const noexcept override { return "io_uring"; }
  Status Open(const EngineSetup& setup) override;
  int Enqueue(IoRequest& request) noexcept override;
  int Submit() noexcept override;
  int Reap(std::span<Completion> out, uint32_t min_done, int64_t timeout_ns) noexcept override;

 private:
  io_uring ring_{};
  bool open_ = false;
  bool disabled_ = false;  // created disabled: the first Submit enables it on the worker's thread
  bool fixed_buffers_ = false;
  bool registered_files_ = false;
  std::vector<int> files_;  // registered: fd -> index by search (a job has one or two files)
  uint32_t queued_ = 0;
};

}  // namespace iofleet::agent
