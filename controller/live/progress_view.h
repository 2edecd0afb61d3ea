// What `iofleet run --progress auto|tty|plain|json|none` prints on stderr while a step runs,
// from the live model (controller/live/live_run.h). Every figure is a rate over the last sample
// interval (never an average since the step began), and a ramp shows as "ramp".
//
//   tty    one line per running step, redrawn in place (\r and ESC[K): a bar for a size- or
//          runtime-bound step, elapsed and ETA, MiB/s and IOPS (files/s for files and copy),
//          p99 of the last interval, "N/M agents" reporting, lost and silent agents named.
//   plain  a line per step every sample interval, at most once a second, e.g.
//          "[write] 3s  ETA 27s  512.0 MiB/s  512 IOPS  p99 1.20 ms  2/2 agents".
//   json   the same cadence, one JSON object a line (keys in docs/workloads.md, "Live progress").
//   none   nothing.
//   auto   tty when stderr is a terminal, plain otherwise.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "controller/live/live_run.h"

namespace iofleet::controller {

enum class ProgressMode { kAuto, kTty, kPlain, kJson, kNone };

std::optional<ProgressMode> ParseProgressMode(const std::string& text);

class ProgressView {
 public:
  virtual ~ProgressView() = default;
  // Called every few tens of milliseconds while a step runs: the view decides when to draw.
  virtual void Tick(const LiveRun& live, int64_t steady_now_ns) = 0;
  // The step is over: its last figures, and a tty line is left as it stands.
  virtual void StepEnded(const LiveRun& live) = 0;
};

// `kAuto` is resolved with `is_tty`; `width`: the terminal's columns (a tty line is cut there,
// since a wrapped line could not be redrawn in place).
std::unique_ptr<ProgressView> MakeProgressView(ProgressMode mode, std::ostream& out, bool is_tty, int width = 80);

// The lines themselves, for tests.
std::string TtyLine(const LiveSnapshot& s);
std::string PlainLine(const LiveSnapshot& s);
nlohmann::json JsonLine(const LiveSnapshot& s, const std::string& event);

}  // namespace iofleet::controller
