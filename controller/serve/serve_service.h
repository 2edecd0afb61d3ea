// iofleet serve's engine: a scheduler that queues each suite's runs when they fall due, and one
// worker per fleet that runs its queue in order through the same code as `iofleet run`
// (controller/run/run_manager.h). The queue and the schedules live in the history database
// (ServeStore), so a restart carries on where the last one stopped.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "controller/report/report_document.h"
#include "controller/run/interrupt.h"
#include "controller/serve/serve_config.h"
#include "controller/serve/serve_store.h"
#include "core/base/status.h"

namespace iofleet::controller {

class ServeService {
 public:
  using Clock = std::function<uint64_t()>;  // unix ns
  // `config` and `store` outlive the service. `log` gets one line per event (queued, started,
  // finished, webhook failures), as journald shows them.
  ServeService(const ServeConfig& config, ServeStore& store, std::ostream& log, Clock clock = nullptr);
  ~ServeService();

  // Marks runs a killed service left running as lost, queues or skips what was missed while it
  // was down, and starts the scheduler and the fleets' workers.
  Status Start();
  // Stops scheduling, ends the running runs (`why` is their reason: they are reported aborted,
  // their agents released) and waits for the workers. Queued runs stay queued for the next start.
  void Stop(const char* why);

  struct Queued {
    ServeRun run;
    bool already = false;  // the suite was already waiting: this is that run
  };
  // "Run now": NotFound for an unknown suite.
  Result<Queued> RunNow(const std::string& suite);
  // A queued run is dropped; a running one is interrupted (reported aborted). NotFound, or
  // FailedPrecondition for a run that is done.
  Result<ServeRun> Cancel(const std::string& run_id);
  Status Pause(const std::string& suite, bool paused);

  struct SuiteState {
    const ServeSuite* suite = nullptr;
    bool paused = false;
    std::optional<uint64_t> next_due_unix_ns;  // none: no schedule, or paused
    std::string running;  // run id, or ""
    std::string queued;   // run id, or ""
  };
  Result<std::vector<SuiteState>> Suites();
  const ServeSuite* FindSuite(const std::string& name) const;
  const ServeConfig& config() const { return config_; }
  ServeStore& store() { return store_; }
  uint64_t webhook_failures() const { return webhook_failures_.load(); }
  // Where a suite's run writes its report directory: RESULTS/<suite>/<run-id>.
  std::string RunDirectory(const ServeRun& run) const;

 private:
  uint64_t Now() const { return clock_(); }
  std::function<uint64_t(uint64_t)> NextFunction(const ServeSuite& suite) const;
  Status Schedule(bool at_startup);
  void SchedulerLoop();
  void FleetLoop(const std::string& fleet);
  void Execute(const ServeRun& run, const ServeSuite* suite, const Interrupt& interrupt);
  // The suite's webhook, when the run calls for one; `report` may be null.
  void Notify(const ServeRun& run, const ServeSuite& suite, const std::string& status, const std::string& verdict,
              const std::string& error, const v1::Report* report);
  void Prune(const ServeSuite& suite);
  // Writes the run ends the store could not (ServeStore::Finish), logging each that lands.
  void WriteUnwritten();
  void Say(const std::string& line);

  const ServeConfig& config_;
  ServeStore& store_;
  std::ostream& log_;
  Clock clock_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::map<std::string, std::shared_ptr<Interrupt>> running_;  // run id -> its interrupt
  std::map<std::string, std::string> running_by_suite_;        // suite -> run id
  std::map<std::string, uint64_t> next_due_;                   // suite -> next scheduled time
  // The runs the last serve left running (marked lost at Start; set before the workers start).
  std::vector<std::string> lost_run_ids_;
  std::atomic<uint64_t> webhook_failures_{0};
  std::string last_unwritten_error_;  // WriteUnwritten's, logged when it changes (scheduler thread, then Stop)
  std::mutex log_mu_;
  std::vector<std::thread> threads_;
};

}  // namespace iofleet::controller
