#include "controller/serve/due_decision.h"

namespace iofleet::controller {

DueDecision DecideDue(std::optional<uint64_t> last_due, uint64_t now, const std::function<uint64_t(uint64_t)>& next,
                      bool at_startup, bool run_missed, bool paused) {
  DueDecision d;
  if (!last_due || *last_due > now + kClockSetBackNs) {
    d.restarted = last_due.has_value();
    d.last_due = now;
    d.next_due = next(now);
    return d;
  }
  uint64_t latest = *last_due;
  uint64_t candidate = next(latest);
  if (candidate > now) {
    d.last_due = latest;
    d.next_due = candidate;
    return d;
  }
  // Walk to the latest time at or before now. A schedule's times are at least a second apart
  // (cron: a minute), so a month of `every: 1s` is a few million steps at most; a clock set far
  // ahead is bounded by now itself.
  while (candidate <= now && candidate > latest) {
    latest = candidate;
    candidate = next(latest);
  }
  d.last_due = latest;
  d.next_due = candidate;
  if (paused) return d;
  if (!at_startup) {
    d.queue_due = latest;
    d.reason = "schedule";
  } else if (run_missed) {
    d.queue_due = latest;
    d.reason = "missed";
  }
  return d;
}

}  // namespace iofleet::controller
