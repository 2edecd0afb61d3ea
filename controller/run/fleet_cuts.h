// A running step cut into windows on every agent (agent.proto's CutWindow): orders each cut at one
// instant of the controller's clock (each agent's own, by its measured offset), with a pace per
// job from then on, waits for every agent's window, checks it (it comes from the wire) and merges
// it exactly (histograms add). The steps that measure in windows (cut_step.h: a latency search,
// a load curve, a steady-state wait) decide what to cut when; this does the cutting.
//
// Thread-safety: Cut and WaitReleased on one thread; OnWindow from the agents' stream callbacks;
// Fail from either.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "controller/fleet/fleet.h"
#include "core/base/sparse_histogram.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::controller {

// A window from the wire, as a cut step uses it: the one expected, with histograms in range
// whose counts are its ops, and a length near the span between its cuts; with `streams` (the
// step's, in order), each stream's window so checked, adding up to the agent's.
Status CheckWindow(const v1::WindowResult& window, uint32_t expected_window, uint64_t expected_ns,
                   const std::vector<std::string>& streams = {});

// Each job's pace from a cut on (CutWindow's rates, in the step's unit): one for every job, or
// for a step with streams one per stream (load_split.h); neither: as fast as it can.
struct Pace {
  uint64_t per_job = 0;
  std::vector<uint64_t> per_stream_job;  // in the step's stream order
  double asked = 0;                      // the fleet's rate these paces add up to
  bool paced() const { return per_job > 0 || !per_stream_job.empty(); }
};

// One stream's window of every agent, merged (a step with streams).
struct StreamWindow {
  double rate = 0;  // as FleetWindow's, of this stream's ops (or bytes)
  uint64_t ops = 0;
  std::shared_ptr<SparseHistogram> latency = std::make_shared<SparseHistogram>();
};

// One window of every agent, merged.
struct FleetWindow {
  double rate = 0;  // achieved: the sum of the agents' ops (or bytes) per second over their windows
  uint64_t window_ns = 0;  // the longest agent's
  uint64_t ops = 0;
  uint64_t bytes = 0;
  bool paced = false;
  // Every agent's latency added: from each request's schedule when paced, else from its submit.
  std::shared_ptr<SparseHistogram> latency = std::make_shared<SparseHistogram>();
  std::vector<v1::StepResult> agents;  // in the fleet's order
  std::vector<StreamWindow> streams;   // a step with streams: each one's, in the step's order
};

class FleetCuts {
 public:
  // `bandwidth`: rates are bytes per second (sequential ops), else I/Os per second.
  // `start_ns`, `window_open_ns`: the step's start instant and when its measurement window opens
  // (after start_delay and ramp), on the controller's wall clock. `streams`: the step's, in order
  // (empty: it has none).
  FleetCuts(Fleet& fleet, std::string run_id, int step_index, bool bandwidth, uint64_t start_ns, uint64_t window_open_ns,
            std::vector<std::string> streams = {});

  void OnWindow(size_t agent, const v1::WindowResult& window);
  // Waits until every agent's jobs were released (the start instant and a wake-up): false when
  // `give_up` said so first.
  bool WaitReleased(const std::function<bool()>& give_up);
  // Orders the next cut at `at_ns` (or a lead after now, if that is later) with each job's pace
  // from then on (0: as fast as it can) and queue depth (0: the step's), and waits for the window
  // it closes; nullopt (error set) when an agent refused, sent a bad window, or `give_up` said so.
  std::optional<FleetWindow> Cut(uint64_t at_ns, const Pace& pace, const std::function<bool()>& give_up, uint32_t queue_depth = 0);
  std::optional<FleetWindow> Cut(uint64_t at_ns, uint64_t per_job, const std::function<bool()>& give_up, uint32_t queue_depth = 0) {
    Pace pace;
    pace.per_job = per_job;
    return Cut(at_ns, pace, give_up, queue_depth);
  }
  // A step with streams whose queue depth is searched: the stream every cut's queue_depth is for.
  void SetQueueDepthStream(std::string stream) { queue_depth_stream_ = std::move(stream); }
  uint64_t last_cut_ns() const { return last_cut_ns_; }
  bool bandwidth() const { return bandwidth_; }

  // The first failure (empty: none); the first one wins.
  std::string error() const;
  void Fail(const std::string& message);

 private:
  uint64_t Lead() const;
  FleetWindow Merge(bool paced) const;

  Fleet& fleet_;
  const std::string run_id_;
  const int step_index_;
  const bool bandwidth_;
  const uint64_t start_ns_;
  const std::vector<std::string> streams_;
  std::string queue_depth_stream_;
  uint64_t last_cut_ns_;  // the window's opening, then the last cut's instant
  uint32_t cut_ = 0;
  bool paced_ = false;    // the window running now is paced
  mutable std::mutex mu_;
  std::condition_variable arrived_;
  std::vector<std::optional<v1::WindowResult>> windows_;  // the pending cut's, per agent
  uint64_t expected_ns_ = 0;
  std::string error_;
};

}  // namespace iofleet::controller
