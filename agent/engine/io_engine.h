// The I/O engine contract, in the spirit of fio's ops table: cold Open returning Status; hot
// Enqueue/Submit/Reap that are noexcept, allocate nothing and return counts or -errno. Engines
// only translate requests into system calls; the worker does all accounting.
//
// Thread-safety: an engine belongs to one worker thread.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/engine_kind.h"
#include "core/base/status.h"

namespace iofleet::agent {

enum class IoDir : uint8_t { kRead, kWrite };

// Owned by the worker, one per queue slot, created before the step starts.
// An engine transfers [offset + done, offset + length) from buffer + done: the worker
// resubmits the rest of a short transfer by advancing `done`.
struct IoRequest {
  uint32_t slot = 0;
  IoDir dir = IoDir::kRead;
  int fd = -1;
  uint64_t offset = 0;
  uint32_t length = 0;
  uint32_t done = 0;
  std::byte* buffer = nullptr;
  uint64_t issue_ns = 0;  // set by the worker just before the batch is submitted
};

// What an engine may prepare for at Open: the buffers and files the job will use.
struct EngineSetup {
  uint32_t queue_depth = 1;
  std::span<const iovec> buffers;  // one per slot; request.slot indexes it
  std::span<const int> files;      // request.fd is one of these
  bool fixed_buffers = false;      // io_uring: register the buffers
  bool registered_files = false;   // io_uring: register the files
};

struct Completion {
  uint32_t slot;
  int64_t result;  // bytes transferred, or -errno
};

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  IoEngine(const IoEngine&) = delete;
  IoEngine& operator=(const IoEngine&) = delete;

  virtual std::string_view name() const noexcept = 0;

  // Cold path: sets the engine up for at most `setup.queue_depth` requests in flight.
  virtual Status Open(const EngineSetup& setup) = 0;

  // Hot path. Stage one request: 0, or -EAGAIN when the stage is full (Submit first).
  virtual int Enqueue(IoRequest& request) noexcept = 0;
  // Hand everything staged to the kernel, at the latest in the next Reap (io_uring submits and
  // waits in one system call): the number submitted, or -errno.
  virtual int Submit() noexcept = 0;
  // Wait for at least `min_done` completions (or until `timeout_ns` passes, when >= 0), write
  // up to out.size(): the number, or -errno.
  virtual int Reap(std::span<Completion> out, uint32_t min_done, int64_t timeout_ns) noexcept = 0;

 protected:
  IoEngine() = default;
};

// The explicit registry (agent/engine/registry.cc) of core/base's engine list. When the agent's
// environment sets IOFLEET_FAULT_INJECT (tests only; see fault_engine.h), every engine is wrapped.
Result<std::unique_ptr<IoEngine>> MakeEngine(EngineKind kind);

}  // namespace iofleet::agent
