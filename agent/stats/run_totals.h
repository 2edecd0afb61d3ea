// One run's series, by label set: what every step that has finished in the run did, plus the
// step running now. The same step name runs many times in a run (sweep points, repeat cycles,
// a files step's phases): its counters keep adding up, so they never go back within a run.
// Immutable once shared: the supervisor swaps in a new copy when a step's result is final, so
// a reader holding one sees finished steps and the live step consistently.
#pragma once

#include <compare>
#include <map>
#include <string>

#include "agent/stats/step_sample.h"

namespace iofleet::agent {

struct IoSeriesKey {
  std::string step;
  std::string op;  // read | write
  std::string engine;
  auto operator<=>(const IoSeriesKey&) const = default;
};

struct FilesSeriesKey {
  std::string step;
  std::string phase;
  auto operator<=>(const FilesSeriesKey&) const = default;
};

struct RunTotals {
  std::string run_id;
  std::string workload;
  std::map<IoSeriesKey, IoSample> io;
  std::map<FilesSeriesKey, FilesSample> files;
  std::map<std::string, CopySample> copy;  // by step

  // Adds step `step`'s sample. A finished step's in-flight gauge is 0 whatever was read.
  void Add(const std::string& step, const StepSample& sample, bool finished);
};

}  // namespace iofleet::agent
