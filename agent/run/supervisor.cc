#include "agent/run/supervisor.h"

#include "core/base/version.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>

#include "agent/engine/io_engine.h"
#include "agent/host/host_info.h"
#include "agent/run/preflight.h"
#include "agent/tasks/io_task.h"
#include "agent/tasks/task_factory.h"
#include "core/base/checked.h"
#include "core/base/clock.h"
#include "core/base/unique_fd.h"
#include "core/base/units.h"
#include "core/rules/defaults.h"
#include "core/rules/non_io_steps.h"
#include "core/rules/planned_check.h"

namespace iofleet::agent {
namespace {

constexpr uint64_t kDefaultLeaseNs = 10'000'000'000;
constexpr uint64_t kMinLeaseNs = 1'000'000'000;
constexpr uint64_t kMaxLeaseNs = 3'600'000'000'000;
constexpr uint64_t kMaxStartLeadNs = 60'000'000'000;

// FNV-1a: a stable token per run for data seeds and verify headers.
uint64_t RunToken(const std::string& run_id) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : run_id) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// 128 random bits, hex: the secret that makes a run its controller's.
std::string NewSessionToken() {
  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof(bytes)) {
    ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
    else if (errno != EINTR) std::abort();  // no randomness: nothing safe to hand out
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) token += {kHex[b >> 4], kHex[b & 15]};
  return token;
}

// Compares in time independent of where the strings differ.
bool SameSecret(const std::string& a, const std::string& b) {
  if (a.size() != b.size() || b.empty()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

v1::HelloResponse Supervisor::Hello() const {
  v1::HelloResponse r;
  // Tests only (like IOFLEET_FAULT_INJECT): pose as another version, to prove the controller
  // refuses a mixed fleet.
  const char* posed = std::getenv("IOFLEET_TEST_POSE_VERSION");
  r.set_version(posed && *posed ? posed : kVersion);
  r.set_revision(Revision());
  r.set_name(name_);
  for (EngineKind e : kEngineKinds) r.add_engines(std::string(EngineKindName(e)));
  r.set_allow_drop_caches(config_.allow_drop_caches);
  r.set_allow_readahead(config_.allow_readahead);
  for (const auto& [hook, command] : config_.hooks) r.add_hooks(hook);
  for (const auto& [name, root] : roots_.all()) {
    v1::Root* out = r.add_roots();
    out->set_name(name);
    out->set_path(root.path);
  }
  return r;
}

// Other roots' run directories, made at Prepare like the target's: <root>/iofleet/<run-id>/<agent>/.
Status Supervisor::OpenPlaces(const v1::PrepareRequest& request) {
  std::vector<std::string> texts;
  for (const auto& step : request.steps()) {
    if (step.has_files()) texts.push_back(step.files().dir());
    if (step.has_copy()) texts.insert(texts.end(), {step.copy().from(), step.copy().to()});
  }
  for (const auto& text : texts) {
    std::string root_name = rules::ParseStepPlace(text).root;
    if (root_name.empty() || root_name == target_root_ || places_.count(root_name)) continue;
    const Root* root = roots_.Find(root_name);
    if (!root) {
      std::string known;
      for (const auto& [name, r] : roots_.all()) known += (known.empty() ? "" : ", ") + name;
      return Status(Code::kFailedPrecondition, "agent " + name_ + ": \"" + text + "\": this agent has no root named \"" +
                                                   root_name + "\" (roots: " + known + "; start it with --root " + root_name + "=DIR)");
    }
    auto workspace = Workspace::Create(*root, "", request.run_id(), request.agent_name());
    if (!workspace.ok()) return Status(workspace.status().code(), "agent " + name_ + ": " + workspace.status().message());
    places_[root_name] = std::move(*workspace);
  }
  return Status::Ok();
}


Result<v1::PrepareResponse> Supervisor::Prepare(const v1::PrepareRequest& request) {
  // What comes from the wire is checked with the controller's own rules before anything else.
  if (Status plan = rules::CheckPrepare(request, name_); !plan.ok()) return plan;
  std::unique_lock lock(mu_);
  if (state_ != AgentState::kIdle) {
    // The run is named only to a controller that names it: one started again after it was
    // killed, which waits for the run it lost to end (its lease) instead of failing.
    const auto& earlier = request.earlier_run_ids();
    if (state_ != AgentState::kPreparing && !run_id_.empty() && std::find(earlier.begin(), earlier.end(), run_id_) != earlier.end()) {
      return Unavailable("agent " + name_ + " is busy with run " + run_id_ + " (" + std::string(AgentStateName(state_)) +
                         "), which ends when its lease runs out");
    }
    return Unavailable("agent " + name_ + " is busy with another run");
  }
  state_ = AgentState::kPreparing;
  lease_cv_.notify_all();  // the lease counts from here
  std::string root_name = request.target().root().empty() ? "default" : request.target().root();
  auto fail = [&](Status status) {
    state_ = AgentState::kIdle;
    changed_.notify_all();
    return status;
  };
  const Root* root = roots_.Find(root_name);
  if (!root) {
    std::string known;
    for (const auto& [name, r] : roots_.all()) known += (known.empty() ? "" : ", ") + name;
    return fail(Status(Code::kFailedPrecondition, "agent " + name_ + ": has no root named \"" + root_name + "\" (roots: " + known + ")"));
  }
  auto workspace = Workspace::Create(*root, request.target().dir(), request.run_id(), request.agent_name());
  if (!workspace.ok()) return fail(Status(workspace.status().code(), "agent " + name_ + ": " + workspace.status().message()));
  target_root_ = root_name;
  places_.clear();
  Status preflight = PreflightIo(request, **workspace, name_);
  if (preflight.ok()) {
    auto readahead_file = PreflightHostSteps(request, **workspace, name_, config_, host_);
    if (readahead_file.ok()) readahead_file_ = std::move(*readahead_file);
    else preflight = readahead_file.status();
  }
  if (preflight.ok()) preflight = OpenPlaces(request);
  if (!preflight.ok()) {
    (*workspace)->Cleanup();
    for (auto& [name, place] : places_) place->Cleanup();
    places_.clear();
    return fail(preflight);
  }
  state_ = AgentState::kPrepared;
  step_ready_ = false;
  run_id_ = request.run_id();
  run_agent_name_ = request.agent_name();
  session_token_ = NewSessionToken();
  lease_ = std::chrono::nanoseconds(std::clamp<uint64_t>(request.lease_ns() ? request.lease_ns() : kDefaultLeaseNs,
                                                         kMinLeaseNs, kMaxLeaseNs));
  Touch();
  plan_ = request;
  workspace_ = std::move(*workspace);
  coverage_ = std::make_shared<FileCoverage>();
  point_ = 0;
  auto totals = std::make_shared<RunTotals>();
  totals->run_id = request.run_id();
  totals->workload = request.workload_name();
  run_totals_ = std::move(totals);
  run_token_ = RunToken(request.run_id());
  v1::PrepareResponse response;
  response.set_run_dir(workspace_->run_dir());
  *response.mutable_host() = GatherHostInfo(workspace_->run_dir());
  response.set_session_token(session_token_);
  return response;
}

Status Supervisor::CheckRun(const std::string& run_id, const std::string& token) const {
  if (state_ == AgentState::kIdle) {
    return Status(Code::kFailedPrecondition, "agent " + name_ + ": no prepared run " + run_id + " (its lease may have expired)");
  }
  // Another controller's command, or one for a run that is over: the busy answer and nothing
  // about the run that is there.
  if (run_id != run_id_ || !SameSecret(token, session_token_)) return Unavailable("agent " + name_ + " is busy with another run");
  if (state_ == AgentState::kEnding) return Aborted("agent " + name_ + ": run " + run_id + " is ending");
  return Status::Ok();
}

Status Supervisor::CheckStep(const std::string& run_id, const std::string& token, uint32_t step_index) const {
  IOFLEET_RETURN_IF_ERROR(CheckRun(run_id, token));
  if (step_index >= static_cast<uint32_t>(plan_.steps_size())) {
    return InvalidArgument("agent " + name_ + ": run " + run_id_ + " has no step " + std::to_string(step_index));
  }
  return Status::Ok();
}

Status Supervisor::SetupStep(const v1::SetupStepRequest& request) {
  std::unique_lock lock(mu_);
  IOFLEET_RETURN_IF_ERROR(CheckStep(request.run_id(), request.session_token(), request.step_index()));
  if (state_ != AgentState::kPrepared) {
    return Status(Code::kFailedPrecondition, "agent " + name_ + ": run " + run_id_ + " already has step " +
                                                 std::to_string(step_index_) + " set up or running");
  }
  const v1::PlannedStep planned = plan_.steps(static_cast<int>(request.step_index()));
  if (planned.has_files() && request.phase() >= static_cast<uint32_t>(planned.files().ops_size())) {
    return InvalidArgument("agent " + name_ + ": step " + planned.name() + " has no phase " + std::to_string(request.phase()));
  }
  Touch();
  if (planned.point() != point_) {
    // A new sweep point: what the previous point wrote goes, so a sweep needs one point's space.
    workspace_->RemoveFiles();
    for (auto& [name, place] : places_) place->RemoveFiles();
    coverage_ = std::make_shared<FileCoverage>();
    point_ = planned.point();
  }
  IoPlan io_plan;  // an io step's
  io_plan.io = planned.io();
  io_plan.read_from_agent = planned.read_from_agent();
  io_plan.global_first_job = planned.global_first_job();
  io_plan.global_jobs = std::max(1u, planned.global_jobs());
  io_plan.step_index = request.step_index();
  io_plan.workspace = workspace_;
  io_plan.agent_name = run_agent_name_;
  io_plan.run_token = run_token_;
  io_plan.coverage = coverage_;  // only the step being set up or run touches it
  setup_cancel_ = std::make_shared<std::atomic<bool>>(false);
  io_plan.cancel = setup_cancel_;
  state_ = AgentState::kSettingUp;
  step_ready_ = false;
  setup_in_flight_ = true;
  step_index_ = request.step_index();
  step_name_ = planned.name();
  step_cycle_ = request.cycle();
  // File setup can take long (a read step fills what is missing): done without the lock so
  // that Stop can interrupt it; the setting_up state keeps other commands out meanwhile, and
  // ending waits for this to return before it removes anything.
  RunPlaces places{run_id_, run_agent_name_, run_token_, target_root_, readahead_file_, workspace_, places_};
  lock.unlock();
  // Whatever happens in here (an exception included) ends as a Status: ending waits for
  // setup_in_flight_ to clear, so it must clear on every way out.
  Result<std::unique_ptr<StepRunner>> runner = Status(Code::kInternal, "");
  try {
    // The step's tasks: an io task per stream (one for a step without streams), or the one task
    // of its kind.
    std::vector<std::unique_ptr<StepTask>> tasks;
    Status made;
    if (planned.has_io() && planned.io().streams_size() > 0) {
      std::vector<const v1::IoSpec*> streams;
      for (const v1::IoSpec& stream : planned.io().streams()) streams.push_back(&stream);
      const std::vector<std::shared_ptr<FlowShare>> flows = FlowSharesOf(streams);
      const std::vector<DedupeSetPlace> sets = DedupeSetsOf(streams, io_plan.global_jobs);
      for (int k = 0; k < planned.io().streams_size(); ++k) {
        IoPlan stream_plan = io_plan;
        stream_plan.io = planned.io().streams(k);
        stream_plan.stream = stream_plan.io.name();
        stream_plan.stream_index = static_cast<uint32_t>(k);
        stream_plan.flow = flows[static_cast<size_t>(k)];
        stream_plan.dedupe_set = sets[static_cast<size_t>(k)];
        tasks.push_back(std::make_unique<IoTask>(std::move(stream_plan)));
      }
    } else if (planned.has_io()) {
      io_plan.flow = FlowSharesOf({&io_plan.io})[0];
      io_plan.dedupe_set = DedupeSetsOf({&io_plan.io}, io_plan.global_jobs)[0];
      tasks.push_back(std::make_unique<IoTask>(std::move(io_plan)));
    } else {
      Result<std::unique_ptr<StepTask>> task =
          MakeTask(planned, request.phase(), request.step_index(), places, TaskHost{name_, config_, host_, readahead_});
      if (task.ok()) tasks.push_back(std::move(*task));
      else made = task.status();
    }
    runner = made.ok() ? StepRunner::Prepare(std::move(tasks)) : Result<std::unique_ptr<StepRunner>>(made);
  } catch (const std::exception& e) {
    runner = Status(Code::kInternal, "agent " + name_ + ": setting up step " + planned.name() + ": " + e.what());
  }
  lock.lock();
  setup_in_flight_ = false;
  changed_.notify_all();
  if (state_ != AgentState::kSettingUp) {
    lock.unlock();
    runner = Status(Code::kAborted, "");  // its threads never started: destroyed at once
    return Aborted("agent " + name_ + ": run " + request.run_id() + " was stopped during setup");
  }
  Touch();
  if (!runner.ok()) {
    state_ = AgentState::kPrepared;
    return runner.status();
  }
  current_ = std::shared_ptr<StepRunner>(std::move(*runner));
  current_->Launch();
  step_ready_ = true;
  return Status::Ok();
}

Result<std::shared_ptr<StepRunner>> Supervisor::BeginStep(const v1::StartRequest& request) {
  std::lock_guard lock(mu_);
  IOFLEET_RETURN_IF_ERROR(CheckStep(request.run_id(), request.session_token(), request.step_index()));
  // A start instant far ahead (a bad clock offset, a wall clock stepped) would hold the run,
  // its lease and a Stop until then: refused.
  timespec wall;
  clock_gettime(CLOCK_REALTIME, &wall);
  const uint64_t now = static_cast<uint64_t>(wall.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(wall.tv_nsec);
  if (request.start_at_unix_ns() > now + kMaxStartLeadNs) {
    return InvalidArgument("agent " + name_ + ": start instant " + std::to_string((request.start_at_unix_ns() - now) / 1'000'000) +
                           " ms ahead (at most " + std::to_string(kMaxStartLeadNs / 1'000'000'000) + " s; are the clocks right?)");
  }
  if (state_ != AgentState::kSettingUp || !step_ready_ || step_index_ != request.step_index()) {
    return Status(Code::kFailedPrecondition, "agent " + name_ + ": step " + std::to_string(request.step_index()) +
                                                 " of run " + run_id_ + " is not set up (or already started)");
  }
  Touch();
  state_ = AgentState::kRunning;
  step_ready_ = false;
  ++streams_;
  return current_;
}

Status Supervisor::StepEnded(const std::shared_ptr<StepRunner>& runner) {
  // Read without the lock: the runner's jobs have returned, its counters are final.
  const StepSample final_sample = runner->Sample();
  const JobsCpuTime cpu = runner->JobsCpu();
  std::lock_guard lock(mu_);
  if (current_ != runner) return Aborted("agent " + name_ + ": the run ended during the step");
  --streams_;
  changed_.notify_all();
  lease_cv_.notify_all();  // without a stream, the lease counts again
  finished_cpu_user_ns_ += cpu.user_ns;
  finished_cpu_sys_ns_ += cpu.sys_ns;
  if (run_totals_ && state_ != AgentState::kEnding) {
    // The step moves from live to finished in one swap: a scrape sees it in one or the other.
    auto totals = std::make_shared<RunTotals>(*run_totals_);
    totals->Add(step_name_, final_sample, /*finished=*/true);
    run_totals_ = std::move(totals);
  }
  if (state_ == AgentState::kEnding) {
    // Stopped by Stop, the lease or shutdown, not by the controller's StopStep: what the step
    // did so far is no result.
    return Aborted("agent " + name_ + ": the run was ended during step " + std::to_string(step_index_) +
                   " (stopped, lease expired or agent shutting down)");
  }
  current_.reset();
  state_ = AgentState::kPrepared;
  Touch();  // the lease runs from the end of the step
  return Status::Ok();
}

Status Supervisor::StopStep(const v1::StopStepRequest& request) {
  std::lock_guard lock(mu_);
  IOFLEET_RETURN_IF_ERROR(CheckStep(request.run_id(), request.session_token(), request.step_index()));
  Touch();
  if (current_ && step_index_ == request.step_index()) current_->RequestStop();
  return Status::Ok();
}

Status Supervisor::CutWindow(const v1::CutWindowRequest& request) {
  std::shared_ptr<StepRunner> runner;
  {
    std::lock_guard lock(mu_);
    IOFLEET_RETURN_IF_ERROR(CheckStep(request.run_id(), request.session_token(), request.step_index()));
    Touch();
    if (state_ != AgentState::kRunning || !current_ || step_index_ != request.step_index()) {
      return FailedPrecondition("agent " + name_ + ": step " + std::to_string(request.step_index()) + " is not running");
    }
    runner = current_;
  }
  // The instant on the wall clock, as the controller names it, to the monotonic clock the jobs
  // read: at most a minute ahead (a bad clock offset would hold the step).
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  const uint64_t wall = static_cast<uint64_t>(ts.tv_sec) * kNsPerSecond + static_cast<uint64_t>(ts.tv_nsec);
  const uint64_t mono = MonotonicNs();
  if (request.at_unix_ns() <= wall || request.at_unix_ns() > wall + kMaxStartLeadNs) {
    return InvalidArgument("agent " + name_ + ": cut " + std::to_string(request.cut()) + " at an instant " +
                           (request.at_unix_ns() <= wall ? "already past" : "more than 60 s ahead") + " on its clock");
  }
  return runner->OrderCut(request.cut(), mono + (request.at_unix_ns() - wall), request);
}

Status Supervisor::Renew(const v1::RenewRequest& request) {
  std::lock_guard lock(mu_);
  IOFLEET_RETURN_IF_ERROR(CheckRun(request.run_id(), request.session_token()));
  Touch();
  return Status::Ok();
}

void Supervisor::Touch() { last_contact_ = std::chrono::steady_clock::now(); }

AgentState Supervisor::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

// mu_ is held for seconds at times (SetupStep removing a tree of files, Prepare creating the
// workspace and probing): a scrape must not wait for it, or Prometheus times out and marks the
// agent down. So try it; when taken, answer with the last copy (one scrape behind at worst).
MetricsRefs Supervisor::ForMetrics() const {
  // A short holder of the lock (the lease watcher, a Renew) lets go within microseconds: the
  // scrape tries again for a few milliseconds rather than answer with the last scrape's copy,
  // which before any scrape is empty (it said idle right after a Prepare, under ASan in CI). A
  // long holder (files removed, a workspace made) still gets the copy at once, near enough.
  std::unique_lock lock(mu_, std::defer_lock);
  for (int attempt = 0; attempt < 20 && !lock.try_lock(); ++attempt) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!lock.owns_lock()) {
    std::lock_guard cache_lock(metrics_cache_mu_);
    MetricsRefs cached = metrics_cache_;
    cached.live = metrics_cache_live_.lock();
    return cached;
  }
  MetricsRefs refs;
  refs.state = state_;
  refs.finished_cpu_user_ns = finished_cpu_user_ns_;
  refs.finished_cpu_sys_ns = finished_cpu_sys_ns_;
  if (state_ != AgentState::kIdle && state_ != AgentState::kPreparing && state_ != AgentState::kEnding) {
    refs.run = run_totals_;
    if (state_ == AgentState::kRunning && current_) {
      refs.live = current_;
      refs.live_step = step_name_;
      refs.live_point = point_;
      refs.live_cycle = step_cycle_;
    }
  }
  lock.unlock();
  std::lock_guard cache_lock(metrics_cache_mu_);
  metrics_cache_ = refs;
  metrics_cache_.live.reset();
  metrics_cache_live_ = refs.live;
  return refs;
}

void Supervisor::WatchLease() {
  std::unique_lock lock(mu_);
  while (!shutting_down_) {
    // A streaming step is the controller's presence; a setup is not: the controller renews
    // the lease while it waits for one. Without a lease to run out, sleep until a run begins or
    // a stream ends (both notify); with one, until it could have run out (a renewal meanwhile
    // moves it: the check below sees that and sleeps again).
    if (state_ == AgentState::kIdle || state_ == AgentState::kEnding || streams_ > 0) {
      lease_cv_.wait(lock);
      lease_wakeups_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    if (const auto deadline = last_contact_ + lease_; std::chrono::steady_clock::now() < deadline) {
      lease_cv_.wait_until(lock, deadline);
      lease_wakeups_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    std::cerr << "iofleet-agent: run " << run_id_ << ": no word from the controller for "
              << std::chrono::duration_cast<std::chrono::seconds>(lease_).count()
              << " s: stopping and removing the run's files\n";
    EndRunLocked(lock);
  }
}

uint64_t Supervisor::EndRunLocked(std::unique_lock<std::mutex>& lock) {
  if (state_ == AgentState::kEnding) {  // another caller is ending it: wait for idle
    changed_.wait(lock, [&] { return state_ != AgentState::kEnding; });
    return 0;
  }
  if (state_ == AgentState::kIdle) return 0;
  state_ = AgentState::kEnding;
  run_totals_.reset();  // the run's series go with it
  step_ready_ = false;
  changed_.notify_all();
  if (setup_cancel_) setup_cancel_->store(true);
  if (current_) current_->Abort();  // thread-safe; jobs return, a waiting step never starts
  // The stream that runs the step owns the runner until StepEnded, and a setup owns its files
  // until it returns: nothing is removed while either still works.
  changed_.wait(lock, [&] { return streams_ == 0 && !setup_in_flight_; });
  std::shared_ptr<StepRunner> runner = std::move(current_);
  std::shared_ptr<Workspace> workspace = std::move(workspace_);
  std::map<std::string, std::shared_ptr<Workspace>> places = std::move(places_);
  places_.clear();
  coverage_.reset();
  setup_cancel_.reset();
  lock.unlock();
  uint64_t removed = 0;
  try {  // the agent must reach idle whatever happens here
    runner.reset();  // joins its (returned) job threads
    readahead_.RestoreAll();
    removed = workspace ? workspace->Cleanup() : 0;
    for (auto& [name, place] : places) removed += place->Cleanup();
  } catch (const std::exception& e) {
    std::cerr << "iofleet-agent: run " << run_id_ << ": ending: " << e.what() << "\n";
  }
  lock.lock();
  run_id_.clear();
  session_token_.clear();
  streams_ = 0;
  state_ = AgentState::kIdle;
  changed_.notify_all();
  return removed;
}

Result<v1::StopResponse> Supervisor::Stop(const v1::StopRequest& request) {
  std::unique_lock lock(mu_);
  Status mine = CheckRun(request.run_id(), request.session_token());
  if (!mine.ok() && mine.code() != Code::kAborted) return mine;  // aborted: already ending
  v1::StopResponse response;
  response.set_removed_entries(EndRunLocked(lock));
  return response;
}

void Supervisor::Shutdown() {
  std::unique_lock lock(mu_);
  EndRunLocked(lock);
  shutting_down_ = true;
  lease_cv_.notify_all();
}

Supervisor::Supervisor(const Roots& roots, std::string name, AgentConfig config, HostPaths host)
    : roots_(roots),
      name_(std::move(name)),
      config_(std::move(config)),
      host_(std::move(host)),
      readahead_(config_.state_dir, name_) {
  for (const auto& note : readahead_.RestoreFromRecord()) std::cerr << "iofleet-agent: " << note << "\n";
  lease_thread_ = std::thread([this] { WatchLease(); });
}

Supervisor::~Supervisor() {
  Shutdown();
  if (lease_thread_.joinable()) lease_thread_.join();
}

}  // namespace iofleet::agent
