// The agent's run state machine, one run at a time (states: agent/run/agent_state.h):
//   idle -Prepare-> prepared -SetupStep-> setting_up (step ready) -Start-> running -> prepared ...
//   any state -Stop, the lease expiring, or shutdown-> ending -> idle
// `ending` stops the run's I/O, waits until no setup and no step stream still uses the run, then
// removes what the run made; only then is the agent idle and ready for another run.
// A run belongs to the controller that prepared it: every later command carries the session
// token Prepare returned; any other caller gets the busy answer and nothing else. Commands out of
// order (stale or duplicate) are refused. The lease: with no call for the run and no step
// streaming for `lease` (default 10 s), the run ends by itself.
//
// Thread-safety: every method may be called from any gRPC thread; state is guarded by one
// mutex that is never held during I/O.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <string>

#include "agent/stats/run_totals.h"
#include "agent/host/agent_config.h"
#include "agent/run/agent_state.h"
#include "agent/fs/coverage.h"
#include "agent/tasks/host_tasks.h"
#include "agent/tasks/task_factory.h"
#include "agent/host/readahead.h"
#include "agent/fs/roots.h"
#include "agent/run/step_runner.h"
#include "agent/fs/workspace.h"
#include "iofleet/v1/agent.pb.h"

namespace iofleet::agent {

// What the metrics collector reads, taken in one piece under the supervisor's lock: the
// finished steps' totals and the live step always agree (a step is in one or the other).
struct MetricsRefs {
  AgentState state = AgentState::kIdle;
  // The active run's finished steps: null when idle, preparing or ending (its series are gone).
  std::shared_ptr<const RunTotals> run;
  // The step running now, with its labels.
  std::shared_ptr<const StepRunner> live;
  std::string live_step;
  uint32_t live_point = 0;
  uint32_t live_cycle = 0;
  // The job threads' exact CPU time of every step that finished since the agent started.
  uint64_t finished_cpu_user_ns = 0;
  uint64_t finished_cpu_sys_ns = 0;
};

class Supervisor {
 public:
  // `host`: where drop_caches and readahead steps act (the kernel's files unless a test says).
  Supervisor(const Roots& roots, std::string name, AgentConfig config = {}, HostPaths host = {});
  ~Supervisor();

  const std::string& name() const { return name_; }
  v1::HelloResponse Hello() const;
  Result<v1::PrepareResponse> Prepare(const v1::PrepareRequest& request);
  // Sets the step up (untimed): files, holes filled, job threads waiting.
  Status SetupStep(const v1::SetupStepRequest& request);
  // Marks the step set up last Running; the caller releases it (Go), streams it, and then calls
  // StepEnded. The runner is shared with Stop and StopStep, which may interrupt it.
  Result<std::shared_ptr<StepRunner>> BeginStep(const v1::StartRequest& request);
  // The step's stream is done with the runner. Aborted when the run was ended meanwhile (Stop,
  // lease, shutdown): then the step's figures are not a result and must not be sent as one.
  Status StepEnded(const std::shared_ptr<StepRunner>& runner);
  Status StopStep(const v1::StopStepRequest& request);
  // A step cut into windows (target_latency, curve, steady): orders a cut of the running step
  // (agent.proto's CutWindow).
  Status CutWindow(const v1::CutWindowRequest& request);
  Status Renew(const v1::RenewRequest& request);
  Result<v1::StopResponse> Stop(const v1::StopRequest& request);
  // Agent exit: interrupt and clean up whatever run is active.
  void Shutdown();
  AgentState state() const;
  // For the metrics collector (any thread): cheap, it copies a few pointers under the lock;
  // the caller reads the counters behind them without it. Never waits: while another call holds
  // the lock (a SetupStep removing files, a Prepare creating the workspace and probing), a scrape
  // gets the copy the last scrape took, so the state it shows may lag by one scrape.
  MetricsRefs ForMetrics() const;
  // For tests: holds the supervisor's lock as a long operation would.
  std::unique_lock<std::mutex> LockForTest() const { return std::unique_lock(mu_); }
  // For tests: how often the lease watcher woke. Idle, it sleeps until a run begins; in a run,
  // until its lease could run out (a host of thousands of agents must not wake them to poll).
  uint64_t LeaseWakeupsForTest() const { return lease_wakeups_.load(std::memory_order_relaxed); }

 private:
  // Other roots' run directories, made at Prepare like the target's: <root>/iofleet/<run-id>/<agent>/.
  Status OpenPlaces(const v1::PrepareRequest& request);
  // The caller's run: its id and session token match the active run's (and the step exists).
  Status CheckRun(const std::string& run_id, const std::string& token) const;
  Status CheckStep(const std::string& run_id, const std::string& token, uint32_t step_index) const;
  // Ends the active run (see the class comment); returns the entries removed. Called with the
  // lock held; waits without it.
  uint64_t EndRunLocked(std::unique_lock<std::mutex>& lock);
  void Touch();
  void WatchLease();

  const Roots& roots_;
  const std::string name_;
  const AgentConfig config_;
  const HostPaths host_;
  mutable std::mutex mu_;
  std::condition_variable changed_;  // state_, streams_ or setup_in_flight_ changed
  AgentState state_ = AgentState::kIdle;
  bool step_ready_ = false;       // setting_up: the step is set up and waits for Start
  bool setup_in_flight_ = false;  // a SetupStep works without the lock
  std::shared_ptr<std::atomic<bool>> setup_cancel_;
  std::string session_token_;
  std::string run_id_;
  std::string run_agent_name_;
  v1::PrepareRequest plan_;
  std::shared_ptr<Workspace> workspace_;
  std::string target_root_;
  // Run directories in other roots ("ROOT:path" in files and copy steps), by root name.
  std::map<std::string, std::shared_ptr<Workspace>> places_;
  ReadaheadKeeper readahead_;
  std::string readahead_file_;  // the target's, when a readahead step is planned
  std::shared_ptr<FileCoverage> coverage_;
  uint64_t run_token_ = 0;
  std::shared_ptr<StepRunner> current_;
  uint32_t step_index_ = 0;
  uint32_t point_ = 0;  // the sweep point of the last step set up
  // For the metrics: the run's finished steps, replaced (never changed) as each step ends, and
  // the labels of the step set up last.
  std::shared_ptr<const RunTotals> run_totals_;
  std::string step_name_;
  uint32_t step_cycle_ = 0;
  uint64_t finished_cpu_user_ns_ = 0;
  uint64_t finished_cpu_sys_ns_ = 0;
  // ForMetrics' last copy, for the scrapes that find mu_ taken; its own lock, held only to copy.
  // The running step only by a weak reference: a cached copy must not keep a finished step's
  // files, buffers and engines alive until the next scrape (which may never come).
  mutable std::mutex metrics_cache_mu_;
  mutable MetricsRefs metrics_cache_;
  mutable std::weak_ptr<const StepRunner> metrics_cache_live_;
  int streams_ = 0;  // Start streams open: the controller is there
  std::chrono::nanoseconds lease_{10'000'000'000};
  std::chrono::steady_clock::time_point last_contact_;
  bool shutting_down_ = false;
  std::condition_variable lease_cv_;  // notified when a run begins, a stream ends, and at shutdown
  std::atomic<uint64_t> lease_wakeups_{0};
  std::thread lease_thread_;
};

}  // namespace iofleet::agent
