// The agent's run state machine: Idle -> Prepared -> Running -> Prepared ... -> (Stop) Idle.
// One run at a time; commands for another run, or out of order, are refused.
//
// Thread-safety: every method may be called from any gRPC thread; state is guarded by one
// mutex that is never held during I/O.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "agent/run/coverage.h"
#include "agent/run/roots.h"
#include "agent/run/step_runner.h"
#include "agent/run/workspace.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::agent {

class Supervisor {
 public:
  Supervisor(const Roots& roots, std::string name) : roots_(roots), name_(std::move(name)) {}
  ~Supervisor() { Shutdown(); }

  const std::string& name() const { return name_; }
  v1::HelloResponse Hello() const;
  Result<v1::PrepareResponse> Prepare(const v1::PrepareRequest& request);
  // Sets up the step (untimed) and marks the agent Running; the caller runs it and then calls
  // StepEnded. The returned runner is shared with Stop, which may interrupt it.
  Result<std::shared_ptr<StepRunner>> BeginStep(const v1::StartRequest& request);
  void StepEnded(const std::shared_ptr<StepRunner>& runner);
  Result<v1::StopResponse> Stop(const v1::StopRequest& request);
  // Agent exit: interrupt and clean up whatever run is active.
  void Shutdown();

 private:
  enum class State { kIdle, kPrepared, kRunning };
  Status Preflight(const v1::PrepareRequest& request, Workspace& workspace);
  uint64_t EndRunLocked(std::unique_lock<std::mutex>& lock);

  const Roots& roots_;
  const std::string name_;
  std::mutex mu_;
  State state_ = State::kIdle;
  std::string run_id_;
  std::string run_agent_name_;
  v1::PrepareRequest plan_;
  std::shared_ptr<Workspace> workspace_;
  std::shared_ptr<FileCoverage> coverage_;
  uint64_t run_token_ = 0;
  std::shared_ptr<StepRunner> current_;
};

}  // namespace iofleet::agent
