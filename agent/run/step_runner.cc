#include "agent/run/step_runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "core/base/clock.h"
#include "core/spec/proto_convert.h"

namespace iofleet::agent {
namespace {

constexpr size_t kBufferAlign = 4096;

// Incompressible bytes without a syscall per buffer: xorshift64*, seeded per job.
void FillRandom(std::byte* data, size_t size, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i + 8 <= size; i += 8) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    uint64_t v = x * 0x2545F4914F6CDD1Dull;
    std::memcpy(data + i, &v, 8);
  }
}

std::string Where(const std::string& agent, const std::string& path) {
  return "agent " + agent + ": " + path;
}

// Writes [from, to) of the file with the job's buffers so a read step reads no holes.
Status FillFile(int fd, std::byte* buffer, size_t buffer_size, uint64_t from, uint64_t to,
                const std::string& where) {
  for (uint64_t offset = from; offset < to;) {
    size_t length = static_cast<size_t>(std::min<uint64_t>(buffer_size, to - offset));
    ssize_t n = pwrite(fd, buffer, length, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return PosixError(where + ": filling offset " + std::to_string(offset), errno);
    offset += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

}  // namespace

std::string JobFileName(uint32_t job) { return "job-" + std::to_string(job) + ".dat"; }

StepRunner::~StepRunner() {
  RequestStop();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  for (auto& job : jobs_) {
    job->engine.reset();  // before the buffers and the file: in-flight I/O is reaped first
    if (job->fd >= 0) close(job->fd);
    std::free(job->buffers);
  }
}

Result<std::unique_ptr<StepRunner>> StepRunner::Prepare(const v1::IoSpec& io,
                                                        std::shared_ptr<Workspace> workspace,
                                                        const std::string& agent_name) {
  std::unique_ptr<StepRunner> runner(new StepRunner());
  runner->io_ = io;
  runner->agent_name_ = agent_name;
  runner->workspace_ = workspace;
  const bool is_read = io.op() == v1::OP_READ;
  const int flags = O_RDWR | O_CREAT | (io.direct() ? O_DIRECT : 0);
  const std::string engine_name = io.engine() == v1::ENGINE_PSYNC ? "psync" : "libaio";

  for (uint32_t j = 0; j < io.jobs(); ++j) {
    auto job = std::make_unique<Job>();
    job->file = JobFileName(j);
    std::string where = Where(agent_name, workspace->PathOf(job->file));
    Result<int> fd = workspace->OpenFile(job->file, flags);
    if (!fd.ok()) return Status(fd.status().code(), "agent " + agent_name + ": " + fd.status().message());
    job->fd = *fd;

    size_t buffer_bytes = static_cast<size_t>(io.queue_depth()) * io.block_size();
    job->buffers = static_cast<std::byte*>(std::aligned_alloc(kBufferAlign, buffer_bytes));
    if (!job->buffers) return Status(Code::kResourceExhausted, where + ": cannot allocate " + std::to_string(buffer_bytes) + " bytes of buffers");
    FillRandom(job->buffers, buffer_bytes, j + 1);

    if (is_read) {
      struct stat st;
      if (fstat(job->fd, &st) < 0) return PosixError(where, errno);
      uint64_t have = static_cast<uint64_t>(st.st_size) / io.block_size() * io.block_size();
      if (have < io.file_size()) {
        IOFLEET_RETURN_IF_ERROR(FillFile(job->fd, job->buffers, buffer_bytes, have, io.file_size(), where));
        runner->filled_bytes_ += io.file_size() - have;
      }
    }

    Result<std::unique_ptr<IoEngine>> engine = MakeEngine(engine_name);
    if (!engine.ok()) return Status(Code::kFailedPrecondition, where + ": " + engine.status().message());
    job->engine = std::move(*engine);
    Status opened = job->engine->Open(io.queue_depth());
    if (!opened.ok()) return Status(Code::kFailedPrecondition, "agent " + agent_name + ": engine " + engine_name + ": " + opened.message());
    job->requests.resize(io.queue_depth());
    job->completions.resize(io.queue_depth());
    job->plan = JobPlan{job->fd, is_read ? IoDir::kRead : IoDir::kWrite, io.file_size(),
                        static_cast<uint32_t>(io.block_size()), io.queue_depth(), io.runtime(),
                        job->buffers};
    runner->jobs_.push_back(std::move(job));
  }
  return runner;
}

void StepRunner::RunJob(Job& job) {
  IoWorker worker(job.plan, *job.engine, job.stats, job.requests, job.completions);
  worker.Run(start_ns_, stop_);
  // Buffered writes are not done until they reach the device: the fsync is part of the step.
  if (job.stats.error == 0 && job.plan.dir == IoDir::kWrite && !io_.direct()) {
    if (fsync(job.fd) < 0) {
      job.fsync_error = errno;
    } else {
      job.stats.last_completion_ns.store(MonotonicNs(), std::memory_order_relaxed);
    }
  }
  std::lock_guard lock(mu_);
  ++jobs_done_;
  done_cv_.notify_all();
}

void StepRunner::Start() {
  start_ns_ = MonotonicNs();
  for (auto& job : jobs_) threads_.emplace_back([this, j = job.get()] { RunJob(*j); });
}

bool StepRunner::WaitFor(std::chrono::nanoseconds timeout) {
  std::unique_lock lock(mu_);
  return done_cv_.wait_for(lock, timeout, [&] { return jobs_done_ == jobs_.size(); });
}

v1::Progress StepRunner::Progress() const {
  v1::Progress p;
  uint64_t ops = 0, bytes = 0;
  for (const auto& job : jobs_) {
    ops += job->stats.ops.load(std::memory_order_relaxed);
    bytes += job->stats.bytes.load(std::memory_order_relaxed);
  }
  p.set_ops(ops);
  p.set_bytes(bytes);
  p.set_elapsed_ns(start_ns_ ? MonotonicNs() - start_ns_ : 0);
  return p;
}

Result<v1::StepResult> StepRunner::Finish() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  for (const auto& job : jobs_) {
    std::string where = Where(agent_name_, workspace_->PathOf(job->file));
    if (job->stats.error != 0) {
      return PosixError(where + ": offset " + std::to_string(job->stats.error_offset), job->stats.error);
    }
    if (job->fsync_error != 0) return PosixError(where + ": fsync", job->fsync_error);
  }
  v1::StepResult result;
  auto merged = std::make_unique<LatencyHistogram>();  // 30 KiB: not on an RPC thread's stack
  uint64_t ops = 0, bytes = 0, last = start_ns_, passes = UINT64_MAX;
  const uint64_t blocks = io_.file_size() / io_.block_size();
  for (const auto& job : jobs_) {
    uint64_t job_ops = job->stats.ops.load(std::memory_order_relaxed);
    ops += job_ops;
    bytes += job->stats.bytes.load(std::memory_order_relaxed);
    last = std::max(last, job->stats.last_completion_ns.load(std::memory_order_relaxed));
    merged->Add(job->stats.latency);
    passes = std::min(passes, job_ops / blocks);
  }
  result.set_ops(ops);
  result.set_bytes(bytes);
  // A time-based step's window is its runtime; a size-based one ends at its last completion.
  result.set_window_ns(io_.runtime() > 0 && !stop_.load() ? io_.runtime() : last - start_ns_);
  result.set_passes(jobs_.empty() ? 0 : passes);
  result.set_filled_bytes(filled_bytes_);
  spec::ToProto(*merged, result.mutable_latency_ns());
  return result;
}

}  // namespace iofleet::agent
