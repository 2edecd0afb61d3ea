#include "core/rules/defaults.h"

#include <algorithm>

#include "core/rules/non_io_steps.h"
#include "core/rules/step_tree.h"

namespace iofleet::rules {

v1::IoSpec BuiltinIoDefaults() {
  v1::IoSpec io;
  io.set_engine(v1::ENGINE_LIBAIO);
  io.set_direct(true);
  io.set_block_size(1ull << 20);
  io.set_queue_depth(1);
  io.set_jobs(1);
  io.set_file_size(1ull << 30);
  io.set_runtime(0);
  io.set_ramp(0);
  io.set_read_pct(50);
  io.set_file_layout(v1::FILE_LAYOUT_PER_JOB);
  io.set_shared_mode(v1::SHARED_MODE_REGIONS);
  io.set_verify(false);
  io.set_continue_on_error(false);
  io.set_deadline(0);
  io.mutable_data()->set_compressible_pct(0);
  io.mutable_data()->set_dedupe_pct(0);
  io.mutable_fsync()->set_every(0);
  io.mutable_fsync()->set_at_end(true);
  io.mutable_fsync()->set_data_only(false);
  io.mutable_uring()->set_fixed_buffers(false);
  io.mutable_uring()->set_registered_files(false);
  io.set_stonewall(v1::STONEWALL_NONE);
  io.set_read_from(v1::READ_FROM_SELF);
  io.set_submit_batch(1);
  io.set_complete_batch(1);
  io.set_file_prefix(std::string(kDefaultFilePrefix));
  io.set_random(v1::RANDOM_ORDER_PERMUTATION);
  io.set_loops(1);
  io.set_skip(0);
  io.set_backward(false);
  io.set_preallocate(false);
  io.set_unlink(false);
  io.set_job_end(v1::JOB_END_JOB);
  return io;
}

namespace {

// Two fields that say one thing two ways: a level that sets either replaces both below it.
constexpr std::pair<int, int> kAlternatives[] = {
    {v1::IoSpec::kJobsFieldNumber, v1::IoSpec::kTotalJobsFieldNumber},
    {v1::IoSpec::kFileSizeFieldNumber, v1::IoSpec::kTotalSizeFieldNumber},
};

}  // namespace

std::vector<int> FieldsReplacing(int field) {
  for (const auto& [a, b] : kAlternatives) {
    if (field == a) return {a, b};
    if (field == b) return {b, a};
  }
  return {field};
}

void Overlay(v1::IoSpec& base, const v1::IoSpec& over) {
  const auto* refl = v1::IoSpec::GetReflection();
  const auto* desc = v1::IoSpec::descriptor();
  for (const auto& [a, b] : kAlternatives) {
    if (refl->HasField(over, desc->FindFieldByNumber(a))) refl->ClearField(&base, desc->FindFieldByNumber(b));
    if (refl->HasField(over, desc->FindFieldByNumber(b))) refl->ClearField(&base, desc->FindFieldByNumber(a));
  }
  if (over.rate().has_bytes_per_sec()) base.mutable_rate()->clear_iops();
  if (over.rate().has_iops()) base.mutable_rate()->clear_bytes_per_sec();
  if (over.rate().has_min_bytes_per_sec()) base.mutable_rate()->clear_min_iops();
  if (over.rate().has_min_iops()) base.mutable_rate()->clear_min_bytes_per_sec();
  if (over.block_size_split_size() > 0) base.clear_block_size_split();
  base.MergeFrom(over);  // proto3 optional: only fields that are set overwrite
}

bool IsStepLevelField(int field) {
  return field == v1::IoSpec::kRuntimeFieldNumber || field == v1::IoSpec::kRampFieldNumber ||
         field == v1::IoSpec::kDeadlineFieldNumber || field == v1::IoSpec::kStonewallFieldNumber;
}

std::vector<const v1::IoSpec*> StreamsOf(const v1::IoSpec& io) {
  std::vector<const v1::IoSpec*> out;
  for (const v1::IoSpec& stream : io.streams()) out.push_back(&stream);
  if (out.empty()) out.push_back(&io);
  return out;
}

uint64_t JobsOf(const v1::IoSpec& io) {
  uint64_t jobs = 0;
  for (const v1::IoSpec* stream : StreamsOf(io)) jobs += stream->jobs();
  return jobs;
}

void KeepStepLevel(v1::IoSpec& io) {
  v1::IoSpec kept;
  if (io.has_runtime()) kept.set_runtime(io.runtime());
  if (io.has_ramp()) kept.set_ramp(io.ramp());
  if (io.has_deadline()) kept.set_deadline(io.deadline());
  if (io.has_stonewall()) kept.set_stonewall(io.stonewall());
  // How the controller cuts the step into windows; each stream holds a copy, so that its jobs
  // are cut too (agent/run/step_runner.h).
  if (io.has_target_latency()) *kept.mutable_target_latency() = io.target_latency();
  if (io.has_curve()) *kept.mutable_curve() = io.curve();
  if (io.has_steady()) *kept.mutable_steady() = io.steady();
  *kept.mutable_streams() = std::move(*io.mutable_streams());
  io = std::move(kept);
}

bool IsCutStep(const v1::IoSpec& io) { return io.has_target_latency() || io.has_curve() || io.has_steady(); }

uint64_t SteadyWindowNs(const v1::SteadyState& s) { return s.has_window() ? s.window() : 30'000'000'000; }

uint64_t SteadyIntervalNs(const v1::SteadyState& s) {
  return s.has_interval() ? s.interval() : std::max<uint64_t>(SteadyWindowNs(s) / 10, 500'000'000);
}

std::vector<uint32_t> CurveLevels(const v1::LoadCurve& c) {
  if (c.levels_pct_size() == 0) return {10, 30, 50, 70, 80, 90, 100};
  return {c.levels_pct().begin(), c.levels_pct().end()};
}

// Each window with its settling and its lead (a cut is ordered ahead), and the first settling.
static void CutWindows(const v1::IoSpec& io, uint64_t& windows, uint64_t& settle, uint64_t& probe) {
  if (io.has_target_latency()) {
    const v1::TargetLatency& t = io.target_latency();
    windows = t.has_max_probes() ? t.max_probes() : 12;
    settle = t.has_settle() ? t.settle() : 1'000'000'000;
    probe = t.has_probe() ? t.probe() : 10'000'000'000;
  } else {
    const v1::LoadCurve& c = io.curve();
    windows = CurveLevels(c).size() + 1;
    settle = c.has_settle() ? c.settle() : 1'000'000'000;
    probe = c.has_probe() ? c.probe() : 10'000'000'000;
  }
}

uint64_t CutStepRuntimeNs(const v1::IoSpec& io) {
  if (io.has_steady()) return (io.steady().has_timeout() ? io.steady().timeout() : 600'000'000'000) + 3'000'000'000;
  uint64_t windows = 0, settle = 0, probe = 0;
  CutWindows(io, windows, settle, probe);
  return windows * (settle + probe + 3'000'000'000) + settle;
}

uint64_t CutStepLeastRuntimeNs(const v1::IoSpec& io) {
  if (io.has_steady()) return SteadyWindowNs(io.steady());
  uint64_t windows = 0, settle = 0, probe = 0;
  CutWindows(io, windows, settle, probe);
  return std::min<uint64_t>(windows, 3) * (settle + probe);
}

v1::IoSpec ResolveIo(const v1::Workload& workload, int index) { return ResolveStepIo(workload, workload.steps(index)); }

v1::IoSpec ResolveStepIo(const v1::Workload& workload, const v1::Step& step) {
  v1::IoSpec io = BuiltinIoDefaults();
  v1::IoSpec defaults = workload.defaults();
  defaults.clear_streams();  // only a step holds streams (refused in defaults)
  defaults.clear_name();
  Overlay(io, defaults);
  v1::IoSpec own = step.io();
  own.clear_streams();
  Overlay(io, own);
  if (IsCutStep(io) && io.runtime() == 0) io.set_runtime(CutStepRuntimeNs(io));
  if (step.io().streams_size() == 0) return io;
  const v1::IoSpec step_fields = io;
  for (const v1::IoSpec& written : step.io().streams()) {
    v1::IoSpec& stream = *io.add_streams();
    stream = step_fields;
    v1::IoSpec over = written;
    over.clear_streams();  // streams do not nest (refused)
    const auto* desc = v1::IoSpec::descriptor();
    for (int f = 0; f < desc->field_count(); ++f) {
      // The step's window is every stream's: a stream's own value is refused, never used.
      if (IsStepLevelField(desc->field(f)->number())) over.GetReflection()->ClearField(&over, desc->field(f));
    }
    Overlay(stream, over);
  }
  return io;
}

bool Reads(v1::Op op) {
  return op == v1::OP_READ || op == v1::OP_RANDREAD || op == v1::OP_READWRITE || op == v1::OP_RANDRW;
}
bool Writes(v1::Op op) {
  return op == v1::OP_WRITE || op == v1::OP_RANDWRITE || op == v1::OP_READWRITE || op == v1::OP_RANDRW;
}
bool IsRandom(v1::Op op) {
  return op == v1::OP_RANDREAD || op == v1::OP_RANDWRITE || op == v1::OP_RANDRW;
}

uint64_t MaxBlockSize(const v1::IoSpec& io) {
  uint64_t max = 0;
  for (const auto& split : io.block_size_split()) max = std::max(max, split.size());
  return max ? max : io.block_size();
}

std::string JobFileName(const v1::IoSpec& io, uint32_t job) {
  const std::string prefix = io.file_prefix().empty() ? std::string(kDefaultFilePrefix) : io.file_prefix();
  if (io.file_layout() == v1::FILE_LAYOUT_PER_JOB) return prefix + "-" + std::to_string(job) + ".dat";
  return prefix == kDefaultFilePrefix ? "shared.dat" : prefix + "-shared.dat";
}

uint64_t JobRangeBytes(const v1::IoSpec& io, uint32_t global_jobs) {
  uint64_t slot = MaxBlockSize(io);
  const bool whole = io.shared_mode() == v1::SHARED_MODE_WHOLE && io.file_layout() != v1::FILE_LAYOUT_PER_JOB;
  uint64_t range = whole                                               ? io.file_size()
                   : io.file_layout() == v1::FILE_LAYOUT_SHARED          ? io.file_size() / std::max(1u, io.jobs())
                   : io.file_layout() == v1::FILE_LAYOUT_SHARED_GLOBAL ? io.file_size() / std::max(1u, global_jobs)
                                                                       : io.file_size();
  return slot ? range / slot * slot : 0;
}

Result<v1::IoSpec> PlanIo(const v1::IoSpec& resolved, uint64_t total_jobs) {
  v1::IoSpec io = resolved;
  if (!io.has_total_size()) return io;
  uint64_t slot = MaxBlockSize(io);
  uint64_t per_job = io.total_size() / std::max<uint64_t>(total_jobs, 1) / slot * slot;
  if (per_job < slot) {
    return InvalidArgument("total_size " + std::to_string(io.total_size()) + " bytes over " +
                           std::to_string(total_jobs) + " jobs leaves less than one block per job");
  }
  io.clear_total_size();
  // shared_mode whole: every job passes over the whole file, so the file is one job's share.
  const bool whole = io.shared_mode() == v1::SHARED_MODE_WHOLE;
  io.set_file_size(whole                                               ? per_job
                   : io.file_layout() == v1::FILE_LAYOUT_SHARED          ? per_job * io.jobs()
                   : io.file_layout() == v1::FILE_LAYOUT_SHARED_GLOBAL ? per_job * total_jobs
                                                                       : per_job);
  return io;
}

std::string StepKind(const v1::Step& step) {
  switch (step.kind_case()) {
    case v1::Step::kIo: return "io";
    case v1::Step::kSleep: return "sleep";
    case v1::Step::kSync: return "sync";
    case v1::Step::kDropCaches: return "drop_caches";
    case v1::Step::kFiles: return "files";
    case v1::Step::kCopy: return "copy";
    case v1::Step::kReadahead: return "readahead";
    case v1::Step::kHook: return "hook";
    case v1::Step::kGroup: return "group";
    case v1::Step::KIND_NOT_SET: break;
  }
  return "step";
}

std::string StepName(const v1::Workload& workload, int index) {
  const v1::Step& step = workload.steps(index);
  if (!step.name().empty()) return step.name();
  return StepKind(step) + "-" + std::to_string(index);
}

namespace {

bool Mixed(const v1::IoSpec& io) { return io.op() == v1::OP_READWRITE || io.op() == v1::OP_RANDRW; }
bool NonUniform(const v1::IoSpec& io) {
  return io.has_distribution() && io.distribution() != "uniform" && io.distribution() != "random";
}
bool Shared(const v1::IoSpec& io) {
  return io.file_layout() == v1::FILE_LAYOUT_SHARED || io.file_layout() == v1::FILE_LAYOUT_SHARED_GLOBAL;
}
bool Batches(const v1::IoSpec& io) {
  return io.engine() != v1::ENGINE_PSYNC && io.submit_batch() <= io.queue_depth() && io.complete_batch() <= io.queue_depth();
}

// When each field of IoSpec has no effect, and why: the one table validation, the planning pass
// (NeutralizeInapplicable), the agent's re-check (planned_check.cc) and the fio import read.
// Keyed by field number, so a rule for a field that does not exist does not compile. A field
// may have several rules; the first that holds gives the reason.
struct ApplicabilityRule {
  int field;
  const char* (*why_not)(const v1::IoSpec& io);  // nullptr when the field applies
};
constexpr ApplicabilityRule kApplicability[] = {
    {v1::IoSpec::kInvalidateFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return !io.direct() && io.engine() != v1::ENGINE_NULL ? nullptr : "invalidate applies to buffered I/O (direct: false)";
     }},
    {v1::IoSpec::kDistributionFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return IsRandom(io.op()) ? nullptr : "distribution applies to random ops (randread, randwrite, randrw)";
     }},
    {v1::IoSpec::kRandomFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return IsRandom(io.op()) ? nullptr : "random applies to random ops (randread, randwrite, randrw)";
     }},
    {v1::IoSpec::kRandomFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return !NonUniform(io) ? nullptr : "a distribution other than uniform draws with repeats: random applies to uniform ones";
     }},
    {v1::IoSpec::kReadPctFieldNumber,
     [](const v1::IoSpec& io) -> const char* { return Mixed(io) ? nullptr : "read_pct applies to readwrite and randrw"; }},
    {v1::IoSpec::kSharedModeFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return Shared(io) ? nullptr : "shared_mode applies to file_layout: shared and shared_global";
     }},
    {v1::IoSpec::kUringFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.engine() == v1::ENGINE_IO_URING ? nullptr : "uring options apply to engine: io_uring";
     }},
    {v1::IoSpec::kRampFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.runtime() > 0 ? nullptr : "ramp applies to time-based steps (runtime above 0)";
     }},
    {v1::IoSpec::kDeadlineFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.runtime() == 0 ? nullptr : "deadline applies to size-based steps (runtime 0)";
     }},
    {v1::IoSpec::kStonewallFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.runtime() == 0 ? nullptr : "stonewall applies to size-based steps (runtime 0)";
     }},
    {v1::IoSpec::kSkipFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return !IsRandom(io.op()) ? nullptr : "skip applies to sequential ops (read, write, readwrite)";
     }},
    {v1::IoSpec::kBackwardFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return !IsRandom(io.op()) ? nullptr : "backward applies to sequential ops (read, write, readwrite)";
     }},
    {v1::IoSpec::kSkipFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return !(Shared(io) && io.shared_mode() == v1::SHARED_MODE_STRIDED) ? nullptr
                                                                          : "shared_mode strided spaces each job's blocks already";
     }},
    {v1::IoSpec::kBackwardFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return !(Shared(io) && io.shared_mode() == v1::SHARED_MODE_STRIDED) ? nullptr
                                                                          : "shared_mode strided orders each job's blocks already";
     }},
    {v1::IoSpec::kPreallocateFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return Writes(io.op()) && io.engine() != v1::ENGINE_NULL ? nullptr : "preallocate applies to steps that write files";
     }},
    {v1::IoSpec::kIoSizeFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.runtime() == 0 ? nullptr : "io_size applies to size-based steps (runtime 0): a time-based job runs until its time is up";
     }},
    {v1::IoSpec::kUnlinkFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.engine() == v1::ENGINE_NULL                   ? "the null engine has no files to unlink"
              : io.file_layout() == v1::FILE_LAYOUT_SHARED_GLOBAL ? "unlink applies to an agent's own files (per_job, shared), not to one every agent shares"
              : io.read_from() == v1::READ_FROM_NEXT_AGENT      ? "unlink applies to an agent's own files, not to the next agent's"
                                                                : nullptr;
     }},
    {v1::IoSpec::kLoopsFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.runtime() == 0 ? nullptr : "loops applies to size-based steps (runtime 0): a time-based job wraps until its time is up";
     }},
    {v1::IoSpec::kJobEndFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.runtime() == 0 ? nullptr : "job_end applies to size-based steps (runtime 0): a time-based job runs until its time is up";
     }},
    {v1::IoSpec::kBlockSizeFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.block_size_split_size() == 0 ? nullptr : "block_size_split replaces block_size";
     }},
    {v1::IoSpec::kFsyncFieldNumber,
     [](const v1::IoSpec& io) -> const char* { return Writes(io.op()) ? nullptr : "fsync applies to steps that write"; }},
    {v1::IoSpec::kSubmitBatchFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.engine() != v1::ENGINE_IO_URING
                  ? nullptr
                  : "io_uring hands staged requests to the kernel in the same system call as each wait";
     }},
    {v1::IoSpec::kSubmitBatchFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return Batches(io) ? nullptr : "submit_batch applies to asynchronous engines, up to queue_depth";
     }},
    {v1::IoSpec::kCompleteBatchFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return Batches(io) ? nullptr : "complete_batch applies to asynchronous engines, up to queue_depth";
     }},
    {v1::IoSpec::kQueueDepthFieldNumber,
     [](const v1::IoSpec& io) -> const char* {
       return io.engine() != v1::ENGINE_PSYNC || io.queue_depth() <= 1
                  ? nullptr
                  : "psync is synchronous: queue_depth above 1 needs libaio, io_uring or null";
     }},
};

}  // namespace

std::string Inapplicable(const v1::IoSpec& io, int field) {
  for (const ApplicabilityRule& rule : kApplicability) {
    if (rule.field != field) continue;
    if (const char* why = rule.why_not(io)) return why;
  }
  return "";
}

// A step with streams: each stream's fields are what runs, and the step keeps its step-level
// fields as its streams have them (the same in every stream).
static bool ForStreams(v1::IoSpec& io, void (*each)(v1::IoSpec&)) {
  if (io.streams_size() == 0) return false;
  for (v1::IoSpec& stream : *io.mutable_streams()) each(stream);
  KeepStepLevel(io);
  const v1::IoSpec& first = io.streams(0);
  const auto* desc = v1::IoSpec::descriptor();
  const auto* refl = v1::IoSpec::GetReflection();
  for (int i = 0; i < desc->field_count(); ++i) {
    const auto* field = desc->field(i);
    if (!IsStepLevelField(field->number())) continue;
    refl->ClearField(&io, field);
    if (refl->HasField(first, field)) {
      if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_UINT64) {
        refl->SetUInt64(&io, field, refl->GetUInt64(first, field));
      } else {
        refl->SetEnumValue(&io, field, refl->GetEnumValue(first, field));
      }
    }
  }
  return true;
}

void PruneInapplicable(v1::IoSpec& io) {
  if (ForStreams(io, PruneInapplicable)) return;
  const auto* desc = v1::IoSpec::descriptor();
  const auto* refl = v1::IoSpec::GetReflection();
  v1::IoSpec copy = io;
  for (int i = 0; i < desc->field_count(); ++i) {
    const auto* field = desc->field(i);
    if (!Inapplicable(copy, field->number()).empty()) refl->ClearField(&io, field);
  }
}

void NeutralizeInapplicable(v1::IoSpec& io) {
  if (ForStreams(io, NeutralizeInapplicable)) return;
  const auto* desc = v1::IoSpec::descriptor();
  const auto* refl = v1::IoSpec::GetReflection();
  static const v1::IoSpec neutral = [] {
    v1::IoSpec n = BuiltinIoDefaults();
    n.set_queue_depth(1);
    return n;
  }();
  v1::IoSpec copy = io;
  for (int i = 0; i < desc->field_count(); ++i) {
    const auto* field = desc->field(i);
    if (Inapplicable(copy, field->number()).empty()) continue;
    refl->ClearField(&io, field);
    if (field->is_repeated() || field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE && !field->is_repeated()) {
        io.GetReflection()->MutableMessage(&io, field)->CopyFrom(refl->GetMessage(neutral, field));
      }
      continue;
    }
    // A field without a built-in default (io_size) stays cleared: unset is its neutral value.
    if (!refl->HasField(neutral, field)) continue;
    switch (field->cpp_type()) {
      case google::protobuf::FieldDescriptor::CPPTYPE_UINT32: refl->SetUInt32(&io, field, refl->GetUInt32(neutral, field)); break;
      case google::protobuf::FieldDescriptor::CPPTYPE_UINT64: refl->SetUInt64(&io, field, refl->GetUInt64(neutral, field)); break;
      case google::protobuf::FieldDescriptor::CPPTYPE_BOOL: refl->SetBool(&io, field, refl->GetBool(neutral, field)); break;
      case google::protobuf::FieldDescriptor::CPPTYPE_ENUM: refl->SetEnumValue(&io, field, refl->GetEnumValue(neutral, field)); break;
      default: break;
    }
  }
}

v1::Workload Effective(const v1::Workload& workload) {
  v1::Workload out = workload;
  if (out.target().root().empty()) out.mutable_target()->set_root("default");
  auto fill = [&](v1::Step* step, const std::string& name) {
    step->set_name(name);
    if (step->has_io()) {
      *step->mutable_io() = ResolveStepIo(workload, *step);
      PruneInapplicable(*step->mutable_io());
    }
    if (step->has_files()) *step->mutable_files() = ResolveFiles(step->files());
    if (step->has_copy()) *step->mutable_copy() = ResolveCopy(step->copy());
  };
  for (int i = 0; i < out.steps_size(); ++i) {
    v1::Step* step = out.mutable_steps(i);
    fill(step, StepName(workload, i));
    if (!step->has_group()) continue;
    for (int m = 0; m < step->group().steps_size(); ++m) {
      v1::Step* member = step->mutable_group()->mutable_steps(m);
      fill(member, GroupMemberName(step->name(), *member, m));
    }
  }
  return out;
}

}  // namespace iofleet::rules
