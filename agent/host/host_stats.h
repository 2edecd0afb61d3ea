// What the host and this process have spent, for CPU figures inside a measurement window.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
// A kernel text line's fields, split at spaces and tabs.
std::vector<std::string_view> KernelFields(std::string_view line);
// A whole field as an unsigned number; false for anything else ("-1", "12x", "").
bool KernelNumber(std::string_view word, uint64_t& out);

}  // namespace iofleet::agent
