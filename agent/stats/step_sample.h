// What the agent's metrics show of one step, read from its jobs' own counters (the probe
// pattern: the jobs keep plain single-writer counters, a reader copies them when Prometheus
// scrapes). Plain data, no Prometheus: agent/run fills it, agent/metrics/ exposes it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/histogram_fold.h"

namespace iofleet::agent {

// The `reason` label of iofleet_io_errors_total: a fixed set of errno names, then "verify"
// (a read whose verify header did not match) and "other" (any other errno).
inline constexpr size_t kErrorReasonCount = 22;
std::string_view ErrorReasonName(size_t reason);
// The reason an error slot (agent/stats/job_stats.h: errno, or 0 for verify) is counted under.
size_t ErrorReasonOf(int slot);

// Adds `from` into `into`: histograms merge by adding counts.
void AddFolded(FoldedHistogram& into, const FoldedHistogram& from);

// One direction (read or write) of an io step.
struct IoSample {
  uint64_t ops = 0;      // completed inside the measurement window
  uint64_t bytes = 0;
  uint64_t fsyncs = 0;
  uint64_t inflight = 0;  // a gauge: requests with the engine now
  std::array<uint64_t, kErrorReasonCount> errors{};
  FoldedHistogram latency;
  void Add(const IoSample& other);
};

// One phase of a files step.
struct FilesSample {
  uint64_t ops = 0;
  FoldedHistogram latency;
  void Add(const FilesSample& other);
};

struct CopySample {
  uint64_t bytes = 0;
  uint64_t files = 0;
  void Add(const CopySample& other);
};

struct StepSample {
  std::string engine;  // io steps
  std::optional<IoSample> read;
  std::optional<IoSample> write;
  std::string phase;  // files steps: the phase's op (mkdir, create, ...)
  std::optional<FilesSample> files;
  std::optional<CopySample> copy;
};

}  // namespace iofleet::agent
