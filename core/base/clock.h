// Monotonic nanoseconds: the one clock the hot path reads (vDSO, about 22 ns here).
#pragma once

#include <cstdint>
#include <ctime>

namespace iofleet {

inline constexpr uint64_t kNsPerSecond = 1'000'000'000;

inline uint64_t MonotonicNs() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * kNsPerSecond + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace iofleet
