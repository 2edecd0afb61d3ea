#include "agent/engine/libaio_engine.h"
#include "agent/engine/psync_engine.h"

namespace iofleet::agent {

Result<std::unique_ptr<IoEngine>> MakeEngine(std::string_view name) {
  if (name == "psync") return std::unique_ptr<IoEngine>(new PsyncEngine());
  if (name == "libaio") return std::unique_ptr<IoEngine>(new LibaioEngine());
  return Status(Code::kInvalidArgument, "unknown engine \"" + std::string(name) + "\"");
}

std::vector<std::string> EngineNames() { return {"psync", "libaio"}; }

}  // namespace iofleet::agent
