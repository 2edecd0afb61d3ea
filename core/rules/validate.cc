#include "core/rules/validate.h"

#include "core/rules/cut_step_rules.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

#include "core/base/checked.h"
#include "core/base/distribution_spec.h"
#include "core/base/units.h"
#include "core/rules/defaults.h"
#include "core/rules/non_io_steps.h"
#include "core/rules/step_tree.h"

namespace iofleet::rules {
namespace {

// Linux takes file offsets and sizes as off_t (MAX_LFS_FILESIZE); durations are added to clock
// readings in 64 bits.
constexpr uint64_t kMaxFileBytes = std::numeric_limits<int64_t>::max();
constexpr uint64_t kMaxDurationNs = std::numeric_limits<int64_t>::max();

bool MatchesCharset(const std::string& s, bool allow_upper, bool allow_underscore) {
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
              (allow_upper && c >= 'A' && c <= 'Z') || (allow_underscore && c == '_');
    if (!ok) return false;
  }
  return !s.empty();
}

bool HasIoField(const v1::IoSpec& io, const google::protobuf::FieldDescriptor* desc) {
  const auto* refl = v1::IoSpec::GetReflection();
  return desc->is_repeated() ? refl->FieldSize(io, desc) > 0 : refl->HasField(io, desc);
}

// The path of the place a resolved field came from, so an error points at what to edit.
std::string Origin(const v1::Workload& w, const v1::Step& step, const std::string& path, int number) {
  const auto* field = v1::IoSpec::descriptor()->FindFieldByNumber(number);
  std::string step_path = path + ".io";
  if (HasIoField(step.io(), field)) return step_path + "." + field->name();
  if (HasIoField(w.defaults(), field)) return "defaults." + field->name();
  return step_path;
}

// Where a resolved field of stream k came from: the stream, the step, or the defaults.
std::string StreamOrigin(const v1::Workload& w, const v1::Step& step, const std::string& path, int k, int number) {
  const auto* field = v1::IoSpec::descriptor()->FindFieldByNumber(number);
  const std::string stream_path = path + ".io.streams[" + std::to_string(k) + "]";
  if (HasIoField(step.io().streams(k), field)) return stream_path + "." + field->name();
  if (HasIoField(step.io(), field)) return path + ".io." + field->name();
  if (HasIoField(w.defaults(), field)) return "defaults." + field->name();
  return stream_path;
}

// A stream's own rules: a name, no step-level field, no nesting, and the rules of a step.
void ValidateStream(const v1::Workload& w, const v1::Step& step, const v1::IoSpec& resolved, int k, const std::string& path,
                    std::set<std::string>& names, std::vector<Violation>& out) {
  const v1::IoSpec& written = step.io().streams(k);
  const std::string stream_path = path + ".io.streams[" + std::to_string(k) + "]";
  if (!written.has_name()) {
    out.push_back({stream_path, "a stream needs a name ([a-z0-9_-]+, unique in its step)"});
  } else if (!IsStepName(written.name()) || written.name().empty() || written.name().size() > 64) {
    out.push_back({stream_path + ".name", "\"" + written.name() + "\" must match [a-z0-9_-]+ (at most 64 characters)"});
  } else if (!names.insert(written.name()).second) {
    out.push_back({stream_path + ".name", "stream name \"" + written.name() + "\" is used twice in the step"});
  }
  if (written.streams_size() > 0) out.push_back({stream_path + ".streams", "streams do not nest: a stream cannot hold streams"});
  const auto* desc = v1::IoSpec::descriptor();
  for (int f = 0; f < desc->field_count(); ++f) {
    const auto* field = desc->field(f);
    if (IsStepLevelField(field->number()) && HasIoField(written, field)) {
      out.push_back({stream_path + "." + field->name(),
                     "is the step's: every stream runs in the step's window, so set it on the step's io"});
    }
  }
  // Windows are cut for a step as a whole; a stream's own would be run as a plain stream.
  for (const auto& [has, name] : {std::pair{written.has_target_latency(), "target_latency"}, std::pair{written.has_curve(), "curve"},
                                  std::pair{written.has_steady(), "steady"}}) {
    if (has) out.push_back({stream_path + "." + name, "is not supported in a stream yet: give this kind of job a step of its own"});
  }
  ValidateIoLevel(written, stream_path, out);
  const FieldPlace place = [&](int field) { return StreamOrigin(w, step, path, k, field); };
  if (!ValidateResolvedIo(resolved, place, out)) return;
  // Both are planned for a step as a whole (one global file, one peer per step).
  if (resolved.file_layout() == v1::FILE_LAYOUT_SHARED_GLOBAL) {
    out.push_back({place(v1::IoSpec::kFileLayoutFieldNumber), "file_layout: shared_global is not available in a stream"});
  }
  if (resolved.read_from() == v1::READ_FROM_NEXT_AGENT) {
    out.push_back({place(v1::IoSpec::kReadFromFieldNumber), "read_from: next_agent is not available in a stream"});
  }
  for (int f = 0; f < desc->field_count(); ++f) {
    const auto* field = desc->field(f);
    if (!HasIoField(written, field) || IsStepLevelField(field->number())) continue;
    std::string reason = Inapplicable(resolved, field->number());
    if (!reason.empty()) out.push_back({stream_path + "." + field->name(), "has no effect here: " + reason});
  }
}

// A stream that checks what it reads (verify) fails on blocks another stream writes meanwhile:
// two streams whose jobs open the same file (same file_prefix and layout) may not be such a pair.
void CheckVerifiedReads(const v1::IoSpec& io, const std::string& path, std::vector<Violation>& out) {
  for (int a = 0; a < io.streams_size(); ++a) {
    const v1::IoSpec& reader = io.streams(a);
    if (!reader.verify() || !Reads(reader.op())) continue;
    for (int b = 0; b < io.streams_size(); ++b) {
      const v1::IoSpec& writer = io.streams(b);
      if (b == a || !Writes(writer.op()) || JobFileName(reader, 0) != JobFileName(writer, 0)) continue;
      out.push_back({path + ".io.streams[" + std::to_string(a) + "].verify",
                     "stream " + reader.name() + " verifies what it reads from " + JobFileName(reader, 0) + ", which stream " +
                         writer.name() + " writes at the same time: give one of them a file_prefix of its own"});
    }
  }
}

// A step with streams: each stream by the rules of a step, and the step's own per-job fields
// (every stream's defaults) only where some stream uses them.
void ValidateStreamStep(const v1::Workload& w, const v1::Step& step, const v1::IoSpec& io, const std::string& path,
                        std::vector<Violation>& out) {
  const std::string step_path = path + ".io";
  if (step.io().streams_size() > kMaxStreams) {
    out.push_back({step_path + ".streams", std::to_string(step.io().streams_size()) + " streams: at most " +
                                               std::to_string(kMaxStreams) + " in a step"});
    return;
  }
  std::set<std::string> names;
  for (int k = 0; k < step.io().streams_size(); ++k) ValidateStream(w, step, io.streams(k), k, path, names, out);
  const auto* desc = v1::IoSpec::descriptor();
  for (int f = 0; f < desc->field_count(); ++f) {
    const auto* field = desc->field(f);
    if (!HasIoField(step.io(), field) || field->number() == v1::IoSpec::kStreamsFieldNumber) continue;
    const bool step_level = IsStepLevelField(field->number());
    std::string reason;
    bool used = false;
    for (int k = 0; k < io.streams_size() && !used; ++k) {
      if (!step_level && HasIoField(step.io().streams(k), field)) {
        reason = "every stream sets its own";
        continue;
      }
      std::string why = Inapplicable(io.streams(k), field->number());
      if (why.empty()) used = true;
      else reason = why;
    }
    if (!used) out.push_back({step_path + "." + field->name(), "has no effect on any stream: " + reason});
  }
  CheckVerifiedReads(io, path, out);
}

// A rate's parts that only mean something beside another, and a minimum no job could meet.
void CheckRate(const v1::RateSpec& rate, const std::string& at, std::vector<Violation>& out) {
  const bool capped = rate.bytes_per_sec() > 0 || rate.iops() > 0;
  const bool floored = rate.min_bytes_per_sec() > 0 || rate.min_iops() > 0;
  if (rate.has_process() && rate.process() != v1::RATE_PROCESS_UNSPECIFIED && !capped) {
    out.push_back({at + ".process", "spaces a rate's requests: set rate.bytes_per_sec or rate.iops as well"});
  }
  if (rate.has_cycle() && !floored) {
    out.push_back({at + ".cycle", "is the span a minimum rate is checked over: set rate.min_bytes_per_sec or rate.min_iops as well"});
  }
  if (rate.bytes_per_sec() > 0 && rate.min_bytes_per_sec() > rate.bytes_per_sec()) {
    out.push_back({at + ".min_bytes_per_sec", FormatSize(rate.min_bytes_per_sec()) + "/s is above the cap rate.bytes_per_sec " +
                                                  FormatSize(rate.bytes_per_sec()) + "/s: every job would fall under it"});
  }
  if (rate.iops() > 0 && rate.min_iops() > rate.iops()) {
    out.push_back({at + ".min_iops", std::to_string(rate.min_iops()) + " is above the cap rate.iops " +
                                         std::to_string(rate.iops()) + ": every job would fall under it"});
  }
}

void CheckThink(const v1::ThinkSpec& think, const std::string& at, std::vector<Violation>& out) {
  if (think.time() == 0 && (think.has_blocks() || think.spin() > 0)) {
    out.push_back({at, "think.blocks and think.spin shape a pause: set think.time as well"});
  }
  if (think.spin() > think.time() && think.time() > 0) {
    out.push_back({at + ".spin", FormatDuration(think.spin()) + " is longer than think.time " + FormatDuration(think.time()) +
                                     ": the spin is part of the pause"});
  }
}

void CheckFlow(const v1::FlowSpec& flow, const std::string& at, std::vector<Violation>& out) {
  if (!flow.has_weight() && (flow.has_id() || flow.has_sleep())) {
    out.push_back({at, "flow.id and flow.sleep belong to a job in a flow: set flow.weight as well"});
  }
}

// offset and offset_increment: on block boundaries (the fill and the coverage of what was written
// go by whole blocks), and the last job's range within the largest file offset.
void CheckOffsets(const v1::IoSpec& io, uint64_t slot, uint64_t jobs, const FieldPlace& place, std::vector<Violation>& out) {
  if (io.offset() == 0 && io.offset_increment() == 0) return;
  bool aligned = true;
  for (const auto& [value, field] : {std::pair{io.offset(), v1::IoSpec::kOffsetFieldNumber}, {io.offset_increment(), v1::IoSpec::kOffsetIncrementFieldNumber}}) {
    if (slot > 0 && value % slot != 0) {
      out.push_back({place(field), FormatSize(value) + " is not a multiple of the block size " + FormatSize(slot)});
      aligned = false;
    }
  }
  if (!aligned) return;
  auto steps = CheckedMul(io.offset_increment(), jobs > 0 ? jobs - 1 : 0, "offset_increment x jobs");
  auto last = steps.ok() ? CheckedAdd(io.offset(), *steps, "offset + offset_increment x jobs") : steps;
  auto end = last.ok() ? CheckedAdd(*last, io.file_size(), "the last job's range") : last;
  if (!end.ok() || *end > kMaxFileBytes) {
    out.push_back({place(io.offset_increment() ? v1::IoSpec::kOffsetIncrementFieldNumber : v1::IoSpec::kOffsetFieldNumber),
                   "the last job's range would end beyond the largest file offset (8 EiB - 1)"});
  }
}

void CheckDedupe(const v1::DataSpec& data, const std::string& at, std::vector<Violation>& out) {
  if (data.has_dedupe_working_set_pct() && data.dedupe_pct() == 0) {
    out.push_back({at + ".dedupe_working_set_pct", "the working set of the repeats has none to serve: set data.dedupe_pct as well"});
  }
  // The set's chunks are written once as unique ones: with more repeats than the rest of the
  // range holds the share asked cannot be reached (fio refuses the same).
  if (data.has_dedupe_working_set_pct() && data.dedupe_pct() > 0 && data.dedupe_working_set_pct() + data.dedupe_pct() > 100) {
    out.push_back({at + ".dedupe_working_set_pct", std::to_string(data.dedupe_working_set_pct()) + "% of the range is the working set's unique "
                                                   "chunks: dedupe_pct " + std::to_string(data.dedupe_pct()) +
                                                   " cannot be reached (the two add up to at most 100)"});
  }
  if (data.dedupe_global() && !data.has_dedupe_working_set_pct()) {
    out.push_back({at + ".dedupe_global", "shares a working set among the jobs: set data.dedupe_working_set_pct as well"});
  }
}

void ValidateIoStep(const v1::Workload& w, const v1::Step& step, const std::string& path, std::vector<Violation>& out) {
  v1::IoSpec io = ResolveStepIo(w, step);
  std::string step_path = path + ".io";
  ValidateIoLevel(step.io(), step_path, out);
  if (IsCutStep(io)) {
    CheckCutStep(
        io, [&](int field) { return Origin(w, step, path, field); },
        [&](int k, int field) { return StreamOrigin(w, step, path, k, field); }, out);
  }
  if (step.io().has_name() && step.io().streams_size() == 0) {
    out.push_back({step_path + ".name", "names a stream: only a stream in streams has one (the step's name is the step's own)"});
  }
  if (io.streams_size() > 0) {
    ValidateStreamStep(w, step, io, path, out);
    return;
  }
  if (!ValidateResolvedIo(io, [&](int field) { return Origin(w, step, path, field); }, out)) return;
  for (int f = 0; f < v1::IoSpec::descriptor()->field_count(); ++f) {
    const auto* field = v1::IoSpec::descriptor()->field(f);
    const std::string& name = field->name();
    if (!HasIoField(step.io(), field)) continue;
    std::string reason = Inapplicable(io, field->number());
    if (!reason.empty()) out.push_back({step_path + "." + name, "has no effect here: " + reason});
  }
}

}  // namespace

// Rules within one level (defaults, or a step's own io block).
void ValidateIoLevel(const v1::IoSpec& io, const std::string& path, std::vector<Violation>& out) {
  if (io.has_file_size() && io.has_total_size()) {
    out.push_back({path + ".total_size", "set file_size or total_size, not both"});
  }
  if (io.has_jobs() && io.has_total_jobs()) {
    out.push_back({path + ".total_jobs", "set jobs or total_jobs, not both"});
  }
  if (io.rate().has_bytes_per_sec() && io.rate().has_iops()) {
    out.push_back({path + ".rate", "set rate.bytes_per_sec or rate.iops, not both"});
  }
  if (io.rate().has_min_bytes_per_sec() && io.rate().has_min_iops()) {
    out.push_back({path + ".rate", "set rate.min_bytes_per_sec or rate.min_iops, not both"});
  }
  if (io.data().has_pattern()) {
    const std::string& p = io.data().pattern();
    if (p.find('\0') != std::string::npos) {
      out.push_back({path + ".data.pattern", "holds a NUL byte: write the byte as hex (0x00...)"});
      return;
    }
    bool hex = p.rfind("0x", 0) == 0;
    if (p.empty() || (hex && (p.size() == 2 || p.size() % 2 != 0 ||
                              p.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos))) {
      out.push_back({path + ".data.pattern", "\"" + p + "\" is not a pattern (write 0x and an even number of hex digits, or text)"});
    }
  }
}

bool ValidateResolvedIo(const v1::IoSpec& io, const FieldPlace& place, std::vector<Violation>& out, uint64_t global_jobs) {
  if (!io.has_op() || io.op() == v1::OP_UNSPECIFIED) {
    out.push_back({place(v1::IoSpec::kOpFieldNumber), "needs an op (read, write, randread, randwrite, readwrite, randrw)"});
    return false;
  }
  std::vector<uint64_t> sizes;
  if (io.block_size_split_size() > 0) {
    for (const auto& s : io.block_size_split()) sizes.push_back(s.size());
  } else {
    sizes.push_back(io.block_size());
  }
  const int size_field = io.block_size_split_size() > 0 ? v1::IoSpec::kBlockSizeSplitFieldNumber : v1::IoSpec::kBlockSizeFieldNumber;
  for (uint64_t size : sizes) {
    if (io.direct() && size % 512 != 0) {
      out.push_back({place(size_field), FormatSize(size) + " must be a multiple of 512 bytes with direct: true"});
    }
  }
  const uint64_t slot = MaxBlockSize(io);
  const bool global = io.file_layout() == v1::FILE_LAYOUT_SHARED_GLOBAL;
  const bool shared = io.file_layout() == v1::FILE_LAYOUT_SHARED || global;
  // Under total_jobs an agent's jobs are known only once the plan spreads them over the agents
  // (the planned step is checked again then, with `global_jobs`); before, an agent with a job
  // has at least one, and a global file is shared by total_jobs jobs in all.
  const uint64_t jobs = io.has_total_jobs() ? (global ? io.total_jobs() : 1) : io.jobs();
  const bool whole = shared && io.shared_mode() == v1::SHARED_MODE_WHOLE;  // each job covers the whole file
  const uint64_t sharing = !shared || whole ? 1 : global && global_jobs > 0 ? global_jobs : std::max<uint64_t>(jobs, 1);
  if (io.has_file_size()) {
    // Every job needs a block in its range: a worker wraps around its range looking for the next
    // block, and in a range without one it never finds an offset (an agent spun forever so).
    auto need = CheckedMul(slot, sharing, "one block per job");
    if (!need.ok()) {
      out.push_back({place(v1::IoSpec::kFileSizeFieldNumber), need.status().message()});
    } else if (io.file_size() < *need) {
      out.push_back({place(v1::IoSpec::kFileSizeFieldNumber), "file_size " + FormatSize(io.file_size()) + " is smaller than " +
                                             (sharing > 1 ? std::to_string(sharing) + " jobs x " : std::string()) +
                                             "the block size " + FormatSize(slot)});
    }
    if (io.file_size() > kMaxFileBytes) {
      out.push_back({place(v1::IoSpec::kFileSizeFieldNumber), "file_size " + FormatSize(io.file_size()) +
                                             " is beyond the largest file offset (8 EiB - 1)"});
    }
    if (!shared) {
      auto bytes = CheckedMul(jobs, io.file_size(), "jobs x file_size");
      if (!bytes.ok()) out.push_back({place(v1::IoSpec::kFileSizeFieldNumber), bytes.status().message()});
    }
  } else {
    auto need = CheckedMul(slot, io.has_total_jobs() ? io.total_jobs() : std::max<uint64_t>(jobs, 1), "one block per job");
    if (!need.ok()) {
      out.push_back({place(v1::IoSpec::kTotalSizeFieldNumber), need.status().message()});
    } else if (io.total_size() < *need) {
      out.push_back({place(v1::IoSpec::kTotalSizeFieldNumber), "total_size " + FormatSize(io.total_size()) + " is smaller than one block per job"});
    }
  }
  auto buffers = CheckedMul(io.queue_depth(), slot, "queue_depth x block size (each job's buffers)");
  if (!buffers.ok()) out.push_back({place(v1::IoSpec::kQueueDepthFieldNumber), buffers.status().message()});
  // The agent adds these to a clock reading: past 2^63 ns (292 years) the sum would wrap.
  auto window = CheckedAdd(io.ramp(), io.runtime(), "ramp + runtime");
  if (!window.ok() || *window > kMaxDurationNs) {
    out.push_back({place(v1::IoSpec::kRuntimeFieldNumber), "ramp + runtime is longer than 292 years (2^63 ns)"});
  }
  if (io.deadline() > kMaxDurationNs) out.push_back({place(v1::IoSpec::kDeadlineFieldNumber), "deadline is longer than 292 years (2^63 ns)"});
  CheckRate(io.rate(), place(v1::IoSpec::kRateFieldNumber), out);
  CheckThink(io.think(), place(v1::IoSpec::kThinkFieldNumber), out);
  CheckFlow(io.flow(), place(v1::IoSpec::kFlowFieldNumber), out);
  CheckDedupe(io.data(), place(v1::IoSpec::kDataFieldNumber), out);
  CheckOffsets(io, slot, global ? (global_jobs > 0 ? global_jobs : jobs) : jobs, place, out);
  if (io.io_size() > 0 && !CheckedMul(io.io_size(), std::max<uint64_t>(io.loops(), 1), "io_size x loops").ok()) {
    out.push_back({place(v1::IoSpec::kIoSizeFieldNumber), "io_size x loops is beyond 2^64 bytes"});
  }
  if (io.skip() > 0 && io.block_size_split_size() > 0) {
    out.push_back({place(v1::IoSpec::kSkipFieldNumber), "skip spaces blocks of one size: give block_size, not block_size_split"});
  } else if (slot > 0 && io.skip() % slot != 0) {
    out.push_back({place(v1::IoSpec::kSkipFieldNumber), "skip " + FormatSize(io.skip()) + " is not a multiple of the block size " +
                                                            FormatSize(slot)});
  }
  if (io.read_from() == v1::READ_FROM_NEXT_AGENT) {
    if (rules::Writes(io.op())) {
      out.push_back({place(v1::IoSpec::kReadFromFieldNumber), "read_from: next_agent reads another agent's files: the op must be read or randread"});
    }
    if (io.file_layout() != v1::FILE_LAYOUT_PER_JOB) {
      out.push_back({place(v1::IoSpec::kReadFromFieldNumber), "read_from: next_agent reads the next agent's job files: needs file_layout: per_job"});
    }
  }
  if (io.has_file_prefix()) {
    const std::string& prefix = io.file_prefix();
    bool good = !prefix.empty() && prefix.size() <= 64;
    for (char c : prefix) good = good && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
    if (!good) out.push_back({place(v1::IoSpec::kFilePrefixFieldNumber), "file_prefix \"" + prefix + "\" is not a file name prefix ([A-Za-z0-9_-]+, at most 64)"});
  }
  const bool sequence = io.has_distribution() && io.distribution().rfind("sequence", 0) == 0;
  if (io.has_distribution()) {
    if (auto spec = ParseDistribution(io.distribution()); !spec.ok()) {
      out.push_back({place(v1::IoSpec::kDistributionFieldNumber), spec.status().message()});
    } else if (sequence && (io.file_layout() == v1::FILE_LAYOUT_PER_JOB || io.shared_mode() == v1::SHARED_MODE_WHOLE)) {
      // Each job's range is its whole file here: a slot past it is known now (else the agent says).
      const uint64_t slot = MaxBlockSize(io), blocks = slot ? io.file_size() / slot : 0;
      const uint64_t last = *std::max_element(spec->sequence.begin(), spec->sequence.end());
      if (blocks > 0 && last >= blocks) {
        out.push_back({place(v1::IoSpec::kDistributionFieldNumber), "sequence slot " + std::to_string(last) + " is beyond the file's " +
                                                                       std::to_string(blocks) + " blocks (slots count from 0)"});
      }
    }
  }
  if (io.sequence_stride() && !sequence) {
    out.push_back({place(v1::IoSpec::kSequenceStrideFieldNumber), "applies to distribution sequence:... only"});
  }
  if (io.verify() && io.engine() == v1::ENGINE_NULL) {
    out.push_back({place(v1::IoSpec::kVerifyFieldNumber), "verify needs real I/O; the null engine does none"});
  }
  if (io.verify() && io.block_size_split_size() > 0) {
    out.push_back({place(v1::IoSpec::kVerifyFieldNumber), "verify needs a fixed block_size, not block_size_split"});
  }
  if (io.verify() && io.data().dedupe_pct() > 0) {
    out.push_back({place(v1::IoSpec::kVerifyFieldNumber), "verify headers make every block unique; dedupe_pct needs verify: false"});
  }
  return true;
}

void ValidateTarget(const v1::Target& target, std::vector<Violation>& out) {
  if (!target.root().empty() && !MatchesCharset(target.root(), true, true)) {
    out.push_back({"target.root", "\"" + target.root() + "\" is not a root name ([A-Za-z0-9_-]+)"});
  }
  if (target.dir().find('\0') != std::string::npos) {
    out.push_back({"target.dir", "holds a NUL byte: no name or path may"});
  } else if (!IsConfinedRelativePath(target.dir())) {
    out.push_back({"target.dir", "\"" + target.dir() +
                                     "\" must be a relative path below the root, without '..', "
                                     "'.' or empty parts"});
  }
}

bool IsStepName(const std::string& name) { return MatchesCharset(name, false, true); }

bool IsSinglePathComponent(const std::string& name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool IsConfinedRelativePath(const std::string& path) {
  if (path.empty()) return true;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || part.find('\0') != std::string::npos) return false;
    start = end + 1;
  }
  return true;
}

std::vector<Violation> Validate(const v1::Workload& w) {
  std::vector<Violation> out;
  if (w.name().empty()) {
    out.push_back({"name", "a workload needs a name ([a-z0-9-]+)"});
  } else if (!MatchesCharset(w.name(), false, false)) {
    out.push_back({"name", "\"" + w.name() + "\" must match [a-z0-9-]+"});
  }
  ValidateTarget(w.target(), out);
  if (w.steps_size() == 0) out.push_back({"steps", "a workload needs at least one step"});
  ValidateIoLevel(w.defaults(), "defaults", out);
  if (w.defaults().streams_size() > 0) out.push_back({"defaults.streams", "streams belong to a step's io, not to the defaults"});
  if (w.defaults().has_name()) out.push_back({"defaults.name", "names a stream: only a stream in a step's streams has one"});

  std::set<std::string> names;
  std::vector<v1::IoSpec> io_steps;
  const std::string target_root = w.target().root().empty() ? "default" : w.target().root();
  // One step, top-level or in a group: the same rules either way.
  auto check_step = [&](const v1::Step& step, const std::string& path, const std::string& name) {
    if (!step.name().empty() && !IsStepName(step.name())) {
      out.push_back({path + ".name", "\"" + step.name() + "\" must match [a-z0-9_-]+"});
    }
    if (!names.insert(name).second) {
      out.push_back({path + ".name", "step name \"" + name + "\" is used twice (names are unique in the workload, groups' steps included)"});
    }
    switch (step.kind_case()) {
      case v1::Step::kIo: {
        ValidateIoStep(w, step, path, out);
        const v1::IoSpec io = ResolveStepIo(w, step);
        for (const v1::IoSpec* stream : StreamsOf(io)) io_steps.push_back(*stream);
        break;
      }
      case v1::Step::kSleep:
      case v1::Step::kSync:
      case v1::Step::kDropCaches:
      case v1::Step::kGroup:  // its steps are checked one by one below
        break;
      case v1::Step::kFiles:
      case v1::Step::kCopy:
      case v1::Step::kReadahead:
      case v1::Step::kHook:
        ValidateNonIoStep(step, path, target_root, out);
        break;
      case v1::Step::KIND_NOT_SET:
        out.push_back({path, "a step needs a kind (io, files, copy, drop_caches, sync, readahead, hook, sleep, group)"});
        break;
    }
  };
  for (int i = 0; i < w.steps_size(); ++i) {
    const v1::Step& step = w.steps(i);
    const std::string path = "steps[" + std::to_string(i) + "]";
    check_step(step, path, StepName(w, i));
    if (!step.has_group()) continue;
    const v1::GroupStep& group = step.group();
    const std::string group_path = path + ".group";
    if (group.repeat() == 0) out.push_back({group_path + ".repeat", "a group needs repeat (how many times its steps run, 1 or more)"});
    if (group.steps_size() == 0) out.push_back({group_path + ".steps", "a group needs at least one step"});
    for (int m = 0; m < group.steps_size(); ++m) {
      const v1::Step& member = group.steps(m);
      const std::string member_path = group_path + ".steps[" + std::to_string(m) + "]";
      if (member.has_group()) {
        // One level is what the reference procedures need, and one group_cycle per step keeps
        // the report flat: a group inside a group is refused rather than half supported.
        out.push_back({member_path + ".group", "groups do not nest: a group's steps cannot be groups"});
        continue;
      }
      check_step(member, member_path, GroupMemberName(StepName(w, i), member, m));
    }
  }
  // A default that no step can use is a mistake, not a harmless extra.
  for (int f = 0; f < v1::IoSpec::descriptor()->field_count(); ++f) {
    const auto* field = v1::IoSpec::descriptor()->field(f);
    const std::string& name = field->name();
    if (!HasIoField(w.defaults(), field) || io_steps.empty() || field->number() == v1::IoSpec::kStreamsFieldNumber ||
        field->number() == v1::IoSpec::kNameFieldNumber) {
      continue;
    }
    std::string reason;
    bool used = false;
    for (const auto& io : io_steps) {
      std::string r = Inapplicable(io, field->number());
      if (r.empty()) used = true;
      else reason = r;
    }
    if (!used) out.push_back({"defaults." + name, "has no effect on any step: " + reason});
  }
  return out;
}

}  // namespace iofleet::rules
