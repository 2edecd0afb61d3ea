#include "agent/metrics/thread_cpu_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace iofleet::agent {

bool ParseStatTimes(const char* line, uint64_t& utime, uint64_t& stime) {
  // The command name (field 2) may hold spaces and parentheses: fields are counted after the
  // last ')'. There, field 3 (state) is the first; utime and stime are fields 14 and 15.
  const char* p = std::strrchr(line, ')');
  if (!p) return false;
  ++p;
  for (int field = 3; field < 14; ++field) {
    while (*p == ' ') ++p;
    if (!*p) return false;
    while (*p && *p != ' ') ++p;
  }
  char* end = nullptr;
  utime = std::strtoull(p, &end, 10);
  if (end == p) return false;
  p = end;
  stime = std::strtoull(p, &end, 10);
  return end != p;
}

ThreadsCpu ReadThreadsCpu(std::span<const int> tids) {
  static const uint64_t kNsPerTick = 1'000'000'000 / static_cast<uint64_t>(sysconf(_SC_CLK_TCK));
  ThreadsCpu total;
  char path[64];
  char line[1024];
  for (int tid : tids) {
    std::snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;  // exited
    ssize_t n = read(fd, line, sizeof(line) - 1);
    close(fd);
    if (n <= 0) continue;
    line[n] = '\0';
    uint64_t utime = 0, stime = 0;
    if (!ParseStatTimes(line, utime, stime)) continue;
    total.user_ns += utime * kNsPerTick;
    total.sys_ns += stime * kNsPerTick;
  }
  return total;
}

}  // namespace iofleet::agent
