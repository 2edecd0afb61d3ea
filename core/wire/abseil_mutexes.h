// gRPC's locks are Abseil Mutexes, and Debian 12's Abseil is built without NDEBUG, so every
// lock runs Abseil's deadlock detection (a process-wide graph of lock ids under a lock of its
// own): 6.4% of the controller's CPU with 1,000 agents streaming (perf: GraphCycles::GetId).
// Each process that serves or calls gRPC turns it off first, as a release build of Abseil has it.
#pragma once

#include <absl/synchronization/mutex.h>

namespace iofleet::wire {

inline void SkipAbseilDeadlockDetection() { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); }

}  // namespace iofleet::wire
