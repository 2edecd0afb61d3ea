#include "agent/service/agent_service.h"

#include "agent/run/progress_sampler.h"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <chrono>

namespace iofleet::agent {
namespace {

uint64_t UnixNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

// Sleeps until `unix_ns` on the wall clock with an absolute-time timer (slack 1 ns), so every
// agent's jobs are released within the kernel's wake-up latency of the instant. It does not
// spin: on a host running many agents (or a busy client), spinners would take the cores the
// others need to wake up, and the start skew would measure the scheduler. False when the caller
// gave up (the stream was cancelled) first.
bool WaitUntil(uint64_t unix_ns, grpc::ServerContext* context, const StepRunner& runner) {
  constexpr uint64_t kCheckEveryNs = 100'000'000;  // re-check cancellation and Stop
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  while (true) {
    uint64_t now = UnixNs();
    if (now >= unix_ns) return true;
    if (context->IsCancelled() || runner.stop_requested()) return false;
    uint64_t until = std::min(unix_ns, now + kCheckEveryNs);
    timespec ts{static_cast<time_t>(until / 1'000'000'000), static_cast<long>(until % 1'000'000'000)};
    clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, nullptr);
  }
}

// No exception leaves a handler: whatever escapes the code below (std::bad_alloc for a request
// that asks too much, a library's throw) is answered as an error, and the agent lives on.
template <typename Handler>
grpc::Status Guarded(const char* rpc, Handler&& handler) noexcept {
  try {
    return handler();
  } catch (const std::exception& e) {
    return grpc::Status(grpc::StatusCode::INTERNAL, std::string(rpc) + ": " + e.what());
  } catch (...) {
    return grpc::Status(grpc::StatusCode::INTERNAL, std::string(rpc) + ": unknown exception");
  }
}

}  // namespace

grpc::Status ToGrpc(const Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), status.message());
}

grpc::Status AgentService::Hello(grpc::ServerContext*, const v1::HelloRequest*, v1::HelloResponse* response) {
  return Guarded("Hello", [&] {
    *response = supervisor_.Hello();
    return grpc::Status::OK;
  });
}

grpc::Status AgentService::Clock(grpc::ServerContext*, const v1::ClockRequest*, v1::ClockResponse* response) {
  response->set_unix_ns(UnixNs());
  return grpc::Status::OK;
}

grpc::Status AgentService::Prepare(grpc::ServerContext*, const v1::PrepareRequest* request,
                                   v1::PrepareResponse* response) {
  return Guarded("Prepare", [&] {
    auto result = supervisor_.Prepare(*request);
    if (!result.ok()) return ToGrpc(result.status());
    *response = *result;
    return grpc::Status::OK;
  });
}

grpc::Status AgentService::SetupStep(grpc::ServerContext*, const v1::SetupStepRequest* request,
                                     v1::SetupStepResponse*) {
  return Guarded("SetupStep", [&] { return ToGrpc(supervisor_.SetupStep(*request)); });
}

grpc::Status AgentService::Start(grpc::ServerContext* context, const v1::StartRequest* request,
                                 grpc::ServerWriter<v1::StartReply>* writer) {
  return Guarded("Start", [&] { return RunStep(context, request, writer); });
}

grpc::Status AgentService::RunStep(grpc::ServerContext* context, const v1::StartRequest* request,
                                   grpc::ServerWriter<v1::StartReply>* writer) {
  auto begun = supervisor_.BeginStep(*request);
  if (!begun.ok()) return ToGrpc(begun.status());
  std::shared_ptr<StepRunner> runner = *begun;
  timespec received{};
  clock_gettime(CLOCK_REALTIME, &received);  // the wall clock the start instant is on
  // The stream owns the runner until StepEnded, on every way out: ending waits for it.
  struct EndOnExit {
    Supervisor& supervisor;
    const std::shared_ptr<StepRunner>& runner;
    bool ended = false;
    ~EndOnExit() {
      if (ended) return;
      // Left by an exception: the jobs stop and return before the run may end and remove files.
      runner->Abort();
      while (!runner->WaitFor(std::chrono::milliseconds(100))) {
      }
      (void)supervisor.StepEnded(runner);
    }
  } end_on_exit{supervisor_, runner};
  const auto interval = std::chrono::nanoseconds(
      std::clamp<uint64_t>(request->sample_interval_ns() ? request->sample_interval_ns() : 1'000'000'000,
                           100'000'000, 60'000'000'000));

  bool cancelled = !WaitUntil(request->start_at_unix_ns(), context, *runner);
  if (cancelled) runner->Abort();
  else runner->Go();
  ProgressSampler sampler(*runner);  // latency deltas are worked out here, not on job threads
  // A step cut into windows sends each window as soon as its jobs made the cut: the controller
  // waits for it to order the next.
  const bool cut = runner->cut_into_windows();
  const auto tick = cut ? std::min<std::chrono::nanoseconds>(interval, std::chrono::milliseconds(10)) : interval;
  auto next_progress = std::chrono::steady_clock::now() + interval;
  while (!runner->WaitFor(tick)) {
    if (context->IsCancelled()) {
      // The controller is gone or gave up on this step: stop I/O rather than run on unobserved.
      runner->RequestStop();
      cancelled = true;
      continue;
    }
    if (cut) {
      if (auto window = runner->TakeWindow()) {
        v1::StartReply reply;
        *reply.mutable_window() = std::move(*window);
        writer->Write(reply);
      }
      if (std::chrono::steady_clock::now() < next_progress) continue;
      next_progress += interval;
    }
    v1::StartReply reply;
    *reply.mutable_progress() = sampler.Next();
    writer->Write(reply);
  }
  auto result = runner->Finish();
  end_on_exit.ended = true;
  Status ended = supervisor_.StepEnded(runner);
  if (!ended.ok()) return ToGrpc(ended);  // the run was ended under the step: no result
  if (!result.ok()) return ToGrpc(result.status());
  if (cancelled) return grpc::Status(grpc::StatusCode::CANCELLED, "step cancelled by the controller");
  v1::StartReply reply;
  *reply.mutable_result() = *result;
  reply.mutable_result()->set_start_received_unix_ns(static_cast<uint64_t>(received.tv_sec) * 1'000'000'000 +
                                                     static_cast<uint64_t>(received.tv_nsec));
  writer->Write(reply);
  return grpc::Status::OK;
}

grpc::Status AgentService::StopStep(grpc::ServerContext*, const v1::StopStepRequest* request, v1::StopStepResponse*) {
  return Guarded("StopStep", [&] { return ToGrpc(supervisor_.StopStep(*request)); });
}

grpc::Status AgentService::CutWindow(grpc::ServerContext*, const v1::CutWindowRequest* request, v1::CutWindowResponse*) {
  return Guarded("CutWindow", [&] { return ToGrpc(supervisor_.CutWindow(*request)); });
}

grpc::Status AgentService::Renew(grpc::ServerContext*, const v1::RenewRequest* request, v1::RenewResponse*) {
  return Guarded("Renew", [&] { return ToGrpc(supervisor_.Renew(*request)); });
}

grpc::Status AgentService::Stop(grpc::ServerContext*, const v1::StopRequest* request,
                                v1::StopResponse* response) {
  return Guarded("Stop", [&] {
    auto result = supervisor_.Stop(*request);
    if (!result.ok()) return ToGrpc(result.status());
    *response = *result;
    return grpc::Status::OK;
  });
}

}  // namespace iofleet::agent
