#include "controller/serve/serve_service.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "controller/fleet/agent_list.h"
#include "controller/fleet/fleet.h"
#include "controller/history/history_db.h"
#include "controller/push/pushgateway_url.h"
#include "controller/report/report_document.h"
#include "controller/report/stored_report.h"
#include "controller/report/write_file.h"
#include "controller/run/run_manager.h"
#include "controller/serve/due_decision.h"
#include "controller/serve/run_outcome.h"
#include "controller/serve/webhook.h"

namespace iofleet::controller {
namespace {

using std::chrono::nanoseconds;
using std::chrono::system_clock;

constexpr auto kSchedulerTick = std::chrono::seconds(1);
constexpr size_t kMaxEarlierRuns = 1024;  // an agent takes no more (PrepareRequest.earlier_run_ids)

system_clock::time_point TimePoint(uint64_t unix_ns) {
  return system_clock::time_point(std::chrono::duration_cast<system_clock::duration>(nanoseconds(unix_ns)));
}
uint64_t UnixNs(system_clock::time_point t) {
  return static_cast<uint64_t>(std::chrono::duration_cast<nanoseconds>(t.time_since_epoch()).count());
}

// A run's log: written by the run's own threads (RunManager fans out to agents), read once at
// its end. Every write takes the lock, so lines may interleave but never corrupt each other.
// Recursive: std::stringbuf::xsputn calls overflow when it grows.
class LockedStringBuf : public std::stringbuf {
 public:
  std::string Text() {
    std::lock_guard lock(mu_);
    return str();
  }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::lock_guard lock(mu_);
    return std::stringbuf::xsputn(s, n);
  }
  int_type overflow(int_type c) override {
    std::lock_guard lock(mu_);
    return std::stringbuf::overflow(c);
  }

 private:
  std::recursive_mutex mu_;
};

std::string LabelsJson(const RunLabels& labels) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [k, v] : labels) j[k] = v;
  return j.dump();
}

ServeRun NewQueued(const ServeSuite& suite, const std::string& reason, uint64_t due_unix_ns) {
  ServeRun run;
  run.run_id = NewRunId();
  run.suite = suite.name;
  run.fleet = suite.fleet;
  run.labels_json = LabelsJson(suite.labels);
  run.reason = reason;
  run.due_unix_ns = due_unix_ns;
  return run;
}

}  // namespace

ServeService::ServeService(const ServeConfig& config, ServeStore& store, std::ostream& log, Clock clock)
    : config_(config), store_(store), log_(log), clock_(clock ? std::move(clock) : Clock(UnixNowNs)) {}

ServeService::~ServeService() { Stop("iofleet serve stopping"); }

void ServeService::Say(const std::string& line) {
  std::lock_guard lock(log_mu_);
  log_ << "iofleet serve: " << line << std::endl;
}

const ServeSuite* ServeService::FindSuite(const std::string& name) const {
  for (const auto& s : config_.suites) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string ServeService::RunDirectory(const ServeRun& run) const {
  return (std::filesystem::path(config_.results) / run.suite / run.run_id).string();
}

std::function<uint64_t(uint64_t)> ServeService::NextFunction(const ServeSuite& suite) const {
  if (suite.cron) {
    const CronSchedule cron = *suite.cron;
    const TimeZone zone = config_.zone;
    return [cron, zone](uint64_t after) { return UnixNs(cron.Next(TimePoint(after), zone)); };
  }
  const uint64_t every = static_cast<uint64_t>(suite.every.count());
  return [every](uint64_t after) { return after + every; };
}

Status ServeService::Start() {
  if (!config_.pushgateway.empty()) {
    auto url = ParsePushgatewayUrl(config_.pushgateway);
    if (!url.ok()) return url.status();
  }
  auto lost = store_.MarkLost(Now());
  if (!lost.ok()) return lost.status();
  for (const auto& run : *lost) {
    if (lost_run_ids_.size() < kMaxEarlierRuns) lost_run_ids_.push_back(run.run_id);
    Say("run " + run.run_id + " of " + run.suite + ": lost (the last serve stopped during it)");
    if (const ServeSuite* suite = FindSuite(run.suite)) Notify(run, *suite, "lost", "", run.error, nullptr);
  }
  std::map<std::string, std::string> fleet_of;
  for (const auto& suite : config_.suites) fleet_of[suite.name] = suite.fleet;
  auto dropped = store_.Rehome(fleet_of, Now());
  if (!dropped.ok()) return dropped.status();
  for (const auto& run : *dropped) Say("queued run " + run.run_id + " dropped: " + run.error);
  if (Status s = Schedule(/*at_startup=*/true); !s.ok()) return s;
  threads_.emplace_back([this] { SchedulerLoop(); });
  for (const auto& [name, fleet] : config_.fleets) threads_.emplace_back([this, name = name] { FleetLoop(name); });
  return Status();
}

void ServeService::Stop(const char* why) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      stopping_ = true;
      for (auto& [id, interrupt] : running_) {
        interrupt->Raise(why);
        Say("stopping run " + id + ": " + why);
      }
    }
  }
  wake_.notify_all();
  const bool started = !threads_.empty();  // not again from the destructor
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  if (!started) return;
  // A last try for the ends not yet in the database; the next start records those runs lost.
  WriteUnwritten();
  for (const ServeRun& run : store_.Unwritten()) {
    Say("run " + run.run_id + " of " + run.suite + " ended " + run.status +
        ", which could not be recorded: the next start records it lost");
  }
}

void ServeService::WriteUnwritten() {
  std::vector<std::string> written;
  Status s = store_.WriteUnwritten(written);
  for (const auto& id : written) Say("run " + id + ": its end is recorded now");
  if (!s.ok() && s.message() != last_unwritten_error_) Say(s.message());  // once, not every second
  last_unwritten_error_ = s.ok() ? "" : s.message();
}

Status ServeService::Schedule(bool at_startup) {
  for (const auto& suite : config_.suites) {
    if (!suite.cron && suite.every.count() == 0) continue;  // runs only when asked
    auto last = store_.LastDue(suite.name);
    if (!last.ok()) return last.status();
    auto paused = store_.Paused(suite.name);
    if (!paused.ok()) return paused.status();
    const uint64_t now = Now();
    DueDecision d = DecideDue(*last, now, NextFunction(suite), at_startup, suite.missed == MissedPolicy::kRunOnce, *paused);
    if (d.restarted) Say(suite.name + ": its last scheduled time is more than an hour ahead of the clock: the schedule starts again from now");
    std::optional<ServeRun> run;
    if (d.queue_due) run = NewQueued(suite, d.reason, *d.queue_due);
    if (run || !last->has_value() || d.last_due != **last) {
      auto queued = store_.EnqueueDue(run, suite.name, d.last_due, now);
      if (!queued.ok()) return queued.status();
      if (queued->has_value()) {
        Say("queued run " + (*queued)->run_id + " of " + suite.name + " (" + d.reason + ")");
        wake_.notify_all();
      } else if (run) {
        Say(suite.name + " fell due (" + d.reason + ") while a run of it was already waiting (or it was paused): not queued");
      }
    }
    std::lock_guard lock(mu_);
    next_due_[suite.name] = d.next_due;
  }
  return Status();
}

void ServeService::SchedulerLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    WriteUnwritten();
    if (Status s = Schedule(/*at_startup=*/false); !s.ok()) Say("scheduler: " + s.message());
    lock.lock();
    // Woken early by a pause or resume; otherwise once a second, which also follows a clock
    // that was set (a schedule fires within a second of its time).
    wake_.wait_for(lock, kSchedulerTick, [&] { return stopping_; });
  }
}

void ServeService::FleetLoop(const std::string& fleet) {
  while (true) {
    ServeRun run;
    std::shared_ptr<Interrupt> interrupt;
    {
      std::unique_lock lock(mu_);
      while (true) {
        if (stopping_) return;
        auto next = store_.TakeNext(fleet, Now());
        if (!next.ok()) {
          Say("fleet " + fleet + ": " + next.status().message());
          wake_.wait_for(lock, std::chrono::seconds(5), [&] { return stopping_; });
          continue;
        }
        if (next->has_value()) {
          run = **next;
          break;
        }
        wake_.wait_for(lock, kSchedulerTick);
      }
      // Taken and registered under one lock: Stop and Cancel see every running run.
      interrupt = std::make_shared<Interrupt>();
      running_[run.run_id] = interrupt;
      running_by_suite_[run.suite] = run.run_id;
    }
    Say("run " + run.run_id + " of " + run.suite + " on fleet " + fleet + " started");
    Execute(run, FindSuite(run.suite), *interrupt);
  }
}

void ServeService::Execute(const ServeRun& run, const ServeSuite* suite, const Interrupt& interrupt) {
  std::string status = "failed", verdict, error;
  int code = -1;
  std::optional<v1::Report> report;
  if (!suite) {
    error = "suite " + run.suite + " is no longer in " + config_.file;
  } else {
    const ServeFleet& fleet = config_.fleets.at(suite->fleet);
    RunOptions options;
    options.workload_file = suite->workload_file;
    options.workload = suite->workload;
    auto agents = ParseAgentList(fleet.agents_spec);
    options.tls = fleet.tls;
    options.out_dir = (std::filesystem::path(config_.results) / suite->name).string();
    options.db = config_.db;
    options.verdicts = suite->verdicts;
    options.labels = suite->labels;
    if (!config_.pushgateway.empty()) options.pushgateway = *ParsePushgatewayUrl(config_.pushgateway);  // checked by Start
    options.progress = ProgressMode::kNone;
    options.interrupt = &interrupt;
    options.run_id = run.run_id;
    // Agents the killed serve's runs still hold (until their leases end) are waited for.
    options.earlier_run_ids = lost_run_ids_;
    LockedStringBuf log_buffer, out_buffer;
    std::ostream log(&log_buffer), out(&out_buffer);
    options.log = &log;
    options.out = &out;
    std::error_code ec;
    std::filesystem::create_directories(options.out_dir, ec);
    if (agents.ok() && !agents->empty()) {
      options.agents = *agents;
      code = Run(options);
    } else {
      log << "iofleet: fleet " << fleet.name << ": " << (agents.ok() ? "names no agent now" : agents.status().message()) << "\n";
      code = kExitFailed;
    }
    const std::string dir = RunDirectory(run);
    if (std::filesystem::is_directory(dir, ec)) {
      // What `iofleet run` would have printed, beside the report.
      (void)WriteTextFile(std::filesystem::path(dir) / "run.log", log_buffer.Text() + out_buffer.Text());
      auto doc = LoadStoredReport(dir);
      if (doc.ok()) report = std::move(*doc);
    }
    const std::string log_text = log_buffer.Text();
    RunOutcome outcome = OutcomeOf(report ? &*report : nullptr, code, interrupt, log_text);
    status = outcome.status;
    verdict = outcome.verdict;
    error = outcome.error;
    if (!report && code != kExitOk) {
      // Also into the service's log: there is no run directory to look in.
      std::istringstream lines(log_text);
      for (std::string line; std::getline(lines, line);) Say("run " + run.run_id + ": " + line);
    }
  }
  if (Status s = store_.Finish(run.run_id, status, verdict, code, error, Now()); !s.ok()) {
    // The API shows the run ended all the same (the store keeps its end); written again each tick.
    Say("run " + run.run_id + ": its end cannot be recorded yet (tried again every second): " + s.message());
  }
  {
    // Done: no longer cancellable, the fleet no longer busy.
    std::lock_guard lock(mu_);
    running_.erase(run.run_id);
    running_by_suite_.erase(run.suite);
  }
  Say("run " + run.run_id + " of " + run.suite + ": " + status + (verdict.empty() ? "" : ", " + verdict) +
      (error.empty() ? "" : ": " + error));
  if (!suite) return;
  Notify(run, *suite, status, verdict, error, report ? &*report : nullptr);
  Prune(*suite);
}

void ServeService::Notify(const ServeRun& run, const ServeSuite& suite, const std::string& status, const std::string& verdict,
                          const std::string& error, const v1::Report* report) {
  if (suite.webhook.empty()) return;
  const std::string event = WebhookEvent(status, verdict);
  if (event.empty()) return;
  auto url = ParseWebhookUrl(suite.webhook);  // checked when the config was loaded
  if (!url.ok()) return;
  const std::string html = "/reports/" + run.suite + "/" + run.run_id + "/report.html";
  Status sent = PostWebhook(*url, WebhookBody(event, suite.name, run.run_id, status, verdict, error, report, report ? html : ""));
  if (!sent.ok()) {
    ++webhook_failures_;
    Say("run " + run.run_id + ": " + sent.message());
  }
}

// keep_runs per suite: the newest run directories stay; older ones go, their history rows stay
// (trends and baselines need no report directory).
void ServeService::Prune(const ServeSuite& suite) {
  auto done = store_.Runs({suite.name, "done", 0});
  if (!done.ok()) {
    Say(done.status().message());
    return;
  }
  size_t kept = 0;  // runs that left a directory (a cancelled or lost one has none)
  for (const ServeRun& run : *done) {
    std::error_code ec;
    const std::filesystem::path dir = RunDirectory(run);
    if (!std::filesystem::is_directory(dir, ec)) continue;
    if (++kept <= config_.keep_runs) continue;
    std::filesystem::remove_all(dir, ec);
    if (ec) Say("keep_runs: cannot remove " + dir.string() + ": " + ec.message());
  }
}

Result<ServeService::Queued> ServeService::RunNow(const std::string& name) {
  const ServeSuite* suite = FindSuite(name);
  if (!suite) return Status(Code::kNotFound, "no suite named " + name);
  std::lock_guard lock(mu_);
  if (stopping_) return Unavailable("iofleet serve is stopping");
  const uint64_t now = Now();
  auto queued = store_.Enqueue(NewQueued(*suite, "manual", now), now);
  if (!queued.ok()) return queued.status();
  Queued answer;
  if (queued->has_value()) {
    answer.run = **queued;
    Say("queued run " + answer.run.run_id + " of " + name + " (asked for)");
  } else {
    auto waiting = store_.Runs({name, "queued", 1});
    if (!waiting.ok()) return waiting.status();
    if (waiting->empty()) return Unavailable("a run of " + name + " was waiting and is not any more: ask again");
    answer.run = waiting->front();
    answer.already = true;
  }
  wake_.notify_all();
  return answer;
}

Result<ServeRun> ServeService::Cancel(const std::string& run_id) {
  std::lock_guard lock(mu_);
  auto found = store_.Find(run_id);
  if (!found.ok()) return found.status();
  if (!found->has_value()) return Status(Code::kNotFound, "no run " + run_id);
  ServeRun run = **found;
  auto dropped = store_.CancelQueued(run_id, Now());
  if (!dropped.ok()) return dropped.status();
  if (*dropped) {
    Say("run " + run_id + " of " + run.suite + ": cancelled while queued");
    run.state = "done";
    run.status = "cancelled";
    return run;
  }
  auto it = running_.find(run_id);
  if (run.state != "running" || it == running_.end()) return Status(Code::kFailedPrecondition, "run " + run_id + " is " + run.state + " (" + run.status + "): nothing to cancel");
  it->second->Raise("cancelled");
  Say("run " + run_id + " of " + run.suite + ": cancelling");
  run.state = "running";
  return run;
}

Status ServeService::Pause(const std::string& name, bool paused) {
  if (!FindSuite(name)) return Status(Code::kNotFound, "no suite named " + name);
  if (Status s = store_.SetPaused(name, paused, Now()); !s.ok()) return s;
  Say(name + (paused ? ": schedule paused" : ": schedule resumed"));
  wake_.notify_all();
  return Status();
}

Result<std::vector<ServeService::SuiteState>> ServeService::Suites() {
  std::vector<SuiteState> states;
  for (const auto& suite : config_.suites) {
    SuiteState s;
    s.suite = &suite;
    auto paused = store_.Paused(suite.name);
    if (!paused.ok()) return paused.status();
    s.paused = *paused;
    auto queued = store_.Runs({suite.name, "queued", 1});
    if (!queued.ok()) return queued.status();
    if (!queued->empty()) s.queued = queued->front().run_id;
    std::lock_guard lock(mu_);
    if (auto it = running_by_suite_.find(suite.name); it != running_by_suite_.end()) s.running = it->second;
    if (auto it = next_due_.find(suite.name); it != next_due_.end() && !s.paused) s.next_due_unix_ns = it->second;
    states.push_back(std::move(s));
  }
  return states;
}

}  // namespace iofleet::controller
