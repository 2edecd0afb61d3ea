// What the host and this process have spent, for CPU figures inside a measurement window.
#pragma once

#include <cstdint>
#include <string>

namespace iofleet::agent {

struct CpuSample {
  uint64_t process_user_ns = 0;
  uint64_t process_sys_ns = 0;
  uint64_t host_busy_ticks = 0;   // /proc/stat: all but idle and iowait
  uint64_t host_total_ticks = 0;
};

CpuSample SampleCpu();
// A small kernel file (/proc, /sys) whole, as read at once; "" where it cannot be read.
std::string ReadKernelText(const std::string& path);
uint64_t PhysicalMemoryBytes();

}  // namespace iofleet::agent
