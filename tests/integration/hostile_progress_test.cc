// Progress messages come from the wire, and the controller's live view and /metrics
// must survive any of them. A fake agent (a gRPC server in this test) answers like a real one
// but streams malformed Progress: bucket indexes out of range, bucket and count lists of
// different lengths, counts that overflow a sum, totals that go backwards. The real controller
// refuses each, counts it, shows nothing absurd, and the run (whose report comes from the
// result) succeeds.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <mutex>
#include <sstream>
#include <thread>

#include "iofleet/v1/agent.grpc.pb.h"
#include "tests/support/scripted_hello.h"
#include "tests/support/process.h"
#include "tests/support/report.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

uint64_t UnixNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch()).count());
}

// What both scripted agents answer as a real agent would: Hello, Clock, Prepare, SetupStep,
// Renew and Stop; each plays its part in Start (and CutWindow, StopStep).
class ScriptedAgent : public v1::Agent::Service {
 public:
  ScriptedAgent(std::string name, std::string root) : name_(std::move(name)), root_(std::move(root)) {}

  grpc::Status Hello(grpc::ServerContext*, const v1::HelloRequest*, v1::HelloResponse* r) override {
    testing::AnswerHelloAsAnAgent(name_, root_, r);
    return grpc::Status::OK;
  }
  grpc::Status Clock(grpc::ServerContext*, const v1::ClockRequest*, v1::ClockResponse* r) override {
    r->set_unix_ns(UnixNs());
    return grpc::Status::OK;
  }
  grpc::Status Prepare(grpc::ServerContext*, const v1::PrepareRequest*, v1::PrepareResponse* r) override {
    r->set_run_dir(root_ + "/run");
    r->set_session_token("token");
    return grpc::Status::OK;
  }
  grpc::Status SetupStep(grpc::ServerContext*, const v1::SetupStepRequest*, v1::SetupStepResponse*) override { return grpc::Status::OK; }
  grpc::Status Renew(grpc::ServerContext*, const v1::RenewRequest*, v1::RenewResponse*) override { return grpc::Status::OK; }
  grpc::Status Stop(grpc::ServerContext*, const v1::StopRequest*, v1::StopResponse*) override { return grpc::Status::OK; }

 private:
  const std::string name_, root_;
};

class HostileAgent final : public ScriptedAgent {
 public:
  explicit HostileAgent(std::string root, bool says_ended_others = false)
      : ScriptedAgent("hostile", std::move(root)), says_ended_others_(says_ended_others) {}

  grpc::Status Start(grpc::ServerContext*, const v1::StartRequest* request, grpc::ServerWriter<v1::StartReply>* writer) override {
    while (UnixNs() < request->start_at_unix_ns()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const uint64_t started = UnixNs();
    auto send = [&](const v1::Progress& p) {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      v1::StartReply reply;
      *reply.mutable_progress() = p;
      writer->Write(reply);
    };
    auto good = [&](uint64_t n) {
      v1::Progress p;
      p.set_elapsed_ns(n * 150'000'000);
      p.set_ops(n * 10);
      p.set_bytes(n * 40960);
      p.set_started_at_unix_ns(started);
      p.mutable_read();
      p.mutable_write()->set_ops(n * 10);
      p.mutable_write()->set_bytes(n * 40960);
      auto* h = p.mutable_write()->mutable_latency_ns_delta();
      h->add_bucket(100);
      h->add_count(10);
      h->set_sum(1000);
      return p;
    };
    send(good(1));
    v1::Progress bad = good(2);
    bad.mutable_write()->mutable_latency_ns_delta()->set_bucket(0, 0xFFFFFFFFu);  // out of range
    send(bad);
    bad = good(2);
    bad.mutable_write()->mutable_latency_ns_delta()->add_count(7);  // 1 bucket, 2 counts
    send(bad);
    bad = good(2);
    bad.mutable_read()->mutable_latency_ns_delta()->add_bucket(5);
    bad.mutable_read()->mutable_latency_ns_delta()->add_count(UINT64_MAX);
    bad.mutable_read()->mutable_latency_ns_delta()->add_bucket(6);
    bad.mutable_read()->mutable_latency_ns_delta()->add_count(UINT64_MAX);  // overflows a sum
    send(bad);
    bad = good(2);
    bad.set_bytes(1);  // backwards
    send(bad);
    for (uint64_t n = 3; n < 8; ++n) send(good(n));
    v1::StartReply reply;
    v1::StepResult* r = reply.mutable_result();
    r->set_ops(70);
    r->set_bytes(70 * 4096);
    r->set_window_ns(1'000'000'000);
    r->set_started_at_unix_ns(started);
    if (says_ended_others_) r->set_ended_others(true);
    r->mutable_write()->set_ops(70);
    r->mutable_write()->set_bytes(70 * 4096);
    for (v1::Histogram* h : {r->mutable_latency_ns(), r->mutable_write()->mutable_latency_ns()}) {
      h->add_bucket(100);
      h->add_count(70);
      h->set_sum(7000);
      h->set_min(100);
      h->set_max(100);
    }
    writer->Write(reply);
    return grpc::Status::OK;
  }
  grpc::Status StopStep(grpc::ServerContext*, const v1::StopStepRequest*, v1::StopStepResponse*) override {
    return grpc::Status::OK;
  }

 private:
  bool says_ended_others_;  // its result claims a job's end ended the others (job_end)
};

// An agent of a steady step with two streams whose windows lie: each stream's is well formed,
// but together they hold more than the agent's own (the report's stream rows are made of them).
class LyingWindowsAgent final : public ScriptedAgent {
 public:
  explicit LyingWindowsAgent(std::string root) : ScriptedAgent("liar", std::move(root)) {}

  grpc::Status CutWindow(grpc::ServerContext*, const v1::CutWindowRequest* request, v1::CutWindowResponse*) override {
    std::lock_guard lock(mu_);
    cut_ = request->cut();
    cut_at_ = request->at_unix_ns();
    return grpc::Status::OK;
  }
  grpc::Status StopStep(grpc::ServerContext*, const v1::StopStepRequest*, v1::StopStepResponse*) override {
    stopped_ = true;
    return grpc::Status::OK;
  }
  grpc::Status Start(grpc::ServerContext*, const v1::StartRequest* request, grpc::ServerWriter<v1::StartReply>* writer) override {
    while (UnixNs() < request->start_at_unix_ns()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const uint64_t started = UnixNs();
    uint64_t last_cut = started, sent = 0, next_progress = started;
    while (!stopped_ && UnixNs() < started + 20'000'000'000) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      uint32_t cut = 0;
      uint64_t at = 0;
      {
        std::lock_guard lock(mu_);
        cut = cut_;
        at = cut_at_;
      }
      if (UnixNs() >= next_progress) {
        v1::StartReply reply;
        reply.mutable_progress()->set_elapsed_ns(UnixNs() - started);
        reply.mutable_progress()->set_started_at_unix_ns(started);
        writer->Write(reply);
        next_progress += 100'000'000;
      }
      if (cut == 0 || cut <= sent || UnixNs() < at) continue;
      v1::StartReply reply;
      v1::WindowResult& w = *reply.mutable_window();
      w.set_window(cut - 1);
      *w.mutable_result() = Reads(100, at - last_cut);  // the agent's: 100 reads
      for (const char* name : {"probe", "load"}) {  // each stream's: 100 reads as well
        v1::StreamResult& stream = *w.mutable_result()->add_streams();
        stream.set_name(name);
        stream.set_jobs(1);
        *stream.mutable_result() = Reads(100, at - last_cut);
      }
      writer->Write(reply);
      sent = cut;
      last_cut = at;
    }
    v1::StartReply reply;
    *reply.mutable_result() = Reads(100, 1'000'000'000);
    reply.mutable_result()->set_started_at_unix_ns(started);
    writer->Write(reply);
    return grpc::Status::OK;
  }

 private:
  // `ops` reads of 4 KiB in `window_ns`, histograms that hold them.
  static v1::StepResult Reads(uint64_t ops, uint64_t window_ns) {
    v1::StepResult r;
    r.set_ops(ops);
    r.set_bytes(ops * 4096);
    r.set_window_ns(window_ns);
    r.mutable_read()->set_ops(ops);
    r.mutable_read()->set_bytes(ops * 4096);
    for (v1::Histogram* h : {r.mutable_latency_ns(), r.mutable_read()->mutable_latency_ns()}) {
      h->add_bucket(100);
      h->add_count(ops);
      h->set_sum(ops * 100);
    }
    return r;
  }

  std::mutex mu_;
  uint32_t cut_ = 0;      // the last cut ordered (under mu_)
  uint64_t cut_at_ = 0;   // its instant (under mu_)
  std::atomic<bool> stopped_{false};
};

std::unique_ptr<grpc::Server> Serve(v1::Agent::Service& service, int& port) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  return builder.BuildAndStart();
}

// `iofleet run` of a one-second write step against the fake agent `service`, with `progress`.
CommandResult RunAgainst(HostileAgent& service, const TempDir& tmp, const std::string& progress) {
  int port = 0;
  std::unique_ptr<grpc::Server> server = Serve(service, port);
  EXPECT_GT(port, 0);
  WriteText(tmp / "w.yaml", "name: hostile\ndefaults: { engine: \"null\", block_size: 4KiB, file_size: 1MiB }\n"
                            "sample_interval: 100ms\nsteps:\n  - name: write\n    io: { op: write, runtime: 1s }\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", "127.0.0.1:" + std::to_string(port),
                                "--out", (tmp / "out").string(), "--progress", progress},
                               tmp / "logs", std::chrono::seconds(60));
  server->Shutdown();
  return r;
}

TEST(HostileProgress, MalformedProgressIsRefusedCountedAndTheRunGoesOn) {
  TempDir tmp;
  HostileAgent service((tmp / "root").string());
  CommandResult r = RunAgainst(service, tmp, "json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  uint64_t lines = 0, last_rejected = 0;
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    if (line.empty() || line[0] != '{') continue;
    nlohmann::json j = nlohmann::json::parse(line);
    ++lines;
    const auto& agent = j["agents"][0];
    // Only accepted messages count: at most the good ones' 70 ops and 7 x 40960 bytes.
    EXPECT_LE(agent["ops"].get<uint64_t>(), 70u) << line;
    EXPECT_LE(agent["bytes"].get<uint64_t>(), 7u * 40960) << line;
    if (!j["p99_ns"].is_null()) {
      EXPECT_LT(j["p99_ns"].get<uint64_t>(), 1'000'000u) << line;
    }
    last_rejected = agent["progress_rejected"].get<uint64_t>();
  }
  EXPECT_GE(lines, 1u) << r.err;
  EXPECT_EQ(last_rejected, 4u) << r.err;  // out of range, lengths, overflow, backwards
  nlohmann::json report = ReadReport(tmp / "out");
  EXPECT_EQ(report["status"], "succeeded");
  EXPECT_EQ(report["steps"][0]["aggregate"]["ops"], 70);
}

// An agent whose result says one of its jobs ended the others (job_end) for a plan that asked
// no such thing: its figures would be cut short with nothing to say why, so the step fails
// naming the agent, and the report says failed.
TEST(HostileProgress, AResultSayingAJobEndedOthersUnaskedFailsTheStep) {
  TempDir tmp;
  HostileAgent service((tmp / "root").string(), /*says_ended_others=*/true);
  CommandResult r = RunAgainst(service, tmp, "none");
  EXPECT_EQ(r.code, 1) << r.err << r.out;
  EXPECT_NE(r.err.find("step write: agent hostile says a job's end ended others, which the plan did not ask (job_end)"), std::string::npos)
      << r.err;
  nlohmann::json report = ReadReport(tmp / "out");
  EXPECT_EQ(report["status"], "failed");
  EXPECT_EQ(report["steps"][0]["status"], "failed");
}

// Each stream's window well formed, but together more than the agent's: the stream rows would
// say what the step did not, so the step fails naming the agent, and nothing is reported as
// measured.
TEST(HostileProgress, StreamWindowsThatDoNotAddUpFailTheStep) {
  TempDir tmp;
  LyingWindowsAgent service((tmp / "root").string());
  int port = 0;
  std::unique_ptr<grpc::Server> server = Serve(service, port);
  ASSERT_GT(port, 0);
  WriteText(tmp / "w.yaml", "name: liar\ndefaults: { engine: \"null\", block_size: 4KiB, file_size: 1MiB }\nsteps:\n  - name: settle\n"
                            "    io:\n      steady: { window: 1s, interval: 250ms, timeout: 5s }\n      streams:\n"
                            "        - { name: probe, op: randread }\n        - { name: load, op: randread }\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents", "127.0.0.1:" + std::to_string(port),
                                "--out", (tmp / "out").string(), "--progress", "none"},
                               tmp / "logs", std::chrono::seconds(60));
  server->Shutdown();
  EXPECT_EQ(r.code, 1) << r.err << r.out;
  EXPECT_NE(r.err.find("agent liar sent a window: its streams' 200 ops and 819200 bytes are not its 100 and 409600"), std::string::npos)
      << r.err;
  nlohmann::json report = ReadReport(tmp / "out");
  EXPECT_EQ(report["steps"][0]["status"], "failed");
}

}  // namespace
}  // namespace iofleet::testing
