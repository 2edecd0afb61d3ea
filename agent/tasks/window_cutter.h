// The control side of a step cut into windows (agent/stats/window_cuts.h): orders each cut the
// controller asks for (CutWindow) after checking it, and once every job made it, turns the
// jobs' snapshots into the exact figures of the window the cut closed (agent.proto's
// WindowResult), as differences from the snapshots of the cut before.
//
// Thread-safety: Opened from the first job's thread; Order from a gRPC thread; Take from the
// step's stream thread; one mutex between Order and Take (never taken by the jobs).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "agent/stats/window_cuts.h"
#include "core/base/status.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::agent {

class WindowCutter {
 public:
  // `queue_depth`: each job's (the step's), the most a cut may ask.
  WindowCutter(size_t jobs, uint32_t queue_depth);

  const WindowCuts* cuts() const { return &cuts_; }
  WindowSnapshot* snapshot(size_t job) { return snapshots_[job].get(); }

  // The measurement window opened (monotonic): window 0 runs from here to cut 1.
  void Opened(uint64_t window_open_ns) { open_ns_.store(window_open_ns, std::memory_order_release); }

  // Cut `number` at `at_ns` (monotonic) with a new pace per job (at most one of load's two
  // rates; 0 and 0: unpaced) and queue depth (0: the step's; else at most it). Refused unless
  // it is the next cut, the window before it came back, the window has opened and `at_ns` is
  // after the previous cut and not yet past.
  Status Order(uint32_t number, uint64_t at_ns, uint64_t now_ns, const v1::CutWindowRequest& load);
  // The window the last cut closed, once every job made the cut; nullopt before (or when it was
  // taken already). `rate_limited`: whether the closed window was paced.
  std::optional<v1::WindowResult> Take();

 private:
  WindowCuts cuts_;
  std::vector<std::unique_ptr<WindowSnapshot>> snapshots_;  // written by the jobs
  std::vector<std::unique_ptr<WindowSnapshot>> previous_;   // each job's at the cut before
  const uint32_t queue_depth_;
  std::atomic<uint64_t> open_ns_{0};
  std::mutex mu_;
  uint32_t taken_ = 0;         // windows taken
  uint64_t last_cut_ns_ = 0;   // the instant of the last cut ordered (0: none yet)
  bool paced_ = false;         // the window now running is paced
  bool last_paced_ = false;    // the window the pending cut closes was
};

}  // namespace iofleet::agent
