// The controller's lease keeper (controller/run/lease_keeper.h) against two fake agents (gRPC
// servers in this test) that record when each call reached them: one sets its step up in 1.5 s
// (its setup ends between two of the keeper's rounds of old), the other in 6 s. While the slow
// one sets up, both hold a prepared run whose lease (10 s) only the keeper's Renew calls keep
// alive, and each is renewed; none is renewed within a quarter lease of the last call that
// renewed it (its Prepare, its SetupStep or a Renew). At 10,000 agents one round of every agent
// took 13.7 s, longer than the lease, so the keeper renews only those due, the stalest first.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "iofleet/v1/agent.grpc.pb.h"
#include "tests/support/scripted_hello.h"
#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t WallNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch()).count());
}

class RenewRecordingAgent final : public v1::Agent::Service {
 public:
  RenewRecordingAgent(std::string name, std::string root, std::chrono::milliseconds setup)
      : name_(std::move(name)), root_(std::move(root)), setup_(setup) {}

  grpc::Status Hello(grpc::ServerContext*, const v1::HelloRequest*, v1::HelloResponse* r) override {
    testing::AnswerHelloAsAnAgent(name_, root_, r);
    return grpc::Status::OK;
  }
  grpc::Status Clock(grpc::ServerContext*, const v1::ClockRequest*, v1::ClockResponse* r) override {
    r->set_unix_ns(WallNs());
    return grpc::Status::OK;
  }
  grpc::Status Prepare(grpc::ServerContext*, const v1::PrepareRequest*, v1::PrepareResponse* r) override {
    Contact(false);
    r->set_run_dir(root_ + "/run");
    r->set_session_token("token");
    return grpc::Status::OK;
  }
  grpc::Status SetupStep(grpc::ServerContext*, const v1::SetupStepRequest*, v1::SetupStepResponse*) override {
    std::this_thread::sleep_for(setup_);
    Contact(false);  // the agent's lease counts from the end of its setup
    return grpc::Status::OK;
  }
  grpc::Status Start(grpc::ServerContext*, const v1::StartRequest* request, grpc::ServerWriter<v1::StartReply>* writer) override {
    while (WallNs() < request->start_at_unix_ns()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const uint64_t started = WallNs();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // its window
    v1::StartReply reply;
    v1::StepResult* r = reply.mutable_result();
    r->set_ops(10);
    r->set_bytes(10 * 4096);
    r->set_window_ns(100'000'000);
    r->set_started_at_unix_ns(started);
    r->mutable_write()->set_ops(10);
    r->mutable_write()->set_bytes(10 * 4096);
    for (v1::Histogram* h : {r->mutable_latency_ns(), r->mutable_write()->mutable_latency_ns()}) {
      h->add_bucket(100);
      h->add_count(10);
      h->set_sum(1000);
      h->set_min(100);
      h->set_max(100);
    }
    writer->Write(reply);
    return grpc::Status::OK;
  }
  grpc::Status StopStep(grpc::ServerContext*, const v1::StopStepRequest*, v1::StopStepResponse*) override { return grpc::Status::OK; }
  grpc::Status Renew(grpc::ServerContext*, const v1::RenewRequest*, v1::RenewResponse*) override {
    Contact(true);
    return grpc::Status::OK;
  }
  grpc::Status Stop(grpc::ServerContext*, const v1::StopRequest*, v1::StopResponse*) override { return grpc::Status::OK; }

  struct Call {
    Clock::time_point at;
    bool renew;
  };
  std::vector<Call> calls() {
    std::lock_guard lock(mu_);
    return calls_;
  }

 private:
  void Contact(bool renew) {
    std::lock_guard lock(mu_);
    calls_.push_back({Clock::now(), renew});
  }

  const std::string name_, root_;
  const std::chrono::milliseconds setup_;
  std::mutex mu_;
  std::vector<Call> calls_;
};

std::unique_ptr<grpc::Server> Serve(RenewRecordingAgent& service, int& port) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  return builder.BuildAndStart();
}

TEST(LeaseRenewal, EachAgentIsRenewedWhenDueAndNotBefore) {
  TempDir tmp;
  RenewRecordingAgent quick("quick", (tmp / "quick").string(), std::chrono::milliseconds(1500));
  RenewRecordingAgent slow("slow", (tmp / "slow").string(), std::chrono::milliseconds(6000));
  int quick_port = 0, slow_port = 0;
  std::unique_ptr<grpc::Server> quick_server = Serve(quick, quick_port);
  std::unique_ptr<grpc::Server> slow_server = Serve(slow, slow_port);
  ASSERT_GT(quick_port, 0);
  ASSERT_GT(slow_port, 0);
  WriteText(tmp / "w.yaml", "name: lease\ndefaults: { engine: \"null\", block_size: 4KiB, file_size: 1MiB }\n"
                            "steps:\n  - name: write\n    io: { op: write, runtime: 100ms }\n");
  CommandResult r = RunCommand({BinPath("iofleet"), "run", (tmp / "w.yaml").string(), "--agents",
                                "127.0.0.1:" + std::to_string(quick_port) + ",127.0.0.1:" + std::to_string(slow_port), "--out",
                                (tmp / "out").string(), "--progress", "none"},
                               tmp / "logs", std::chrono::seconds(60));
  quick_server->Shutdown();
  slow_server->Shutdown();
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  // The keeper's period is a quarter of the 10 s lease; it looks every quarter period.
  constexpr auto kPeriod = std::chrono::milliseconds(2500);
  for (RenewRecordingAgent* agent : {&quick, &slow}) {
    const std::vector<RenewRecordingAgent::Call> calls = agent->calls();
    std::string log;
    for (const auto& c : calls) {
      log += std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(c.at - calls[0].at).count()) + (c.renew ? " renew\n" : " prepare/setup\n");
    }
    SCOPED_TRACE(log);
    int renewals = 0;
    for (size_t k = 1; k < calls.size(); ++k) {
      if (!calls[k].renew) continue;
      ++renewals;
      const auto since = std::chrono::duration_cast<std::chrono::milliseconds>(calls[k].at - calls[k - 1].at);
      EXPECT_GE(since, kPeriod - std::chrono::milliseconds(100)) << "renewed " << since.count() << " ms after its last renewing call";
      EXPECT_LE(since, kPeriod + kPeriod / 4 + std::chrono::milliseconds(1500)) << "renewed late: " << since.count() << " ms";
    }
    // 6 s of the slow agent's setup: due at 2.5 s and 5 s after the last call, give or take.
    EXPECT_GE(renewals, 1) << "an agent waiting for another's setup was not renewed";
    EXPECT_LE(renewals, 3);
  }
}

}  // namespace
}  // namespace iofleet::testing
