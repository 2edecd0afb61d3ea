// libFuzzer target: the agent's RPC handling fed arbitrary messages. The input is a serialized
// iofleet.fuzz.AgentSession (tests/fuzz/agent_session.proto): a v1::PrepareRequest and then
// SetupStep, Start, StopStep, Renew, Stop and Prepare requests, each handed to agent::Supervisor
// (agent/run/supervisor.h) as agent/service/agent_service.cc does, in a temporary root.
//
// Only the null engine runs (no device is touched), and sizes, counts and times are capped so one
// input takes milliseconds: those caps are the harness's, not the agent's, and are applied after
// parsing, so the agent still sees every other field as sent. Hooks, drop_caches and readahead
// steps are refused by the default AgentConfig, so nothing runs outside the root.
//
// The wire-trust bugs this target first found (block_size 0 divided by zero, a job range smaller
// than a block spun, queue_depth 0, a block size that is no multiple of 4 KiB made an invalid
// aligned_alloc) are fixed: the agent checks every plan it receives (core/rules/planned_check.h),
// and their inputs are regressions, replayed in every build (tests/fuzz/regressions/).
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <ctime>

#include "agent/fs/roots.h"
#include "agent/run/supervisor.h"
#include "tests/fuzz/agent_session.pb.h"

namespace iofleet::agent {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMiB = 1 << 20;

template <typename T>
T AtMost(T value, T cap) {
  return std::min(value, cap);
}

void CapIo(v1::IoSpec& io) {
  io.set_engine(v1::ENGINE_NULL);
  io.set_queue_depth(AtMost<uint32_t>(io.queue_depth(), 16));
  io.set_block_size(AtMost<uint64_t>(io.block_size(), 64 * 1024));
  for (auto& split : *io.mutable_block_size_split()) split.set_size(AtMost<uint64_t>(split.size(), 64 * 1024));
  if (io.has_jobs()) io.set_jobs(AtMost<uint32_t>(io.jobs(), 4));
  if (io.has_total_jobs()) io.set_total_jobs(AtMost<uint32_t>(io.total_jobs(), 4));
  if (io.has_file_size()) io.set_file_size(AtMost<uint64_t>(io.file_size(), kMiB));
  if (io.has_total_size()) io.set_total_size(AtMost<uint64_t>(io.total_size(), 4 * kMiB));
  if (io.has_runtime()) io.set_runtime(AtMost<uint64_t>(io.runtime(), 20'000'000));
  if (io.has_ramp()) io.set_ramp(AtMost<uint64_t>(io.ramp(), 5'000'000));
  if (io.has_deadline()) io.set_deadline(AtMost<uint64_t>(io.deadline(), 2'000'000'000));
}

void CapStep(v1::PlannedStep& step) {
  if (step.has_io()) CapIo(*step.mutable_io());
  if (step.has_files()) {
    v1::FilesStep& files = *step.mutable_files();
    files.set_dirs(AtMost<uint32_t>(files.dirs(), 4));
    files.set_files_per_dir(AtMost<uint32_t>(files.files_per_dir(), 4));
    if (files.has_file_size()) files.set_file_size(AtMost<uint64_t>(files.file_size(), 64 * 1024));
    for (auto& s : *files.mutable_sizes()) s.set_size(AtMost<uint64_t>(s.size(), 64 * 1024));
    files.set_jobs(AtMost<uint32_t>(files.jobs(), 4));
    files.set_block_size(AtMost<uint64_t>(files.block_size(), kMiB));
  }
  if (step.has_copy()) {
    v1::CopyStep& copy = *step.mutable_copy();
    copy.set_jobs(AtMost<uint32_t>(copy.jobs(), 4));
    copy.set_block_size(AtMost<uint64_t>(copy.block_size(), kMiB));
  }
}

void CapPrepare(v1::PrepareRequest& request) {
  request.clear_lease_ns();  // the default 10 s: the lease thread must not end runs at random
  while (request.steps_size() > 8) request.mutable_steps()->RemoveLast();
  for (auto& step : *request.mutable_steps()) CapStep(step);
}

// One temporary root for the whole fuzzing process, emptied after each input.
const Roots& FuzzRoots() {
  static const Roots* roots = [] {
    const char* tmp = getenv("TMPDIR");
    std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/iofleet-fuzz-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      std::perror("agent_session_fuzz: mkdtemp");
      std::abort();
    }
    static std::string made = tmpl;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(made, ec);
    });
    auto opened = Roots::Open({tmpl});
    if (!opened.ok()) {
      std::fprintf(stderr, "agent_session_fuzz: %s\n", opened.status().message().c_str());
      std::abort();
    }
    return new Roots(std::move(*opened));
  }();
  return *roots;
}

void EmptyRoot(const fs::path& root) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) fs::remove_all(entry.path(), ec);
}

uint64_t WallNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
}

// As AgentService::Start: release (or abort) the step, order the command's cuts (as the
// controller's CutWindow would) and take their windows, wait for its jobs, collect the result.
void RunStart(Supervisor& supervisor, const v1::StartRequest& request,
              const google::protobuf::RepeatedPtrField<v1::CutWindowRequest>& cuts) {
  auto begun = supervisor.BeginStep(request);
  if (!begun.ok()) return;
  std::shared_ptr<StepRunner> runner = *begun;
  if (request.start_at_unix_ns() != 0) runner->Abort();
  else runner->Go();
  for (int i = 0; i < cuts.size() && i < 4; ++i) {
    v1::CutWindowRequest cut = cuts[i];
    const uint64_t after = std::min<uint64_t>(cut.at_unix_ns(), 1'000'000'000);
    cut.set_at_unix_ns(WallNs() + after);
    if (!supervisor.CutWindow(cut).ok()) continue;
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(after) + std::chrono::milliseconds(200);
    while (std::chrono::steady_clock::now() < until && !runner->TakeWindow()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!runner->WaitFor(std::chrono::milliseconds(50))) {
    (void)runner->Progress();
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "agent_session_fuzz: a step did not end within 20 s of Go (capped runtimes)\n");
      std::abort();
    }
  }
  (void)runner->Finish();
  (void)supervisor.StepEnded(runner);
}

}  // namespace
}  // namespace iofleet::agent

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace iofleet;
  fuzz::AgentSession session;
  if (!session.ParseFromArray(data, static_cast<int>(size))) return -1;  // not kept in the corpus

  const agent::Roots& roots = agent::FuzzRoots();
  {
    agent::Supervisor supervisor(roots, "node1");
    v1::PrepareRequest prepare = session.prepare();
    agent::CapPrepare(prepare);
    (void)supervisor.Prepare(prepare);
    int budget = 16;
    for (const auto& command : session.commands()) {
      if (budget-- == 0) break;
      switch (command.kind_case()) {
        case fuzz::AgentCommand::kSetupStep: (void)supervisor.SetupStep(command.setup_step()); break;
        case fuzz::AgentCommand::kStart: agent::RunStart(supervisor, command.start(), command.cuts()); break;
        case fuzz::AgentCommand::kCutWindow: (void)supervisor.CutWindow(command.cut_window()); break;
        case fuzz::AgentCommand::kStopStep: (void)supervisor.StopStep(command.stop_step()); break;
        case fuzz::AgentCommand::kRenew: (void)supervisor.Renew(command.renew()); break;
        case fuzz::AgentCommand::kStop: (void)supervisor.Stop(command.stop()); break;
        case fuzz::AgentCommand::kPrepare: {
          v1::PrepareRequest again = command.prepare();
          agent::CapPrepare(again);
          (void)supervisor.Prepare(again);
          break;
        }
        case fuzz::AgentCommand::KIND_NOT_SET: break;
      }
    }
    v1::StopRequest stop;
    stop.set_run_id(prepare.run_id());
    (void)supervisor.Stop(stop);
    supervisor.Shutdown();
  }
  agent::EmptyRoot(roots.all().begin()->second.path);
  return 0;
}
