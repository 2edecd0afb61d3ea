#include "controller/run/run_manager.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "controller/fleet/agent_client.h"
#include "controller/fleet/agent_list.h"
#include "controller/fleet/local_agent.h"
#include "controller/report/report_writers.h"
#include "controller/workload/yaml_writer.h"
#include "core/spec/defaults.h"
#include "core/spec/root_spec.h"

namespace iofleet::controller {

std::atomic<bool> g_interrupted{false};

namespace {

using std::chrono::milliseconds;
constexpr milliseconds kHelloDeadline{5000};
constexpr milliseconds kPrepareDeadline{120000};
constexpr milliseconds kStopDeadline{60000};

struct Agent {
  std::unique_ptr<AgentClient> client;
  v1::HelloResponse hello;
  std::string name;  // unique within the run
  bool prepared = false;
  // Live figures of the current step, written by the agent's thread, read by the printer.
  std::atomic<uint64_t> live_ops{0};
  std::atomic<uint64_t> live_bytes{0};
};

// Runs fn(i) for every agent on its own thread and waits for all of them.
template <typename Fn>
void ForEachAgent(std::vector<std::unique_ptr<Agent>>& agents, Fn fn) {
  std::vector<std::thread> threads;
  for (size_t i = 0; i < agents.size(); ++i) threads.emplace_back([&, i] { fn(i); });
  for (auto& t : threads) t.join();
}

bool WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

class RunManager {
 public:
  explicit RunManager(const RunOptions& options) : options_(options) {}
  int Run();

 private:
  int Connect();
  int Prepare();
  void RunStep(int index);
  void StopAll();
  int Finish(int code);
  void Fail(const std::string& status, const std::string& error) {
    std::lock_guard lock(mu_);
    if (report_.status == "succeeded") {
      report_.status = status;
      report_.error = error;
    }
  }

  const RunOptions& options_;
  std::unique_ptr<LocalAgent> local_;
  std::vector<std::unique_ptr<Agent>> agents_;
  RunReport report_;
  std::mutex mu_;
  std::filesystem::path out_dir_;
};

int RunManager::Connect() {
  std::vector<std::string> addresses = options_.agents;
  if (addresses.empty()) {
    std::vector<std::string> roots = options_.local_roots;
    if (roots.empty()) roots.push_back("iofleet-data");
    for (const auto& root : roots) {
      // The local agent's roots are this host's data directories: make them on first use.
      std::error_code ec;
      std::filesystem::create_directories(spec::ParseRootSpec(root).dir, ec);
    }
    auto local = LocalAgent::Spawn(roots);
    if (!local.ok()) {
      std::cerr << "iofleet: " << local.status().message() << "\n";
      return local.status().code() == Code::kInvalidArgument ? kExitRejected : kExitFailed;
    }
    local_ = std::move(*local);
    addresses.push_back(local_->address());
  }
  for (const auto& address : addresses) {
    auto agent = std::make_unique<Agent>();
    agent->client = std::make_unique<AgentClient>(address);
    agents_.push_back(std::move(agent));
  }
  std::vector<Status> errors(agents_.size());
  ForEachAgent(agents_, [&](size_t i) {
    auto hello = agents_[i]->client->Hello(kHelloDeadline);
    if (hello.ok()) agents_[i]->hello = *hello;
    else errors[i] = hello.status();
  });
  bool unreachable = false;
  for (size_t i = 0; i < agents_.size(); ++i) {
    if (errors[i].ok()) continue;
    std::cerr << "iofleet: agent " << agents_[i]->client->address() << ": unreachable: " << errors[i].message() << "\n";
    unreachable = true;
  }
  if (unreachable) return kExitFailed;

  std::map<std::string, int> uses;
  for (auto& a : agents_) uses[a->hello.name()]++;
  for (auto& a : agents_) {
    a->name = a->hello.name();
    if (uses[a->name] > 1) a->name += "-" + PortOf(a->client->address());
  }
  int rejected = 0;
  std::string root = options_.workload.target().root().empty() ? "default" : options_.workload.target().root();
  for (auto& a : agents_) {
    if (a->hello.version() != IOFLEET_VERSION) {
      std::cerr << "iofleet: agent " << a->name << " (" << a->client->address() << ") runs version "
                << a->hello.version() << ", this controller " << IOFLEET_VERSION << "\n";
      ++rejected;
    }
    bool has_root = false;
    std::string roots;
    for (const auto& r : a->hello.roots()) {
      has_root |= r.name() == root;
      roots += (roots.empty() ? "" : ", ") + r.name() + "=" + r.path();
    }
    if (!has_root) {
      std::cerr << "iofleet: agent " << a->name << ": target.root \"" << root
                << "\" is not one of its roots (" << roots << ")\n";
      ++rejected;
    }
    report_.agents.push_back({a->name, a->client->address(), a->hello.version()});
  }
  return rejected ? kExitRejected : kExitOk;
}

int RunManager::Prepare() {
  const v1::Workload& w = options_.workload;
  // Every step resolved and sized for this many agents, before any agent is asked to do anything.
  std::vector<v1::PlannedStep> planned;
  for (int s = 0; s < w.steps_size(); ++s) {
    v1::PlannedStep step;
    step.set_name(spec::StepName(w, s));
    if (w.steps(s).has_io()) {
      auto io = spec::PlanIo(spec::ResolveIo(w, s), static_cast<uint32_t>(agents_.size()));
      if (!io.ok()) {
        std::cerr << "iofleet: " << options_.workload_file << ": steps[" << s << "].io: " << io.status().message() << "\n";
        return kExitRejected;
      }
      *step.mutable_io() = *io;
    }
    planned.push_back(step);
  }
  std::vector<Status> errors(agents_.size());
  ForEachAgent(agents_, [&](size_t i) {
    v1::PrepareRequest request;
    request.set_run_id(report_.run_id);
    request.set_agent_name(agents_[i]->name);
    *request.mutable_target() = w.target();
    for (const auto& step : planned) *request.add_steps() = step;
    auto prepared = agents_[i]->client->Prepare(request, kPrepareDeadline);
    if (prepared.ok()) agents_[i]->prepared = true;
    else errors[i] = prepared.status();
  });
  int code = kExitOk;
  for (size_t i = 0; i < agents_.size(); ++i) {
    if (errors[i].ok()) continue;
    std::cerr << "iofleet: " << errors[i].message() << "\n";
    bool busy = errors[i].code() == Code::kUnavailable || errors[i].code() == Code::kDeadlineExceeded;
    if (code == kExitOk) code = busy ? kExitFailed : kExitRejected;
  }
  return code;
}

void RunManager::RunStep(int index) {
  StepReport& step = report_.steps.back();
  std::vector<Result<v1::StepResult>> results(agents_.size(), Status(Code::kCancelled, "not run"));
  for (auto& a : agents_) {
    a->live_ops = 0;
    a->live_bytes = 0;
  }
  std::atomic<size_t> running{agents_.size()};
  std::atomic<bool> failed{false};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < agents_.size(); ++i) {
    threads.emplace_back([&, i] {
      Agent& a = *agents_[i];
      v1::StartRequest request;
      request.set_run_id(report_.run_id);
      request.set_step_index(static_cast<uint32_t>(index));
      request.set_sample_interval_ns(1'000'000'000);
      results[i] = a.client->RunStep(request, [&](const v1::Progress& p) {
        a.live_ops = p.ops();
        a.live_bytes = p.bytes();
      });
      if (!results[i].ok() && !failed.exchange(true)) {
        // One agent failed: the others stop now rather than run a step that cannot succeed.
        for (auto& other : agents_) {
          if (other.get() != &a) other->client->CancelStep();
        }
      }
      --running;
    });
  }
  auto started = std::chrono::steady_clock::now();
  auto last_print = started;
  bool interrupted = false;
  while (running > 0) {
    std::this_thread::sleep_for(milliseconds(50));
    if (g_interrupted && !interrupted) {
      interrupted = true;
      for (auto& a : agents_) a->client->CancelStep();
    }
    auto now = std::chrono::steady_clock::now();
    if (now - last_print >= std::chrono::seconds(2)) {
      last_print = now;
      double secs = std::chrono::duration<double>(now - started).count();
      uint64_t ops = 0, bytes = 0;
      for (auto& a : agents_) {
        ops += a->live_ops;
        bytes += a->live_bytes;
      }
      std::cerr << fmt::format("[{}] {:.0f}s  {:.1f} MiB/s  {:.0f} IOPS\n", step.name, secs,
                               static_cast<double>(bytes) / secs / (1024 * 1024), static_cast<double>(ops) / secs);
    }
  }
  for (auto& t : threads) t.join();

  step.status = "succeeded";
  for (size_t i = 0; i < agents_.size(); ++i) {
    if (!results[i].ok()) continue;
    StepStats stats = StepStats::FromProto(*results[i]);
    step.aggregate.Add(stats, step.agents.empty());
    step.agents.push_back({agents_[i]->name, std::move(stats)});
  }
  if (interrupted) {
    step.status = "aborted";
    Fail("aborted", "interrupted (Ctrl-C) during step " + step.name);
    return;
  }
  for (size_t i = 0; i < agents_.size(); ++i) {
    if (results[i].ok() || results[i].status().code() == Code::kCancelled) continue;
    step.status = "failed";
    std::string message = results[i].status().message();
    if (message.rfind("agent ", 0) != 0) message = "agent " + agents_[i]->name + ": " + message;
    std::cerr << "iofleet: step " << step.name << ": " << message << "\n";
    Fail("failed", "step " + step.name + ": " + message);
  }
}

void RunManager::StopAll() {
  ForEachAgent(agents_, [&](size_t i) {
    if (!agents_[i]->prepared) return;
    auto stopped = agents_[i]->client->Stop(report_.run_id, kStopDeadline);
    if (!stopped.ok()) {
      std::cerr << "iofleet: agent " << agents_[i]->name << ": stop: " << stopped.status().message() << "\n";
    }
    agents_[i]->prepared = false;
  });
}

int RunManager::Finish(int code) {
  WriteFile(out_dir_ / "report.json", ReportJson(report_));
  WriteFile(out_dir_ / "summary.csv", SummaryCsv(report_));
  std::cout << ConsoleSummary(report_);
  std::cout << "report: " << (out_dir_ / "report.json").string() << "\n";
  return code;
}

int RunManager::Run() {
  const v1::Workload& w = options_.workload;
  report_.run_id = NewRunId();
  report_.workload = w.name();
  report_.status = "succeeded";

  if (int code = Connect(); code != kExitOk) return code;
  if (int code = Prepare(); code != kExitOk) {
    StopAll();
    return code;
  }

  out_dir_ = std::filesystem::path(options_.out_dir) / report_.run_id;
  std::error_code ec;
  std::filesystem::create_directories(out_dir_, ec);
  if (ec) {
    std::cerr << "iofleet: --out " << out_dir_.string() << ": " << ec.message() << "\n";
    StopAll();
    return kExitRejected;
  }
  WriteFile(out_dir_ / "workload.effective.yaml",
            "# " + options_.workload_file + " with every default filled in\n" + ToYaml(spec::Effective(w)));
  std::cerr << "iofleet: run " << report_.run_id << " on " << agents_.size() << " agent(s)\n";

  for (int i = 0; i < w.steps_size() && report_.status == "succeeded"; ++i) {
    if (g_interrupted) {
      Fail("aborted", "interrupted (Ctrl-C) before step " + spec::StepName(w, i));
      break;
    }
    StepReport step;  // report.json lists executed steps only
    step.index = i;
    step.name = spec::StepName(w, i);
    step.kind = spec::StepKind(w.steps(i));
    report_.steps.push_back(std::move(step));
    RunStep(i);
  }
  StopAll();
  return Finish(report_.status == "succeeded" ? kExitOk : kExitFailed);
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
