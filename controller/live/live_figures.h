// The live view's arithmetic, kept apart from threads and I/O so that it is tested alone:
// rates over the last sample interval from two cumulative samples, where a step stands (ramp
// or run, elapsed, expected, ETA), and the merge of the progress stream's histogram deltas.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/base/sparse_histogram.h"
#include "iofleet/v1/result.pb.h"

namespace iofleet::controller {

struct CumulativeSample {
  uint64_t elapsed_ns = 0;  // since the agent released its jobs
  uint64_t ops = 0, bytes = 0;
};

struct IntervalRate {
  bool known = false;  // false: no time inside the window between the two samples yet
  double ops_per_sec = 0;
  double bytes_per_sec = 0;
};

// What completed between two consecutive samples of one stream, over the part of that interval
// inside the measurement window: the counters stand still during the ramp, so the first
// interval after it is measured from the ramp's end, not from the previous sample (no rate
// when under a tenth of the interval was inside the window).
IntervalRate RateBetween(const CumulativeSample& before, const CumulativeSample& now, uint64_t ramp_ns);

struct StepClock {
  bool ramp = false;               // still in the ramp: no figure yet
  double elapsed_s = 0;            // ramp included
  std::optional<double> expected_s;  // the step's whole expected length, ramp included
  std::optional<double> eta_s;       // what is left of it
  std::optional<double> fraction;    // 0..1, for the bar
};

// A runtime-bound step (runtime > 0) takes ramp + runtime. A size-bound step is done when its
// `expected_ops` (every agent's together; 0: unknown) are: its ETA is what is left at the
// current rate (none while the rate is 0).
StepClock ClockOf(uint64_t elapsed_ns, uint64_t ramp_ns, uint64_t runtime_ns, uint64_t ops_done, uint64_t expected_ops,
                  double ops_per_sec);

// Adds a checked histogram delta (controller/live/progress_check.h) to `into`, exactly as the
// agent recorded it; its min and max are bounded by the lowest and highest bucket it fills.
void AddDelta(const v1::Histogram& delta, SparseHistogram& into);

// "[####......]": `width` cells, `fraction` in 0..1 (clamped).
std::string Bar(double fraction, int width);

// "1m05s", "9s", "1h02m": an elapsed time or ETA for a person.
std::string ShortDuration(double seconds);

// "850 us", "1.24 ms", "2.5 s": a latency in nanoseconds for a person.
std::string ShortLatency(uint64_t ns);

}  // namespace iofleet::controller
