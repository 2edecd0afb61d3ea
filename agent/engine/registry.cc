#include <cstdlib>

#include "agent/engine/fault_engine.h"
#include "agent/engine/io_uring_engine.h"
#include "agent/engine/libaio_engine.h"
#include "agent/engine/null_engine.h"
#include "agent/engine/psync_engine.h"

namespace iofleet::agent {
namespace {

std::unique_ptr<IoEngine> MakeBare(EngineKind kind) {
  switch (kind) {
    case EngineKind::kPsync: return std::make_unique<PsyncEngine>();
    case EngineKind::kLibaio: return std::make_unique<LibaioEngine>();
    case EngineKind::kIoUring: return std::make_unique<IoUringEngine>();
    case EngineKind::kNull: return std::make_unique<NullEngine>();
  }
  return nullptr;
}

}  // namespace

Result<std::unique_ptr<IoEngine>> MakeEngine(EngineKind kind) {
  std::unique_ptr<IoEngine> engine = MakeBare(kind);
  if (!engine) return Status(Code::kInvalidArgument, "unknown engine " + std::to_string(static_cast<int>(kind)));
  if (const char* spec = std::getenv("IOFLEET_FAULT_INJECT"); spec && *spec) {
    auto faults = ParseFaults(spec);
    if (!faults.ok()) return faults.status();
    engine = std::make_unique<FaultEngine>(std::move(engine), std::move(*faults));
  }
  return engine;
}

}  // namespace iofleet::agent
