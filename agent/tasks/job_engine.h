// A job's engine: the registry's kind (core/base/engine_kind.h) of the workload's `engine`, and
// the one place its EngineSetup is built from the step's io spec, for preflight and for the job.
#pragma once

#include <sys/uio.h>

#include <memory>
#include <optional>
#include <span>
#include <string>

#include "agent/engine/io_engine.h"
#include "core/base/engine_kind.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::agent {

inline std::optional<EngineKind> EngineOf(v1::Engine engine) {
  switch (engine) {
    case v1::ENGINE_PSYNC: return EngineKind::kPsync;
    case v1::ENGINE_LIBAIO: return EngineKind::kLibaio;
    case v1::ENGINE_IO_URING: return EngineKind::kIoUring;
    case v1::ENGINE_NULL: return EngineKind::kNull;
    default: return std::nullopt;
  }
}

// Its name, for messages and the metrics ("unknown" for a value no engine has).
inline std::string EngineName(v1::Engine engine) {
  auto kind = EngineOf(engine);
  return kind ? std::string(EngineKindName(*kind)) : "unknown";
}

// The job's engine made and opened for the step's queue depth. With the job's buffers and file,
// io_uring's fixed_buffers and registered_files apply; preflight passes none, to learn before
// any step starts that the engine exists here and opens at that depth. Errors name `who`
// ("agent NAME: step S") and the engine.
Result<std::unique_ptr<IoEngine>> OpenJobEngine(const v1::IoSpec& io, std::span<const iovec> buffers, std::span<const int> files,
                                                const std::string& who);

}  // namespace iofleet::agent
