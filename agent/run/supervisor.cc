#include "agent/run/supervisor.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "agent/engine/io_engine.h"

namespace iofleet::agent {
namespace {

constexpr const char* kProbeFile = ".iofleet-direct-probe";
constexpr size_t kProbeSize = 4096;

std::string EngineName(v1::Engine engine) {
  switch (engine) {
    case v1::ENGINE_PSYNC: return "psync";
    case v1::ENGINE_LIBAIO: return "libaio";
    default: return "unknown";
  }
}

}  // namespace

v1::HelloResponse Supervisor::Hello() const {
  v1::HelloResponse r;
  r.set_version(IOFLEET_VERSION);
  r.set_name(name_);
  for (const auto& e : EngineNames()) r.add_engines(e);
  for (const auto& [name, root] : roots_.all()) {
    v1::Root* out = r.add_roots();
    out->set_name(name);
    out->set_path(root.path);
  }
  return r;
}

// What must hold before any step starts, checked with real operations on the target.
Status Supervisor::Preflight(const v1::PrepareRequest& request, Workspace& workspace) {
  bool needs_direct = false;
  for (const auto& step : request.steps()) {
    if (!step.has_io()) continue;
    const v1::IoSpec& io = step.io();
    if (io.direct()) needs_direct = true;
    auto engine = MakeEngine(EngineName(io.engine()));
    if (!engine.ok()) return Status(Code::kFailedPrecondition, "agent " + name_ + ": step " + step.name() + ": " + engine.status().message());
    Status opened = (*engine)->Open(io.queue_depth());
    if (!opened.ok()) return Status(Code::kFailedPrecondition, "agent " + name_ + ": step " + step.name() + ": engine " + EngineName(io.engine()) + ": " + opened.message());
  }
  if (!needs_direct) return Status::Ok();

  // A real aligned O_DIRECT write: statx cannot answer for every file system (tmpfs, NFS).
  Result<int> fd = workspace.OpenFile(kProbeFile, O_RDWR | O_CREAT | O_DIRECT);
  if (!fd.ok()) {
    return Status(Code::kFailedPrecondition, "agent " + name_ + ": O_DIRECT is not supported here: " + fd.status().message());
  }
  void* buffer = std::aligned_alloc(kProbeSize, kProbeSize);
  std::memset(buffer, 0xA5, kProbeSize);
  ssize_t n = pwrite(*fd, buffer, kProbeSize, 0);
  int err = errno;
  std::free(buffer);
  close(*fd);
  Status removed = workspace.RemoveFile(kProbeFile);
  if (n != static_cast<ssize_t>(kProbeSize)) {
    return Status(Code::kFailedPrecondition,
                  "agent " + name_ + ": " + workspace.PathOf(kProbeFile) + ": O_DIRECT write failed: " +
                      (n < 0 ? std::string(std::strerror(err)) + " (" + ErrnoName(err) + ")" : "short write"));
  }
  return removed;
}

Result<v1::PrepareResponse> Supervisor::Prepare(const v1::PrepareRequest& request) {
  std::unique_lock lock(mu_);
  if (state_ != State::kIdle) {
    return Unavailable("agent " + name_ + " is busy with run " + run_id_);
  }
  std::string root_name = request.target().root().empty() ? "default" : request.target().root();
  const Root* root = roots_.Find(root_name);
  if (!root) {
    std::string known;
    for (const auto& [name, r] : roots_.all()) known += (known.empty() ? "" : ", ") + name;
    return Status(Code::kFailedPrecondition, "agent " + name_ + ": has no root named \"" + root_name + "\" (roots: " + known + ")");
  }
  auto workspace = Workspace::Create(*root, request.target().dir(), request.run_id(), request.agent_name());
  if (!workspace.ok()) return Status(workspace.status().code(), "agent " + name_ + ": " + workspace.status().message());
  Status preflight = Preflight(request, **workspace);
  if (!preflight.ok()) {
    (*workspace)->Cleanup();
    return preflight;
  }
  state_ = State::kPrepared;
  run_id_ = request.run_id();
  run_agent_name_ = request.agent_name();
  plan_ = request;
  workspace_ = std::move(*workspace);
  v1::PrepareResponse response;
  response.set_run_dir(workspace_->run_dir());
  return response;
}

Result<std::shared_ptr<StepRunner>> Supervisor::BeginStep(const v1::StartRequest& request) {
  std::unique_lock lock(mu_);
  if (state_ == State::kIdle || request.run_id() != run_id_) {
    return Status(Code::kFailedPrecondition, "agent " + name_ + ": no prepared run " + request.run_id());
  }
  if (state_ == State::kRunning) {
    return Status(Code::kFailedPrecondition, "agent " + name_ + ": run " + run_id_ + " is already running a step");
  }
  if (request.step_index() >= static_cast<uint32_t>(plan_.steps_size())) {
    return InvalidArgument("agent " + name_ + ": run " + run_id_ + " has no step " + std::to_string(request.step_index()));
  }
  const v1::IoSpec io = plan_.steps(static_cast<int>(request.step_index())).io();
  std::shared_ptr<Workspace> workspace = workspace_;
  const std::string agent_name = run_agent_name_;
  state_ = State::kRunning;
  // File setup can take long (a read step fills what is missing): done without the lock so
  // that Stop can still interrupt; the Running state keeps other commands out meanwhile.
  lock.unlock();
  auto runner = StepRunner::Prepare(io, std::move(workspace), agent_name);
  lock.lock();
  if (!runner.ok()) {
    if (state_ == State::kRunning) state_ = State::kPrepared;
    return runner.status();
  }
  if (state_ != State::kRunning || run_id_ != request.run_id()) return Aborted("agent " + name_ + ": run " + request.run_id() + " was stopped");
  current_ = std::shared_ptr<StepRunner>(std::move(*runner));
  return current_;
}

void Supervisor::StepEnded(const std::shared_ptr<StepRunner>& runner) {
  std::lock_guard lock(mu_);
  if (current_ == runner) {
    current_.reset();
    if (state_ == State::kRunning) state_ = State::kPrepared;
  }
}

uint64_t Supervisor::EndRunLocked(std::unique_lock<std::mutex>& lock) {
  std::shared_ptr<StepRunner> runner = std::move(current_);
  state_ = State::kIdle;
  run_id_.clear();
  std::shared_ptr<Workspace> workspace = std::move(workspace_);
  lock.unlock();
  if (runner) {
    runner->RequestStop();
    runner->WaitFor(std::chrono::hours(1));
  }
  runner.reset();
  uint64_t removed = workspace ? workspace->Cleanup() : 0;
  lock.lock();
  return removed;
}

Result<v1::StopResponse> Supervisor::Stop(const v1::StopRequest& request) {
  std::unique_lock lock(mu_);
  if (state_ == State::kIdle || request.run_id() != run_id_) {
    return Status(Code::kFailedPrecondition, "agent " + name_ + ": no run " + request.run_id() + " to stop");
  }
  v1::StopResponse response;
  response.set_removed_entries(EndRunLocked(lock));
  return response;
}

void Supervisor::Shutdown() {
  std::unique_lock lock(mu_);
  if (state_ != State::kIdle) EndRunLocked(lock);
}

}  // namespace iofleet::agent
