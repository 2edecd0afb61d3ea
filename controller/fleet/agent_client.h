// One agent as the controller sees it: a gRPC channel (TLS when a --tls-dir is given, with
// keepalive pings so a silent network cut is noticed within seconds) and the agent's RPCs, each
// with a deadline.
//
// Thread-safety: one thread per call (a step stream, once started, needs none); CancelStep may
// be called from any thread.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/base/status.h"
#include "core/base/tls_files.h"
#include "iofleet/v1/agent.grpc.pb.h"

namespace iofleet::controller {

class AgentClient {
 public:
  // `tls`: mutual TLS with these files; nullopt: plaintext (agents on loopback or unix sockets).
  AgentClient(std::string address, const std::optional<TlsFiles>& tls);

  const std::string& address() const { return address_; }

  Result<v1::HelloResponse> Hello(std::chrono::milliseconds deadline);
  Result<v1::ClockResponse> Clock(std::chrono::milliseconds deadline);
  Result<v1::PrepareResponse> Prepare(const v1::PrepareRequest& request, std::chrono::milliseconds deadline);
  Status SetupStep(const v1::SetupStepRequest& request, std::chrono::milliseconds deadline);
  // What one step's stream calls back: each sample, each window (a step cut into windows,
  // agent.proto's CutWindow; may be empty), and once, last, its end: the exact result or why there
  // is none. They run on gRPC's callback threads, one at a time for a stream, and must not block:
  // a thousand streams share those few threads.
  struct StepCallbacks {
    std::function<void(const v1::Progress&)> on_progress;
    std::function<void(const v1::WindowResult&)> on_window;
    std::function<void(Result<v1::StepResult>)> on_done;
  };
  // Opens one step's stream and returns at once: no thread of the caller's waits on it (gRPC's
  // callback API, so a controller of thousands of agents holds no thread per stream). One step
  // at a time per client; this client must outlive the stream's on_done.
  void StartStep(const v1::StartRequest& request, StepCallbacks callbacks);
  // Ends a SetupStep or a step stream in progress on this client, and every later one (the agent
  // stops the step's I/O; no result).
  void CancelStep();
  // From Prepare: every later command for the run carries it.
  std::string session_token() const;
  Status StopStep(const v1::StopStepRequest& request, std::chrono::milliseconds deadline);
  Status CutWindow(const v1::CutWindowRequest& request, std::chrono::milliseconds deadline);
  Status Renew(const std::string& run_id, std::chrono::milliseconds deadline);
  Result<v1::StopResponse> Stop(const std::string& run_id, std::chrono::milliseconds deadline);

 private:
  class StepStream;  // the reactor of one step's stream (agent_client.cc)

  std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Agent::Stub> stub_;
  mutable std::mutex mu_;
  std::string session_token_;
  grpc::ClientContext* step_context_ = nullptr;
  grpc::ClientContext* setup_context_ = nullptr;
  bool cancelled_ = false;
};

Status FromGrpc(const grpc::Status& status);

}  // namespace iofleet::controller
