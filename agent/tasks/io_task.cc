#include "agent/tasks/io_task.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "agent/tasks/job_engine.h"
#include "agent/worker/arrival_gaps.h"
#include "agent/worker/verify_header.h"
#include "core/base/clock.h"
#include "core/base/units.h"
#include "core/rules/defaults.h"
#include "core/wire/histogram_proto.h"

namespace iofleet::agent {
namespace {

constexpr size_t kBufferAlign = 4096;
// Holes are filled in writes of at least this size, whatever the step's block size: filling is
// untimed, so it should be quick, and large sequential writes lay the file out as a tool
// preparing its files does (fio lays out in 1 MiB writes).
constexpr size_t kFillChunk = 1 << 20;

uint64_t Mix(uint64_t a, uint64_t b) {
  SplitMix64 m(a ^ (b * 0x9E3779B97F4A7C15ull));
  return m.Next();
}

// Where job `number`'s range begins beyond its layout's own place (offset, offset_increment):
// the rules keep it within the largest file offset.
uint64_t JobOffset(const v1::IoSpec& io, uint64_t number) { return io.offset() + number * io.offset_increment(); }

// The agent's name in the run (unique in it) as a number: what makes its data its own.
uint64_t NameKey(const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

Status IoTask::OpenJobs() {
  const v1::IoSpec& io = plan_.io;
  const bool global = io.file_layout() == v1::FILE_LAYOUT_SHARED_GLOBAL;
  const bool shared = io.file_layout() == v1::FILE_LAYOUT_SHARED || global;
  const bool peer = !plan_.read_from_agent.empty();
  const bool null_engine = io.engine() == v1::ENGINE_NULL;
  const bool writes = rules::Writes(io.op());
  const int flags = (peer ? O_RDONLY : O_RDWR | O_CREAT) | (io.direct() ? O_DIRECT : 0);
  slot_size_ = rules::MaxBlockSize(io);
  // Jobs sharing the file: the agent's own (shared), or every job of the run (shared_global).
  const uint32_t sharing_jobs = global ? plan_.global_jobs : io.jobs();
  const uint32_t first_job = global ? plan_.global_first_job : 0;
  const uint64_t job_bytes = rules::JobRangeBytes(io, plan_.global_jobs);
  const uint64_t file_slots = io.file_size() / slot_size_;
  // A seed of the step's own makes every choice the same on a rerun; else each run draws its own.
  const uint64_t seed_base = io.has_seed() ? io.seed() : plan_.run_token;
  std::optional<DistributionSpec> distribution;
  if (io.has_distribution()) {
    auto spec = ParseDistribution(io.distribution());
    if (!spec.ok()) return InvalidArgument("agent " + plan_.agent_name + ": distribution " + spec.status().message());
    if (spec->kind != DistributionSpec::Kind::kUniform) distribution = *spec;
  }

  if (rules::IsCutStep(io)) cutter_ = std::make_unique<WindowCutter>(io.jobs(), io.queue_depth());
  for (uint32_t j = 0; j < io.jobs(); ++j) {
    // Owned by the runner from the start: a failure below leaves nothing open or allocated.
    Job* job = jobs_.emplace_back(std::make_unique<Job>()).get();
    job->file = rules::JobFileName(io, j);
    std::string& path = job->path;
    path = global ? plan_.workspace->SharedPathOf(job->file)
                       : peer ? plan_.workspace->PeerPathOf(plan_.read_from_agent, job->file)
                              : plan_.workspace->PathOf(job->file);
    std::string where = "agent " + plan_.agent_name + ": " + path;
    if (!null_engine) {  // the null engine does no I/O and needs no file
      Result<int> fd = global ? plan_.workspace->OpenSharedFile(job->file, flags)
                       : peer ? plan_.workspace->OpenPeerFile(plan_.read_from_agent, job->file, flags)
                              : plan_.workspace->OpenFile(job->file, flags);
      if (!fd.ok()) return Status(fd.status().code(), "agent " + plan_.agent_name + ": " + fd.status().message());
      job->fd.Reset(*fd);
      if (peer) {
        // Another agent's file cannot be filled by this one: it must hold the whole range.
        struct stat st;
        const uint64_t end = JobOffset(io, j) + job_bytes;
        if (fstat(job->fd.get(), &st) == 0 && static_cast<uint64_t>(st.st_size) < end) {
          return FailedPrecondition(where + ": holds " + std::to_string(st.st_size) + " of the " +
                                    std::to_string(end) + " bytes to read: have agent " +
                                    plan_.read_from_agent + " write it in an earlier step");
        }
      }
    }

    SequenceSpec& seq = job->plan.sequence;
    seq.slot_size = slot_size_;
    seq.random = rules::IsRandom(io.op());
    seq.repeats = seq.random && io.random() == v1::RANDOM_ORDER_UNIFORM;
    seq.read_pct = !writes ? 100 : !rules::Reads(io.op()) ? 0 : io.read_pct();
    seq.seed = Mix(seed_base, (uint64_t{plan_.step_index} << 32) | (uint64_t{plan_.stream_index} << 16) | j);
    if (shared && io.shared_mode() == v1::SHARED_MODE_WHOLE) {
      seq.slots = job_bytes / slot_size_;  // the whole file, for every job
    } else if (shared && io.shared_mode() == v1::SHARED_MODE_STRIDED) {
      seq.slots = file_slots / sharing_jobs;
      seq.stride = sharing_jobs;
      seq.first = first_job + j;
    } else {
      seq.slots = job_bytes / slot_size_;
      seq.base = shared ? (first_job + j) * job_bytes : 0;
    }
    seq.base += JobOffset(io, first_job + j);
    job->range = JobSpan(seq);  // before skip spaces the blocks: what preallocate allocates
    if (!seq.random && seq.stride == 1 && (io.skip() > 0 || io.backward())) SpaceSequential(io, seq);
    if (seq.random && distribution && distribution->kind == DistributionSpec::Kind::kSequence) {
      IOFLEET_RETURN_IF_ERROR(SequenceFor(*distribution, io, where, seq));
    } else if (seq.random && distribution) {
      auto table = DistributionFor(*distribution, seq.slots, seed_base);
      if (!table.ok()) return Status(table.status().code(), where + ": distribution: " + table.status().message());
      seq.distribution = *table;
    }
    uint64_t cumulative = 0;
    for (const auto& split : io.block_size_split()) {
      cumulative += split.weight();
      seq.split_size[seq.split_count] = static_cast<uint32_t>(split.size());
      seq.split_cumulative[seq.split_count] = cumulative;
      ++seq.split_count;
    }

    const uint32_t depth = io.queue_depth();
    size_t buffer_bytes = static_cast<size_t>(depth) * slot_size_;
    job->buffer_block = AllocateAligned(kBufferAlign, buffer_bytes);
    if (!job->buffer_block) {
      return Status(Code::kResourceExhausted, where + ": cannot allocate " + std::to_string(buffer_bytes) + " bytes of buffers");
    }
    for (uint32_t s = 0; s < depth; ++s) {
      job->buffers.push_back(job->buffer_block.get() + s * slot_size_);
      job->iovecs.push_back(iovec{job->buffers.back(), slot_size_});
    }
    job->data_options = DataOptionsFor(io, seq.seed, seed_base, j);
    job->data.Prepare(job->data_options, job->buffer_block.get(), slot_size_, depth);

    PlanJob(io, writes, null_engine, *job);
    if (cutter_) {
      job->plan.cuts = cutter_->cuts();
      job->plan.snapshot = cutter_->snapshot(j);
    }
    auto engine = OpenJobEngine(io, job->iovecs, std::span<const int>(&job->plan.fd, 1), "agent " + plan_.agent_name);
    if (!engine.ok()) return engine.status();
    job->engine = std::move(*engine);
    job->requests.resize(depth);
    job->completions.resize(depth);
  }
  return Status::Ok();
}

DataOptions IoTask::DataOptionsFor(const v1::IoSpec& io, uint64_t job_seed, uint64_t seed_base, uint32_t j) const {
  DataOptions data;
  data.compressible_pct = io.data().compressible_pct();
  data.pattern = DataGenerator::DecodePattern(io.data().pattern());
  data.dedupe_pct = io.data().dedupe_pct();
  // The seed is the same on every agent (the same offsets, as fio's on each host); the data is
  // the agent's own, so no chunk of one agent's repeats another's on a shared array.
  data.stream = Mix(job_seed, NameKey(plan_.agent_name));
  data.verify = io.verify();
  if (const uint64_t own = WorkingSetChunks(io, plan_.global_jobs)) {
    // The job's own set, or its part of the one the step's streams share on this agent, under
    // one seed of the agent's for the step.
    const bool shared_set = plan_.dedupe_set.chunks > 0;
    data.own_count = own;
    data.working_set_chunks = shared_set ? plan_.dedupe_set.chunks : own;
    data.own_first = shared_set ? plan_.dedupe_set.first + own * j : 0;
    data.working_set_seed = shared_set ? Mix(Mix(seed_base, (uint64_t{plan_.step_index} << 32) | 0xDEDE), NameKey(plan_.agent_name))
                                       : Mix(data.stream, 0xDEDE);
  }
  return data;
}

// The job's loop settings from the step's fields (JobPlan): depth, batches, window, pacing,
// minimum rate, loops.
void IoTask::PlanJob(const v1::IoSpec& io, bool writes, bool null_engine, Job& job) const {
  const SequenceSpec& seq = job.plan.sequence;
  job.plan.fd = job.fd.get();
  job.plan.queue_depth = io.queue_depth();
  job.plan.submit_batch = std::max(1u, io.submit_batch());
  job.plan.complete_batch = std::max(1u, io.complete_batch());
  job.plan.ramp_ns = io.ramp();
  job.plan.runtime_ns = io.runtime();
  job.plan.deadline_ns = io.deadline();
  job.plan.continue_on_error = io.continue_on_error();
  job.plan.verify = io.verify();
  job.plan.run_token = plan_.run_token;
  job.plan.fsync_every = null_engine ? 0 : io.fsync().every();
  job.plan.fsync_at_end = !null_engine && writes && !io.direct() && io.fsync().at_end();
  job.plan.fdatasync = io.fsync().data_only();
  if (plan_.flow) {
    job.plan.flow = plan_.flow.get();
    job.plan.flow_weight = io.flow().weight();
    if (io.flow().has_sleep()) job.plan.flow_sleep_ns = io.flow().sleep();
  }
  job.plan.think_ns = io.think().time();
  job.plan.think_blocks = std::max(1u, io.think().blocks());
  job.plan.think_spin_ns = std::min(io.think().spin(), io.think().time());
  if (io.rate().bytes_per_sec() > 0) job.plan.rate_ns_per_byte = 1e9 / static_cast<double>(io.rate().bytes_per_sec());
  if (io.rate().iops() > 0) job.plan.rate_ns_per_io = 1e9 / static_cast<double>(io.rate().iops());
  if (io.rate().process() == v1::RATE_PROCESS_POISSON) job.plan.poisson = &SharedArrivalGaps();
  job.plan.pacer_seed = Mix(seq.seed, 0xA771);
  job.plan.loops = std::max(1u, io.loops());
  job.plan.io_limit_bytes = io.io_size() * job.plan.loops;  // the rules bound io_size: no wrap (see validate.cc)
  job.plan.min_bytes_per_sec = io.rate().min_bytes_per_sec();
  job.plan.min_iops = io.rate().min_iops();
  if (job.plan.min_bytes_per_sec || job.plan.min_iops) {
    // A cycle spans at least the time one block takes at the minimum: shorter, a job spaced by
    // its own rate would fail for the cycles that fall between two of its requests.
    const double one_block_ns = job.plan.min_iops ? 1e9 / static_cast<double>(job.plan.min_iops)
                                                   : 1e9 * static_cast<double>(slot_size_) / static_cast<double>(job.plan.min_bytes_per_sec);
    const uint64_t cycle = io.rate().has_cycle() ? io.rate().cycle() : 1'000'000'000;
    job.plan.rate_cycle_ns = std::max<uint64_t>(cycle, static_cast<uint64_t>(std::ceil(one_block_ns)));
  }
}

// A cut's pace replaces the plan's rate (a cut step has none) and its depth bounds the plan's.
std::optional<StorageLoad> IoTask::StorageUnder(const v1::CutWindowRequest& cut) const {
  if (!plan_.workspace) return std::nullopt;
  const v1::IoSpec& io = plan_.io;
  StorageLoad load;
  load.dir = plan_.workspace->run_dir();
  uint64_t depth = io.engine() == v1::ENGINE_PSYNC ? 1 : std::max<uint32_t>(io.queue_depth(), 1);
  if (cut.queue_depth() > 0) depth = std::min<uint64_t>(depth, cut.queue_depth());
  load.in_flight = static_cast<uint32_t>(std::min<uint64_t>(depth * io.jobs(), UINT32_MAX));
  const auto times_jobs = [&](uint64_t per_job) { return per_job > UINT64_MAX / std::max<uint32_t>(io.jobs(), 1) ? UINT64_MAX : per_job * io.jobs(); };
  const bool paced = cut.rate_iops() > 0 || cut.rate_bytes_per_sec() > 0;
  load.rate_iops = times_jobs(paced ? cut.rate_iops() : io.rate().iops());
  load.rate_bytes_per_sec = times_jobs(paced ? cut.rate_bytes_per_sec() : io.rate().bytes_per_sec());
  // The null engine's requests reach no device: its figures cannot be compared with theirs.
  load.direct = io.direct() && io.engine() != v1::ENGINE_NULL;
  load.buffered = !io.direct() && io.engine() != v1::ENGINE_NULL;
  return load;
}

// fio's rw=read:N: a sequential job's range visited every (1 + skip / block)th slot, and
// backward from the last visited slot (the range's last) to the first.
void IoTask::SpaceSequential(const v1::IoSpec& io, SequenceSpec& seq) const {
  // The rules refuse a skip that is no multiple of the block. One past the range's slots is as far
  // as a stride needs to go (one block a pass), and keeps 1 + skip / block from wrapping.
  const uint64_t range_slots = seq.slots;
  const uint64_t every = std::min(io.skip() / slot_size_, range_slots) + 1;
  seq.stride = every;
  seq.slots = (range_slots + every - 1) / every;
  seq.reverse = io.backward();
  // Backward, the last slot of the range is the first one done; the first done forward is slot 0.
  if (seq.reverse && seq.slots > 0) seq.first = (range_slots - 1) - (seq.slots - 1) * every;
}

// fio's sequence distribution: the job's slots in order (no table), each inside its range.
Status IoTask::SequenceFor(const DistributionSpec& distribution, const v1::IoSpec& io, const std::string& where, SequenceSpec& seq) {
  const std::vector<uint64_t>& slots = distribution.sequence;
  seq.pattern_count = static_cast<uint32_t>(std::min(slots.size(), seq.pattern.size()));
  std::copy_n(slots.begin(), seq.pattern_count, seq.pattern.begin());
  seq.pattern_max = *std::max_element(slots.begin(), slots.end());
  seq.pattern_strided = io.sequence_stride();
  seq.repeats = false;  // the sequence decides every slot (random: uniform has nothing to draw)
  if (seq.pattern_max < seq.slots) return Status::Ok();
  return InvalidArgument(where + ": distribution " + io.distribution() + ": slot " + std::to_string(seq.pattern_max) +
                         " is beyond the job's " + std::to_string(seq.slots) + " slots");
}

// The table for `slots`: one per range size, shared by the jobs of the task. Its scatter (zipf's
// and pareto's hot blocks) is keyed by the step, so every job of a shared file has one hot set.
Result<const OffsetDistribution*> IoTask::DistributionFor(const DistributionSpec& spec, uint64_t slots, uint64_t seed_base) {
  for (const auto& table : distributions_) {
    if (table->slots() == slots) return table.get();
  }
  DistributionSpec keyed = spec;
  keyed.scatter_seed = Mix(seed_base, (uint64_t{plan_.step_index} << 32) | (uint64_t{plan_.stream_index} << 16) | 0xFFFF);
  auto built = OffsetDistribution::Build(keyed, slots);
  if (!built.ok()) return built.status();
  distributions_.push_back(std::move(*built));
  return distributions_.back().get();
}

// preallocate (fio's fallocate=native): each job's span of its file allocated, mode 0 (the file
// grows to hold it), before the step writes. Where the file system cannot (EOPNOTSUPP), the step
// goes on without, as fio does; any other failure (ENOSPC) fails the setup.
Status IoTask::Preallocate() {
  const v1::IoSpec& io = plan_.io;
  if (!io.preallocate() || !rules::Writes(io.op()) || io.engine() == v1::ENGINE_NULL) return Status::Ok();
  for (const auto& job : jobs_) {
    const ByteSpan span = job->range;
    if (span.end <= span.begin) continue;
    if (fallocate(job->fd.get(), 0, static_cast<off_t>(span.begin), static_cast<off_t>(span.end - span.begin)) == 0) continue;
    if (errno == EOPNOTSUPP) return Status::Ok();
    return PosixError("agent " + plan_.agent_name + ": " + job->path + ": fallocate (preallocate)", errno);
  }
  return Status::Ok();
}

// unlink (fio's): the step's files go once its figures are taken; a later reader lays them out
// again, as its coverage no longer holds them.
Status IoTask::Unlink() {
  if (!plan_.io.unlink() || plan_.io.engine() == v1::ENGINE_NULL) return Status::Ok();
  std::set<std::string> gone;  // a shared file is every job's: removed once
  for (const auto& job : jobs_) {
    if (!gone.insert(job->file).second) continue;
    plan_.coverage->Forget(job->file);
    if (Status removed = plan_.workspace->RemoveFile(job->file); !removed.ok()) {
      return Status(removed.code(), "agent " + plan_.agent_name + ": unlink: " + removed.message());
    }
  }
  return Status::Ok();
}

// Reads never read holes: whatever a reading step may touch that this run has not written is
// written first, untimed, block by block with the step's own data (and verify headers).
Status IoTask::FillHoles() {
  const v1::IoSpec& io = plan_.io;
  if (!rules::Reads(io.op()) || io.engine() == v1::ENGINE_NULL || !plan_.read_from_agent.empty()) return Status::Ok();
  for (auto& job : jobs_) {
    const SequenceSpec& seq = job->plan.sequence;
    // A strided job's slots lie between other jobs' slots: each is its own range. Ranges are
    // visited one at a time (a strided file of a TiB has a billion slots: no list of them).
    const bool strided = seq.stride > 1;
    const uint64_t range_count = strided ? seq.slots : (seq.slots ? 1 : 0);
    auto range_at = [&](uint64_t r) -> ByteSpan {
      if (!strided) return JobSpan(seq);
      return {SlotOffset(seq, r), SlotOffset(seq, r) + seq.slot_size};
    };
    const size_t slots = std::max<size_t>(job->buffers.size(), (kFillChunk + slot_size_ - 1) / slot_size_);
    const size_t chunk = slots * slot_size_;
    AlignedBuffer fill_buffer = AllocateAligned(kBufferAlign, chunk);
    if (!fill_buffer) return Status(Code::kResourceExhausted, "agent " + plan_.agent_name + ": cannot allocate a fill buffer");
    std::byte* buffer = fill_buffer.get();
    // Its own data stream (stamps stay unique in the run), with the step's data options.
    DataOptions options = job->data_options;
    options.stream = Mix(options.stream, 0xF111);
    options.working_set_seed = Mix(options.working_set_seed, 0xF111);  // what it lays out is no part of the job's set
    DataGenerator data;
    data.Prepare(options, buffer, slot_size_, slots);
    for (uint64_t r = 0; r < range_count; ++r) {
      if ((r & 4095) == 0 && plan_.cancel && plan_.cancel->load(std::memory_order_relaxed)) {
        return Aborted("agent " + plan_.agent_name + ": " + job->path + ": setup stopped while filling");
      }
      const auto [begin, end] = range_at(r);
      for (const auto& [hole_begin, hole_end] : plan_.coverage->Holes(job->file, begin, end)) {
        // Holes start and end on slot boundaries: coverage only ever holds whole transfers
        // of this step's layout or of earlier steps, rounded outward here to whole slots.
        uint64_t from = hole_begin / slot_size_ * slot_size_;
        uint64_t to = std::min(end, (hole_end + slot_size_ - 1) / slot_size_ * slot_size_);
        for (uint64_t at = from; at < to;) {
          size_t length = static_cast<size_t>(std::min<uint64_t>(chunk, to - at));
          for (size_t b = 0; b < length; b += slot_size_) {
            uint32_t block = static_cast<uint32_t>(std::min<uint64_t>(slot_size_, length - b));
            data.Stamp(buffer + b, block);
            if (io.verify()) WriteVerifyHeader(buffer + b, block, at + b, plan_.run_token);
          }
          if (plan_.cancel && plan_.cancel->load(std::memory_order_relaxed)) {
            return Aborted("agent " + plan_.agent_name + ": " + job->path + ": setup stopped while filling");
          }
          ssize_t n = pwrite(job->fd.get(), buffer, length, static_cast<off_t>(at));
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0) {
            return PosixError("agent " + plan_.agent_name + ": " + job->path +
                                  ": filling offset " + std::to_string(at), n < 0 ? errno : EIO);
          }
          plan_.coverage->Add(job->file, at, at + static_cast<uint64_t>(n));
          filled_bytes_ += static_cast<uint64_t>(n);
          at += static_cast<uint64_t>(n);
        }
      }
    }
  }
  return Status::Ok();
}

Status IoTask::Prepare() {
  IOFLEET_RETURN_IF_ERROR(OpenJobs());
  IOFLEET_RETURN_IF_ERROR(Preallocate());
  IOFLEET_RETURN_IF_ERROR(FillHoles());
  const v1::IoSpec& io = plan_.io;
  // A buffered random job reads the blocks it asks for, not the kernel's read-ahead around them
  // (fio's default fadvise_hint: POSIX_FADV_RANDOM): else a miss pulls in its neighbours and the
  // file is soon served from memory.
  if (!io.direct() && rules::IsRandom(io.op()) && io.engine() != v1::ENGINE_NULL) {
    for (const auto& job : jobs_) {
      if (const int err = posix_fadvise(job->fd.get(), 0, 0, POSIX_FADV_RANDOM); err != 0) {
        return PosixError("agent " + plan_.agent_name + ": " + job->path + ": posix_fadvise(POSIX_FADV_RANDOM)", err);
      }
    }
  }
  if (io.invalidate() && !io.direct() && io.engine() != v1::ENGINE_NULL) {
    for (const auto& job : jobs_) {
      // Dirty pages cannot be dropped: written back first (untimed, as the rest of setup).
      const int err = fdatasync(job->fd.get()) != 0 ? errno : posix_fadvise(job->fd.get(), 0, 0, POSIX_FADV_DONTNEED);
      if (err != 0) return PosixError("agent " + plan_.agent_name + ": " + job->path + ": invalidate (drop from the page cache)", err);
    }
  }
  if (!io.direct() && rules::Reads(io.op()) && io.engine() != v1::ENGINE_NULL) {  // reads the page cache can serve
    std::vector<FileRange> ranges;
    for (const auto& job : jobs_) ranges.push_back(SequenceRange(job->fd.get(), job->plan.sequence));
    cache_ = MeasureResidency(ranges);
  }
  return Status::Ok();
}

IoTask::~IoTask() { JoinThreads(); }

std::optional<uint32_t> IoTask::Launch(StartGate& gate) {
  gate_ = &gate;
  gate.AlsoStop(stop_);
  for (auto& job : jobs_) threads_.emplace_back([this, j = job.get(), &gate] { RunJob(*j, gate); });
  return static_cast<uint32_t>(jobs_.size());
}

void IoTask::JoinThreads() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void IoTask::RunJob(Job& job, StartGate& gate) {
  pthread_setname_np(pthread_self(), kJobThreadName);  // top -H, bench/scrape-cost
  job.stats.tid.store(static_cast<int32_t>(gettid()), std::memory_order_relaxed);
  uint64_t flow_issued = 0;
  bool finished = false;
  if (gate.Wait()) {  // false: stopped before the start (aborted, or a job_end), no I/O at all
    // A start_delay: the job begins (and its ramp, runtime and deadline count) that much later,
    // unless the step is stopped meanwhile.
    const uint64_t start_ns = gate.start_ns() + plan_.io.start_delay();
    if (cutter_ && &job == jobs_.front().get()) cutter_->Opened(start_ns + plan_.io.ramp());
    for (uint64_t now = MonotonicNs(); now < start_ns && !stop_.load(std::memory_order_relaxed); now = MonotonicNs()) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<uint64_t>(start_ns - now, 20'000'000)));
    }
    if (!stop_.load(std::memory_order_relaxed)) {
      IoWorker worker(job.plan, *job.engine, job.stats, job.requests, job.completions, job.buffers,
                      rules::Writes(plan_.io.op()) ? &job.data : nullptr);
      worker.Run(start_ns, stop_);
      flow_issued = worker.flow_issued();
      finished = !stop_.load(std::memory_order_relaxed);
      if (finished) EndOthers(gate);  // it finished its share
    }
  }
  job.stopped = !finished;  // stopped while it ran, or before it began
  // Ended, or never began: the flow's other jobs no longer wait for this one.
  if (job.plan.flow) job.plan.flow->Leave(flow_issued, job.plan.flow_weight);
  job.stats.tid.store(0, std::memory_order_relaxed);
  gate.Returned();
}

void IoTask::EndOthers(StartGate& gate) {
  const v1::JobEnd end = plan_.io.job_end();
  if (end != v1::JOB_END_STREAM && end != v1::JOB_END_STEP) return;
  ended_others_.store(true, std::memory_order_relaxed);
  if (end == v1::JOB_END_STEP) {
    gate.EndStep();
  } else {
    uint64_t none = 0;
    stream_ended_ns_.compare_exchange_strong(none, MonotonicNs(), std::memory_order_relaxed);
    stop_.store(true, std::memory_order_relaxed);
  }
}

Status IoTask::OrderCut(uint32_t cut, uint64_t at_ns, const v1::CutWindowRequest& load) {
  if (!cutter_) return FailedPrecondition("agent " + plan_.agent_name + ": the step is not cut into windows (no target_latency, curve or steady)");
  Status ordered = cutter_->Order(cut, at_ns, MonotonicNs(), load);
  if (!ordered.ok()) return Status(ordered.code(), "agent " + plan_.agent_name + ": " + ordered.message());
  return ordered;
}

std::optional<v1::WindowResult> IoTask::TakeWindow() {
  if (!cutter_) return std::nullopt;
  return cutter_->Take();
}

Status IoTask::Run(const std::atomic<bool>&) {
  return Status(Code::kInternal, "agent " + plan_.agent_name + ": an io step runs on its jobs' threads");
}

v1::Progress IoTask::Progress() const {
  v1::Progress p;
  uint64_t ops = 0, bytes = 0, errors = 0, expected_ops = 0, ramp_ops = 0, ramp_bytes = 0;
  for (const auto& job : jobs_) {
    const JobStats& s = job->stats;
    ops += s.read.ops.load(std::memory_order_relaxed) + s.write.ops.load(std::memory_order_relaxed);
    bytes += s.read.bytes.load(std::memory_order_relaxed) + s.write.bytes.load(std::memory_order_relaxed);
    ramp_ops += s.read.ramp_ops.load(std::memory_order_relaxed) + s.write.ramp_ops.load(std::memory_order_relaxed);
    ramp_bytes += s.read.ramp_bytes.load(std::memory_order_relaxed) + s.write.ramp_bytes.load(std::memory_order_relaxed);
    p.mutable_read()->set_ops(p.read().ops() + s.read.ops.load(std::memory_order_relaxed));
    p.mutable_read()->set_bytes(p.read().bytes() + s.read.bytes.load(std::memory_order_relaxed));
    p.mutable_write()->set_ops(p.write().ops() + s.write.ops.load(std::memory_order_relaxed));
    p.mutable_write()->set_bytes(p.write().bytes() + s.write.bytes.load(std::memory_order_relaxed));
    errors += s.ErrorCount();
    expected_ops += job->plan.sequence.slots;  // one I/O per slot, one pass
  }
  p.set_ops(ops);
  p.set_bytes(bytes);
  p.set_errors(errors);
  p.set_ramp_ops(ramp_ops);
  p.set_ramp_bytes(ramp_bytes);
  if (plan_.io.runtime() == 0) p.set_expected_ops(expected_ops);
  return p;
}

// Adds into `out`: the step's other io tasks may have added theirs.
void IoTask::Sample(StepSample& out) const {
  const v1::IoSpec& io = plan_.io;
  out.engine = EngineName(io.engine());
  // Each direction's counters, read once: a scrape racing the writers sees each value at
  // some instant, and every value only grows.
  auto sample_op = [](const OpCounters& c, IoSample& into) {
    const uint64_t reaped = c.reaped.load(std::memory_order_relaxed);  // before submitted
    const uint64_t submitted = c.submitted.load(std::memory_order_relaxed);
    into.inflight += submitted > reaped ? submitted - reaped : 0;
    into.ops += c.ops.load(std::memory_order_relaxed);
    into.bytes += c.bytes.load(std::memory_order_relaxed);
    for (int e = 0; e < kErrnoSlots; ++e) {
      if (uint64_t n = c.errors[e].load(std::memory_order_relaxed)) into.errors[ErrorReasonOf(e)] += n;
    }
    AddFolded(into.latency, Fold(c.latency));
  };
  const bool reads = rules::Reads(io.op()), writes = rules::Writes(io.op());
  if (reads && !out.read) out.read.emplace();
  if (writes && !out.write) out.write.emplace();
  for (const auto& job : jobs_) {
    if (reads) sample_op(job->stats.read, *out.read);
    if (writes) {
      sample_op(job->stats.write, *out.write);
      out.write->fsyncs += job->stats.fsyncs.load(std::memory_order_relaxed);
    }
  }
}

std::optional<JobsCpuTime> IoTask::JobsCpu() const {
  JobsCpuTime t;
  for (const auto& job : jobs_) {
    t.user_ns += job->stats.cpu_user_ns;
    t.sys_ns += job->stats.cpu_sys_ns;
    t.busiest_ns = std::max(t.busiest_ns, job->stats.cpu_user_ns + job->stats.cpu_sys_ns);
  }
  return t;
}

void IoTask::JobThreadIds(std::vector<int>& out) const {
  for (const auto& job : jobs_) {
    if (int tid = job->stats.tid.load(std::memory_order_relaxed)) out.push_back(tid);
  }
}

void IoTask::MergeLatency(LatencyHistogram& read, LatencyHistogram& write) const {
  for (const auto& job : jobs_) {
    read.Add(job->stats.read.latency);
    write.Add(job->stats.write.latency);
  }
}

Status IoTask::JobError(const Job& job) const {
  if (job.stats.below_rate_min) {
    const v1::RateSpec& rate = plan_.io.rate();
    // The measured figures as a reader takes them in (the minimum keeps the workload's spelling).
    const auto shown = [](const char* format, double value) {
      char text[48];
      std::snprintf(text, sizeof(text), format, value);
      return std::string(text);
    };
    const auto seconds = [&](uint64_t ns) { return shown("%.3fs", static_cast<double>(ns) / 1e9); };
    const std::string achieved = rate.min_iops() ? shown("%.1f IOPS", job.stats.rate_min_achieved)
                                                 : shown("%.2fMiB/s", job.stats.rate_min_achieved / 1048576);
    const std::string floor = rate.min_iops() ? "rate.min_iops " + std::to_string(rate.min_iops())
                                              : "rate.min_bytes_per_sec " + FormatSize(rate.min_bytes_per_sec()) + "/s";
    return Status(Code::kFailedPrecondition,
                  "agent " + plan_.agent_name + ": " + job.path + ": the job did " + achieved + " from " +
                      seconds(job.stats.rate_min_cycle_from_ns) + " to " + seconds(job.stats.rate_min_cycle_to_ns) +
                      " of its window, under " + floor + " (fio's ratemin): the step stops here");
  }
  std::string where = "agent " + plan_.agent_name + ": " + job.path + ": offset " +
                      std::to_string(job.stats.error_offset);
  if (job.stats.verify_failure) {
    auto failure = static_cast<VerifyFailure>(job.stats.verify_failure);
    return Status(Code::kDataLoss, where + ": verify failed: " + VerifyFailureName(failure) + " (found " +
                                       std::to_string(job.stats.verify_found) + ", expected " +
                                       std::to_string(job.stats.verify_expected) + ")");
  }
  return PosixError(where, job.stats.error);
}

// What the step wrote, replayed from each job's deterministic sequence.
void IoTask::RecordCoverage() {
  if (!rules::Writes(plan_.io.op()) || plan_.io.engine() == v1::ENGINE_NULL) return;  // peer reads never write
  for (const auto& job : jobs_) {
    // A job that counted errors (continue_on_error) may not have written what its sequence
    // says: nothing of it counts as written, so a later read fills it first.
    if (job->stats.error != 0 || job->stats.ErrorCount() > 0) continue;
    const SequenceSpec& seq = job->plan.sequence;
    const bool writes_only = seq.read_pct == 0;
    if (writes_only && job->stats.passes > 0 && seq.stride == 1) {
      plan_.coverage->Add(job->file, seq.base, seq.base + seq.slots * seq.slot_size);
      continue;
    }
    IoSequence replay(seq);
    IoChoice choice;
    for (uint64_t i = 0; i < job->stats.issued; ++i) {
      while (!replay.Next(choice)) replay.NextPass();
      if (choice.dir == IoDir::kWrite) plan_.coverage->Add(job->file, choice.offset, choice.offset + choice.length);
    }
  }
}

// The jobs' counters, final: their threads have returned. The window opens `ramp` after the
// release; a time-based window is its runtime, stretched only by a final flush that ended later;
// a size-based step's window ends at its last completion.
Result<v1::StepResult> IoTask::Finish(const StepTiming& timing) {
  RecordCoverage();
  for (const auto& job : jobs_) {
    if (job->stats.error != 0 || job->stats.verify_failure != 0 || job->stats.below_rate_min) return JobError(*job);
  }

  const v1::IoSpec& io = plan_.io;
  const uint64_t window_start_ns = timing.start_ns + io.start_delay() + io.ramp();
  const bool rate_limited = io.rate().bytes_per_sec() > 0 || io.rate().iops() > 0;
  auto read_latency = std::make_unique<LatencyHistogram>();  // 30 KiB each: not on the stack
  auto write_latency = std::make_unique<LatencyHistogram>();
  auto read_scheduled = std::make_unique<LatencyHistogram>();
  auto write_scheduled = std::make_unique<LatencyHistogram>();
  auto all_latency = std::make_unique<LatencyHistogram>();
  auto fsync_latency = std::make_unique<LatencyHistogram>();
  v1::StepResult result;
  uint64_t last = window_start_ns, passes = UINT64_MAX, fsyncs = 0, first_issue = UINT64_MAX;
  std::array<uint64_t, JobStats::kErrnoSlots> errors{};
  // Not asked to stop, but stopped: a job's job_end (its stream's, or one of the step's) ended
  // this task's jobs at the first such instant.
  uint64_t ended_ns = 0;
  if (!timing.stopped) {
    for (uint64_t at : {stream_ended_ns_.load(std::memory_order_relaxed), gate_ ? gate_->ended_ns() : 0}) {
      if (at && (!ended_ns || at < ended_ns)) ended_ns = at;
    }
  }
  for (const auto& job : jobs_) {
    const JobStats& s = job->stats;
    auto add = [&](v1::OpStats* out, const OpCounters& c) {
      out->set_ops(out->ops() + c.ops.load());
      out->set_bytes(out->bytes() + c.bytes.load());
    };
    add(result.mutable_read(), s.read);
    add(result.mutable_write(), s.write);
    read_latency->Add(s.read.latency);
    write_latency->Add(s.write.latency);
    read_scheduled->Add(s.read.scheduled);
    write_scheduled->Add(s.write.scheduled);
    fsync_latency->Add(s.fsync_latency);
    fsyncs += s.fsyncs.load();
    last = std::max(last, s.last_completion_ns.load());
    if (job->stopped && ended_ns) last = std::max(last, ended_ns);  // ended by a job's job_end: it ran until then
    if (s.first_issue_ns) first_issue = std::min(first_issue, s.first_issue_ns);  // 0: stopped before its start_delay ended
    passes = std::min(passes, s.passes);
    for (int e = 0; e < JobStats::kErrnoSlots; ++e) errors[e] += s.read.errors[e].load() + s.write.errors[e].load();
  }
  all_latency->Add(*read_latency);
  all_latency->Add(*write_latency);
  wire::ToProto(*read_latency, result.mutable_read()->mutable_latency_ns());
  wire::ToProto(*write_latency, result.mutable_write()->mutable_latency_ns());
  if (rate_limited) {
    wire::ToProto(*read_scheduled, result.mutable_read()->mutable_scheduled_latency_ns());
    wire::ToProto(*write_scheduled, result.mutable_write()->mutable_scheduled_latency_ns());
  }
  wire::ToProto(*all_latency, result.mutable_latency_ns());
  wire::ToProto(*fsync_latency, result.mutable_fsync_latency_ns());
  result.set_ops(result.read().ops() + result.write().ops());
  result.set_bytes(result.read().bytes() + result.write().bytes());
  result.set_fsyncs(fsyncs);
  uint64_t window = last - window_start_ns;
  if (io.runtime() > 0 && !timing.stopped) window = std::max<uint64_t>(io.runtime(), window);
  result.set_window_ns(window);
  result.set_passes(jobs_.empty() ? 0 : passes);
  result.set_filled_bytes(filled_bytes_);
  result.set_rate_limited(rate_limited);
  result.set_stopped_early(timing.stopped);
  result.set_ended_others(ended_others_.load(std::memory_order_relaxed));
  if (first_issue != UINT64_MAX && first_issue >= timing.start_ns) {
    result.set_started_at_unix_ns(timing.start_unix_ns + (first_issue - timing.start_ns));
  }
  for (int e = 0; e < JobStats::kErrnoSlots; ++e) {
    if (!errors[e]) continue;
    v1::ErrorCount* count = result.add_errors();
    count->set_kind(e == JobStats::kVerifySlot ? "verify" : ErrnoName(e));
    count->set_count(errors[e]);
  }
  ReportTaskCpu(*JobsCpu(), timing.cpu_at_start, timing.cpu_at_end, window, *result.mutable_cpu());
  if (cache_) ReportResidency(*cache_, result);
  IOFLEET_RETURN_IF_ERROR(Unlink());
  return result;
}

}  // namespace iofleet::agent
