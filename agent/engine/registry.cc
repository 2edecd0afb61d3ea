#include <cstdlib>

#include "agent/engine/fault_engine.h"
#include "agent/engine/io_uring_engine.h"
#include "agent/engine/libaio_engine.h"
#include "agent/engine/null_engine.h"
#include "agent/engine/psync_engine.h"

namespace iofleet::agent {
namespace {

std::unique_ptr<IoEngine> MakeBare(std::string_view name) {
  if (name == "psync") return std::make_unique<PsyncEngine>();
  if (name == "libaio") return std::make_unique<LibaioEngine>();
  if (name == "io_uring") return std::make_unique<IoUringEngine>();
  if (name == "null") return std::make_unique<NullEngine>();
  return nullptr;
}

}  // namespace

Result<std::unique_ptr<IoEngine>> MakeEngine(std::string_view name) {
  std::unique_ptr<IoEngine> engine = MakeBare(name);
  if (!engine) return Status(Code::kInvalidArgument, "unknown engine \"" + std::string(name) + "\"");
  if (const char* spec = std::getenv("IOFLEET_FAULT_INJECT"); spec && *spec) {
    auto faults = ParseFaults(spec);
    if (!faults.ok()) return faults.status();
    engine = std::make_unique<FaultEngine>(std::move(engine), std::move(*faults));
  }
  return engine;
}

std::vector<std::string> EngineNames() { return {"psync", "libaio", "io_uring", "null"}; }

}  // namespace iofleet::agent
