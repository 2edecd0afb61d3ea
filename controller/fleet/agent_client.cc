#include "controller/fleet/agent_client.h"

namespace iofleet::controller {

Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return Status::Ok();
  return Status(static_cast<Code>(status.error_code()), status.error_message());
}

AgentClient::AgentClient(std::string address, const std::optional<TlsFiles>& tls) : address_(std::move(address)) {
  grpc::ChannelArguments args;
  // A dead or cut-off agent is noticed within 22 s even while nothing streams. gRPC's ping
  // deadline runs on the wall clock: a controller stopped for longer than it (SIGSTOP, a host
  // that swaps) found every agent "lost: keepalive watchdog timeout" on waking, the answers
  // waiting unread. So it is long, and a step's streams are judged by their silence over the
  // controller's own running time instead (controller/fleet/stall_clock.h): a frozen agent is
  // lost within seconds, a stalled controller blames nobody.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 2000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetInt(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, 64 << 20);
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (tls && address_.rfind("unix:", 0) != 0) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = tls->ca;
    options.pem_cert_chain = tls->cert;
    options.pem_private_key = tls->key;
    credentials = grpc::SslCredentials(options);
    if (!tls->server_name.empty()) args.SetSslTargetNameOverride(tls->server_name);
  } else {
    credentials = grpc::InsecureChannelCredentials();
  }
  channel_ = grpc::CreateCustomChannel(address_, credentials, args);
  stub_ = v1::Agent::NewStub(channel_);
}

namespace {

void SetDeadline(grpc::ClientContext& context, std::chrono::milliseconds deadline) {
  context.set_deadline(std::chrono::system_clock::now() + deadline);
}

template <typename Request, typename Response, typename Call>
Result<Response> Unary(Call call, const Request& request, std::chrono::milliseconds deadline,
                       bool wait_for_ready = false) {
  grpc::ClientContext context;
  SetDeadline(context, deadline);
  context.set_wait_for_ready(wait_for_ready);
  Response response;
  grpc::Status st = call(&context, request, &response);
  if (!st.ok()) return FromGrpc(st);
  return response;
}

}  // namespace

#define IOFLEET_BIND(method) [&](auto* c, const auto& q, auto* r) { return stub_->method(c, q, r); }

Result<v1::HelloResponse> AgentClient::Hello(std::chrono::milliseconds deadline) {
  v1::HelloRequest request;
  request.set_controller_version(IOFLEET_VERSION);
  // The first contact rides out a transient connect failure until its deadline, rather than
  // failing at once: a healthy agent is never reported unreachable.
  return Unary<v1::HelloRequest, v1::HelloResponse>(IOFLEET_BIND(Hello), request, deadline, /*wait_for_ready=*/true);
}

Result<v1::ClockResponse> AgentClient::Clock(std::chrono::milliseconds deadline) {
  return Unary<v1::ClockRequest, v1::ClockResponse>(IOFLEET_BIND(Clock), v1::ClockRequest(), deadline);
}

Result<v1::PrepareResponse> AgentClient::Prepare(const v1::PrepareRequest& request,
                                                 std::chrono::milliseconds deadline) {
  auto prepared = Unary<v1::PrepareRequest, v1::PrepareResponse>(IOFLEET_BIND(Prepare), request, deadline);
  if (prepared.ok()) {
    std::lock_guard lock(mu_);
    session_token_ = prepared->session_token();
  }
  return prepared;
}

std::string AgentClient::session_token() const {
  std::lock_guard lock(mu_);
  return session_token_;
}

Status AgentClient::SetupStep(const v1::SetupStepRequest& request, std::chrono::milliseconds deadline) {
  v1::SetupStepRequest mine = request;
  mine.set_session_token(session_token());
  grpc::ClientContext context;
  SetDeadline(context, deadline);
  {
    std::lock_guard lock(mu_);
    if (cancelled_) return Status(Code::kCancelled, "cancelled");
    setup_context_ = &context;
  }
  v1::SetupStepResponse response;
  grpc::Status st = stub_->SetupStep(&context, mine, &response);
  std::lock_guard lock(mu_);
  setup_context_ = nullptr;
  return FromGrpc(st);
}

Status AgentClient::StopStep(const v1::StopStepRequest& request, std::chrono::milliseconds deadline) {
  v1::StopStepRequest mine = request;
  mine.set_session_token(session_token());
  return Unary<v1::StopStepRequest, v1::StopStepResponse>(IOFLEET_BIND(StopStep), mine, deadline).status();
}

Status AgentClient::CutWindow(const v1::CutWindowRequest& request, std::chrono::milliseconds deadline) {
  v1::CutWindowRequest mine = request;
  mine.set_session_token(session_token());
  return Unary<v1::CutWindowRequest, v1::CutWindowResponse>(IOFLEET_BIND(CutWindow), mine, deadline).status();
}

Status AgentClient::Renew(const std::string& run_id, std::chrono::milliseconds deadline) {
  v1::RenewRequest request;
  request.set_run_id(run_id);
  request.set_session_token(session_token());
  return Unary<v1::RenewRequest, v1::RenewResponse>(IOFLEET_BIND(Renew), request, deadline).status();
}

Result<v1::StopResponse> AgentClient::Stop(const std::string& run_id, std::chrono::milliseconds deadline) {
  v1::StopRequest request;
  request.set_run_id(run_id);
  request.set_session_token(session_token());
  return Unary<v1::StopRequest, v1::StopResponse>(IOFLEET_BIND(Stop), request, deadline);
}

#undef IOFLEET_BIND

// One step's stream on gRPC's callback API: reads until the agent ends it, handing each reply to
// the callbacks, and deletes itself once it has told `on_done` how it ended.
class AgentClient::StepStream final : public grpc::ClientReadReactor<v1::StartReply> {
 public:
  StepStream(AgentClient& client, v1::StartRequest request, StepCallbacks callbacks)
      : client_(client), request_(std::move(request)), callbacks_(std::move(callbacks)) {}

  grpc::ClientContext& context() { return context_; }

  void Begin() {
    client_.stub_->async()->Start(&context_, &request_, this);
    StartRead(&reply_);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // the stream ended: OnDone follows
    if (reply_.has_progress() && callbacks_.on_progress) callbacks_.on_progress(reply_.progress());
    if (reply_.has_result()) result_ = std::move(*reply_.mutable_result());
    if (reply_.has_window() && callbacks_.on_window) callbacks_.on_window(reply_.window());
    StartRead(&reply_);
  }

  void OnDone(const grpc::Status& status) override {
    {
      std::lock_guard lock(client_.mu_);
      client_.step_context_ = nullptr;  // CancelStep no longer reaches this context
    }
    Result<v1::StepResult> ended = !status.ok() ? Result<v1::StepResult>(FromGrpc(status))
                                   : !result_   ? Result<v1::StepResult>(Internal("agent at " + client_.address_ + " ended the step without a result"))
                                                : Result<v1::StepResult>(std::move(*result_));
    auto on_done = std::move(callbacks_.on_done);
    delete this;  // before on_done: after it, the caller may end the client and what the callbacks hold
    on_done(std::move(ended));
  }

 private:
  AgentClient& client_;
  grpc::ClientContext context_;
  v1::StartRequest request_;
  StepCallbacks callbacks_;
  v1::StartReply reply_;
  std::optional<v1::StepResult> result_;
};

void AgentClient::StartStep(const v1::StartRequest& request, StepCallbacks callbacks) {
  v1::StartRequest mine = request;
  mine.set_session_token(session_token());
  StepStream* stream = nullptr;
  {
    std::lock_guard lock(mu_);
    if (!cancelled_) {
      stream = new StepStream(*this, std::move(mine), std::move(callbacks));
      step_context_ = &stream->context();  // a cancel before the call starts cancels it at its start
    }
  }
  if (!stream) {
    callbacks.on_done(Status(Code::kCancelled, "cancelled"));
    return;
  }
  stream->Begin();
}

void AgentClient::CancelStep() {
  std::lock_guard lock(mu_);
  cancelled_ = true;
  if (step_context_) step_context_->TryCancel();
  if (setup_context_) setup_context_->TryCancel();
}

}  // namespace iofleet::controller
