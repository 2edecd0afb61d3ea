// What the host and this process have spent, for CPU figures inside a measurement window.
#pragma once

#include <cstdint>

namespace iofleet::agent {

struct CpuSample {
  uint64_t process_user_ns = 0;
  uint64_t process_sys_ns = 0;
  uint64_t host_busy_ticks = 0;   // /proc/stat: all but idle and iowait
  uint64_t host_total_ticks = 0;
};

CpuSample SampleCpu();
uint64_t PhysicalMemoryBytes();

}  // namespace iofleet::agent
