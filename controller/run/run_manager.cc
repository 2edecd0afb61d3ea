#include "controller/run/run_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include <sys/ioctl.h>
#include <unistd.h>

#include "controller/fleet/fleet.h"
#include "controller/fleet/local_agent.h"
#include "controller/run/lease_keeper.h"
#include "controller/run/lease_length.h"
#include "controller/run/verdict_lines.h"
#include "controller/history/history_db.h"
#include "controller/history/record_run.h"
#include "controller/push/push_results.h"
#include "controller/live/live_metrics.h"
#include "controller/report/invariants.h"
#include "controller/report/html_report.h"
#include "controller/report/slowest_agent.h"
#include "core/base/address_in_use.h"
#include "controller/report/report_writers.h"
#include "controller/report/samples_csv.h"
#include "controller/report/write_file.h"
#include "controller/run/planner.h"
#include "controller/run/step_executor.h"
#include "controller/workload/sweep.h"
#include "controller/workload/yaml_loader.h"
#include "controller/workload/yaml_writer.h"
#include "core/base/version.h"
#include "core/wire/proto_json.h"
#include "core/rules/defaults.h"
#include "core/rules/non_io_steps.h"
#include "core/rules/root_spec.h"
#include "core/rules/step_tree.h"
#include "core/rules/validate.h"

namespace iofleet::controller {

Interrupt g_interrupt;

namespace {

using std::chrono::milliseconds;
constexpr milliseconds kPrepareDeadline{120000};
constexpr milliseconds kStopDeadline{60000};
constexpr milliseconds kLostStopDeadline{2000};  // a lost agent ends its run itself at lease expiry

// The run of `earlier` an agent's busy answer names ("agent X is busy with run R (state), ..."),
// or "": the agent names the run it holds only to a controller that lists it (agent.proto).
std::string HeldEarlierRun(const Status& status, const std::vector<std::string>& earlier) {
  if (status.code() != Code::kUnavailable) return "";
  for (const auto& id : earlier) {
    if (status.message().find(" is busy with run " + id + " (") != std::string::npos) return id;
  }
  return "";
}

// The terminal's width, for a tty progress line that must not wrap.
int StderrColumns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

class RunManager {
 public:
  explicit RunManager(const RunOptions& options) : options_(options) {}
  int Run();

 private:
  int RunSteps();
  int WriteRunFiles();  // OUT/<run-id>/workload.effective.yaml and samples.csv
  // Every cycle of every point until a step fails or the run is interrupted; a cycle's steps in
  // order, a group's repeat times, a step marked `once` in a point's first cycle only.
  void RunPlannedSteps();
  void RunCycle(StepExecutor& executor, size_t p, uint32_t c);
  bool Going(const std::string& next);  // false after a failure, or on an interrupt (aborted)
  // One executed instance of leaf step `l`: its report entry, then the step itself.
  void RunLeaf(StepExecutor& executor, size_t p, uint32_t c, size_t l, int group_cycle);
  // --pushgateway: the run's final figures, once, whatever its outcome.
  void Push();
  int Connect();
  int Plan();
  int StartLive();
  void SleepStep(uint64_t duration_ns, StepReport& step);
  void FilesStep(StepExecutor& executor, int flat, const v1::FilesStep& files, StepReport& step);
  int Prepare();
  void StopAll();
  int Finish(int code);
  int CheckHistory();
  // The run's first failure names how it ended; a step's status says the run's.
  void Fail(v1::StepStatus status, const std::string& error) {
    if (report_.status == v1::RUN_STATUS_SUCCEEDED) {
      report_.status = RunStatusOf(status);
      report_.error = error;
    }
  }

  std::ostream& log() { return *options_.log; }
  std::ostream& out() { return *options_.out; }

  const RunOptions& options_;
  std::unique_ptr<LocalAgent> local_;
  Fleet fleet_;
  uint64_t lease_ns_ = 0;  // the agents' lease: options_.lease_ns, or longer for a large fleet (lease_length.h)
  RunPlan plan_;
  RunReport report_;
  std::filesystem::path out_dir_;
  std::string effective_;  // the effective workload, every default filled in: its hash goes in the history
  std::optional<RunVerdicts> verdicts_;  // with --compare-to, once the run is judged
  std::unique_ptr<SamplesCsv> samples_;  // OUT/<run-id>/samples.csv, written as the streams come
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  bool pushed_ = false;
  // Declared in this order: /metrics, which reads the live model, goes first.
  std::unique_ptr<LiveRun> live_;
  std::unique_ptr<ProgressView> view_;
  std::unique_ptr<MetricsServer> metrics_;
};

int RunManager::Connect() {
  std::vector<std::string> addresses = options_.agents;
  if (addresses.empty()) {
    std::vector<std::string> roots = options_.local_roots;
    // The default root, ./iofleet-data, is made on first use; a root the user named must exist
    // (a mistyped path would otherwise be made and benchmarked on whatever disk holds it), unless
    // --create-local-root asks for it.
    const bool create = roots.empty() || options_.create_local_roots;
    if (roots.empty()) roots.push_back("iofleet-data");
    for (const auto& root : roots) {
      const std::string dir = rules::ParseRootSpec(root).dir;
      std::error_code ec;
      if (create) {
        std::filesystem::create_directories(dir, ec);
        continue;
      }
      const auto status = std::filesystem::status(dir, ec);
      if (!std::filesystem::exists(status)) {
        log() << "iofleet: --local-root " << root << ": " << dir << ": " << (ec ? ec.message() : "No such file or directory")
              << " (ENOENT): create it, or pass --create-local-root to have it made\n";
        return kExitRejected;
      }
      if (!std::filesystem::is_directory(status)) {
        log() << "iofleet: --local-root " << root << ": " << dir << " is not a directory (ENOTDIR)\n";
        return kExitRejected;
      }
    }
    auto local = LocalAgent::Spawn(roots, options_.local_config);
    if (!local.ok()) {
      log() << "iofleet: " << local.status().message() << "\n";
      return local.status().code() == Code::kInvalidArgument ? kExitRejected : kExitFailed;
    }
    local_ = std::move(*local);
    addresses.push_back(local_->address());
  }
  const auto connecting = std::chrono::steady_clock::now();
  auto fleet = ConnectFleet(addresses, options_.tls, log());
  if (!fleet.ok()) return kExitFailed;
  fleet_ = std::move(*fleet);
  const auto connect_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - connecting).count());
  lease_ns_ = LeaseForFleet(options_.lease_ns, fleet_.size(), connect_ns);
  if (lease_ns_ > options_.lease_ns) {
    log() << fmt::format("iofleet: {} agents took {:.1f} s to connect: their lease is {:.1f} s, not {:.1f} s, so that renewing every "
                         "one fits a quarter of it\n",
                         fleet_.size(), static_cast<double>(connect_ns) / 1e9, static_cast<double>(lease_ns_) / 1e9,
                         static_cast<double>(options_.lease_ns) / 1e9);
  }

  int rejected = 0;
  const uint32_t wanted = options_.workload.agents().count();
  if (wanted > fleet_.size()) {
    log() << "iofleet: " << options_.workload_file << ": agents.count is " << wanted << " but "
              << fleet_.size() << " agent(s) were given\n";
    return kExitRejected;
  }
  if (wanted > 0) fleet_.resize(wanted);  // the first N, in the order given
  for (auto& a : fleet_) {
    if (!CompatibleVersion(a->hello.version())) {
      log() << "iofleet: agent " << a->name << " (" << a->client->address() << ") runs version "
                << a->hello.version() << ", this controller " << kVersion << ": use the same major.minor version\n";
      ++rejected;
    }
    report_.agents.push_back({a->name, a->client->address(), a->hello.version()});
  }
  return rejected ? kExitRejected : kExitOk;
}

// Each agent's own workload (overrides applied), its root checked, every step resolved and
// sized for the whole fleet.
int RunManager::Plan() {
  std::vector<AgentId> ids;
  for (auto& a : fleet_) ids.push_back({a->name, a->client->address()});
  auto plan = MakePlan(options_.workload, ids);
  if (!plan.ok()) {
    std::string m = plan.status().message();
    for (size_t at = 0; at <= m.size();) {
      size_t nl = std::min(m.find('\n', at), m.size());
      log() << "iofleet: " << options_.workload_file << ": " << m.substr(at, nl - at) << "\n";
      at = nl + 1;
    }
    return kExitRejected;
  }
  int rejected = 0;
  for (size_t i = 0; i < fleet_.size(); ++i) {
    const FleetAgent& a = *fleet_[i];
    const v1::Workload& mine = plan->workloads[i];
    std::string root = mine.target().root().empty() ? "default" : mine.target().root();
    bool has_root = false;
    std::string roots;
    for (const auto& r : a.hello.roots()) {
      has_root |= r.name() == root;
      roots += (roots.empty() ? "" : ", ") + r.name() + "=" + r.path();
    }
    if (!has_root) {
      log() << "iofleet: agent " << a.name << ": target.root \"" << root << "\" is not one of its roots (" << roots << ")\n";
      ++rejected;
    }
    // What the agent's own config must allow: refused here, before any agent prepares.
    std::set<std::string> refusals;
    // The local agent this controller started takes its config from --local-config.
    const std::string config_flag = local_ ? "--local-config" : "--config";
    for (const rules::LeafStep& leaf : plan->leaves) {
      const v1::Step& step = rules::StepOf(mine, leaf);
      if (step.has_drop_caches() && !a.hello.allow_drop_caches()) {
        refusals.insert("the workload drops caches, which this agent's config does not allow (start it with " + config_flag +
                        " holding allow_drop_caches: true)");
      }
      if (step.has_readahead() && !a.hello.allow_readahead()) {
        refusals.insert("the workload changes read-ahead, which this agent's config does not allow (start it with " + config_flag +
                        " holding allow_readahead: true)");
      }
      if (step.has_hook()) {
        const auto& hooks = a.hello.hooks();
        if (std::find(hooks.begin(), hooks.end(), step.hook().name()) == hooks.end()) {
          std::string known;
          for (const auto& h : hooks) known += (known.empty() ? "" : ", ") + h;
          refusals.insert("step " + leaf.name + ": no hook named \"" + step.hook().name() + "\" in this agent's config (hooks: " +
                          (known.empty() ? "none" : known) + ")");
        }
      }
    }
    for (const auto& r : refusals) {
      log() << "iofleet: agent " << a.name << ": " << r << "\n";
      ++rejected;
    }
  }
  if (rejected) return kExitRejected;
  plan_ = std::move(*plan);
  return kExitOk;
}

int RunManager::Prepare() {
  std::vector<Status> errors(fleet_.size());
  // An agent still holding a run this controller lost ends that run itself when its lease runs
  // out (then removes its files): waited for that long, and a stop's time more.
  const auto patience = std::chrono::nanoseconds(lease_ns_) + kStopDeadline;
  std::vector<std::string> waited_for(fleet_.size());
  std::vector<double> waited_seconds(fleet_.size());
  ForEachAgent(fleet_, [&](size_t i) {
    v1::PrepareRequest request;
    request.set_run_id(report_.run_id);
    request.set_agent_name(fleet_[i]->name);
    request.set_lease_ns(lease_ns_);
    request.set_workload_name(plan_.workloads[i].name());
    *request.mutable_target() = plan_.workloads[i].target();
    for (const auto& step : plan_.steps[i]) *request.add_steps() = step;
    for (const auto& id : options_.earlier_run_ids) request.add_earlier_run_ids(id);
    const auto began = std::chrono::steady_clock::now();
    int64_t sent_ns = SteadyNowNs();
    auto prepared = fleet_[i]->client->Prepare(request, kPrepareDeadline);
    while (!prepared.ok()) {
      const std::string held = HeldEarlierRun(prepared.status(), options_.earlier_run_ids);
      if (held.empty() || std::chrono::steady_clock::now() - began >= patience || *options_.interrupt) break;
      waited_for[i] = held;
      for (int k = 0; k < 10 && !*options_.interrupt; ++k) std::this_thread::sleep_for(milliseconds(50));
      sent_ns = SteadyNowNs();
      prepared = fleet_[i]->client->Prepare(request, kPrepareDeadline);
    }
    waited_seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (prepared.ok()) {
      fleet_[i]->contact_ns = sent_ns;  // before prepared: the lease keeper reads them in that order
      fleet_[i]->prepared = true;
    }
    else errors[i] = prepared.status();
    // Where it runs, for report.json (agents[i] is fleet_[i]: Connect lists them in order).
    if (prepared.ok() && prepared->has_host()) report_.agents[i].host = prepared->host();
  });
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (waited_for[i].empty()) continue;
    log() << "iofleet: agent " << fleet_[i]->name << " was busy with run " << waited_for[i]
          << ", which this controller lost when it was killed: waited " << fmt::format("{:.1f}", waited_seconds[i])
          << " s for its lease to end" << (errors[i].ok() ? "" : ", in vain") << "\n";
  }
  int code = kExitOk;
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (errors[i].ok()) continue;
    log() << "iofleet: " << errors[i].message() << "\n";
    bool busy = errors[i].code() == Code::kUnavailable || errors[i].code() == Code::kDeadlineExceeded;
    if (code == kExitOk || busy) code = busy ? kExitFailed : kExitRejected;
  }
  return code;
}

void RunManager::StopAll() {
  std::vector<std::string> errors(fleet_.size());  // written by the agents' threads, logged after
  ForEachAgent(fleet_, [&](size_t i) {
    if (!fleet_[i]->prepared) return;
    auto stopped = fleet_[i]->client->Stop(report_.run_id, fleet_[i]->lost ? kLostStopDeadline : kStopDeadline);
    if (!stopped.ok()) errors[i] = stopped.status().message();
    fleet_[i]->prepared = false;
  });
  for (size_t i = 0; i < fleet_.size(); ++i) {
    if (errors[i].empty()) continue;
    log() << "iofleet: agent " << fleet_[i]->name << ": stop: " << errors[i]
          << " (it removes the run's files itself when its lease expires)\n";
  }
}

// A sleep step is the controller's: the agents just wait (their leases are renewed meanwhile).
void RunManager::SleepStep(uint64_t duration_ns, StepReport& step) {
  auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(duration_ns);
  const Interrupt& interrupt = *options_.interrupt;
  while (std::chrono::steady_clock::now() < until && !interrupt) std::this_thread::sleep_for(milliseconds(20));
  step.aggregate.window_ns = duration_ns;
  step.status = interrupt ? v1::STEP_STATUS_ABORTED : v1::STEP_STATUS_SUCCEEDED;
  if (interrupt) Fail(v1::STEP_STATUS_ABORTED, interrupt.Describe() + " during step " + step.name);
}

// A files step runs op by op, each phase in lockstep on every agent (mdtest's barriers); the
// step's figures add its phases up.
void RunManager::FilesStep(StepExecutor& executor, int flat, const v1::FilesStep& files, StepReport& step) {
  step.status = v1::STEP_STATUS_SUCCEEDED;
  for (int k = 0; k < files.ops_size() && step.status == v1::STEP_STATUS_SUCCEEDED; ++k) {
    StepReport phase_step;
    phase_step.name = step.name + "." + rules::FilesOpName(files.ops(k));
    phase_step.kind = step.kind;  // its live line counts files
    phase_step.index = step.index;
    phase_step.point = step.point;  // the agents' run_info, the live view and samples.csv name them
    phase_step.cycle = step.cycle;
    phase_step.group = step.group;
    phase_step.group_cycle = step.group_cycle;
    StepOutcome outcome = executor.Run(flat, static_cast<uint32_t>(k), v1::IoSpec(), {}, phase_step);
    PhaseReport phase{rules::FilesOpName(files.ops(k)), phase_step.aggregate, phase_step.agents, phase_step.start_skew_ns,
                      phase_step.span_ns};
    step.aggregate.AddPhase(phase.aggregate, k == 0);
    for (const auto& a : phase.agents) {
      auto it = std::find_if(step.agents.begin(), step.agents.end(), [&](const AgentStep& s) { return s.agent == a.agent; });
      if (it == step.agents.end()) {
        // Its own histograms: the phase's row keeps the phase's alone.
        step.agents.push_back({a.agent, StepStats(), a.start_offset_ns});
        step.agents.back().stats.AddPhase(a.stats, true);
      } else {
        it->stats.AddPhase(a.stats, false);
      }
    }
    if (k == 0) step.started_at_unix_ns = phase_step.started_at_unix_ns;
    step.start_skew_ns = std::max(step.start_skew_ns, phase_step.start_skew_ns);
    step.phases.push_back(std::move(phase));
    step.status = outcome.status;
    if (outcome.status != v1::STEP_STATUS_SUCCEEDED) Fail(outcome.status, outcome.error);
  }
  // A files step's slowest agent is the one whose phases took longest.
  if (auto slowest = FindSlowestAgent(step.agents, /*by_time=*/true)) {
    step.slowest_agent = slowest->agent;
    step.slowest_trails_median_pct = slowest->trails_median_pct;
  }
}

// A report is written only once its invariants hold (a broken one fails the step and the run),
// and a report that could not be written fails the run: a green run means the figures are there.
int RunManager::Finish(int code) {
  for (const auto& broken : CheckInvariants(report_)) log() << "iofleet: report: " << broken << "\n";
  if (report_.status != v1::RUN_STATUS_SUCCEEDED) code = kExitFailed;
  bool written = true;
  report_.duration_ns = UnixNowNs() - report_.started_at_unix_ns;
  // report.json is the run's document; every other format is rendered from it (report_document.h).
  // The history records the run (and judges it, if asked) first: the verdicts are part of it.
  std::string json = ReportJson(report_);
  nlohmann::ordered_json stored = nlohmann::ordered_json::parse(json);
  std::optional<RunVerdicts>& verdicts = verdicts_;
  HistoryOptions history{HistoryDbPath(options_.db, options_.out_dir), options_.verdicts,
                         {options_.labels.begin(), options_.labels.end()}, options_.notes};
  std::string samples_text;
  if (samples_) {
    Status closed = samples_->Close();
    auto text = closed.ok() ? samples_->Text() : Result<std::string>(closed);
    if (text.ok()) {
      samples_text = std::move(*text);
    } else {
      log() << "iofleet: " << text.status().message() << "\n";
      written = false;
    }
  }
  if (auto judged = JudgeAndRecord(history, stored, effective_, samples_text); judged.ok()) {
    verdicts = std::move(*judged);
  } else {
    log() << "iofleet: " << judged.status().message() << "\n";
    written = false;
  }
  json = stored.dump(2) + "\n";  // every file from the same document, verdicts or not
  auto typed = TypedReport(stored, (out_dir_ / "report.json").string());
  if (!typed.ok()) {  // ReportJson writes what its schema reads: a bug, not the run's fault
    log() << "iofleet: " << typed.status().message() << "\n";
    return kExitFailed;
  }
  const ReportDocument& doc = *typed;
  HtmlAssets html = LoadHtmlAssets(out_dir_);
  if (!html.chart_js) log() << "iofleet: report.html without charts: " << html.chart_js_path << " cannot be read (install libjs-chart.js)\n";
  const std::pair<const char*, std::string> files[] = {{"report.json", json},
                                                        {"summary.csv", SummaryCsv(doc)},
                                                        {"report.md", ReportMarkdown(doc)},
                                                        {"report.html", ReportHtml(doc, html)}};
  for (const auto& [name, text] : files) {
    if (Status s = WriteTextFile(out_dir_ / name, text); !s.ok()) {
      log() << "iofleet: " << s.message() << "\n";
      written = false;
    }
  }
  out() << ConsoleSummary(doc);
  if (verdicts) out() << VerdictLines(verdicts->verdicts);
  Push();
  if (!written) return kExitFailed;
  out() << "report: " << (out_dir_ / "report.json").string() << "\n";
  if (verdicts && verdicts->regressions > 0 && code == kExitOk) return kExitRegression;
  return code;
}

// The history, checked before anything starts: a database that cannot be opened (a newer
// schema, not a database), a --db in a directory that does not exist, or a --compare-to RUN_ID
// that is no baseline of this run would otherwise be found only after the whole run.
int RunManager::CheckHistory() {
  const std::string path = HistoryDbPath(options_.db, options_.out_dir);
  const bool by_run = options_.verdicts && options_.verdicts->reference.kind == Reference::Kind::kRun;
  const std::string who = by_run ? "--compare-to " + options_.verdicts->reference.run_id + ": " : "";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!options_.db.empty() && !dir.empty() && !std::filesystem::is_directory(dir, ec)) {
      log() << "iofleet: --db " << path << ": directory " << dir.string() << " does not exist\n";
      return kExitRejected;
    }
    if (!by_run) return kExitOk;  // made at the run's end
    log() << "iofleet: " << who << "history database " << path << " does not exist\n";
    return kExitRejected;
  }
  auto db = HistoryDb::Open(path);
  if (!db.ok()) {
    log() << "iofleet: " << who << db.status().message() << "\n";
    return kExitRejected;
  }
  if (!by_run) return kExitOk;
  auto run = (*db)->Load(options_.verdicts->reference.run_id);
  if (!run.ok()) {
    log() << "iofleet: " << who << run.status().message() << "\n";
    return kExitRejected;
  }
  // A baseline: the same workload name and --labels, succeeded, not excluded (the agent count is
  // known once the agents answer; JudgeRun checks it).
  std::string why;
  if (run->workload != options_.workload.name()) why = "it ran workload " + run->workload;
  else if (run->labels != std::map<std::string, std::string>(options_.labels.begin(), options_.labels.end())) why = "its --labels differ";
  else if (run->status != v1::RUN_STATUS_SUCCEEDED) why = "it " + wire::EnumText(run->status);
  else if (run->excluded) why = "it is excluded (iofleet history --include " + run->run_id + ")";
  if (why.empty()) return kExitOk;
  log() << "iofleet: " << who << "that run is no baseline of this one: " << why << "\n";
  return kExitRejected;
}

// Whatever the outcome, so that a failed night shows as failed, also when it ended before its
// first step (agents unreachable, refused at Prepare): a push that fails only warns (the run's
// figures are in its report either way).
void RunManager::Push() {
  if (!options_.pushgateway || pushed_) return;
  pushed_ = true;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (Status s = PushResults(*options_.pushgateway, report_, seconds, now, verdicts_ ? &verdicts_->verdicts : nullptr); !s.ok()) {
    log() << "iofleet: warning: " << s.message() << "\n";
  }
}

// The live model, its view on stderr, and /metrics when asked for: a --metrics address that
// cannot be served rejects the run before any agent is contacted.
int RunManager::StartLive() {
  const v1::Workload& w = options_.workload;
  live_ = std::make_unique<LiveRun>(report_.run_id, w.name(), w.sample_interval() ? w.sample_interval() : 1'000'000'000);
  if (!options_.metrics_address.empty()) {
    if (Status free = CheckListenAddressFree(options_.metrics_address); !free.ok()) {
      log() << "iofleet: --metrics " << options_.metrics_address << ": cannot serve metrics there: " << free.message() << "\n";
      return kExitRejected;
    }
    auto server = MetricsServer::Start(options_.metrics_address, *live_);
    if (!server.ok()) {
      log() << "iofleet: " << server.status().message() << "\n";
      return kExitRejected;
    }
    metrics_ = std::move(*server);
    log() << "iofleet: metrics on http://" << options_.metrics_address.substr(0, options_.metrics_address.rfind(':')) << ":"
              << metrics_->port() << "/metrics\n";
  }
  view_ = MakeProgressView(options_.progress, std::cerr /*the terminal*/, isatty(STDERR_FILENO) == 1, StderrColumns());
  return kExitOk;
}

int RunManager::Run() {
  // A usage error: nothing started, nothing pushed.
  if (int code = CheckHistory(); code != kExitOk) return code;
  int code = RunSteps();
  if (code != kExitOk && options_.pushgateway && !pushed_) {  // it ended before Finish
    if (report_.status == v1::RUN_STATUS_SUCCEEDED) report_.status = v1::RUN_STATUS_FAILED;
    Push();
  }
  return code;
}

int RunManager::RunSteps() {
  report_.run_id = options_.run_id.empty() ? NewRunId() : options_.run_id;
  report_.workload = options_.workload.name();
  report_.description = options_.workload.description();
  report_.status = v1::RUN_STATUS_SUCCEEDED;
  report_.started_at_unix_ns = UnixNowNs();
  report_.labels = options_.labels;
  report_.notes = options_.notes;

  // An interrupt before the first step (serve stopping, a cancel) ends the run before it takes
  // the agents; the phases in between are bounded by their deadlines.
  auto interrupted = [&] {
    if (!*options_.interrupt) return false;
    log() << "iofleet: " << options_.interrupt->Describe() << " before the run's first step\n";
    return true;
  };
  if (int code = StartLive(); code != kExitOk) return code;
  if (interrupted()) return kExitFailed;
  if (int code = Connect(); code != kExitOk) return code;
  if (interrupted()) return kExitFailed;
  if (int code = Plan(); code != kExitOk) return code;
  if (interrupted()) return kExitFailed;
  // Leases run from each agent's Prepare: renewed from then on, whatever phase the controller
  // is in (preparing a thousand agents takes longer than a lease).
  auto lease = std::make_unique<LeaseKeeper>(fleet_, report_.run_id, lease_ns_);
  if (int code = Prepare(); code != kExitOk) {
    lease.reset();
    StopAll();
    return code;
  }

  out_dir_ = std::filesystem::path(options_.out_dir) / report_.run_id;
  std::error_code ec;
  std::filesystem::create_directories(out_dir_, ec);
  if (ec) {
    log() << "iofleet: --out " << out_dir_.string() << ": " << ec.message() << "\n";
    lease.reset();
    StopAll();
    return kExitRejected;
  }
  if (int code = WriteRunFiles(); code != kExitOk) {
    StopAll();
    return code;
  }
  log() << "iofleet: run " << report_.run_id << " on " << fleet_.size() << " agent(s)\n";
  RunPlannedSteps();
  lease.reset();
  StopAll();
  return Finish(report_.status == v1::RUN_STATUS_SUCCEEDED ? kExitOk : kExitFailed);
}

int RunManager::WriteRunFiles() {
  effective_ = ToYaml(rules::Effective(options_.workload));
  const std::string effective = "# " + options_.workload_file + " with every default filled in\n" + effective_;
  if (Status s = WriteTextFile(out_dir_ / "workload.effective.yaml", effective); !s.ok()) {
    log() << "iofleet: " << s.message() << "\n";  // the report could not be written there either
    return kExitFailed;
  }
  auto samples = SamplesCsv::Create(out_dir_ / "samples.csv");
  if (!samples.ok()) {
    log() << "iofleet: " << samples.status().message() << "\n";
    return kExitFailed;
  }
  samples_ = std::move(*samples);
  return kExitOk;
}

void RunManager::RunPlannedSteps() {
  const v1::Workload& w = options_.workload;
  StepExecutor executor(fleet_, report_.run_id, w.sample_interval(), *options_.interrupt, *live_, *view_, samples_.get(), log());
  const uint32_t cycles = std::max(1u, w.repeat());
  for (size_t p = 0; p < plan_.points.size() && report_.status == v1::RUN_STATUS_SUCCEEDED; ++p) {
    for (uint32_t c = 0; c < cycles && report_.status == v1::RUN_STATUS_SUCCEEDED; ++c) RunCycle(executor, p, c);
  }
}

void RunManager::RunCycle(StepExecutor& executor, size_t p, uint32_t c) {
  const v1::Workload& at_point = plan_.points[p].workload;
  const size_t leaves = plan_.leaves.size();
  for (size_t l = 0; l < leaves && report_.status == v1::RUN_STATUS_SUCCEEDED;) {
    const rules::LeafStep& leaf = plan_.leaves[l];
    const v1::Step& top = at_point.steps(leaf.top);
    const bool skip_top = top.once() && c > 0;  // its data serves every cycle of the point
    if (leaf.member < 0) {
      if (!skip_top && Going(leaf.name)) RunLeaf(executor, p, c, l, -1);
      ++l;
      continue;
    }
    // A group: its steps in order, repeat times, then the step after it.
    size_t end = l;
    while (end < leaves && plan_.leaves[end].top == leaf.top) ++end;
    for (uint32_t g = 0; !skip_top && g < top.group().repeat() && report_.status == v1::RUN_STATUS_SUCCEEDED; ++g) {
      for (size_t m = l; m < end && report_.status == v1::RUN_STATUS_SUCCEEDED; ++m) {
        if (rules::StepOf(at_point, plan_.leaves[m]).once() && (c > 0 || g > 0)) continue;
        if (Going(plan_.leaves[m].name)) RunLeaf(executor, p, c, m, static_cast<int>(g));
      }
    }
    l = end;
  }
}

bool RunManager::Going(const std::string& next) {
  if (report_.status != v1::RUN_STATUS_SUCCEEDED) return false;
  if (*options_.interrupt) {
    Fail(v1::STEP_STATUS_ABORTED, options_.interrupt->Describe() + " before step " + next);
    return false;
  }
  return true;
}

void RunManager::RunLeaf(StepExecutor& executor, size_t p, uint32_t c, size_t l, int group_cycle) {
  const rules::LeafStep& leaf = plan_.leaves[l];
  const v1::Step& def = rules::StepOf(plan_.points[p].workload, leaf);
  StepReport step;  // report.json lists executed steps only
  step.index = static_cast<int>(l);
  step.name = leaf.name;
  step.kind = rules::StepKind(def);
  step.point = static_cast<int>(p);
  step.cycle = static_cast<int>(c);
  step.group = leaf.group;
  step.group_cycle = group_cycle;
  step.params = plan_.points[p].params;
  report_.steps.push_back(std::move(step));
  const size_t flat = p * plan_.leaves.size() + l;
  if (def.has_sleep()) {
    SleepStep(def.sleep().duration(), report_.steps.back());
    return;
  }
  if (def.has_files()) {
    FilesStep(executor, static_cast<int>(flat), plan_.steps[0][flat].files(), report_.steps.back());
    return;
  }
  std::vector<bool> has_work;
  uint64_t total_jobs = 0;
  for (const auto& agent_steps : plan_.steps) {
    const uint64_t jobs = agent_steps[flat].has_io() ? rules::JobsOf(agent_steps[flat].io()) : 0;
    has_work.push_back(!agent_steps[flat].has_io() || jobs > 0);
    total_jobs += jobs;
  }
  StepOutcome outcome = executor.Run(static_cast<int>(flat), 0, plan_.steps[0][flat].io(), has_work, report_.steps.back(), total_jobs);
  if (outcome.status != v1::STEP_STATUS_SUCCEEDED) Fail(outcome.status, outcome.error);
}

}  // namespace

std::string NewRunId() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
  std::random_device random;
  return fmt::format("{}-{:06x}", stamp, random() & 0xFFFFFF);
}

int Run(const RunOptions& options) { return RunManager(options).Run(); }

}  // namespace iofleet::controller
