// The gRPC face of the agent: converts messages and Status, delegates to the Supervisor.
#pragma once

#include "agent/run/supervisor.h"
#include "iofleet/v1/agent.grpc.pb.h"

namespace iofleet::agent {

grpc::Status ToGrpc(const Status& status);

class AgentService final : public v1::Agent::Service {
 public:
  explicit AgentService(Supervisor& supervisor) : supervisor_(supervisor) {}

  grpc::Status Hello(grpc::ServerContext*, const v1::HelloRequest*, v1::HelloResponse*) override;
  grpc::Status Clock(grpc::ServerContext*, const v1::ClockRequest*, v1::ClockResponse*) override;
  grpc::Status Prepare(grpc::ServerContext*, const v1::PrepareRequest*, v1::PrepareResponse*) override;
  grpc::Status SetupStep(grpc::ServerContext*, const v1::SetupStepRequest*, v1::SetupStepResponse*) override;
  grpc::Status Start(grpc::ServerContext*, const v1::StartRequest*,
                     grpc::ServerWriter<v1::StartReply>*) override;
  grpc::Status StopStep(grpc::ServerContext*, const v1::StopStepRequest*, v1::StopStepResponse*) override;
  grpc::Status CutWindow(grpc::ServerContext*, const v1::CutWindowRequest*, v1::CutWindowResponse*) override;
  grpc::Status Renew(grpc::ServerContext*, const v1::RenewRequest*, v1::RenewResponse*) override;
  grpc::Status Stop(grpc::ServerContext*, const v1::StopRequest*, v1::StopResponse*) override;

 private:
  grpc::Status RunStep(grpc::ServerContext*, const v1::StartRequest*, grpc::ServerWriter<v1::StartReply>*);

  Supervisor& supervisor_;
};

}  // namespace iofleet::agent
