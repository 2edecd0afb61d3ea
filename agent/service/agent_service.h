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
  grpc::Status Prepare(grpc::ServerContext*, const v1::PrepareRequest*, v1::PrepareResponse*) override;
  grpc::Status Start(grpc::ServerContext*, const v1::StartRequest*,
                     grpc::ServerWriter<v1::StartReply>*) override;
  grpc::Status Stop(grpc::ServerContext*, const v1::StopRequest*, v1::StopResponse*) override;

 private:
  Supervisor& supervisor_;
};

}  // namespace iofleet::agent
