#include "agent/host/host_stats.h"

#include <charconv>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace iofleet::agent {

CpuSample SampleCpu() {
  CpuSample s;
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  s.process_user_ns = static_cast<uint64_t>(ru.ru_utime.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ru.ru_utime.tv_usec) * 1000;
  s.process_sys_ns = static_cast<uint64_t>(ru.ru_stime.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ru.ru_stime.tv_usec) * 1000;
  if (FILE* f = std::fopen("/proc/stat", "r")) {
    unsigned long long v[10] = {};
    if (std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                    &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8) {
      uint64_t total = 0;
      for (int i = 0; i < 8; ++i) total += v[i];  // guest time is already in user
      s.host_total_ticks = total;
      s.host_busy_ticks = total - v[3] - v[4];
    }
    std::fclose(f);
  }
  return s;
}

// read(2), not an ifstream: some kernel files open and then fail their read (a down link's
// /sys/class/net/X/speed: EINVAL), and libstdc++'s filebuf throws from a failed read.
std::string ReadKernelText(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text;
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      text.clear();  // part of a file is not the file
      break;
    }
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

uint64_t PhysicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

std::vector<std::string_view> KernelFields(std::string_view line) {
  std::vector<std::string_view> words;
  size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    size_t end = at;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    if (end > at) words.push_back(line.substr(at, end - at));
    at = end;
  }
  return words;
}

bool KernelNumber(std::string_view word, uint64_t& out) {
  auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}

}  // namespace iofleet::agent
