#include "controller/workload/fio_import.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "controller/workload/fio_importer.h"
#include "controller/workload/fio_ini.h"
#include "controller/workload/fio_values.h"
#include "controller/workload/input_file.h"
#include "controller/workload/proto_names.h"
#include "core/base/units.h"
#include "core/rules/defaults.h"
#include "core/rules/validate.h"

namespace iofleet::controller {
namespace fio_detail {
namespace {

namespace pb = google::protobuf;

// fio's own defaults where they differ from iofleet's, so that a job that leaves an option out
// does here what it does in fio.
struct FioDefault {
  int field;  // v1::IoSpec's field number
  bool (*has)(const v1::IoSpec&);
  void (*set)(v1::IoSpec&);
};
const FioDefault kFioDefaults[] = {
    {v1::IoSpec::kOpFieldNumber, [](const v1::IoSpec& io) { return io.has_op(); }, [](v1::IoSpec& io) { io.set_op(v1::OP_READ); }},
    {v1::IoSpec::kEngineFieldNumber, [](const v1::IoSpec& io) { return io.has_engine(); },
     [](v1::IoSpec& io) { io.set_engine(v1::ENGINE_PSYNC); }},
    {v1::IoSpec::kDirectFieldNumber, [](const v1::IoSpec& io) { return io.has_direct(); }, [](v1::IoSpec& io) { io.set_direct(false); }},
    // fio drops a buffered job's files from the page cache before it starts (invalidate=1).
    {v1::IoSpec::kInvalidateFieldNumber, [](const v1::IoSpec& io) { return io.has_invalidate(); },
     [](v1::IoSpec& io) { io.set_invalidate(true); }},
    {v1::IoSpec::kBlockSizeFieldNumber, [](const v1::IoSpec& io) { return io.has_block_size() || io.block_size_split_size() > 0; },
     [](v1::IoSpec& io) { io.set_block_size(4096); }},
    // fio allocates a job's files before it writes them (fallocate=native) unless told otherwise.
    {v1::IoSpec::kPreallocateFieldNumber, [](const v1::IoSpec& io) { return io.has_preallocate(); },
     [](v1::IoSpec& io) { io.set_preallocate(true); }},
    // fio does not fsync at the end of a write job unless end_fsync=1.
    {v1::IoSpec::kFsyncFieldNumber, [](const v1::IoSpec& io) { return io.fsync().has_at_end(); },
     [](v1::IoSpec& io) { io.mutable_fsync()->set_at_end(false); }},
};

// Fields that fio, too, ignores where they have no effect (bs beside bssplit, rwmixread on a
// read job, fsync on a read job, iodepth on a synchronous engine): left out with a warning
// rather than refused.
// (norandommap beside a non-uniform random_distribution too: fio draws those with repeats anyway.)
constexpr int kIgnoredByFio[] = {v1::IoSpec::kBlockSizeFieldNumber, v1::IoSpec::kReadPctFieldNumber, v1::IoSpec::kFsyncFieldNumber,
                                 v1::IoSpec::kQueueDepthFieldNumber, v1::IoSpec::kRandomFieldNumber,
                                 v1::IoSpec::kInvalidateFieldNumber, v1::IoSpec::kLoopsFieldNumber,
                                 v1::IoSpec::kPreallocateFieldNumber, v1::IoSpec::kIoSizeFieldNumber};
// Fields the import may set in `defaults` that a job may have no use for (then left out).
constexpr int kDefaultsItMaySet[] = {v1::IoSpec::kOpFieldNumber,        v1::IoSpec::kEngineFieldNumber,
                                     v1::IoSpec::kDirectFieldNumber,    v1::IoSpec::kBlockSizeFieldNumber,
                                     v1::IoSpec::kFsyncFieldNumber,     v1::IoSpec::kReadPctFieldNumber,
                                     v1::IoSpec::kQueueDepthFieldNumber,
                                     v1::IoSpec::kInvalidateFieldNumber, v1::IoSpec::kPreallocateFieldNumber};

}  // namespace

// ---- options ----

// kb_base changes how every size of its job reads, wherever it is written, so it is looked up
// before any size is parsed.
int Importer::KbBase(const std::vector<Option>& options, int inherited) {
  for (const Option& o : options) {
    if (o.key == "kb_base" && (o.value == "1000" || o.value == "1024")) inherited = std::stoi(o.value);
  }
  return inherited;
}

void Importer::ApplyAll(const std::vector<Option>& options, Level& level) {
  level.kb_base = KbBase(options, level.kb_base);
  for (const Option& o : options) Apply(o, level);
}

void Importer::Apply(const Option& o, Level& level) {
  auto it = Handlers().find(o.key);
  if (it != Handlers().end()) {
    (this->*(it->second))(o, level);
    return;
  }
  if (const char* why = RefusalReason(o.key)) {
    Unsupported(KeyAt(o), std::string("is not supported: ") + why);
    return;
  }
  std::vector<std::string> names;
  for (const auto& [name, handler] : Handlers()) names.push_back(name);
  std::string hint = o.key.size() >= 6 ? NearestName(o.key, names) : "";
  Unsupported(KeyAt(o), "is not an option iofleet's fio import supports" +
                            (hint.empty() ? std::string() : " (did you mean " + hint + "?)"));
}

// ---- building the workload ----

void Importer::NameSteps(const std::vector<Job>& jobs) {
  std::set<std::string> used;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    std::string base = SanitizeName(job.level.name ? job.level.name->value : job.header.name);
    if (base.empty()) base = "job";
    std::string name = base;
    for (int n = 2; !used.insert(name).second; ++n) name = base + "-" + std::to_string(n);
    v1::Step* step = out_.workload.mutable_steps(static_cast<int>(i));
    step->set_name(name);
    // fio names a job's files after the job (name.N.0): a read job of another name lays out and
    // reads its own files, and jobs of one name share theirs. The prefix is the name before the
    // -2 that keeps step names unique.
    // A job that names its file (filename=) shares it with every job naming the same.
    if (step->has_io() && !job.level.filename && !has_global_filename_) {
      step->mutable_io()->set_file_prefix(base.substr(0, 64));
    }
    origins_["steps[" + std::to_string(i) + "]"] = HeaderAt(job.header);
  }
}

// runtime means `runtime` (time-based) with time_based, else `deadline` (a size-based job that
// stops early). A [global] runtime goes to defaults when every job that inherits it reads it the
// same way, else into each of those steps.
void Importer::PlaceRuntime(const Level& defaults, const std::vector<Job>& jobs) {
  std::map<std::string, std::vector<int>> inherited;  // field -> steps that inherit the [global] runtime
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Level& l = jobs[i].level;
    const auto& tb = Effective(l.time_based, defaults.time_based);
    const auto& runtime = Effective(l.runtime, defaults.runtime);
    const bool time_based = tb && tb->value;
    if (time_based && (!runtime || runtime->value == 0)) {
      Error(tb->at, "needs a runtime above 0 (job " + step_labels_[i] + ")");
      continue;
    }
    if (!runtime || runtime->value == 0) continue;
    const std::string field =
        v1::IoSpec::descriptor()->FindFieldByNumber(time_based ? v1::IoSpec::kRuntimeFieldNumber : v1::IoSpec::kDeadlineFieldNumber)->name();
    if (l.runtime) {
      v1::IoSpec* io = out_.workload.mutable_steps(static_cast<int>(i))->mutable_io();
      time_based ? io->set_runtime(runtime->value) : io->set_deadline(runtime->value);
      origins_[l.path + "." + field] = runtime->at;
    } else {
      inherited[field].push_back(static_cast<int>(i));
    }
  }
  for (const auto& [field, steps] : inherited) {
    const uint64_t value = defaults.runtime->value;
    const bool time_based = field == "runtime";
    if (inherited.size() == 1) {
      v1::IoSpec* io = out_.workload.mutable_defaults();
      time_based ? io->set_runtime(value) : io->set_deadline(value);
      origins_["defaults." + field] = defaults.runtime->at;
      continue;
    }
    for (int i : steps) {
      v1::IoSpec* io = out_.workload.mutable_steps(i)->mutable_io();
      time_based ? io->set_runtime(value) : io->set_deadline(value);
      origins_["steps[" + std::to_string(i) + "].io." + field] = defaults.runtime->at;
    }
  }
}

// iofleet leaves a ramp out of the figures of time-based steps only; fio also ramps a size-based
// job, which has no counterpart here.
void Importer::PlaceRamp(const Level& defaults, const std::vector<Job>& jobs) {
  bool global_used = false;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Level& l = jobs[i].level;
    const auto& ramp = Effective(l.ramp, defaults.ramp);
    if (!ramp || ramp->value == 0) continue;
    const auto& tb = Effective(l.time_based, defaults.time_based);
    if (!tb || !tb->value) {
      Unsupported(ramp->at, "without time_based (job " + step_labels_[i] +
                                ") is not supported: iofleet ramps time-based jobs only; add time_based=1 and a "
                                "runtime, or remove ramp_time");
      continue;
    }
    if (l.ramp) {
      out_.workload.mutable_steps(static_cast<int>(i))->mutable_io()->set_ramp(ramp->value);
      origins_[l.path + ".ramp"] = ramp->at;
    } else {
      global_used = true;
    }
  }
  if (global_used) {
    out_.workload.mutable_defaults()->set_ramp(defaults.ramp->value);
    origins_["defaults.ramp"] = defaults.ramp->at;
  }
}

// The fields that are a step's in iofleet, not a stream's: the jobs fio runs together must agree
// on them (fio lets each job of a group run for its own time; iofleet's streams share the step's).
bool Importer::SameStepLevel(const std::vector<int>& group, const Level& defaults, const std::vector<Job>& jobs) {
  const v1::Workload& w = out_.workload;
  bool same = true;
  for (int field : {v1::IoSpec::kRuntimeFieldNumber, v1::IoSpec::kRampFieldNumber, v1::IoSpec::kDeadlineFieldNumber}) {
    const pb::FieldDescriptor* desc = IoField(field);
    auto effective = [&](int i) -> std::optional<uint64_t> {
      const v1::IoSpec& own = w.steps(i).io();
      if (HasIoField(own, field)) return own.GetReflection()->GetUInt64(own, desc);
      if (HasIoField(w.defaults(), field)) return w.defaults().GetReflection()->GetUInt64(w.defaults(), desc);
      return std::nullopt;
    };
    for (int i : group) {
      if (effective(i) == effective(group[0])) continue;
      same = false;
      Error(HeaderAt(jobs[static_cast<size_t>(i)].header),
            "runs at the same time as job " + step_labels_[static_cast<size_t>(group[0])] + " but with another " + desc->name() +
                " (fio's runtime or ramp_time): iofleet runs the jobs of a group as streams of one step, which share its " +
                desc->name() + "; give them the same, or add stonewall to run this job after the others");
    }
  }
  (void)defaults;
  return same;
}

// fio's wait_for=NAME starts a job when job NAME ends. That is a stonewall where NAME is every
// job running before it (the jobs since the last stonewall); otherwise the others would go on
// beside it, which a step's streams, started together, cannot say.
bool Importer::WaitsForAllRunning(const std::vector<Job>& jobs, const std::vector<int>& running, const Setting<std::string>& wait_for) {
  auto name_of = [&](int j) {
    const Job& job = jobs[static_cast<size_t>(j)];
    return job.level.name ? job.level.name->value : job.header.name;
  };
  bool known = false;
  for (const Job& job : jobs) known |= (job.level.name ? job.level.name->value : job.header.name) == wait_for.value;
  if (!known) {
    Error(wait_for.at, "\"" + wait_for.value + "\" names no job of this file");
    return false;
  }
  std::string others;
  for (int j : running) {
    if (name_of(j) != wait_for.value) others += (others.empty() ? "" : ", ") + name_of(j);
  }
  if (!others.empty() || name_of(running.back()) != wait_for.value) {
    Unsupported(wait_for.at, "\"" + wait_for.value + "\": fio starts this job when that job ends, while " +
                                 (others.empty() ? std::string("the jobs after it") : others) +
                                 " go on: a step's streams start together, so only a wait_for that names every job "
                                 "running before it (a stonewall) can be honoured");
    return false;
  }
  return true;
}

// fio starts the jobs of a file together, except that a job with stonewall waits for every job
// before it to finish. So each run of jobs up to the next stonewall becomes one step whose
// streams are those jobs, started at one instant (a lone job stays a step of its own). The
// step takes its first job's name; each stream keeps its job's name, fields and files.
std::vector<std::vector<int>> Importer::JobGroups(const Level& defaults, const std::vector<Job>& jobs) {
  std::vector<std::vector<int>> groups;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& stonewall = Effective(jobs[i].level.stonewall, defaults.stonewall);
    const bool wall = stonewall && stonewall->value;  // waits for every job before it, the named one too
    const bool waits = !wall && i > 0 && jobs[i].level.wait_for && WaitsForAllRunning(jobs, groups.back(), *jobs[i].level.wait_for);
    if (i == 0 || wall || waits) groups.emplace_back();
    groups.back().push_back(static_cast<int>(i));
  }
  return groups;
}

void Importer::GroupStreams(const Level& defaults, const std::vector<Job>& jobs) {
  const std::vector<std::vector<int>> groups = JobGroups(defaults, jobs);
  if (groups.size() == jobs.size()) return;
  v1::Workload& w = out_.workload;
  std::vector<v1::Step> steps;
  std::map<std::string, Place> origins;
  // Every origin under steps[from] moves to `to` (a step, or a stream of one); a step-level
  // field of a stream moves to its step.
  auto move_origins = [&](int from, const std::string& to, const std::string& step_path) {
    const std::string prefix = "steps[" + std::to_string(from) + "]";
    for (auto it = origins_.begin(); it != origins_.end();) {
      if (it->first.rfind(prefix, 0) != 0 || (it->first.size() > prefix.size() && it->first[prefix.size()] != '.')) {
        ++it;
        continue;
      }
      std::string rest = it->first.substr(prefix.size());
      std::string moved = to + (rest.rfind(".io", 0) == 0 && to != step_path ? rest.substr(3) : rest);
      for (const char* field : {".io.runtime", ".io.ramp", ".io.deadline"}) {
        if (rest == field) moved = step_path + rest;
      }
      if (rest.rfind(".io.target_latency", 0) == 0) moved = step_path + rest;  // the step's search
      origins[moved] = it->second;
      it = origins_.erase(it);
    }
  };
  for (const std::vector<int>& group : groups) {
    const std::string step_path = "steps[" + std::to_string(steps.size()) + "]";
    if (group.size() == 1) {
      steps.push_back(w.steps(group[0]));
      move_origins(group[0], step_path, step_path);
      continue;
    }
    if (!SameStepLevel(group, defaults, jobs)) return;
    v1::Step step;
    step.set_name(w.steps(group[0]).name());
    v1::IoSpec& io = *step.mutable_io();
    for (size_t k = 0; k < group.size(); ++k) {
      v1::IoSpec stream = w.steps(group[k]).io();
      if (stream.has_runtime()) io.set_runtime(stream.runtime());
      if (stream.has_ramp()) io.set_ramp(stream.ramp());
      if (stream.has_deadline()) io.set_deadline(stream.deadline());
      stream.clear_runtime();
      stream.clear_ramp();
      stream.clear_deadline();
      // A latency_target job's search (PlaceLatencyTarget named it the stream searched) is the step's.
      if (stream.has_target_latency()) *io.mutable_target_latency() = std::move(*stream.mutable_target_latency());
      stream.clear_target_latency();
      stream.set_name(w.steps(group[k]).name());
      *io.add_streams() = std::move(stream);
      move_origins(group[k], step_path + ".io.streams[" + std::to_string(k) + "]", step_path);
    }
    steps.push_back(std::move(step));
  }
  w.clear_steps();
  for (auto& step : steps) *w.add_steps() = std::move(step);
  for (auto& [path, at] : origins) origins_[path] = at;
}

void Importer::PlaceDirectory(const Level& defaults, const std::vector<Job>& jobs) {
  std::optional<Setting<std::string>> chosen;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& dir = Effective(jobs[i].level.directory, defaults.directory);
    Setting<std::string> here = dir ? *dir : Setting<std::string>{"", HeaderAt(jobs[i].header)};
    if (!chosen) {
      chosen = here;
    } else if (here.value != chosen->value) {
      Error(here.at, "job " + step_labels_[i] + " works in \"" + here.value + "\" but job " + step_labels_[0] +
                         " in \"" + chosen->value + "\": iofleet has one directory (target.dir) for all steps");
    }
  }
  if (chosen && !chosen->value.empty()) {
    out_.workload.mutable_target()->set_dir(chosen->value);
    origins_["target.dir"] = chosen->at;
  }
}

void Importer::CheckSizes(const Level& defaults, const std::vector<Job>& jobs) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].level.size || defaults.size) continue;
    Error(HeaderAt(jobs[i].header), "has no size: add size= (each job's file, e.g. size=1g) here or in [global]; "
                                    "iofleet, like fio, does not guess one");
  }
}

// fio's size beside a filesize is the job's amount of I/O: with filesize=128m size=1g a job
// moves 1 GiB within a 128 MiB file. The file is the nearest filesize, whichever level says size.
void Importer::PlaceIoAmount(const Level& defaults, const std::vector<Job>& jobs) {
  v1::Workload& w = out_.workload;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Level& own = jobs[i].level;
    const auto& size = Effective(own.size_bytes, defaults.size_bytes);
    const auto& filesize = Effective(own.filesize_bytes, defaults.filesize_bytes);
    if (!filesize) continue;
    v1::IoSpec& io = *w.mutable_steps(static_cast<int>(i))->mutable_io();
    const std::string path = "steps[" + std::to_string(i) + "].io.";
    if (own.size_bytes && !own.filesize_bytes) {  // the job's own size= set its file: the file is the filesize
      io.set_file_size(filesize->value);
      origins_[path + "file_size"] = filesize->at;
    }
    if (size && size->value != filesize->value) {
      io.set_io_size(size->value);
      origins_[path + "io_size"] = size->at;
    }
  }
}

// fio's randrepeat defaults to on: a random job's offsets are the same on every run. A random
// job without a seed of its own (randseed) gets seed 1 unless randrepeat=0 says otherwise.
void Importer::PlaceRandRepeat(const Level& defaults, const std::vector<Job>& jobs) {
  v1::Workload& w = out_.workload;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& repeat = Effective(jobs[i].level.randrepeat, defaults.randrepeat);
    if (repeat && !repeat->value) continue;
    v1::IoSpec& io = *w.mutable_steps(static_cast<int>(i))->mutable_io();
    const v1::Op op = io.has_op() ? io.op() : defaults.io.op();
    if (!rules::IsRandom(op) || io.has_seed() || w.defaults().has_seed()) continue;
    io.set_seed(1);
    if (repeat) origins_["steps[" + std::to_string(i) + "].io.seed"] = repeat->at;
  }
}

void Importer::AddFioDefaults() {
  v1::Workload& w = out_.workload;
  for (const FioDefault& d : kFioDefaults) {
    if (d.has(w.defaults())) continue;
    bool needed = false;
    for (const auto& step : w.steps()) needed = needed || !d.has(step.io());
    if (needed) d.set(*w.mutable_defaults());
  }
}

// rw=...:N as iofleet's skip and backward, by the job's block size: N >= 0 is a hole of N bytes;
// N < 0 goes back |N| from the end of the last I/O, so |N| = 2 blocks is every block backward
// and more leaves holes; fio's |N| = 1 block (the same block again) or one not a whole number
// of blocks (I/Os that overlap) cannot be said here.
void Importer::PlaceSequentialAdd(const Level& defaults, const std::vector<Job>& jobs) {
  v1::Workload& w = out_.workload;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& add = Effective(jobs[i].level.seq_add, defaults.seq_add);
    if (!add) continue;
    const v1::IoSpec io = rules::ResolveIo(w, static_cast<int>(i));
    if (rules::IsRandom(io.op())) continue;  // refused where the random op was read
    const uint64_t block = rules::MaxBlockSize(io);
    v1::IoSpec& own = *w.mutable_steps(static_cast<int>(i))->mutable_io();
    const std::string path = "steps[" + std::to_string(i) + "].io.";
    if (add->value >= 0) {
      own.set_skip(static_cast<uint64_t>(add->value));
      origins_[path + "skip"] = add->at;
      continue;
    }
    const uint64_t back = static_cast<uint64_t>(-add->value);
    if (back < 2 * block || back % block != 0) {
      Unsupported(add->at, "goes back " + std::to_string(back) + " bytes with " + std::to_string(block) + "-byte blocks: " +
                               (back == block ? "the same block over and over" : "I/Os that overlap") +
                               "; iofleet goes backward by whole blocks (:-" + std::to_string(2 * block) +
                               " for every block, more for holes)");
      continue;
    }
    own.set_backward(true);
    own.set_skip(back - 2 * block);
    origins_[path + "backward"] = add->at;
    origins_[path + "skip"] = add->at;
  }
}

// Leaves out what has no effect where fio ignores it too (a warning when the file said it, and
// silently for fio's defaults added above); anything else with no effect is validation's error.
void Importer::KeepDefaultOff(int keep_off, int field_number) {
  v1::Workload& w = out_.workload;
  const google::protobuf::FieldDescriptor* field = IoField(field_number);
  const google::protobuf::Reflection* refl = v1::IoSpec::GetReflection();
  if (!HasIoField(w.defaults(), field_number)) return;
  const auto from = origins_.find("defaults." + field->name());
  for (int i = 0; i < w.steps_size(); ++i) {
    v1::IoSpec& io = *w.mutable_steps(i)->mutable_io();
    if (i == keep_off || HasIoField(io, field_number)) continue;
    v1::IoSpec only = w.defaults();  // the one field, merged into the step
    for (int f = 0; f < v1::IoSpec::descriptor()->field_count(); ++f) {
      if (v1::IoSpec::descriptor()->field(f) != field) refl->ClearField(&only, v1::IoSpec::descriptor()->field(f));
    }
    io.MergeFrom(only);
    if (from != origins_.end()) origins_["steps[" + std::to_string(i) + "].io." + field->name()] = from->second;
  }
  refl->ClearField(w.mutable_defaults(), field);
  if (from != origins_.end()) origins_.erase(from);
}

void Importer::LeaveOutIgnored() {
  v1::Workload& w = out_.workload;
  const pb::Reflection* refl = v1::IoSpec::GetReflection();
  for (int field : kIgnoredByFio) {
    const std::string& name = IoField(field)->name();
    for (int i = 0; i < w.steps_size(); ++i) {
      if (!HasIoField(w.steps(i).io(), field)) continue;
      std::string reason = rules::Inapplicable(rules::ResolveIo(w, i), field);
      if (reason.empty()) continue;
      std::string path = "steps[" + std::to_string(i) + "].io." + name;
      if (const Place* at = Origin(path)) {
        Warn(*at, "has no effect on job " + step_labels_[i] + " (" + reason + "); left out, as fio ignores it too");
      }
      refl->ClearField(w.mutable_steps(i)->mutable_io(), IoField(field));
    }
  }
  for (int field : kDefaultsItMaySet) {
    if (!HasIoField(w.defaults(), field)) continue;
    const std::string& name = IoField(field)->name();
    std::string reason;
    bool used = false;
    for (int i = 0; i < w.steps_size(); ++i) {
      std::string r = rules::Inapplicable(rules::ResolveIo(w, i), field);
      used = used || r.empty();
      if (!r.empty()) reason = r;
    }
    if (used) continue;
    auto at = origins_.find("defaults." + name);
    if (at != origins_.end()) Warn(at->second, "has no effect on any job (" + reason + "); left out, as fio ignores it too");
    refl->ClearField(w.mutable_defaults(), IoField(field));
  }
}

const Place* Importer::Origin(const std::string& path) const {
  // A message about a message field (rate) where an option set one of its fields (rate.iops).
  const std::string child = path + ".";
  if (auto below = origins_.lower_bound(child); below != origins_.end() && below->first.compare(0, child.size(), child) == 0) {
    if (origins_.find(path) == origins_.end()) return &below->second;
  }
  std::string probe = path;
  while (true) {
    auto it = origins_.find(probe);
    if (it != origins_.end()) return &it->second;
    size_t cut = probe.find_last_of(".[");
    if (cut == std::string::npos || cut == 0) return nullptr;
    probe = probe.substr(0, cut);
  }
}

void Importer::ValidateResult() {
  for (const rules::Violation& v : rules::Validate(out_.workload)) {
    if (const Place* at = Origin(v.path)) {
      Error(*at, v.message + " (iofleet " + v.path + ")");
    } else {
      Add(out_.errors, file_ + ": " + v.path + ": " + v.message);
    }
  }
}

void Importer::Build(Level& defaults, std::vector<Job>& jobs) {
  v1::Workload& w = out_.workload;
  has_global_filename_ = defaults.filename.has_value();
  *w.mutable_defaults() = defaults.io;
  for (size_t i = 0; i < jobs.size(); ++i) *w.add_steps()->mutable_io() = jobs[i].level.io;
  NameSteps(jobs);
  PlaceRuntime(defaults, jobs);
  PlaceRamp(defaults, jobs);
  PlaceSteady(defaults, jobs);
  PlaceFlow(defaults, jobs);
  PlaceDedupe(defaults, jobs);
  PlaceDirectory(defaults, jobs);
  CheckSizes(defaults, jobs);
  PlaceIoAmount(defaults, jobs);
  PlaceOffsets(defaults, jobs);
  PlaceNumberIos(defaults, jobs);
  PlaceLatencyTarget(defaults, jobs);
  PlaceExits(defaults, jobs);
  CheckMixedRates(defaults, jobs);
  PlaceRandRepeat(defaults, jobs);
  PlaceRandomGenerator(defaults, jobs);
  std::string description;
  for (const auto& d : descriptions_) description += (description.empty() ? "" : "; ") + d;
  w.set_description(description);
  AddFioDefaults();
  PlaceSequentialAdd(defaults, jobs);
  PlaceLogInterval(defaults, jobs);
  LeaveOutIgnored();
  GroupStreams(defaults, jobs);
}

// Each --fio-section names a job section of the file (fio would run nothing for a name it does
// not find, and say nothing), and the description says which ran.
void Importer::CheckSectionsAskedFor(const std::vector<Section>& sections) {
  if (only_sections_.empty()) return;
  std::vector<std::string> job_sections;
  for (const Section& s : sections) {
    if (s.name != "global" && std::find(job_sections.begin(), job_sections.end(), s.name) == job_sections.end()) {
      job_sections.push_back(s.name);
    }
  }
  std::string all, kept;
  for (const std::string& name : job_sections) all += (all.empty() ? "" : ", ") + name;
  for (const std::string& name : only_sections_) {
    if (name == "global") {
      Add(out_.errors, file_ + ": --fio-section global: [global] is always read; name job sections");
    } else if (std::find(job_sections.begin(), job_sections.end(), name) == job_sections.end()) {
      Add(out_.errors, file_ + ": --fio-section " + name + ": the file has no job section [" + name + "] (its job sections: " +
                           (all.empty() ? "none" : all) + ")");
    }
  }
  for (const Section& s : sections) {
    if (s.name != "global" && !s.skipped && kept.find("[" + s.name + "]") == std::string::npos) {
      kept += (kept.empty() ? "" : ", ") + ("[" + s.name + "]");
    }
  }
  const bool several = kept.find(',') != std::string::npos;
  descriptions_.push_back(std::string(several ? "only sections " : "only section ") + kept + " (--fio-section)");
}

void Importer::Import(const std::string& text) {
  std::string stem = SanitizeName(std::filesystem::path(file_).stem().string());
  out_.workload.set_name(stem.empty() ? "fio-job" : stem);

  // The [global] sections before the first job are the defaults. A [global] after a job changes
  // only the jobs that follow it, so its options are written into each of those steps.
  Level defaults;
  defaults.path = "defaults";
  std::vector<Option> top_global, later_global;
  std::vector<Job> jobs;
  std::vector<FioIniError> refused;
  std::vector<std::string> expanded;
  std::vector<Section> sections = ReadFioIni(text, env_, refused, expanded, only_sections_);
  for (const FioIniError& e : refused) Error(e.at, e.message);
  CheckSectionsAskedFor(sections);
  std::erase_if(sections, [](const Section& s) { return s.skipped; });
  // The workload keeps what the environment said, so that its report shows the test it ran.
  if (!expanded.empty()) {
    std::string from_env;
    for (const auto& e : expanded) from_env += (from_env.empty() ? "" : ", ") + e;
    descriptions_.push_back("from the environment: " + from_env);
  }
  for (const Section& s : sections) {
    if (s.name == "global") {
      auto& into = jobs.empty() ? top_global : later_global;
      into.insert(into.end(), s.options.begin(), s.options.end());
      continue;
    }
    Job job;
    job.header = s;
    job.options = later_global;
    job.options.insert(job.options.end(), s.options.begin(), s.options.end());
    jobs.push_back(std::move(job));
  }
  ApplyAll(top_global, defaults);
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].level.path = "steps[" + std::to_string(i) + "].io";
    jobs[i].level.kb_base = defaults.kb_base;
    step_labels_.push_back("[" + jobs[i].header.name + "]");
    ApplyAll(jobs[i].options, jobs[i].level);
  }
  if (jobs.empty()) {
    // A --fio-section that names no section has said why already.
    if (only_sections_.empty() || out_.errors.empty()) {
      Add(out_.errors, file_ + ": no job sections: fio and iofleet need at least one [jobname] section");
    }
    return;
  }
  Build(defaults, jobs);
  // Validation speaks of the translated workload; its findings only make sense once the
  // translation itself has none.
  if (out_.errors.empty()) ValidateResult();
}

}  // namespace fio_detail

using fio_detail::Importer;

FioImport ImportFioJobText(const std::string& text, const std::string& file_name, const FioImportOptions& options,
                           const FioEnvironment& env) {
  FioImport out;
  if (Status size = CheckInputSize(text, file_name); !size.ok()) {
    out.errors.push_back(size.message());
    return out;
  }
  // A value cut at a NUL byte names another place (directory=a<NUL>b would be "a").
  if (auto nul = FindNul(text)) {
    out.errors.push_back(file_name + ":" + std::to_string(nul->line) + ":" + std::to_string(nul->column) +
                         ": a NUL byte: a job file is text");
    return out;
  }
  Importer(file_name, options, env, out).Import(text);
  return out;
}

FioImport ImportFioJobFile(const std::string& path, const FioImportOptions& options, const FioEnvironment& env) {
  Result<std::string> text = ReadInputFile(path);
  if (!text.ok()) {
    FioImport out;
    out.errors.push_back(text.status().message());
    return out;
  }
  return ImportFioJobText(*text, path, options, env);
}

FioImport ImportFioJobText(const std::string& text, const std::string& file_name, bool allow_unsupported, bool relative_paths,
                           const FioEnvironment& env) {
  return ImportFioJobText(text, file_name, FioImportOptions{allow_unsupported, relative_paths, {}}, env);
}

FioImport ImportFioJobFile(const std::string& path, bool allow_unsupported, bool relative_paths, const FioEnvironment& env) {
  return ImportFioJobFile(path, FioImportOptions{allow_unsupported, relative_paths, {}}, env);
}

bool IsFioJobFile(const std::string& path) {
  if (std::filesystem::path(path).extension() == ".fio") return true;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::string text = TrimFio(line);
    if (text.empty() || text[0] == '#' || text[0] == ';') continue;
    return text.front() == '[' && text.back() == ']';
  }
  return false;
}

}  // namespace iofleet::controller
