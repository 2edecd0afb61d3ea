#include "agent/tasks/job_engine.h"

namespace iofleet::agent {

Result<std::unique_ptr<IoEngine>> OpenJobEngine(const v1::IoSpec& io, std::span<const iovec> buffers, std::span<const int> files,
                                                const std::string& who) {
  const auto kind = EngineOf(io.engine());
  if (!kind) return Status(Code::kFailedPrecondition, who + ": unknown engine " + std::to_string(static_cast<int>(io.engine())));
  auto engine = MakeEngine(*kind);
  if (!engine.ok()) return Status(Code::kFailedPrecondition, who + ": " + engine.status().message());
  const bool uring = *kind == EngineKind::kIoUring;
  EngineSetup setup;
  setup.queue_depth = io.queue_depth();
  setup.buffers = buffers;
  setup.files = files;
  setup.fixed_buffers = uring && io.uring().fixed_buffers() && !buffers.empty();
  setup.registered_files = uring && io.uring().registered_files() && !files.empty();
  if (Status opened = (*engine)->Open(setup); !opened.ok()) {
    return Status(Code::kFailedPrecondition, who + ": engine " + std::string(EngineKindName(*kind)) + ": " + opened.message());
  }
  return engine;
}

}  // namespace iofleet::agent
