#include "controller/fleet/agent_client.h"

#include <optional>

namespace iofleet::controller {

Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return Status::Ok();
  return Status(static_cast<Code>(status.error_code()), status.error_message());
}

AgentClient::AgentClient(std::string address) : address_(std::move(address)) {
  channel_ = grpc::CreateChannel(address_, grpc::InsecureChannelCredentials());
  stub_ = v1::Agent::NewStub(channel_);
}

namespace {
void SetDeadline(grpc::ClientContext& context, std::chrono::milliseconds deadline) {
  context.set_deadline(std::chrono::system_clock::now() + deadline);
}
}  // namespace

Result<v1::HelloResponse> AgentClient::Hello(std::chrono::milliseconds deadline) {
  grpc::ClientContext context;
  SetDeadline(context, deadline);
  v1::HelloRequest request;
  request.set_controller_version(IOFLEET_VERSION);
  v1::HelloResponse response;
  grpc::Status st = stub_->Hello(&context, request, &response);
  if (!st.ok()) return FromGrpc(st);
  return response;
}

Result<v1::PrepareResponse> AgentClient::Prepare(const v1::PrepareRequest& request,
                                                 std::chrono::milliseconds deadline) {
  grpc::ClientContext context;
  SetDeadline(context, deadline);
  v1::PrepareResponse response;
  grpc::Status st = stub_->Prepare(&context, request, &response);
  if (!st.ok()) return FromGrpc(st);
  return response;
}

Result<v1::StepResult> AgentClient::RunStep(const v1::StartRequest& request,
                                            const std::function<void(const v1::Progress&)>& on_progress) {
  grpc::ClientContext context;
  {
    std::lock_guard lock(mu_);
    if (cancelled_) return Status(Code::kCancelled, "cancelled");
    step_context_ = &context;
  }
  auto reader = stub_->Start(&context, request);
  v1::StartReply reply;
  std::optional<v1::StepResult> result;
  while (reader->Read(&reply)) {
    if (reply.has_progress()) on_progress(reply.progress());
    if (reply.has_result()) result = reply.result();
  }
  grpc::Status st = reader->Finish();
  {
    std::lock_guard lock(mu_);
    step_context_ = nullptr;
  }
  if (!st.ok()) return FromGrpc(st);
  if (!result) return Internal("agent at " + address_ + " ended the step without a result");
  return *result;
}

void AgentClient::CancelStep() {
  std::lock_guard lock(mu_);
  cancelled_ = true;
  if (step_context_) step_context_->TryCancel();
}

Result<v1::StopResponse> AgentClient::Stop(const std::string& run_id, std::chrono::milliseconds deadline) {
  grpc::ClientContext context;
  SetDeadline(context, deadline);
  v1::StopRequest request;
  request.set_run_id(run_id);
  v1::StopResponse response;
  grpc::Status st = stub_->Stop(&context, request, &response);
  if (!st.ok()) return FromGrpc(st);
  return response;
}

}  // namespace iofleet::controller
