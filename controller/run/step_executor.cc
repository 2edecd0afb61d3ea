#include "controller/run/step_executor.h"

#include "controller/report/slowest_agent.h"
#include "controller/run/sample_interval.h"

#include "controller/report/first_done.h"
#include "controller/workload/proto_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <mutex>
#include <thread>

namespace iofleet::controller {
namespace {

using std::chrono::milliseconds;
// A read step may first fill whole files: setup may take as long as writing them.
constexpr milliseconds kSetupDeadline{6 * 3600 * 1000};
constexpr milliseconds kControlDeadline{10000};
constexpr uint64_t kMinStartLeadNs = 100'000'000;
// How long agents asked to stop (a failure elsewhere, Ctrl-C) have to send their figures so far
// before their streams are cancelled.
constexpr std::chrono::seconds kStopGrace{10};

std::string WithAgent(const FleetAgent& agent, const std::string& message) {
  return message.rfind("agent ", 0) == 0 ? message : "agent " + agent.name + ": " + message;
}

LiveStepInfo LiveInfoOf(int index, const v1::IoSpec& io, const StepReport& step) {
  LiveStepInfo info{step.name, step.kind, "", index, step.point, step.cycle, io.ramp(), io.runtime()};
  if (step.kind == "io") info.engine = EnumValueToYaml(v1::Engine_descriptor()->FindValueByNumber(io.engine()));
  return info;
}

std::vector<LiveAgentId> LiveAgentsOf(const Fleet& fleet) {
  std::vector<LiveAgentId> agents;
  for (const auto& a : fleet) agents.push_back({a->name, a->lost, a->clock_offset_ns});
  return agents;
}

bool LostConnection(const Status& status) {
  return status.code() == Code::kUnavailable || status.code() == Code::kDeadlineExceeded;
}

}  // namespace

StepOutcome StepExecutor::Run(int index, uint32_t phase, const v1::IoSpec& io, const std::vector<bool>& has_work,
                               StepReport& step) {
  StepOutcome outcome;
  auto fail = [&](const std::string& status, const std::string& error) {
    if (outcome.status == "succeeded") outcome = {status, error};
  };

  // 1. Set up everywhere. Nothing is measured yet. A setup may fill whole files: Ctrl-C
  // cancels it (the run's Stop then ends the agents' fills between two writes).
  std::vector<Status> setup(fleet_.size());
  std::atomic<size_t> setting_up{fleet_.size()};
  std::atomic<bool> setup_failed{false};
  std::thread setups([&] {
    ForEachAgent(fleet_, [&](size_t i) {
      v1::SetupStepRequest request;
      request.set_run_id(run_id_);
      request.set_step_index(static_cast<uint32_t>(index));
      request.set_phase(phase);
      request.set_cycle(static_cast<uint32_t>(step.cycle));  // for the agent's iofleet_run_info
      setup[i] = fleet_[i]->client->SetupStep(request, kSetupDeadline);
      if (!setup[i].ok()) setup_failed = true;
      --setting_up;
    });
  });
  // One agent's failed setup fails the step: the others' setups (a fill may take minutes) are
  // cancelled rather than waited for; the run's Stop then ends them on the agents.
  bool cancelled_setup = false;
  while (setting_up > 0) {
    std::this_thread::sleep_for(milliseconds(20));
    if ((interrupted_ || setup_failed) && !cancelled_setup) {
      cancelled_setup = true;
      for (auto& a : fleet_) a->client->CancelStep();
    }
  }
  setups.join();
  if (interrupted_) {
    step.status = "aborted";
    return {"aborted", interrupted_.Describe() + std::string(cancelled_setup ? " while setting up" : " before") + " step " + step.name};
  }
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (setup[i].ok() || (setup[i].code() == Code::kCancelled && cancelled_setup)) continue;
    if (setup[i].code() == Code::kUnavailable || setup[i].code() == Code::kDeadlineExceeded) fleet_[i]->lost = true;
    std::string message = WithAgent(*fleet_[i], setup[i].message());
    log_ << "iofleet: step " << step.name << ": " << message << "\n";
    fail("failed", "step " + step.name + ": " + message);
  }
  if (outcome.status != "succeeded") {
    step.status = outcome.status;
    return outcome;
  }

  // 2. One instant for all: far enough ahead that every Start reaches its agent first.
  uint64_t max_rtt = 0;
  for (auto& a : fleet_) max_rtt = std::max(max_rtt, a->rtt_ns);
  const uint64_t start_at = UnixNowNs() + std::max<uint64_t>(kMinStartLeadNs, 20 * max_rtt + fleet_.size() * 200'000);

  // 3. Stream every agent's step.
  std::vector<Result<v1::StepResult>> results(fleet_.size(), Status(Code::kCancelled, "not run"));
  live_.BeginStep(LiveInfoOf(index, io, step), LiveAgentsOf(fleet_));
  const bool stonewall = io.stonewall() == v1::STONEWALL_FIRST_DONE && io.runtime() == 0 && fleet_.size() > 1;
  // Which agents this controller asked to stop early (StopStep): only their early ends are
  // expected. An agent that ends early unasked lost its run (stopped, shut down): no result.
  std::vector<std::atomic<bool>> asked_to_stop(fleet_.size());
  auto stop_others = [&](size_t except) {
    ForEachAgent(fleet_, [&](size_t j) {
      if (j == except || asked_to_stop[j].exchange(true)) return;
      v1::StopStepRequest stop;
      stop.set_run_id(run_id_);
      stop.set_step_index(static_cast<uint32_t>(index));
      (void)fleet_[j]->client->StopStep(stop, kControlDeadline);
    });
  };
  std::atomic<size_t> running{fleet_.size()};
  std::atomic<bool> failed{false}, first_done{false};
  std::vector<std::vector<ProgressSample>> samples(fleet_.size());  // each written by its agent's thread
  std::vector<v1::Progress> last(fleet_.size());                    // likewise: for samples.csv's intervals
  std::vector<char> has_last(fleet_.size(), 0);
  const SampleStep sample_step{index, step.name, step.kind, step.point, step.cycle, step.group_cycle, io.ramp()};
  uint64_t sample_interval_ns = sample_interval_ns_;
  if (sample_interval_ns == 0) {
    auto last = last_span_ns_.find(index);
    const uint64_t expected = io.runtime() ? io.runtime() + io.ramp() : last != last_span_ns_.end() ? last->second : 0;
    sample_interval_ns = AutoSampleIntervalNs(expected, fleet_.size());
  }
  std::vector<std::thread> threads;
  for (size_t i = 0; i < fleet_.size(); ++i) {
    threads.emplace_back([&, i] {
      FleetAgent& a = *fleet_[i];
      v1::StartRequest request;
      request.set_run_id(run_id_);
      request.set_step_index(static_cast<uint32_t>(index));
      request.set_sample_interval_ns(sample_interval_ns);
      request.set_start_at_unix_ns(static_cast<uint64_t>(static_cast<int64_t>(start_at) + a.clock_offset_ns));
      a.streaming = true;
      results[i] = a.client->RunStep(request, [&](const v1::Progress& p) {
        // Only what the live model accepted reaches the report's samples too.
        if (!live_.OnProgress(i, p)) return;
        samples[i].push_back({p.elapsed_ns(), p.bytes(), p.ops()});
        if (samples_) samples_->Add(sample_step, a.name, p, has_last[i] ? &last[i] : nullptr);
        last[i] = p;
        has_last[i] = 1;
      });
      a.streaming = false;
      if (results[i].ok()) live_.AgentDone(i, &*results[i]);
      else if (LostConnection(results[i].status())) live_.AgentLost(i);
      // An agent given no job has nothing to finish first.
      const bool worked = i >= has_work.size() || has_work[i];
      if (results[i].ok() && stonewall && worked && !results[i]->stopped_early() && !first_done.exchange(true)) {
        stop_others(i);  // IOR's stonewall: the first agent to finish its share stops the others
      }
      if (!results[i].ok() && !failed.exchange(true)) {
        // One agent failed (or was lost): the others stop now, rather than run a step that
        // cannot succeed, and send what they did so far.
        stop_others(i);
      }
      --running;
    });
  }
  bool interrupted = false;
  bool cancelled_streams = false;  // this controller cancelled the streams still open
  std::thread stopper;
  std::chrono::steady_clock::time_point stop_deadline{};
  while (running > 0) {
    std::this_thread::sleep_for(milliseconds(50));
    auto now = std::chrono::steady_clock::now();
    if (interrupted_ && !interrupted) {
      interrupted = true;
      stopper = std::thread([&] { stop_others(SIZE_MAX); });  // figures so far are kept, as fio does
      stop_deadline = now + kStopGrace;
    }
    if (failed && stop_deadline == std::chrono::steady_clock::time_point{}) stop_deadline = now + kStopGrace;
    if (stop_deadline != std::chrono::steady_clock::time_point{} && now >= stop_deadline && !cancelled_streams) {
      cancelled_streams = true;
      for (auto& a : fleet_) a->client->CancelStep();  // an agent that does not stop in time
    }
    view_.Tick(live_, now.time_since_epoch().count());
  }
  for (auto& t : threads) t.join();
  if (stopper.joinable()) stopper.join();
  const uint64_t streams_end = UnixNowNs();

  // 4. Merge what came back; name what failed.
  step.status = "succeeded";
  int64_t earliest = INT64_MAX, latest = INT64_MIN;
  std::vector<int64_t> corrected(fleet_.size(), 0);
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (!results[i].ok()) continue;
    if (results[i]->started_at_unix_ns()) {
      corrected[i] = static_cast<int64_t>(results[i]->started_at_unix_ns()) - fleet_[i]->clock_offset_ns;
      earliest = std::min(earliest, corrected[i]);
      latest = std::max(latest, corrected[i]);
    }
  }
  step.stonewalled = first_done.load() && !failed.load();
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (!results[i].ok()) continue;
    StepStats stats = StepStats::FromProto(*results[i]);
    step.aggregate.Add(stats, step.agents.empty());
    AgentStep row{fleet_[i]->name, std::move(stats)};
    if (earliest != INT64_MAX && results[i]->started_at_unix_ns()) row.start_offset_ns = corrected[i] - earliest;
    row.stopped_early = results[i]->stopped_early();
    row.has_work = i >= has_work.size() || has_work[i];
    row.samples = std::move(samples[i]);
    step.agents.push_back(std::move(row));
  }
  step.stonewall = stonewall;
  step.ramp_ns = io.ramp();
  step.span_ns = streams_end > start_at ? streams_end - start_at : 0;
  if (step.span_ns) last_span_ns_[index] = step.span_ns;
  KeepSamplesAroundFirstDone(step);
  if (earliest != INT64_MAX) {
    step.start_skew_ns = latest - earliest;
    step.started_at_unix_ns = static_cast<uint64_t>(earliest);
  }
  live_.EndStep(earliest != INT64_MAX ? std::optional<uint64_t>(step.start_skew_ns) : std::nullopt);
  view_.StepEnded(live_);
  if (auto slowest = FindSlowestAgent(step.agents, RanksByTime(step.kind))) {
    step.slowest_agent = slowest->agent;
    step.slowest_trails_median_pct = slowest->trails_median_pct;
  }
  if (interrupted) {
    step.status = "aborted";
    return {"aborted", interrupted_.Describe() + " during step " + step.name + " (figures up to the interrupt kept)"};
  }
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (results[i].ok()) {
      // Early without being asked: the agent's run was ended under the step (an agent of an
      // older version, or one that answered before it noticed): never a result.
      if (results[i]->stopped_early() && !asked_to_stop[i]) {
        std::string message = "agent " + fleet_[i]->name + " ended the step early without being asked";
        log_ << "iofleet: step " << step.name << ": " << message << "\n";
        fail("failed", "step " + step.name + ": " + message);
      }
      continue;
    }
    // Cancelled by this controller (Ctrl-C, or not stopping within the grace after another
    // agent failed): that other failure is the step's error. Any other end is this agent's.
    // Asked to stop before its start instant (another agent had failed), it never started.
    if (results[i].status().code() == Code::kCancelled && (cancelled_streams || (asked_to_stop[i] && failed))) continue;
    std::string message = WithAgent(*fleet_[i], results[i].status().message());
    if (LostConnection(results[i].status())) {
      fleet_[i]->lost = true;
      message = "agent " + fleet_[i]->name + " (" + fleet_[i]->client->address() + ") was lost: " + results[i].status().message();
    }
    log_ << "iofleet: step " << step.name << ": " << message << "\n";
    fail("failed", "step " + step.name + ": " + message);
  }
  step.status = outcome.status;
  return outcome;
}

}  // namespace iofleet::controller
