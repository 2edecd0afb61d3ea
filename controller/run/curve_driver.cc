#include "controller/run/curve_driver.h"

#include <algorithm>
#include <cmath>

#include "core/rules/defaults.h"

namespace iofleet::controller {

CurveDriver::CurveDriver(Fleet& fleet, std::string run_id, int step_index, const v1::IoSpec& io, uint64_t start_ns,
                         uint64_t window_open_ns, uint64_t jobs)
    : cuts_(fleet, std::move(run_id), step_index, CutInBytes(io), start_ns, window_open_ns, StreamNames(io)),
      levels_(rules::CurveLevels(io.curve())), jobs_(std::max<uint64_t>(jobs, 1)), split_(jobs_) {
  const v1::LoadCurve& c = io.curve();
  report_.unit = cuts_.bandwidth() ? "bytes_per_sec" : "iops";
  report_.settle_ns = c.has_settle() ? c.settle() : 1'000'000'000;
  report_.probe_ns = c.has_probe() ? c.probe() : 10'000'000'000;
}

std::optional<FleetWindow> CurveDriver::Measure(const Pace& pace, const std::function<bool()>& give_up) {
  // The change of rate (none before the full-speed window: the ramp's end), the settling, the window.
  if (pace.paced() && !cuts_.Cut(UnixNowNs(), pace, give_up)) return std::nullopt;
  if (report_.settle_ns > 0 && !cuts_.Cut(cuts_.last_cut_ns() + report_.settle_ns, pace, give_up)) return std::nullopt;
  return cuts_.Cut(cuts_.last_cut_ns() + report_.probe_ns, pace, give_up);
}

void CurveDriver::Run(const std::function<bool()>& give_up) {
  if (!cuts_.WaitReleased(give_up)) return;
  std::optional<FleetWindow> full = Measure(Pace{}, give_up);
  if (!full) return;
  report_.max_rate = full->rate;
  report_.points.push_back({std::nullopt, std::nullopt, full->rate, full->window_ns, full->ops, full->latency});
  split_.Learn(*full, cuts_.bandwidth());
  full_speed_ = std::move(full->agents);
  if (report_.max_rate <= 0) {
    cuts_.Fail("the full-speed window moved nothing: a curve needs a maximum to take shares of");
    return;
  }
  const double least = cuts_.bandwidth() ? 4096 : 1;  // per job: a block, or an I/O, a second
  for (uint32_t level : levels_) {
    const double rate = report_.max_rate * level / 100.0;
    const Pace pace = split_.For(rate, least);
    std::optional<FleetWindow> w = Measure(pace, give_up);
    if (!w) return;
    report_.points.push_back({level, pace.asked, w->rate, w->window_ns, w->ops, w->latency});
  }
  complete_ = true;
}

}  // namespace iofleet::controller
