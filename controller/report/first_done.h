// First-done and last-done figures of a step run on several agents (IOR's and elbencho's
// stonewall figures): the bytes every agent had moved by the moment the first one finished,
// over that time; and all bytes over the time until the last one finished.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "controller/report/report_model.h"

namespace iofleet::controller {

struct DoneFigure {
  double seconds = 0;
  double bytes = 0;  // first_done: fractional when interpolated
  double bytes_per_sec = 0;
  // first_done only: "exact" when every agent's own result is its bytes at that moment (the step
  // has stonewall, which stops them then, or each ended by then); "interpolated" when some agent's
  // bytes at that moment come from its progress samples.
  std::string method;
};

// The bytes an agent had moved `at_ns` after the step's common start instant. Its measurement
// window runs from `open_ns` to `close_ns` (same origin), holding `total_bytes` at the close; the
// samples (cumulative, elapsed from the same origin) in between are joined by straight lines, the
// window's opening counting as 0 bytes and its close as `total_bytes`. Samples outside the window
// are ignored, and a sample's bytes are capped at the total.
double BytesAt(const std::vector<ProgressSample>& samples, uint64_t open_ns, uint64_t close_ns, uint64_t total_bytes,
               uint64_t at_ns);

// Left out (nullopt) for fewer than two agents, when no agent had anything to do, and when the
// first finisher's window is 0 (a zero-length window has no rate). An agent that had nothing to do
// (no I/O in a zero window: no job) does not finish first.
std::optional<DoneFigure> FirstDone(const StepReport& step);
// Drops every progress sample FirstDone will not use: per agent, all but the last sample at or
// before the first finish and the first after it. A fleet's samples over a long run would
// otherwise be kept to the end (one per agent per sample interval); call it once the step's rows
// are complete. FirstDone gives the same figure before and after.
void KeepSamplesAroundFirstDone(StepReport& step);

// Left out for fewer than two agents and when the longest window is 0.
std::optional<DoneFigure> LastDone(const StepReport& step);

}  // namespace iofleet::controller
