// The I/O engines, as the agent's registry (agent/engine/registry.cc) knows them: the one list,
// in core/base so that the hot path names an engine without the workload's generated protobuf
// code (agent/tasks and agent/run map the workload's `engine` onto it).
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace iofleet {

enum class EngineKind { kPsync, kLibaio, kIoUring, kNull };

inline constexpr std::array<EngineKind, 4> kEngineKinds = {EngineKind::kPsync, EngineKind::kLibaio, EngineKind::kIoUring,
                                                           EngineKind::kNull};

// Its name in workloads, Hello and the metrics: psync, libaio, io_uring, null.
constexpr std::string_view EngineKindName(EngineKind kind) {
  switch (kind) {
    case EngineKind::kPsync: return "psync";
    case EngineKind::kLibaio: return "libaio";
    case EngineKind::kIoUring: return "io_uring";
    case EngineKind::kNull: return "null";
  }
  return "unknown";
}

constexpr std::optional<EngineKind> EngineKindNamed(std::string_view name) {
  for (EngineKind kind : kEngineKinds) {
    if (EngineKindName(kind) == name) return kind;
  }
  return std::nullopt;
}

}  // namespace iofleet
