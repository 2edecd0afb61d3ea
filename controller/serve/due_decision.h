// When a suite's schedule has fallen due, and what to do about it: the scheduler's rule, apart
// from its thread and clock so that it can be tested at any instant.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace iofleet::controller {

struct DueDecision {
  std::optional<uint64_t> queue_due;  // queue a run for this scheduled time
  std::string reason;                 // "schedule" (on time) or "missed" (fell due while serve was down)
  uint64_t last_due = 0;              // record this as the latest time handled
  uint64_t next_due = 0;              // the schedule's next time after it
  bool restarted = false;             // the last time handled was far ahead of now: the schedule starts again from now
};

// A last handled time more than this ahead of now means the clock was set back (or had been set
// ahead): the schedule starts again from now rather than waiting for the clock to catch up.
constexpr uint64_t kClockSetBackNs = 3600ull * 1'000'000'000;

// `next(t)`: the schedule's first time strictly after t. `last_due`: the latest time handled
// before, nullopt for a suite never seen (its schedule starts now: nothing is due yet).
// Several times passed at once (serve was down, or busy) queue one run, for the latest of them.
// `at_startup`: times that passed while serve was down are "missed": queued once when
// `run_missed`, skipped otherwise. A paused suite queues nothing but still moves on, so that
// resuming it does not run what passed meanwhile. A clock set back by up to kClockSetBackNs waits
// for the time handled (nothing runs twice); by more, the schedule starts again from now.
DueDecision DecideDue(std::optional<uint64_t> last_due, uint64_t now, const std::function<uint64_t(uint64_t)>& next,
                      bool at_startup, bool run_missed, bool paused);

}  // namespace iofleet::controller
