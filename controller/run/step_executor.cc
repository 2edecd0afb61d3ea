#include "controller/run/step_executor.h"

#include "controller/report/slowest_agent.h"
#include "controller/run/sample_interval.h"
#include "controller/run/cut_step.h"
#include "controller/run/silence_watch.h"

#include "controller/report/first_done.h"
#include "controller/workload/proto_names.h"
#include "core/rules/defaults.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>

namespace iofleet::controller {
namespace {

using std::chrono::milliseconds;
// A read step may first fill whole files: setup may take as long as writing them.
constexpr milliseconds kSetupDeadline{6 * 3600 * 1000};
constexpr milliseconds kControlDeadline{10000};
// How long agents asked to stop (a failure elsewhere, Ctrl-C) have to send their figures so far
// before their streams are cancelled.
constexpr std::chrono::seconds kStopGrace{10};
// A stream that sent nothing for this long of the controller's running time (or three sample
// intervals, if longer) is a frozen or cut-off agent.
constexpr uint64_t kMinSilenceNs = 5'000'000'000;

std::string WithAgent(const FleetAgent& agent, const std::string& message) {
  return message.rfind("agent ", 0) == 0 ? message : "agent " + agent.name + ": " + message;
}

LiveStepInfo LiveInfoOf(int index, const v1::IoSpec& io, const StepReport& step) {
  LiveStepInfo info{step.name, step.kind, "", index, step.point, step.cycle, io.ramp(), io.runtime()};
  auto engine = [](const v1::IoSpec& spec) { return EnumValueToYaml(v1::Engine_descriptor()->FindValueByNumber(spec.engine())); };
  if (step.kind == "io" && io.streams_size() == 0) info.engine = engine(io);
  uint64_t longest_delay = 0;
  for (const v1::IoSpec& stream : io.streams()) {
    info.streams.push_back({stream.name(), engine(stream)});
    longest_delay = std::max<uint64_t>(longest_delay, stream.start_delay());
  }
  // The step lasts until its last stream's window closes (the view's expected length).
  if (info.runtime_ns) info.runtime_ns += longest_delay + io.start_delay();
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

// One step's streams: what their callbacks (on gRPC's threads) and StreamAll's thread share.
struct StepExecutor::Streams {
  Streams(int index, const std::vector<bool>& has_work, size_t agents)
      : index(index), has_work(has_work), results(agents, Status(Code::kCancelled, "not run")), asked_to_stop(agents),
        running(agents), samples(agents), last(agents), has_last(agents, 0), silence(agents) {}
  ~Streams() { Abandon(); }

  // A step left by an exception (StreamAll's thread cannot start one): the streams still open
  // are cancelled (nothing else would end them), and waited for, since their callbacks hold
  // this.
  void Abandon() {
    std::unique_lock lock(ended_mu);
    const size_t agents = results.size();
    if (agents - running.load() >= opened) return;
    lock.unlock();
    // Only while a stream is open: a cancel marks the agent's client for its next step too.
    if (cancel_all) cancel_all();
    lock.lock();
    ended.wait(lock, [&] { return agents - running.load() >= opened; });
  }

  // An agent given no job has nothing to finish first.
  bool Worked(size_t i) const { return i >= has_work.size() || has_work[i]; }

  const int index;
  const std::vector<bool>& has_work;
  uint64_t start_at = 0;  // the one start instant, on the controller's clock
  uint64_t decided_ns = 0;  // when it was chosen, on the same clock
  uint64_t sample_interval_ns = 0;
  bool stonewall = false;  // the first agent to finish its share stops the others
  SampleStep sample_step;
  std::vector<Result<v1::StepResult>> results;
  // Which agents this controller asked to stop early (StopStep): only their early ends are
  // expected. An agent that ends early unasked lost its run (stopped, shut down): no result.
  std::vector<std::atomic<bool>> asked_to_stop;
  std::atomic<size_t> running;         // agents whose stream has not ended (or was not opened yet)
  size_t opened = 0;                   // streams opened, by StreamAll's thread (under ended_mu)
  std::mutex ended_mu;                 // with `ended`: a stream's end wakes StreamAll
  std::condition_variable ended;
  // Under ended_mu: agents whose end asks the others to stop (a stonewall's first done, the
  // first failure). The stream's callback cannot make those calls itself: it must not block.
  std::vector<size_t> stop_requests;
  std::atomic<bool> failed{false}, first_done{false};
  std::vector<std::vector<ProgressSample>> samples;  // each written by its agent's stream callbacks
  std::vector<v1::Progress> last;                    // likewise: for samples.csv's intervals
  std::vector<char> has_last;
  bool interrupted = false;        // Ctrl-C while the streams were open
  bool cancelled_streams = false;  // this controller cancelled the streams still open
  uint64_t end_ns = 0;             // when the last stream ended
  SilenceWatch silence;  // frozen or cut-off agents, on the stall clock
  uint64_t silence_limit_ns = kMinSilenceNs;
  std::function<void()> cancel_all;  // cancels every agent's stream (Abandon)
  std::unique_ptr<CutStep> cut;  // a step cut into windows (target_latency, curve, steady)
  std::string cut_error;         // why it measured nothing (empty: it did, or another failure ended it)
  bool job_end = false;          // the plan lets a job's end end others (job_end: stream or step)
};

StepOutcome StepExecutor::Run(int index, uint32_t phase, const v1::IoSpec& io, const std::vector<bool>& has_work,
                               StepReport& step, uint64_t total_jobs) {
  // 1. Set up everywhere. Nothing is measured yet.
  if (StepOutcome setup = SetUp(index, phase, step); setup.status != v1::STEP_STATUS_SUCCEEDED) {
    step.status = setup.status;
    return setup;
  }

  // 2. One instant for all, far enough ahead that every Start reaches its agent first.
  Streams streams(index, has_work, fleet_.size());
  live_.BeginStep(LiveInfoOf(index, io, step), LiveAgentsOf(fleet_));
  streams.stonewall = io.stonewall() == v1::STONEWALL_FIRST_DONE && io.runtime() == 0 && fleet_.size() > 1;
  for (const v1::IoSpec* stream : rules::StreamsOf(io)) {
    if (stream->job_end() == v1::JOB_END_STREAM || stream->job_end() == v1::JOB_END_STEP) streams.job_end = true;
  }
  streams.sample_step = {index, step.name, step.kind, step.point, step.cycle, step.group_cycle, io.ramp(), {}};
  for (const v1::IoSpec& stream : io.streams()) streams.sample_step.streams.push_back(stream.name());
  streams.sample_interval_ns = SampleIntervalNs(index, io);
  streams.cancel_all = [this] {
    for (auto& a : fleet_) a->client->CancelStep();
  };
  streams.start_at = StartInstant(streams.decided_ns);
  step.start_lead_ns = streams.start_at - streams.decided_ns;

  // 3. Stream every agent's step.
  streams.cut = MakeCutStep(fleet_, run_id_, index, io, streams.start_at, streams.start_at + io.start_delay() + io.ramp(), total_jobs);
  StreamAll(streams);

  // 4. Merge what came back; name what failed.
  Merge(io, streams, step);
  StepOutcome outcome = Judge(streams, step);
  step.status = outcome.status;
  return outcome;
}

void StepExecutor::FailStep(StepOutcome& outcome, const StepReport& step, const std::string& message) {
  log_ << "iofleet: step " << step.name << ": " << message << "\n";
  if (outcome.status == v1::STEP_STATUS_SUCCEEDED) outcome = {v1::STEP_STATUS_FAILED, "step " + step.name + ": " + message};
}

StepOutcome StepExecutor::SetUp(int index, uint32_t phase, const StepReport& step) {
  std::vector<Status> setup(fleet_.size());
  std::mutex mu;
  std::condition_variable changed;
  size_t setting_up = fleet_.size();  // under mu
  bool setup_failed = false;          // under mu
  std::thread setups([&] {
    ForEachAgent(fleet_, [&](size_t i) {
      v1::SetupStepRequest request;
      request.set_run_id(run_id_);
      request.set_step_index(static_cast<uint32_t>(index));
      request.set_phase(phase);
      request.set_cycle(static_cast<uint32_t>(step.cycle));  // for the agent's iofleet_run_info
      setup[i] = fleet_[i]->client->SetupStep(request, kSetupDeadline);
      // A setup renews the agent's lease when it ends (a fill may take minutes): at the latest
      // a round trip before its answer came.
      if (setup[i].ok()) fleet_[i]->contact_ns = SteadyNowNs() - static_cast<int64_t>(fleet_[i]->rtt_ns);
      std::lock_guard lock(mu);
      if (!setup[i].ok()) setup_failed = true;
      --setting_up;
      changed.notify_all();
    });
  });
  // One agent's failed setup fails the step: the others' setups (a fill may take minutes) are
  // cancelled rather than waited for; the run's Stop then ends them on the agents. The last
  // setup wakes this at once (the step's fixed cost); Ctrl-C is looked at every 20 ms.
  bool cancelled_setup = false;
  std::unique_lock lock(mu);
  while (setting_up > 0) {
    changed.wait_for(lock, milliseconds(20), [&] { return setting_up == 0 || (setup_failed && !cancelled_setup); });
    if ((interrupted_ || setup_failed) && !cancelled_setup) {
      cancelled_setup = true;
      lock.unlock();
      for (auto& a : fleet_) a->client->CancelStep();
      lock.lock();
    }
  }
  lock.unlock();
  setups.join();
  if (interrupted_) {
    return {v1::STEP_STATUS_ABORTED, interrupted_.Describe() + std::string(cancelled_setup ? " while setting up" : " before") + " step " + step.name};
  }
  StepOutcome outcome;
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (setup[i].ok() || (setup[i].code() == Code::kCancelled && cancelled_setup)) continue;
    if (setup[i].code() == Code::kUnavailable || setup[i].code() == Code::kDeadlineExceeded) fleet_[i]->lost = true;
    FailStep(outcome, step, WithAgent(*fleet_[i], setup[i].message()));
  }
  return outcome;
}

uint64_t StepExecutor::StartInstant(uint64_t& decided_ns) const {
  uint64_t max_rtt = 0;
  for (auto& a : fleet_) max_rtt = std::max(max_rtt, a->rtt_ns);
  decided_ns = UnixNowNs();
  return decided_ns + start_lead_.NextNs(max_rtt, fleet_.size());
}

uint64_t StepExecutor::SampleIntervalNs(int index, const v1::IoSpec& io) const {
  if (sample_interval_ns_ != 0) return sample_interval_ns_;
  auto last = last_span_ns_.find(index);
  const uint64_t expected = io.runtime() ? io.runtime() + io.ramp() : last != last_span_ns_.end() ? last->second : 0;
  return AutoSampleIntervalNs(expected, fleet_.size());
}

void StepExecutor::RunCut(Streams& s) {
  s.cut->Run([&] { return s.failed.load() || s.interrupted || interrupted_ || s.running.load() < fleet_.size(); });
  s.cut_error = s.cut->error();
  // An agent's stream ended under it (its runtime ran out, or it failed): it measured nothing,
  // and an agent's failure is the step's error if there is one.
  if (s.cut_error.empty() && s.cut->Figures().size() != fleet_.size() && !s.failed && !interrupted_) {
    s.cut_error = "the step ended before its windows did (its runtime is too short for them)";
  }
  StopOthers(s, SIZE_MAX);  // its windows are over: so is the step
}

void StepExecutor::CancelSilent(Streams& s) {
  const uint64_t now = stall_clock_.ProgressNs();
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (s.silence.TurnedSilent(i, now)) fleet_[i]->client->CancelStep();
  }
}

void StepExecutor::StreamAll(Streams& s) {
  // Nothing is due before the start instant and one sample interval after it.
  const uint64_t wall = UnixNowNs();
  const uint64_t first_due = stall_clock_.ProgressNs() + (s.start_at > wall ? s.start_at - wall : 0) + s.sample_interval_ns;
  s.silence_limit_ns = std::max<uint64_t>(kMinSilenceNs, 3 * s.sample_interval_ns);
  s.silence.Begin(first_due, s.silence_limit_ns, s.sample_interval_ns);
  // Every stream from this one thread: opening one starts its call and returns.
  for (size_t i = 0; i < fleet_.size(); ++i) {
    {
      std::lock_guard lock(s.ended_mu);
      ++s.opened;
    }
    StreamAgent(i, s);
  }
  std::thread cut;
  if (s.cut) cut = std::thread([this, &s] { RunCut(s); });
  std::vector<std::thread> stoppers;  // StopOthers for the ends that asked it
  std::thread stopper;
  std::chrono::steady_clock::time_point stop_deadline{};
  while (s.running > 0) {
    std::vector<size_t> stop_requests;
    {
      // The last stream's end wakes this at once (the step's fixed cost), and so does an end that
      // asks the others to stop; else every 50 ms, for Ctrl-C, silent agents and the view.
      std::unique_lock lock(s.ended_mu);
      s.ended.wait_for(lock, milliseconds(50), [&] { return s.running == 0 || !s.stop_requests.empty(); });
      stop_requests.swap(s.stop_requests);
    }
    if (s.running == 0) break;  // nobody is left to stop
    for (size_t i : stop_requests) stoppers.emplace_back([this, &s, i] { StopOthers(s, i); });
    auto now = std::chrono::steady_clock::now();
    if (interrupted_ && !s.interrupted) {
      s.interrupted = true;
      stopper = std::thread([&] { StopOthers(s, SIZE_MAX); });  // figures so far are kept, as fio does
      stop_deadline = now + kStopGrace;
    }
    if (s.failed && stop_deadline == std::chrono::steady_clock::time_point{}) stop_deadline = now + kStopGrace;
    if (stop_deadline != std::chrono::steady_clock::time_point{} && now >= stop_deadline && !s.cancelled_streams) {
      s.cancelled_streams = true;
      for (auto& a : fleet_) a->client->CancelStep();  // an agent that does not stop in time
    }
    CancelSilent(s);
    view_.Tick(live_, now.time_since_epoch().count());
  }
  if (cut.joinable()) cut.join();
  for (auto& t : stoppers) t.join();
  if (stopper.joinable()) stopper.join();
  s.end_ns = UnixNowNs();
}

void StepExecutor::StreamAgent(size_t i, Streams& s) {
  FleetAgent& a = *fleet_[i];
  v1::StartRequest request;
  request.set_run_id(run_id_);
  request.set_step_index(static_cast<uint32_t>(s.index));
  request.set_sample_interval_ns(s.sample_interval_ns);
  request.set_start_at_unix_ns(static_cast<uint64_t>(static_cast<int64_t>(s.start_at) + a.clock_offset_ns));
  a.streaming = true;
  s.silence.Opened(i, stall_clock_.ProgressNs());
  AgentClient::StepCallbacks callbacks;
  callbacks.on_progress = [this, &s, i](const v1::Progress& p) {
    s.silence.Heard(i, stall_clock_.ProgressNs());
    // Only what the live model accepted reaches the report's samples too.
    if (!live_.OnProgress(i, p)) return;
    s.samples[i].push_back({p.elapsed_ns(), p.bytes(), p.ops()});
    if (samples_) samples_->Add(s.sample_step, fleet_[i]->name, p, s.has_last[i] ? &s.last[i] : nullptr);
    s.last[i] = p;
    s.has_last[i] = 1;
  };
  callbacks.on_window = [this, &s, i](const v1::WindowResult& w) {
    s.silence.Heard(i, stall_clock_.ProgressNs());
    if (s.cut) s.cut->cuts().OnWindow(i, w);
  };
  callbacks.on_done = [this, &s, i](Result<v1::StepResult> result) { StreamEnded(i, s, std::move(result)); };
  a.client->StartStep(request, std::move(callbacks));
}

void StepExecutor::StreamEnded(size_t i, Streams& s, Result<v1::StepResult> ended) {
  s.silence.Closed(i);
  fleet_[i]->streaming = false;
  s.results[i] = std::move(ended);
  Result<v1::StepResult>& result = s.results[i];
  if (result.ok()) live_.AgentDone(i, &*result);
  else if (LostConnection(result.status()) || s.silence.Silenced(i)) live_.AgentLost(i);
  // IOR's stonewall: the first agent to finish its share stops the others. One agent failed (or
  // was lost): the others stop now, rather than run a step that cannot succeed, and send what
  // they did so far.
  const bool stop_others = result.ok() ? s.stonewall && s.Worked(i) && !result->stopped_early() && !s.first_done.exchange(true)
                                       : !s.failed.exchange(true);
  std::lock_guard lock(s.ended_mu);
  if (stop_others) s.stop_requests.push_back(i);
  --s.running;
  s.ended.notify_all();
}

void StepExecutor::StopOthers(Streams& s, size_t except) {
  ForEachAgent(fleet_, [&](size_t j) {
    if (j == except || s.asked_to_stop[j].exchange(true)) return;
    v1::StopStepRequest stop;
    stop.set_run_id(run_id_);
    stop.set_step_index(static_cast<uint32_t>(s.index));
    (void)fleet_[j]->client->StopStep(stop, kControlDeadline);
  });
}

// Each stream's row for this agent, and the stream's aggregate, which adds its agents' rows.
// `windows`: a cut step's figures of each stream (its windows'), which replace the results'.
static void AddStreams(const std::string& agent, int64_t start_offset_ns, const v1::StepResult& result, StepReport& step,
                       const std::vector<StreamFigures>* windows) {
  for (const v1::StreamResult& from : result.streams()) {
    auto it = std::find_if(step.streams.begin(), step.streams.end(), [&](const StreamReport& r) { return r.name == from.name(); });
    if (it == step.streams.end()) {
      it = step.streams.insert(step.streams.end(), StreamReport{from.name(), StepStats(), {}});
    }
    StepStats stats = StepStats::FromProto(from.result());
    if (windows) {
      auto window = std::find_if(windows->begin(), windows->end(), [&](const StreamFigures& f) { return f.name == from.name(); });
      if (window != windows->end()) stats = window->stats;
    }
    it->aggregate.Add(stats, it->agents.empty());
    AgentStep& row = it->agents.emplace_back(AgentStep{agent, std::move(stats), start_offset_ns});
    row.stopped_early = result.stopped_early() && !windows;  // the stop after its windows ended it, not a share
    row.ended_others = from.result().ended_others();
    row.cut_by_job_end = result.ended_others();  // another stream's job may have ended this one
    row.has_work = from.jobs() > 0;  // a stream whose jobs total_jobs gave to other agents
  }
}

void StepExecutor::Merge(const v1::IoSpec& io, Streams& s, StepReport& step) {
  step.status = v1::STEP_STATUS_SUCCEEDED;
  // Each agent's start instant on the controller's clock (its own, less the measured offset).
  int64_t earliest = INT64_MAX, latest = INT64_MIN;
  std::vector<int64_t> corrected(fleet_.size(), 0);
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (!s.results[i].ok()) continue;
    if (s.results[i]->started_at_unix_ns()) {
      corrected[i] = static_cast<int64_t>(s.results[i]->started_at_unix_ns()) - fleet_[i]->clock_offset_ns;
      earliest = std::min(earliest, corrected[i]);
      latest = std::max(latest, corrected[i]);
    }
  }
  // When each agent had its Start, on the controller's clock: the next step's lead.
  std::vector<std::optional<int64_t>> received(fleet_.size());
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (s.results[i].ok() && s.results[i]->start_received_unix_ns()) {
      received[i] = static_cast<int64_t>(s.results[i]->start_received_unix_ns()) - fleet_[i]->clock_offset_ns;
    }
  }
  start_lead_.Observe(s.decided_ns, s.start_at, received);
  step.stonewalled = s.first_done.load() && !s.failed.load();
  // A step cut into windows that measured what it set out to: each agent's figures are its
  // windows' (a search's confirming one, a curve's full-speed one, a steady span), which ran their
  // whole course (the stop after them ended the step, not a share).
  std::vector<StepStats> windows;
  std::vector<std::vector<StreamFigures>> stream_windows;
  if (s.cut) {
    s.cut->Report(step);
    windows = s.cut->Figures();
    stream_windows = s.cut->Streams();
  }
  const bool confirmed = !windows.empty() && windows.size() == fleet_.size();
  const bool io_step = step.kind == "io";
  uint64_t first_delay = io.start_delay();
  if (io.streams_size() > 0) {
    first_delay = UINT64_MAX;
    for (const v1::IoSpec& stream : io.streams()) first_delay = std::min<uint64_t>(first_delay, stream.start_delay());
  }
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (!s.results[i].ok()) continue;
    StepStats stats = confirmed ? std::move(windows[i]) : StepStats::FromProto(*s.results[i]);
    step.aggregate.Add(stats, step.agents.empty());
    AgentStep row{fleet_[i]->name, std::move(stats)};
    if (earliest != INT64_MAX && s.results[i]->started_at_unix_ns()) row.start_offset_ns = corrected[i] - earliest;
    // The agent against its own instant: the offset cancels (it was given start_at + offset),
    // and so do the streams' start delays (its first I/O is its earliest stream's).
    if (io_step && s.start_at && s.results[i]->started_at_unix_ns()) {
      row.start_lateness_ns = corrected[i] - static_cast<int64_t>(s.start_at) - static_cast<int64_t>(first_delay);
    }
    AddStreams(row.agent, row.start_offset_ns, *s.results[i], step, confirmed && i < stream_windows.size() ? &stream_windows[i] : nullptr);
    row.stopped_early = s.results[i]->stopped_early() && !confirmed;
    row.has_work = s.Worked(i);
    row.ended_others = row.cut_by_job_end = s.results[i]->ended_others();
    row.samples = std::move(s.samples[i]);
    step.agents.push_back(std::move(row));
  }
  step.stonewall = s.stonewall;
  step.ramp_ns = io.ramp();
  step.span_ns = s.end_ns > s.start_at ? s.end_ns - s.start_at : 0;
  for (const Stall& stall : stall_clock_.StallsSince(s.start_at)) step.controller_stall_ns += stall.ns;
  if (step.span_ns) last_span_ns_[s.index] = step.span_ns;
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
}

StepOutcome StepExecutor::Judge(const Streams& s, const StepReport& step) {
  if (s.interrupted) {
    return {v1::STEP_STATUS_ABORTED, interrupted_.Describe() + " during step " + step.name + " (figures up to the interrupt kept)"};
  }
  StepOutcome outcome;
  if (!s.cut_error.empty()) FailStep(outcome, step, std::string(s.cut->kind()) + ": " + s.cut_error);
  for (size_t i = 0; i < fleet_.size(); ++i) {
    const Result<v1::StepResult>& result = s.results[i];
    if (result.ok()) {
      // Early without being asked: the agent's run was ended under the step (an agent of an
      // older version, or one that answered before it noticed): never a result.
      if (result->stopped_early() && !s.asked_to_stop[i]) {
        FailStep(outcome, step, "agent " + fleet_[i]->name + " ended the step early without being asked");
      }
      if (result->ended_others() && !s.job_end) {
        FailStep(outcome, step, "agent " + fleet_[i]->name + " says a job's end ended others, which the plan did not ask (job_end)");
      }
      continue;
    }
    if (s.silence.Silenced(i)) {
      fleet_[i]->lost = true;
      FailStep(outcome, step, fmt::format("agent {} ({}) was lost: its stream sent nothing for {:.1f} s of the controller's own running "
                                          "time (progress is due every {:.1f} s): frozen, or cut off",
                                          fleet_[i]->name, fleet_[i]->client->address(), static_cast<double>(s.silence_limit_ns) / 1e9,
                                          static_cast<double>(s.sample_interval_ns) / 1e9));
      continue;
    }
    // Cancelled by this controller (Ctrl-C, or not stopping within the grace after another
    // agent failed): that other failure is the step's error. Any other end is this agent's.
    // Asked to stop before its start instant (another agent had failed), it never started.
    if (result.status().code() == Code::kCancelled && (s.cancelled_streams || (s.asked_to_stop[i] && s.failed))) continue;
    std::string message = WithAgent(*fleet_[i], result.status().message());
    if (LostConnection(result.status())) {
      fleet_[i]->lost = true;
      message = "agent " + fleet_[i]->name + " (" + fleet_[i]->client->address() + ") was lost: " + result.status().message();
    }
    FailStep(outcome, step, message);
  }
  return outcome;
}

}  // namespace iofleet::controller
