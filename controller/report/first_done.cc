#include "controller/report/first_done.h"

#include <algorithm>

namespace iofleet::controller {
namespace {

// An agent given no job, or one that did nothing in no time, does not finish first.
bool HadNothingToDo(const AgentStep& a) {
  return !a.has_work || (a.stats.window_ns == 0 && a.stats.ops == 0 && a.stats.bytes == 0);
}

// Whether an agent's own result is what it had done when the first finished: it was stopped
// then (stonewall), or its window had ended by then. Decided per agent: a stonewall StopStep that
// did not reach an agent leaves it running its whole share.
bool OwnResultAtFirstDone(const AgentStep& a, uint64_t first_ns) { return a.stopped_early || a.stats.window_ns <= first_ns; }

// The first finisher's window: the shortest of the agents that had something to do.
std::optional<uint64_t> FirstFinishNs(const StepReport& step) {
  std::optional<uint64_t> first_ns;
  for (const auto& a : step.agents) {
    if (HadNothingToDo(a)) continue;
    first_ns = std::min(first_ns.value_or(a.stats.window_ns), a.stats.window_ns);
  }
  return first_ns;
}

}  // namespace

double BytesAt(const std::vector<ProgressSample>& samples, uint64_t open_ns, uint64_t close_ns, uint64_t total_bytes,
               uint64_t at_ns) {
  if (at_ns >= close_ns) return static_cast<double>(total_bytes);
  if (at_ns <= open_ns) return 0;
  uint64_t before_ns = open_ns, after_ns = close_ns;
  double before_bytes = 0, after_bytes = static_cast<double>(total_bytes);
  for (const ProgressSample& s : samples) {
    if (s.elapsed_ns <= open_ns || s.elapsed_ns >= close_ns) continue;
    const double bytes = static_cast<double>(std::min(s.bytes, total_bytes));
    if (s.elapsed_ns <= at_ns) {
      if (s.elapsed_ns < before_ns) continue;  // out of order: an older sample
      before_ns = s.elapsed_ns;
      before_bytes = bytes;
    } else if (s.elapsed_ns < after_ns) {
      after_ns = s.elapsed_ns;
      after_bytes = bytes;
    }
  }
  after_bytes = std::max(after_bytes, before_bytes);  // the counts only grow
  if (at_ns == before_ns) return before_bytes;
  const double share = static_cast<double>(at_ns - before_ns) / static_cast<double>(after_ns - before_ns);
  return before_bytes + (after_bytes - before_bytes) * share;
}

std::optional<DoneFigure> FirstDone(const StepReport& step) {
  if (step.agents.size() < 2) return std::nullopt;
  const std::optional<uint64_t> first_ns = FirstFinishNs(step);
  if (!first_ns || *first_ns == 0) return std::nullopt;

  DoneFigure f;
  f.seconds = static_cast<double>(*first_ns) / 1e9;
  f.method = "exact";
  for (const auto& a : step.agents) {
    if (OwnResultAtFirstDone(a, *first_ns)) {
      f.bytes += static_cast<double>(a.stats.bytes);
      continue;
    }
    f.method = "interpolated";
    f.bytes += BytesAt(a.samples, step.ramp_ns, step.ramp_ns + a.stats.window_ns, a.stats.bytes, step.ramp_ns + *first_ns);
  }
  f.bytes_per_sec = f.bytes / f.seconds;
  return f;
}

void KeepSamplesAroundFirstDone(StepReport& step) {
  const std::optional<uint64_t> first_ns = FirstFinishNs(step);
  for (auto& a : step.agents) {
    if (!first_ns || OwnResultAtFirstDone(a, *first_ns)) {
      a.samples.clear();  // its own result is its figure
      continue;
    }
    const uint64_t at_ns = step.ramp_ns + *first_ns;
    std::optional<ProgressSample> before, after;
    for (const ProgressSample& s : a.samples) {
      if (s.elapsed_ns <= at_ns) {
        if (!before || s.elapsed_ns >= before->elapsed_ns) before = s;
      } else if (!after || s.elapsed_ns < after->elapsed_ns) {
        after = s;
      }
    }
    a.samples.clear();
    if (before) a.samples.push_back(*before);
    if (after) a.samples.push_back(*after);
    a.samples.shrink_to_fit();
  }
}

std::optional<DoneFigure> LastDone(const StepReport& step) {
  if (step.agents.size() < 2) return std::nullopt;
  uint64_t last_ns = 0, bytes = 0;
  for (const auto& a : step.agents) {
    last_ns = std::max(last_ns, a.stats.window_ns);
    bytes += a.stats.bytes;
  }
  if (last_ns == 0) return std::nullopt;
  DoneFigure f;
  f.seconds = static_cast<double>(last_ns) / 1e9;
  f.bytes = static_cast<double>(bytes);
  f.bytes_per_sec = f.bytes / f.seconds;
  return f;
}

}  // namespace iofleet::controller
