#include "agent/service/agent_service.h"

#include <algorithm>
#include <chrono>

namespace iofleet::agent {

grpc::Status ToGrpc(const Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), status.message());
}

grpc::Status AgentService::Hello(grpc::ServerContext*, const v1::HelloRequest*, v1::HelloResponse* response) {
  *response = supervisor_.Hello();
  return grpc::Status::OK;
}

grpc::Status AgentService::Prepare(grpc::ServerContext*, const v1::PrepareRequest* request,
                                   v1::PrepareResponse* response) {
  auto result = supervisor_.Prepare(*request);
  if (!result.ok()) return ToGrpc(result.status());
  *response = *result;
  return grpc::Status::OK;
}

grpc::Status AgentService::Start(grpc::ServerContext* context, const v1::StartRequest* request,
                                 grpc::ServerWriter<v1::StartReply>* writer) {
  auto begun = supervisor_.BeginStep(*request);
  if (!begun.ok()) return ToGrpc(begun.status());
  std::shared_ptr<StepRunner> runner = *begun;
  const auto interval = std::chrono::nanoseconds(
      std::clamp<uint64_t>(request->sample_interval_ns(), 100'000'000, 60'000'000'000));

  runner->Start();
  bool cancelled = false;
  while (!runner->WaitFor(interval)) {
    if (context->IsCancelled()) {
      // The controller is gone or gave up on this step: stop I/O rather than run on unobserved.
      runner->RequestStop();
      cancelled = true;
      continue;
    }
    v1::StartReply reply;
    *reply.mutable_progress() = runner->Progress();
    writer->Write(reply);
  }
  auto result = runner->Finish();
  supervisor_.StepEnded(runner);
  if (!result.ok()) return ToGrpc(result.status());
  if (cancelled) return grpc::Status(grpc::StatusCode::CANCELLED, "step cancelled by the controller");
  v1::StartReply reply;
  *reply.mutable_result() = *result;
  writer->Write(reply);
  return grpc::Status::OK;
}

grpc::Status AgentService::Stop(grpc::ServerContext*, const v1::StopRequest* request,
                                v1::StopResponse* response) {
  auto result = supervisor_.Stop(*request);
  if (!result.ok()) return ToGrpc(result.status());
  *response = *result;
  return grpc::Status::OK;
}

}  // namespace iofleet::agent
