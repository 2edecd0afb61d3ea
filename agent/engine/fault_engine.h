// A fault-injecting wrapper around any engine, for tests: chosen requests of each job fail with
// EIO or ENOSPC, or are delayed. The agent wraps its engines only when its environment sets
// IOFLEET_FAULT_INJECT (nothing from the wire can turn it on), e.g.
//   IOFLEET_FAULT_INJECT="eio@100"          the 100th request of every job fails with EIO
//   IOFLEET_FAULT_INJECT="enospc@5,delay=20ms@7"
#pragma once

#include <memory>
#include <vector>

#include "agent/engine/io_engine.h"

namespace iofleet::agent {

struct Fault {
  uint64_t request = 0;  // 1-based index of the request in the job
  int error = 0;         // errno to fail it with, or 0
  uint64_t delay_ns = 0; // or how long to hold it before it reaches the inner engine
};

// Parses the IOFLEET_FAULT_INJECT syntax.
Result<std::vector<Fault>> ParseFaults(const std::string& spec);

class FaultEngine final : public IoEngine {
 public:
  FaultEngine(std::unique_ptr<IoEngine> inner, std::vector<Fault> faults)
      : inner_(std::move(inner)), faults_(std::move(faults)) {}
  std::string_view name() const noexcept override { return inner_->name(); }
  Status Open(const EngineSetup& setup) override;
  int Enqueue(IoRequest& request) noexcept override;
  int Submit() noexcept override { return inner_->Submit(); }
  int Reap(std::span<Completion> out, uint32_t min_done, int64_t timeout_ns) noexcept override;

 private:
  std::unique_ptr<IoEngine> inner_;
  std::vector<Fault> faults_;
  std::vector<Completion> failed_;  // sized at Open
  uint32_t failed_count_ = 0;
  uint64_t requests_ = 0;
};

}  // namespace iofleet::agent
