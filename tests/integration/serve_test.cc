// `iofleet serve` with real parts: real agents over gRPC on loopback, real runs on real files,
// the service's real HTTP server, its SQLite history, SIGTERM and a restart, a webhook receiver,
// and the page in headless Chromium.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/support/cdp_client.h"
#include "tests/support/http_client.h"
#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* kToken = "s3cret-token-for-the-test";
constexpr const char* kChromium = "/usr/bin/chromium";

constexpr const char* kWorkload = R"(name: serve-it
defaults: { engine: psync, block_size: 64KiB, jobs: 1, file_size: 4MiB }
steps:
  - name: write
    io: { op: write }
  - name: read
    io: { op: read, runtime: 1s }
)";

// Collects the POSTs a webhook receives (one connection each, as serve sends them).
class WebhookReceiver {
 public:
  WebhookReceiver() {
    fd_ = ListenOnLoopback(8, port_);
    thread_ = std::thread([this] { Serve(); });
  }
  ~WebhookReceiver() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  std::vector<json> bodies() {
    std::lock_guard lock(mu_);
    return bodies_;
  }

 private:
  void Serve() {
    while (!stop_) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string request;
      char buf[4096];
      size_t want = std::string::npos;
      while (true) {
        ssize_t n = read(c, buf, sizeof(buf));
        if (n <= 0) break;
        request.append(buf, static_cast<size_t>(n));
        size_t head = request.find("\r\n\r\n");
        if (head != std::string::npos && want == std::string::npos) {
          std::string lower = request.substr(0, head);
          for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          size_t cl = lower.find("content-length:");
          want = head + 4 + (cl == std::string::npos ? 0 : std::stoul(lower.substr(cl + 15)));
        }
        if (want != std::string::npos && request.size() >= want) break;
      }
      const std::string reply = "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n";
      (void)!write(c, reply.data(), reply.size());
      close(c);
      size_t head = request.find("\r\n\r\n");
      if (head == std::string::npos) continue;
      try {
        std::lock_guard lock(mu_);
        bodies_.push_back(json::parse(request.substr(head + 4)));
      } catch (...) {
        ADD_FAILURE() << "the webhook body is not JSON: " << request;
      }
    }
  }
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<json> bodies_;
  std::thread thread_;
};

class Serve {
 public:
  Serve(const fs::path& config, const fs::path& logs, int port) : address_("127.0.0.1:" + std::to_string(port)) {
    process_ = std::make_unique<Process>(std::vector<std::string>{BinPath("iofleet"), "serve", "--config", config.string()}, logs);
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline && process_->Running()) {
      if (HttpGet(address_, "/healthz", 1s).status == 200) return;
      std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << "serve did not answer /healthz: " << process_->Stderr();
  }
  const std::string& address() const { return address_; }
  Process& process() { return *process_; }

  HttpAnswer Call(const std::string& method, const std::string& target, const std::string& body = "", bool token = true) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (token) headers.emplace_back("Authorization", std::string("Bearer ") + kToken);
    if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
    return HttpCall(method, address_, target, headers, body, 10s);
  }
  json Get(const std::string& target) {
    HttpAnswer a = Call("GET", target);
    EXPECT_EQ(a.status, 200) << target << ": " << a.body << a.error;
    try {
      return json::parse(a.body);
    } catch (...) {
      ADD_FAILURE() << target << ": not JSON: " << a.body;
      return json::object();
    }
  }
  json Run(const std::string& id) { return Get("/api/v1/runs/" + id); }
  // Waits until the run is done (or `timeout`); its API view.
  json WaitDone(const std::string& id, std::chrono::seconds timeout = 60s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    json run;
    while (std::chrono::steady_clock::now() < deadline) {
      run = Run(id);
      if (run.value("state", "") == "done") return run;
      std::this_thread::sleep_for(200ms);
    }
    ADD_FAILURE() << "run " << id << " not done within " << timeout.count() << " s: " << run.dump();
    return run;
  }
  json WaitState(const std::string& id, const std::string& state, std::chrono::seconds timeout = 30s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    json run;
    while (std::chrono::steady_clock::now() < deadline) {
      run = Run(id);
      if (run.value("state", "") == state) return run;
      std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << "run " << id << " never " << state << ": " << run.dump();
    return run;
  }
  json Runs(const std::string& query = "") { return Get("/api/v1/runs" + query)["runs"]; }

 private:
  std::string address_;
  std::unique_ptr<Process> process_;
};

struct Fixture {
  TempDir tmp;
  std::unique_ptr<AgentProcess> agent;
  int port = FreeLoopbackPort();
  fs::path config = tmp / "etc" / "serve.yaml";
  std::string db = "../var/history.db";  // serve.yaml's db: (relative to the config file)

  Fixture() {
    fs::create_directories(tmp / "etc" / "workloads");
    fs::create_directories(tmp / "var");
    WriteText(tmp / "etc" / "workloads" / "serve-it.yaml", kWorkload);
    WriteText(tmp / "etc" / "serve.token", std::string(kToken) + "\n");
    fs::permissions(tmp / "etc" / "serve.token", fs::perms::owner_read | fs::perms::owner_write);
    agent = std::make_unique<AgentProcess>(tmp / "agent-data", "a1", tmp / "agent-logs");
  }
  // serve.yaml with relative paths (relative to the config file) and `suites` as given.
  void Write(const std::string& fleets, const std::string& suites, const std::string& extra = "") {
    WriteText(config, "listen: 127.0.0.1:" + std::to_string(port) + "\ntoken_file: serve.token\ndb: " + db + "\n"
                      "results: ../var/results\nkeep_runs: 50\n" + extra + "fleets:\n" + fleets + "suites:\n" + suites);
  }
  fs::path results() const { return tmp / "var" / "results"; }
};

// Until the run has prepared its agents and started its steps (its samples.csv exists): an
// interrupt from then on ends it with a report.
void WaitForSteps(const fs::path& dir) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!fs::exists(dir / "samples.csv") && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(fs::exists(dir / "samples.csv")) << dir;
}

std::vector<json> RunsOf(const json& runs, const std::string& suite) {
  std::vector<json> out;
  for (const auto& r : runs) {
    if (r.value("suite", "") == suite) out.push_back(r);
  }
  return out;
}

// A schedule fires; a run that falls due while the fleet is busy waits in the queue (visible, and
// not queued twice); the API's report is report.json's; SIGTERM mid-run aborts that run cleanly and
// keeps the queue; a restart runs what was queued, not what was aborted, and follows `missed`.
TEST(Serve, SchedulesQueuesStopsAndCarriesOnAfterARestart) {
  Fixture f;
  f.Write("  lab: { agents: \"" + f.agent->address() + "\" }\n",
          "  - name: quick\n    fleet: lab\n    workload: workloads/serve-it.yaml\n    labels: { speed: quick }\n"
          "    every: 3s\n    missed: skip\n"
          "  - name: slow\n    fleet: lab\n    workload: workloads/serve-it.yaml\n    labels: { speed: slow }\n"
          "    set: { \"steps[read].io.runtime\": 20s }\n");
  auto serve = std::make_unique<Serve>(f.config, f.tmp / "logs1", f.port);

  // The schedule fires within its period (and a second).
  std::string first;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (first.empty() && std::chrono::steady_clock::now() < deadline) {
    for (const auto& r : RunsOf(serve->Runs(), "quick")) {
      if (r.value("reason", "") == "schedule") first = r["run_id"];
    }
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_FALSE(first.empty()) << serve->process().Stderr();
  json done = serve->WaitDone(first);
  EXPECT_EQ(done["status"], "succeeded") << done.dump();
  const fs::path dir = f.results() / "quick" / first;
  ASSERT_TRUE(fs::exists(dir / "report.json")) << dir;
  EXPECT_TRUE(fs::exists(dir / "report.html"));
  EXPECT_TRUE(fs::exists(dir / "run.log"));
  // The API serves the report the run wrote, figure for figure.
  EXPECT_EQ(done["report_document"], ReadJson(dir / "report.json"));
  EXPECT_EQ(done["labels"]["speed"], "quick");

  // Pause quick so that only what this test asks for runs from here on.
  ASSERT_EQ(serve->Call("POST", "/api/v1/suites/quick/pause").status, 200);
  for (const auto& r : RunsOf(serve->Runs("?state=queued"), "quick")) serve->Call("POST", "/api/v1/runs/" + r["run_id"].get<std::string>() + "/cancel");
  for (const auto& r : RunsOf(serve->Runs("?state=running"), "quick")) serve->WaitDone(r["run_id"]);

  // slow holds the fleet; quick asked for meanwhile waits, once.
  HttpAnswer asked = serve->Call("POST", "/api/v1/suites/slow/runs");
  ASSERT_EQ(asked.status, 202) << asked.body;
  const std::string slow = json::parse(asked.body)["run_id"];
  serve->WaitState(slow, "running");
  WaitForSteps(f.results() / "slow" / slow);
  HttpAnswer q1 = serve->Call("POST", "/api/v1/suites/quick/runs", R"({"suite": "quick"})");
  ASSERT_EQ(q1.status, 202) << q1.body;
  const std::string waiting = json::parse(q1.body)["run_id"];
  HttpAnswer q2 = serve->Call("POST", "/api/v1/suites/quick/runs");
  ASSERT_EQ(q2.status, 200) << q2.body;
  EXPECT_EQ(json::parse(q2.body)["run_id"], waiting);
  EXPECT_EQ(json::parse(q2.body)["already_queued"], true);
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(serve->Run(waiting)["state"], "queued");
  json suites = serve->Get("/api/v1/suites")["suites"];
  ASSERT_EQ(suites.size(), 2u);
  EXPECT_EQ(suites[0]["name"], "quick");
  EXPECT_EQ(suites[0]["queued"], waiting);
  EXPECT_EQ(suites[0]["paused"], true);
  EXPECT_EQ(suites[1]["running"], slow);
  const std::string metrics = serve->Call("GET", "/metrics").body;
  EXPECT_NE(metrics.find("iofleet_serve_queue_length{fleet=\"lab\"} 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("iofleet_serve_fleet_busy{fleet=\"lab\"} 1"), std::string::npos) << metrics;

  // 200 GETs at once while the run goes: every one answered.
  std::atomic<int> answered{0};
  std::vector<std::thread> readers;
  const char* targets[] = {"/api/v1/runs", "/api/v1/suites", "/metrics", "/api/v1/suites/quick/history", "/healthz"};
  for (int t = 0; t < 20; ++t) {
    readers.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        HttpAnswer a = HttpCall("GET", serve->address(), targets[(t + i) % 5], {{"Authorization", std::string("Bearer ") + kToken}}, "", 20s);
        if (a.status == 200) ++answered;
      }
    });
  }
  for (auto& r : readers) r.join();
  EXPECT_EQ(answered.load(), 200);

  // SIGTERM mid-run: the run ends aborted with its figures so far, the agent is released, serve exits 0.
  serve->process().Signal(SIGTERM);
  EXPECT_EQ(serve->process().Wait(90s), 0) << serve->process().Stderr();
  const json aborted = ReadJson(f.results() / "slow" / slow / "report.json");
  EXPECT_EQ(aborted["status"], "aborted");
  EXPECT_NE(aborted.value("error", "").find("SIGTERM"), std::string::npos) << aborted.dump();

  // Down for longer than quick's period: with `missed: skip` nothing is made up for it.
  std::this_thread::sleep_for(4s);
  ASSERT_EQ(serve->Call("GET", "/healthz").status, 0) << "serve still answers after exiting";
  serve = std::make_unique<Serve>(f.config, f.tmp / "logs2", f.port);
  json after = serve->WaitDone(waiting);
  EXPECT_EQ(after["status"], "succeeded") << after.dump() << serve->process().Stderr();
  json slow_after = serve->Run(slow);
  EXPECT_EQ(slow_after["state"], "done");
  EXPECT_EQ(slow_after["status"], "aborted");
  EXPECT_EQ(RunsOf(serve->Runs(), "slow").size(), 1u) << "the aborted run is not run again";
  for (const auto& r : serve->Runs()) EXPECT_NE(r.value("reason", ""), "missed") << r.dump();
  EXPECT_EQ(serve->Get("/api/v1/suites")["suites"][0]["paused"], true) << "a pause outlives a restart";

  // Cancel: a running run ends aborted ("cancelled"), a queued one never runs.
  asked = serve->Call("POST", "/api/v1/suites/slow/runs");
  ASSERT_EQ(asked.status, 202);
  const std::string cancelled_running = json::parse(asked.body)["run_id"];
  serve->WaitState(cancelled_running, "running");
  WaitForSteps(f.results() / "slow" / cancelled_running);
  const std::string cancelled_queued = json::parse(serve->Call("POST", "/api/v1/suites/quick/runs").body)["run_id"];
  EXPECT_EQ(serve->Call("POST", "/api/v1/runs/" + cancelled_queued + "/cancel").status, 202);
  EXPECT_EQ(serve->Call("POST", "/api/v1/runs/" + cancelled_running + "/cancel").status, 202);
  json c1 = serve->WaitDone(cancelled_running, 60s);
  EXPECT_EQ(c1["status"], "aborted");
  EXPECT_NE(c1["error"].get<std::string>().find("interrupted (cancelled)"), std::string::npos) << c1.dump();
  ASSERT_TRUE(c1.contains("report_document")) << c1.dump();
  EXPECT_EQ(c1["report_document"]["status"], "aborted");
  json c2 = serve->Run(cancelled_queued);
  EXPECT_EQ(c2["status"], "cancelled");
  EXPECT_EQ(c2["started_at_unix_ns"], 0);
  EXPECT_EQ(serve->Call("POST", "/api/v1/runs/" + cancelled_queued + "/cancel").status, 409);

  // The history and the change points behind the trend charts.
  json history = serve->Get("/api/v1/suites/quick/history");
  ASSERT_FALSE(history["series"].empty()) << history.dump();
  EXPECT_EQ(history["workload"], "serve-it");

  serve->process().Signal(SIGTERM);
  EXPECT_EQ(serve->process().Wait(60s), 0) << serve->process().Stderr();
}

// Times missed while serve was down run once at start with `missed: run_once`.
TEST(Serve, AMissedScheduleRunsOnceAtStart) {
  Fixture f;
  f.Write("  lab: { agents: \"" + f.agent->address() + "\" }\n",
          "  - name: tick\n    fleet: lab\n    workload: workloads/serve-it.yaml\n    every: 2s\n    missed: run_once\n");
  {
    // The first start begins tick's schedule from now; stopped at once, nothing has run.
    Serve serve(f.config, f.tmp / "logs1", f.port);
    serve.process().Signal(SIGTERM);
    ASSERT_EQ(serve.process().Wait(60s), 0) << serve.process().Stderr();
  }
  std::this_thread::sleep_for(5s);
  Serve serve(f.config, f.tmp / "logs3", f.port);
  std::vector<json> missed;
  for (const auto& r : serve.Runs()) {
    if (r.value("reason", "") == "missed") missed.push_back(r);
  }
  ASSERT_EQ(missed.size(), 1u) << serve.Runs().dump();
  EXPECT_EQ(serve.WaitDone(missed[0]["run_id"])["status"], "succeeded");
  // A second serve on the same database (another port) is refused: it would take this one's
  // running runs for lost and run its queue twice.
  std::string second = ReadAll(f.config);
  second.replace(second.find(std::to_string(f.port)), std::to_string(f.port).size(), std::to_string(FreeLoopbackPort()));
  WriteText(f.tmp / "etc" / "second.yaml", second);
  CommandResult twice = RunCommand({BinPath("iofleet"), "serve", "--config", (f.tmp / "etc" / "second.yaml").string()}, f.tmp / "logs4", 30s);
  EXPECT_EQ(twice.code, 2) << twice.err;
  EXPECT_NE(twice.err.find("another iofleet serve uses this database"), std::string::npos) << twice.err;
  serve.process().Signal(SIGTERM);
  EXPECT_EQ(serve.process().Wait(60s), 0);
}

// A serve killed mid-run (SIGKILL, power loss) cannot end its run: the next start records it lost,
// tells the webhook, and does not run it again.
TEST(Serve, ARunOfAKilledServeIsLostNotRunAgainAndNotified) {
  Fixture f;
  WebhookReceiver hook;
  f.Write("  lab: { agents: \"" + f.agent->address() + "\" }\n",
          "  - name: long\n    fleet: lab\n    workload: workloads/serve-it.yaml\n    set: { \"steps[read].io.runtime\": 30s }\n"
          "    webhook: " + hook.url() + "\n");
  std::string id;
  {
    Serve serve(f.config, f.tmp / "logs1", f.port);
    id = json::parse(serve.Call("POST", "/api/v1/suites/long/runs").body)["run_id"];
    serve.WaitState(id, "running");
    serve.process().Signal(SIGKILL);
    serve.process().Wait(10s);
  }
  Serve serve(f.config, f.tmp / "logs2", f.port);
  json lost = serve.Run(id);
  EXPECT_EQ(lost["state"], "done");
  EXPECT_EQ(lost["status"], "lost");
  EXPECT_NE(lost["error"].get<std::string>().find("stopped during the run"), std::string::npos) << lost.dump();
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (hook.bodies().empty() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(100ms);
  ASSERT_EQ(hook.bodies().size(), 1u);
  EXPECT_EQ(hook.bodies()[0]["event"], "failed");
  EXPECT_EQ(hook.bodies()[0]["status"], "lost");
  EXPECT_EQ(hook.bodies()[0]["run_id"], id);
  std::this_thread::sleep_for(2s);
  EXPECT_EQ(serve.Runs().size(), 1u) << "the lost run is not run again: " << serve.Runs().dump();
  serve.process().Signal(SIGTERM);
  EXPECT_EQ(serve.process().Wait(60s), 0);
}

// Serve killed (SIGKILL) and started again 5 s later (the unit's RestartSec).
// Its agent still holds the killed serve's run until that run's lease ends: the queued run waits
// for it and then runs, instead of failing "busy" and notifying. A run that meets an agent busy
// with any other run (here another fleet's, going now) still fails "busy" at once.
TEST(Serve, AQueuedRunWaitsForTheAgentsAKilledServeLeftBusy) {
  Fixture f;
  WebhookReceiver hook;
  f.Write("  lab: { agents: \"" + f.agent->address() + "\" }\n  twin: { agents: \"" + f.agent->address() + "\" }\n",
          "  - name: long\n    fleet: lab\n    workload: workloads/serve-it.yaml\n    set: { \"steps[read].io.runtime\": 8s }\n"
          "    webhook: " + hook.url() + "\n"
          "  - name: twin\n    fleet: twin\n    workload: workloads/serve-it.yaml\n");
  std::string lost, queued;
  {
    Serve serve(f.config, f.tmp / "logs1", f.port);
    lost = json::parse(serve.Call("POST", "/api/v1/suites/long/runs").body)["run_id"];
    serve.WaitState(lost, "running");
    WaitForSteps(f.results() / "long" / lost);  // the agent holds it
    queued = json::parse(serve.Call("POST", "/api/v1/suites/long/runs").body)["run_id"];
    ASSERT_EQ(serve.Run(queued)["state"], "queued");
    serve.process().Signal(SIGKILL);
    serve.process().Wait(10s);
  }
  std::this_thread::sleep_for(5s);
  Serve serve(f.config, f.tmp / "logs2", f.port);
  EXPECT_EQ(serve.Run(lost)["status"], "lost");
  serve.WaitState(queued, "running");
  WaitForSteps(f.results() / "long" / queued);
  const std::string twin = json::parse(serve.Call("POST", "/api/v1/suites/twin/runs").body)["run_id"];
  json twin_done = serve.WaitDone(twin);
  EXPECT_EQ(twin_done["status"], "failed");
  EXPECT_NE(twin_done["error"].get<std::string>().find("busy with another run"), std::string::npos) << twin_done.dump();
  EXPECT_EQ(serve.Run(queued)["state"], "running") << "twin failed at once, while the run it met was going";
  json done = serve.WaitDone(queued, 90s);
  EXPECT_EQ(done["status"], "succeeded") << done.dump() << serve.process().Stderr();
  const std::string log = ReadAll(f.results() / "long" / queued / "run.log");
  EXPECT_NE(log.find("waited"), std::string::npos) << log;
  EXPECT_NE(log.find(lost), std::string::npos) << log;
  std::this_thread::sleep_for(1s);
  const auto bodies = hook.bodies();
  ASSERT_EQ(bodies.size(), 1u) << "only the lost run is notified";
  EXPECT_EQ(bodies[0]["run_id"], lost);
  serve.process().Signal(SIGTERM);
  EXPECT_EQ(serve.process().Wait(60s), 0);
}

// The history database's file system fills up during a run. The run's figures
// cannot be recorded and neither can its end: the API shows it failed with the reason (never
// running), and serve writes its end once there is room again, so a later start (after a
// SIGKILL: no last try at stop) does not take it for lost.
TEST(Serve, ARunWhoseEndCannotBeRecordedIsFailedAndRecordedOnceThereIsRoom) {
  Fixture f;
  const fs::path small = f.tmp / "dbfs";
  fs::create_directories(small);
  if (RunCommand({"/bin/mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", small.string()}, f.tmp / "logs").code != 0) {
    GTEST_SKIP() << "cannot mount a size-limited tmpfs at " << small << " (needs root)";
  }
  struct Unmount {
    fs::path dir, logs;
    ~Unmount() { RunCommand({"/bin/umount", "-l", dir.string()}, logs); }
  } unmount{small, f.tmp / "logs"};
  f.db = (small / "history.db").string();
  f.Write("  lab: { agents: \"" + f.agent->address() + "\" }\n",
          "  - name: long\n    fleet: lab\n    workload: workloads/serve-it.yaml\n    set: { \"steps[read].io.runtime\": 3s }\n");
  std::string id;
  {
    Serve serve(f.config, f.tmp / "logs1", f.port);
    id = json::parse(serve.Call("POST", "/api/v1/suites/long/runs").body)["run_id"];
    serve.WaitState(id, "running");
    WaitForSteps(f.results() / "long" / id);
    {
      // Not one byte left on the database's file system.
      const int fd = open((small / "filler").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
      ASSERT_GE(fd, 0);
      const std::string chunk(1 << 16, 'f');
      for (size_t size = chunk.size(); size > 0; size /= 2) {
        while (write(fd, chunk.data(), size) == static_cast<ssize_t>(size)) {
        }
      }
      close(fd);
    }
    json done = serve.WaitDone(id);
    EXPECT_EQ(done["status"], "failed") << done.dump();
    EXPECT_NE(done.value("error", "").find("full"), std::string::npos) << done.dump();
    EXPECT_TRUE(RunsOf(serve.Runs("?state=running"), "long").empty()) << serve.Runs().dump();
    EXPECT_EQ(serve.Call("POST", "/api/v1/runs/" + id + "/cancel").status, 409);
    EXPECT_NE(serve.process().Stderr().find("full"), std::string::npos) << serve.process().Stderr();
    fs::remove(small / "filler");
    std::this_thread::sleep_for(4s);  // a few scheduler ticks
    serve.process().Signal(SIGKILL);
    serve.process().Wait(10s);
  }
  Serve serve(f.config, f.tmp / "logs2", f.port);
  json after = serve.Run(id);
  EXPECT_EQ(after["state"], "done");
  EXPECT_EQ(after["status"], "failed") << after.dump();
  EXPECT_NE(after.value("error", "").find("full"), std::string::npos) << after.dump();
  serve.process().Signal(SIGTERM);
  EXPECT_EQ(serve.process().Wait(60s), 0);
}

// The token, POST bodies, report files and signed report links; a failure's webhook; two fleets
// sharing an agent.
TEST(Serve, RefusesWhatItMustAndNotifiesFailures) {
  Fixture f;
  WebhookReceiver hook;
  const int closed = FreeLoopbackPort();
  f.Write("  lab: { agents: \"" + f.agent->address() + "\" }\n  twin: { agents: \"" + f.agent->address() +
              "\" }\n  gone: { agents: \"127.0.0.1:" + std::to_string(closed) + "\" }\n",
          "  - name: quick\n    fleet: lab\n    workload: workloads/serve-it.yaml\n    labels: { speed: quick }\n"
          "  - name: long\n    fleet: lab\n    workload: workloads/serve-it.yaml\n    labels: { speed: long }\n"
          "    set: { \"steps[read].io.runtime\": 8s }\n"
          "  - name: twin\n    fleet: twin\n    workload: workloads/serve-it.yaml\n    labels: { speed: twin }\n    webhook: " +
              hook.url() + "\n"
          "  - name: doomed\n    fleet: gone\n    workload: workloads/serve-it.yaml\n    webhook: " + hook.url() + "\n");
  Serve serve(f.config, f.tmp / "logs", f.port);

  // The token: needed for the API and /metrics, not for the page's shell and /healthz.
  HttpAnswer anonymous = serve.Call("GET", "/api/v1/runs", "", false);
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.headers["www-authenticate"].rfind("Bearer", 0), 0u);
  EXPECT_EQ(serve.Call("GET", "/metrics", "", false).status, 401);
  EXPECT_EQ(serve.Call("POST", "/api/v1/suites/quick/runs", "", false).status, 401);
  EXPECT_EQ(HttpCall("GET", serve.address(), "/api/v1/runs", {{"Authorization", "Bearer wrong"}}).status, 401);
  HttpAnswer page = serve.Call("GET", "/", "", false);
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.headers["content-security-policy"].find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(page.headers.count("set-cookie"), 0u);
  EXPECT_EQ(serve.Call("GET", "/healthz", "", false).status, 200);
  // DNS rebinding: a page of another site whose name now points at 127.0.0.1 sends its own Host.
  HttpAnswer rebound = HttpCall("GET", serve.address(), "/api/v1/runs",
                                {{"Authorization", std::string("Bearer ") + kToken}, {"Host", "evil.example:" + std::to_string(f.port)}});
  EXPECT_EQ(rebound.status, 421) << rebound.body;

  // A POST names its suite and nothing else.
  HttpAnswer set = serve.Call("POST", "/api/v1/suites/quick/runs", R"({"suite": "quick", "set": {"jobs": 64}})");
  EXPECT_EQ(set.status, 400);
  EXPECT_NE(set.body.find("unknown field \\\"set\\\""), std::string::npos) << set.body;
  HttpAnswer bad = serve.Call("POST", "/api/v1/suites/quick/runs", R"({"suite": )");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("bad JSON"), std::string::npos) << bad.body;
  EXPECT_EQ(serve.Call("POST", "/api/v1/suites/quick/runs", R"({"suite": "other"})").status, 400);
  EXPECT_EQ(serve.Call("POST", "/api/v1/suites/nope/runs").status, 404);
  EXPECT_EQ(serve.Call("GET", "/api/v1/runs?limit=3").status, 400);
  EXPECT_TRUE(serve.Runs().empty()) << "nothing was queued by a refused request";

  // A run and its report files.
  const std::string quick = json::parse(serve.Call("POST", "/api/v1/suites/quick/runs").body)["run_id"];
  json done = serve.WaitDone(quick);
  ASSERT_EQ(done["status"], "succeeded") << done.dump();
  const std::string html = "/reports/quick/" + quick + "/report.html";
  HttpAnswer report = serve.Call("GET", html);
  EXPECT_EQ(report.status, 200);
  EXPECT_EQ(report.headers["content-type"].rfind("text/html", 0), 0u);
  EXPECT_EQ(report.body, ReadAll(f.results() / "quick" / quick / "report.html"));
  EXPECT_EQ(serve.Call("GET", html, "", false).status, 401);
  // The signed link the page opens in a new tab works without the token; altered, it does not.
  const std::string signed_url = done["report_url"];
  EXPECT_EQ(serve.Call("GET", signed_url, "", false).status, 200) << signed_url;
  std::string altered = signed_url;
  altered.back() = altered.back() == '0' ? '1' : '0';
  EXPECT_EQ(serve.Call("GET", altered, "", false).status, 401);
  EXPECT_EQ(serve.Call("GET", "/reports/quick/" + quick + "/report.json" + signed_url.substr(signed_url.find('?')), "", false).status, 401)
      << "a link signs one file";
  // Only files under the results directory: no traversal, encoded or not, no symlink out.
  WriteText(f.tmp / "secret.txt", "TOP-SECRET-CONTENT");
  fs::create_symlink(f.tmp / "secret.txt", f.results() / "quick" / quick / "link.txt");
  fs::create_directory_symlink(f.tmp.path(), f.results() / "quick" / "escape");
  const std::vector<std::string> escapes = {"/reports/quick/" + quick + "/link.txt", "/reports/quick/escape/secret.txt",
                                            "/reports/quick/%2e%2e/%2e%2e/secret.txt", "/reports/quick/..%2f..%2fsecret.txt",
                                            "/reports/../../secret.txt", "/reports/quick/" + quick + "/%2e%2e%2f%2e%2e%2f..%2fsecret.txt"};
  for (const std::string& target : escapes) {
    HttpAnswer a = serve.Call("GET", target);
    EXPECT_TRUE(a.status == 400 || a.status == 403 || a.status == 404) << target << ": " << a.status;
    EXPECT_EQ(a.body.find("TOP-SECRET-CONTENT"), std::string::npos) << target;
    std::printf("%s: %d %s\n", target.c_str(), a.status, a.body.c_str());
  }

  // /metrics carries the latest figures of the suite: report.json's.
  const json doc = ReadJson(f.results() / "quick" / quick / "report.json");
  double read_bw = -1;
  for (const auto& step : doc["steps"]) {
    if (step["name"] == "read") read_bw = step["aggregate"]["bytes_per_sec"];
  }
  const std::string metrics = serve.Call("GET", "/metrics").body;
  // Written by the push's writer (controller/push/result_families.h): cycle="mean" says what the value is.
  const std::string series = "iofleet_result_bytes_per_second{suite=\"quick\",workload=\"serve-it\",step=\"read\",point=\"0\",cycle=\"mean\"} ";
  size_t at = metrics.find(series);
  ASSERT_NE(at, std::string::npos) << metrics;
  EXPECT_NEAR(std::stod(metrics.substr(at + series.size())), read_bw, read_bw * 1e-9);
  EXPECT_NE(metrics.find("iofleet_result_status{status=\"succeeded\",suite=\"quick\",workload=\"serve-it\"} 1"), std::string::npos);

  // Two fleets share an agent: the second meets its busy answer, fails, is recorded and notified.
  const std::string long_run = json::parse(serve.Call("POST", "/api/v1/suites/long/runs").body)["run_id"];
  serve.WaitState(long_run, "running");
  WaitForSteps(f.results() / "long" / long_run);  // it holds the agent
  const std::string twin = json::parse(serve.Call("POST", "/api/v1/suites/twin/runs").body)["run_id"];
  json twin_done = serve.WaitDone(twin);
  EXPECT_EQ(twin_done["status"], "failed");
  EXPECT_NE(twin_done["error"].get<std::string>().find("busy"), std::string::npos) << twin_done.dump();
  EXPECT_EQ(serve.WaitDone(long_run)["status"], "succeeded");

  // An unreachable fleet: failed, with the reason, and the webhook told.
  const std::string doomed = json::parse(serve.Call("POST", "/api/v1/suites/doomed/runs").body)["run_id"];
  json doomed_done = serve.WaitDone(doomed);
  EXPECT_EQ(doomed_done["status"], "failed");
  EXPECT_NE(doomed_done["error"].get<std::string>().find("unreachable"), std::string::npos) << doomed_done.dump();
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (hook.bodies().size() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(100ms);
  const auto bodies = hook.bodies();
  ASSERT_EQ(bodies.size(), 2u);
  std::set<std::string> hooked;
  for (const auto& b : bodies) {
    EXPECT_EQ(b["event"], "failed") << b.dump();
    hooked.insert(b["run_id"].get<std::string>());
    EXPECT_FALSE(b["error"].get<std::string>().empty());
  }
  EXPECT_EQ(hooked, (std::set<std::string>{twin, doomed}));
  serve.process().Signal(SIGTERM);
  EXPECT_EQ(serve.process().Wait(60s), 0);
}

// HTTPS with a `server` certificate from deploy/tls/make-certs, as deployed: curl checks it
// against the CA and the name; a plain client gets no answer.
TEST(Serve, ServesHttpsWithAMakeCertsServerCertificate) {
  Fixture f;
  const fs::path certs = f.tmp / "certs";
  CommandResult made = RunCommand({SourcePath("deploy/tls/make-certs"), certs.string(), "server", "localhost", "127.0.0.1"}, f.tmp / "logs");
  ASSERT_EQ(made.code, 0) << made.err;
  f.Write("  lab: { agents: \"" + f.agent->address() + "\" }\n",
          "  - name: quick\n    fleet: lab\n    workload: workloads/serve-it.yaml\n", "tls_dir: " + (certs / "localhost").string() + "\n");
  Process serve({BinPath("iofleet"), "serve", "--config", f.config.string()}, f.tmp / "logs");
  const std::string port = std::to_string(f.port);
  auto curl = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {"/usr/bin/curl", "-sS", "--max-time", "10", "--cacert", (certs / "localhost" / "ca.pem").string(),
                                     "--resolve", "localhost:" + port + ":127.0.0.1", "-D", "-"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCommand(argv, f.tmp / "logs", 30s);
  };
  CommandResult health;
  // 503 while serve is starting (its API not ready yet): asked again, as a health check would,
  // for up to 30 s (a deadline, not a count of tries: under a loaded -j2 suite each curl and
  // serve's own start take longer; a fixed 100 tries of 100 ms failed once there).
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < until) {
    health = curl({"https://localhost:" + port + "/healthz"});
    if (health.code == 0 && health.out.find("HTTP/1.1 200") != std::string::npos) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(health.code, 0) << health.err << serve.Stderr();
  EXPECT_NE(health.out.find("HTTP/1.1 200"), std::string::npos) << health.out;
  EXPECT_NE(health.out.find("Strict-Transport-Security: max-age="), std::string::npos) << health.out;
  CommandResult suites = curl({"-H", std::string("Authorization: Bearer ") + kToken, "https://localhost:" + port + "/api/v1/suites"});
  ASSERT_EQ(suites.code, 0) << suites.err;
  EXPECT_NE(suites.out.find("\"name\": \"quick\""), std::string::npos) << suites.out;
  CommandResult anonymous = curl({"https://localhost:" + port + "/api/v1/suites"});
  EXPECT_NE(anonymous.out.find("HTTP/1.1 401"), std::string::npos) << anonymous.out;
  // Another CA's client refuses the certificate; plain HTTP gets no answer.
  CommandResult other = RunCommand({"/usr/bin/curl", "-sS", "--max-time", "10", "--resolve", "localhost:" + port + ":127.0.0.1",
                                    "https://localhost:" + port + "/healthz"},
                                   f.tmp / "logs", 30s);
  EXPECT_NE(other.code, 0) << other.out;
  EXPECT_EQ(HttpGet("127.0.0.1:" + port, "/healthz", 2s).status, 0);
  serve.Signal(SIGTERM);
  EXPECT_EQ(serve.Wait(60s), 0) << serve.Stderr();
}

TEST(Serve, ABadConfigIsRefusedWithItsPlaceAndNothingStarts) {
  Fixture f;
  f.Write("  lab: { agents: \"" + f.agent->address() + "\" }\n",
          "  - name: quick\n    fleet: lab\n    workload: workloads/serve-it.yaml\n    every: 3s\n    mised: skip\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "serve", "--config", f.config.string()}, f.tmp / "logs", 30s);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(f.config.string() + ":13:5: suites[0].mised: unknown key (did you mean missed?)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was started"), std::string::npos) << r.err;
  EXPECT_EQ(HttpGet("127.0.0.1:" + std::to_string(f.port), "/healthz", 1s).status, 0);
  EXPECT_FALSE(fs::exists(f.tmp / "var" / "history.db"));
  // Plain HTTP off loopback is refused.
  std::string open_text = ReadAll(f.config);
  open_text.replace(open_text.find("mised"), 5, "missed");
  open_text.replace(open_text.find("127.0.0.1:"), 9, "0.0.0.0");
  WriteText(f.config, open_text);
  CommandResult open = RunCommand({BinPath("iofleet"), "serve", "--config", f.config.string(), "--check"}, f.tmp / "logs", 30s);
  EXPECT_EQ(open.code, 2) << open.err;
  EXPECT_NE(open.err.find("tls_dir"), std::string::npos) << open.err;
}

// The page in headless Chromium: it asks for the token once, then lists suites and runs, draws
// each trend, and its "run now" button queues a run; no error, no request elsewhere.
TEST(Serve, ThePageWorksInABrowser) {
  if (access(kChromium, X_OK) != 0) GTEST_SKIP() << kChromium << " is missing: install Debian's chromium";
  Fixture f;
  f.Write("  lab: { agents: \"" + f.agent->address() + "\" }\n",
          "  - name: quick\n    fleet: lab\n    workload: workloads/serve-it.yaml\n    schedule: \"0 3 * * *\"\n");
  Serve serve(f.config, f.tmp / "logs", f.port);
  for (int i = 0; i < 2; ++i) {
    const std::string id = json::parse(serve.Call("POST", "/api/v1/suites/quick/runs").body)["run_id"];
    ASSERT_EQ(serve.WaitDone(id)["status"], "succeeded");
  }

  CdpBrowser browser(kChromium, f.tmp / "profile");
  ASSERT_TRUE(browser.ok()) << browser.error();
  const std::string page = browser.AttachToPage();
  ASSERT_FALSE(page.empty()) << browser.error();
  for (const char* domain : {"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"}) {
    ASSERT_TRUE(browser.Call(domain, json::object(), page)) << browser.error();
  }
  const std::string origin = "http://" + serve.address();
  ASSERT_TRUE(browser.Call("Page.navigate", {{"url", origin + "/"}}, page)) << browser.error();
  ASSERT_TRUE(browser.WaitForEvent("Page.loadEventFired", 10s)) << browser.error();
  auto eval = [&](const std::string& js) -> json {
    auto result = browser.Call("Runtime.evaluate", {{"expression", js}, {"returnByValue", true}, {"awaitPromise", true}}, page);
    if (!result || !(*result)["result"].contains("value")) {
      ADD_FAILURE() << js << ": " << (result ? result->dump() : browser.error());
      return json();
    }
    return (*result)["result"]["value"];
  };
  auto wait_for = [&](const std::string& condition) {
    return eval("new Promise(done => { const t0 = Date.now(); const poll = () => { if (" + condition +
                ") done(true); else if (Date.now() - t0 > 15000) done(false); else setTimeout(poll, 100); }; poll(); })");
  };
  ASSERT_EQ(wait_for("!document.getElementById('login').hidden"), true) << "the page asks for the token";
  eval(std::string("document.getElementById('token').value = '") + kToken +
       "'; document.getElementById('login-form').requestSubmit(); true");
  ASSERT_EQ(wait_for("document.querySelectorAll('#suites tbody tr').length === 1 && "
                     "document.querySelectorAll('#runs tbody tr').length === 2 && document.querySelectorAll('#trends canvas').length > 0"),
            true);
  EXPECT_EQ(eval("sessionStorage.getItem('iofleet.token')"), kToken);
  EXPECT_EQ(eval("document.cookie"), "");
  const json drawn = eval(R"JS((() => {
    const canvases = [...document.querySelectorAll('#trends canvas')];
    return canvases.filter(c => {
      const pixels = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return true;
      return false;
    }).length + '/' + canvases.length;
  })())JS");
  const std::string d = drawn.get<std::string>();
  EXPECT_EQ(d.substr(0, d.find('/')), d.substr(d.find('/') + 1)) << "every trend chart drawn: " << d;
  EXPECT_EQ(eval("document.querySelector('#runs tbody tr a').href.includes('sig=')"), true);

  // "Run now" queues a run.
  eval("document.querySelector('button.run-now').click(); true");
  ASSERT_EQ(wait_for("document.querySelectorAll('#runs tbody tr').length === 3"), true);
  EXPECT_EQ(RunsOf(serve.Runs(), "quick").size(), 3u);

  browser.Call("Runtime.evaluate", {{"expression", "1"}}, page);
  // (The page's first API calls, before it has the token, are 401s by design.)
  const auto problems = PageProblems(
      browser.events(), [&](const std::string& url) { return url.rfind(origin + "/", 0) == 0; },
      [](const json& entry) { return entry.value("url", "").find("/api/v1/") != std::string::npos; });
  EXPECT_TRUE(problems.empty()) << JoinLines(problems);
  serve.process().Signal(SIGTERM);
  EXPECT_EQ(serve.process().Wait(60s), 0);
}

}  // namespace
}  // namespace iofleet::testing
