// The registry name (agent/engine/registry.cc) of a workload's engine.
#pragma once

#include <string>

#include "iofleet/v1/workload.pb.h"

namespace iofleet::agent {

inline std::string EngineName(v1::Engine engine) {
  switch (engine) {
    case v1::ENGINE_PSYNC: return "psync";
    case v1::ENGINE_LIBAIO: return "libaio";
    case v1::ENGINE_IO_URING: return "io_uring";
    case v1::ENGINE_NULL: return "null";
    default: return "unknown";
  }
}

}  // namespace iofleet::agent
