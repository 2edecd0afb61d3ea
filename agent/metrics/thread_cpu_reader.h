// The CPU time of running threads of this process, from /proc/self/task/TID/stat (utime and
// stime, in clock ticks): how the collector sees job threads' CPU while a step runs, without
// the job threads doing anything for it.
#pragma once

#include <cstdint>
#include <span>

namespace iofleet::agent {

struct ThreadsCpu {
  uint64_t user_ns = 0;
  uint64_t sys_ns = 0;
};

// A thread that has exited meanwhile counts nothing.
ThreadsCpu ReadThreadsCpu(std::span<const int> tids);

// The utime and stime fields of a /proc/.../stat line, in ticks; false when it is not one.
bool ParseStatTimes(const char* line, uint64_t& utime, uint64_t& stime);

}  // namespace iofleet::agent
