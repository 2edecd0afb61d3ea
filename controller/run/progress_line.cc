#include "controller/run/progress_line.h"

#include <fmt/format.h>

namespace iofleet::controller {

std::string ProgressLine(const std::string& name, const std::string& kind, const LiveTotals& t) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const bool files = kind == "copy" || kind == "files";
  std::string line = fmt::format("[{}] {:.0f}s  {:.1f} MiB/s  {:.0f} {}", name, t.seconds,
                                 static_cast<double>(t.bytes) / t.seconds / kMiB, static_cast<double>(t.ops) / t.seconds,
                                 files ? "files/s" : "IOPS");
  if (t.agents > 1) {
    line += fmt::format("  per agent {:.1f}..{:.1f} MiB/s", static_cast<double>(t.low_bytes) / t.seconds / kMiB,
                        static_cast<double>(t.high_bytes) / t.seconds / kMiB);
  }
  if (!t.silent.empty()) line += "  silent: " + t.silent;
  return line;
}

}  // namespace iofleet::controller
