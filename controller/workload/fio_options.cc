#include <cerrno>
#include <limits>
#include <sstream>

#include "controller/workload/fio_importer.h"

#include "core/base/distribution_spec.h"
#include "controller/workload/fio_values.h"
#include "controller/workload/proto_names.h"
#include "core/base/units.h"
#include "core/rules/defaults.h"
#include "core/rules/field_bounds.h"

namespace iofleet::controller::fio_detail {

namespace pb = google::protobuf;

// The option table: each fio option the import knows, its handler (below), and its row of the
// docs' mapping table. An option not here is unsupported (an error, or with
// --allow-unsupported a warning, and left out).
const std::vector<Importer::OptionRow>& Importer::OptionTable() {
  static const std::vector<OptionRow> table = {
      {{{"name", &Importer::Name}},
       "section name, `name`",
       "the step's `name`, and its `file_prefix`: as fio names a job's files after the job, a read job of another name "
       "than the write lays out and reads files of its own, and jobs of one name share theirs"},
      {{{"description", &Importer::Description}}, "`description`", "`description`"},
      {{{"rw", &Importer::Rw}, {"readwrite", &Importer::Rw}},
       "`rw`, `readwrite`",
       "`op`: `read`, `write`, `randread`, `randwrite`, `rw`/`readwrite` -> `readwrite`, `randrw`"},
      {{{"rwmixread", &Importer::RwMixRead}, {"rwmixwrite", &Importer::RwMixWrite}},
       "`rwmixread`, `rwmixwrite`",
       "`read_pct` (= 100 - `rwmixwrite`)"},
      {{{"bs", &Importer::BlockSize}, {"blocksize", &Importer::BlockSize}}, "`bs`, `blocksize`", "`block_size`"},
      {{{"bssplit", &Importer::BlockSizeSplit}},
       "`bssplit=4k/60:64k/40`",
       "`block_size_split`; a blank share gets an even part of the rest, as in fio"},
      {{{"invalidate", &Importer::Invalidate}},
       "`invalidate` (fio's default 1)",
       "`invalidate`: a buffered job's files are dropped from the page cache at the end of its setup, as fio does before "
       "the job; `invalidate=0` keeps them"},
      {{{"direct", &Importer::Direct}, {"buffered", &Importer::Buffered}},
       "`direct`, `buffered`",
       "`direct` (`buffered` is its inverse)"},
      {{{"ioengine", &Importer::IoEngine}},
       "`ioengine`",
       "`engine`: `psync` (also for `sync` and `pvsync`), `libaio`, `io_uring`, `null`"},
      {{{"iodepth", &Importer::IoDepth}}, "`iodepth`", "`queue_depth`"},
      {{{"numjobs", &Importer::NumJobs}}, "`numjobs`", "`jobs` (per agent)"},
      {{{"size", &Importer::Size}, {"filesize", &Importer::Size}},
       "`size`, `filesize`",
       "`file_size` (each job's file; a percentage is refused)"},
      {{{"runtime", &Importer::Runtime}, {"timeout", &Importer::Runtime}, {"time_based", &Importer::TimeBased}},
       "`runtime` (or its alias `timeout`) + `time_based`",
       "`runtime` (time-based, wrapping around the file)"},
      {{}, "`runtime` without `time_based`", "`deadline` (a size-based step that stops at that time)"},
      {{{"ramp_time", &Importer::RampTime}}, "`ramp_time`", "`ramp` (time-based jobs only)"},
      {{{"buffer_compress_percentage", &Importer::CompressPercentage}}, "`buffer_compress_percentage`", "`data.compressible_pct`"},
      {{{"buffer_pattern", &Importer::BufferPattern}},
       "`buffer_pattern`",
       "`data.pattern`: `0xdeadbeef`, or a `\"quoted string\"`"},
      {{{"dedupe_percentage", &Importer::DedupePercentage}}, "`dedupe_percentage`", "`data.dedupe_pct`"},
      {{{"verify", &Importer::Verify}},
       "`verify`",
       "`verify: true` for any value but `0`/`none` (a warning: see below)"},
      {{{"fsync", &Importer::Fsync}, {"end_fsync", &Importer::EndFsync}},
       "`fsync`, `end_fsync`",
       "`fsync.every`, `fsync.at_end`"},
      {{{"directory", &Importer::Directory}},
       "`directory`",
       "`target.dir`: relative, below each agent's root; one for all jobs (an absolute one with `--fio-paths relative`: "
       "the run directory)"},
      {{{"filename", &Importer::Filename}},
       "`filename` (one file)",
       "`file_prefix` with `file_layout: shared` and `shared_mode: whole`: the file in each agent's run directory, "
       "shared by the jobs that name it, each covering all of it as in fio; an absolute path only with `--fio-paths "
       "relative` (its base name), a device never"},
      {{{"stonewall", &Importer::Stonewall}, {"wait_for_previous", &Importer::Stonewall}},
       "`stonewall`, `wait_for_previous`",
       "a new step: the jobs between two stonewalls run at once, as the `streams` of one step (see below)"},
      {{{"rate", &Importer::Rate}},
       "`rate=10m` (or `10m,10m`)",
       "`rate.bytes_per_sec`, a cap per job as in fio; a different cap for reads and writes (`1m,500k`, `1m,`) is refused, "
       "and so is a rate on a job that mixes reads and writes (fio caps each direction, iofleet both together)"},
      {{{"rate_iops", &Importer::RateIops}}, "`rate_iops`", "`rate.iops`, a cap per job, with the same limits as `rate`"},
      {{{"rate_process", &Importer::RateProcess}},
       "`rate_process=linear`",
       "accepted, iofleet's pacing (evenly spaced requests); `poisson` is refused"},
      {{{"thread", &Importer::Thread}}, "`thread`", "accepted, no effect: iofleet's jobs are threads of the agent"},
      {{{"random_distribution", &Importer::RandomDistribution}},
       "`random_distribution`",
       "`distribution`: `random`, `zipf:THETA`, `pareto:H`, `zoned:A/R:...` as fio writes them (fio's `normal` is refused: "
       "its value is not a standard deviation)"},
      {{{"norandommap", &Importer::NoRandomMap}}, "`norandommap`", "`random: uniform` (blocks drawn with repeats)"},
      {{{"randrepeat", &Importer::RandRepeat}, {"randseed", &Importer::RandSeed}},
       "`randrepeat`, `randseed`",
       "`seed`: fio's default `randrepeat=1` repeats a random job's offsets on every run, so such a job gets `seed: 1`; "
       "`randseed=N` is `seed: N`; `randrepeat=0` draws new ones each run (iofleet's default)"},
      {{{"startdelay", &Importer::StartDelay}}, "`startdelay`", "`start_delay` (one value; a range is refused)"},
      {{{"group_reporting", &Importer::GroupReporting}},
       "`group_reporting`",
       "accepted, no effect: iofleet always reports each step aggregated and per agent"},
      {{{"new_group", &Importer::GroupReporting}},
       "`new_group`",
       "accepted, no effect: it only groups fio's own reporting; iofleet reports each step and each stream"},
      {{{"threads", &Importer::ProfileOnly}},
       "`threads`",
       "accepted, no effect: an option of fio's tiobench profile, which does nothing without `profile=tiobench`"},
      {{{"gtod_reduce", &Importer::GroupReporting}},
       "`gtod_reduce`",
       "accepted, no effect: it only spares fio's clock calls; iofleet always times every I/O (its cost is in its figures)"},
      {{{"kb_base", &Importer::KbBaseOption}}, "`kb_base`", "how sizes read (below)"},
      // Refused with their own reasons (docs/workloads.md lists them below the table).
      {{{"exec_prerun", &Importer::RunsCommand},
        {"exec_postrun", &Importer::RunsCommand},
        {"trigger", &Importer::RunsCommand},
        {"trigger-file", &Importer::RunsCommand},
        {"trigger-timeout", &Importer::RunsCommand},
        {"trigger-remote", &Importer::RunsCommand}},
       nullptr,
       nullptr},
  };
  return table;
}

const std::map<std::string, Importer::Handler>& Importer::Handlers() {
  static const std::map<std::string, Handler> handlers = [] {
    std::map<std::string, Handler> out;
    for (const OptionRow& row : OptionTable()) {
      for (const auto& [name, handler] : row.options) out.emplace(name, handler);
    }
    return out;
  }();
  return handlers;
}

bool Importer::NeedValue(const Option& o) {
  if (o.has_value && !o.value.empty()) return true;
  Error(KeyAt(o), "needs a value: " + o.key + "=...");
  return false;
}

// fio's booleans: 0 or 1, and a bare key means 1.
std::optional<bool> Importer::Bool(const Option& o) {
  if (!o.has_value || o.value == "1") return true;
  if (o.value == "0") return false;
  Error(ValueAt(o), "\"" + o.value + "\" is not 0 or 1");
  return std::nullopt;
}

bool Importer::InBounds(const Option& o, const pb::FieldDescriptor* field, uint64_t value, const std::string& shown) {
  auto bound = rules::OutOfBounds(field, value);
  if (bound) Error(ValueAt(o), shown + " " + rules::BoundText(field, *bound));
  return !bound;
}

std::optional<uint64_t> Importer::Count(const Option& o, const pb::FieldDescriptor* field) {
  if (!NeedValue(o)) return std::nullopt;
  if (!IsDigits(o.value) || o.value.size() > 19) {
    Error(ValueAt(o), "\"" + o.value + "\" is not a whole number");
    return std::nullopt;
  }
  uint64_t v = std::stoull(o.value);
  if (!InBounds(o, field, v, o.value)) return std::nullopt;
  return v;
}

std::optional<uint64_t> Importer::SizeValue(const Option& o, const std::string& text, int kb_base,
                                            const pb::FieldDescriptor* field) {
  bool iec = false;
  Result<uint64_t> size = ParseFioSize(text, kb_base, iec);
  if (!size.ok()) {
    Error(ValueAt(o), size.status().message());
    return std::nullopt;
  }
  if (iec && kb_base == 1024) {
    Warn(ValueAt(o), "fio reads \"" + text + "\" as " + std::to_string(*size) +
                         " bytes (with kb_base=1024, fio's default, IEC prefixes like KiB are powers of 10); "
                         "imported as fio runs it. Write k, m, g for powers of 2");
  }
  if (!InBounds(o, field, *size, "\"" + text + "\" (" + std::to_string(*size) + " bytes)")) return std::nullopt;
  return *size;
}

std::optional<uint64_t> Importer::Time(const Option& o) {
  if (!NeedValue(o)) return std::nullopt;
  Result<uint64_t> ns = ParseFioTime(o.value);
  if (!ns.ok()) {
    Error(ValueAt(o), ns.status().message());
    return std::nullopt;
  }
  return *ns;
}

void Importer::Name(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (l.path == "defaults") {
    Warn(KeyAt(o), "in [global] has no effect: each job is named by its section (fio does the same)");
    return;
  }
  l.name = Setting<std::string>{o.value, KeyAt(o)};
}

void Importer::Description(const Option& o, Level&) {
  if (!NeedValue(o)) return;
  std::string text = o.value;
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  // A later [global]'s description reaches every job after it: keep it once.
  for (const auto& d : descriptions_) {
    if (d == text) return;
  }
  descriptions_.push_back(text);
}

void Importer::Rw(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value.find(':') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": the :N suffix (skip or repeat offsets between I/Os) is not supported");
    return;
  }
  static const std::map<std::string, v1::Op> kOps = {
      {"read", v1::OP_READ},       {"write", v1::OP_WRITE},     {"randread", v1::OP_RANDREAD},
      {"randwrite", v1::OP_RANDWRITE}, {"rw", v1::OP_READWRITE}, {"readwrite", v1::OP_READWRITE},
      {"randrw", v1::OP_RANDRW}};
  auto it = kOps.find(o.value);
  if (it == kOps.end()) {
    bool trim = o.value.find("trim") != std::string::npos;
    Error(ValueAt(o), "\"" + o.value + "\" is not supported" + (trim ? " (iofleet does no trims)" : "") +
                          ": read, write, randread, randwrite, rw (= readwrite), randrw");
    return;
  }
  l.io.set_op(it->second);
  Record(l, {v1::IoSpec::kOpFieldNumber}, o);
}

void Importer::RwMixRead(const Option& o, Level& l) {
  if (auto pct = Count(o, IoField(v1::IoSpec::kReadPctFieldNumber))) {
    l.io.set_read_pct(static_cast<uint32_t>(*pct));
    Record(l, {v1::IoSpec::kReadPctFieldNumber}, o);
  }
}

void Importer::RwMixWrite(const Option& o, Level& l) {
  if (auto pct = Count(o, IoField(v1::IoSpec::kReadPctFieldNumber))) {
    l.io.set_read_pct(static_cast<uint32_t>(100 - *pct));
    Record(l, {v1::IoSpec::kReadPctFieldNumber}, o);
  }
}

void Importer::BlockSize(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value.find(',') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": separate read, write and trim block sizes are not supported: give one size");
    return;
  }
  if (auto size = SizeValue(o, o.value, l.kb_base, IoField(v1::IoSpec::kBlockSizeFieldNumber))) {
    l.io.set_block_size(*size);
    Record(l, {v1::IoSpec::kBlockSizeFieldNumber}, o);
  }
}

// bssplit=4k/60:64k/40. A blank share takes an even part of what the others leave, as in fio.
void Importer::BlockSizeSplit(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value.find(',') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": separate read and write splits are not supported: give one split");
    return;
  }
  const pb::FieldDescriptor* size_field = v1::BlockSizeWeight::descriptor()->FindFieldByNumber(v1::BlockSizeWeight::kSizeFieldNumber);
  std::vector<std::pair<uint64_t, std::optional<uint64_t>>> entries;
  uint64_t given = 0;
  size_t blanks = 0;
  std::istringstream parts(o.value);
  std::string part;
  bool ok = true;
  while (std::getline(parts, part, ':')) {
    size_t slash = part.find('/');
    std::string pct = slash == std::string::npos ? "" : part.substr(slash + 1);
    auto size = SizeValue(o, part.substr(0, slash), l.kb_base, size_field);
    if (!size) {
      ok = false;
      continue;
    }
    if (pct.empty()) {
      ++blanks;
      entries.push_back({*size, std::nullopt});
    } else if (!IsDigits(pct) || pct.size() > 3 || std::stoul(pct) > 100) {
      Error(ValueAt(o), "\"" + part + "\": the share after / is a percentage, 0 to 100");
      ok = false;
    } else {
      given += std::stoul(pct);
      entries.push_back({*size, std::stoul(pct)});
    }
  }
  if (!ok) return;
  if (given > 100 || (blanks == 0 && given != 100) || (blanks > 0 && given == 100)) {
    Error(ValueAt(o), "\"" + o.value + "\": the percentages add up to " + std::to_string(given) + ", not 100");
    return;
  }
  const uint64_t blank_share = blanks ? (100 - given) / blanks : 0;
  l.io.clear_block_size_split();
  for (const auto& [size, pct] : entries) {
    uint64_t weight = pct ? *pct : blank_share;
    if (weight == 0) continue;  // never chosen
    v1::BlockSizeWeight* w = l.io.add_block_size_split();
    w->set_size(size);
    w->set_weight(static_cast<uint32_t>(weight));
  }
  Record(l, {v1::IoSpec::kBlockSizeSplitFieldNumber}, o);
}

void Importer::Direct(const Option& o, Level& l) {
  if (auto b = Bool(o)) {
    l.io.set_direct(*b);
    Record(l, {v1::IoSpec::kDirectFieldNumber}, o);
  }
}

void Importer::Buffered(const Option& o, Level& l) {
  if (auto b = Bool(o)) {
    l.io.set_direct(!*b);
    Record(l, {v1::IoSpec::kDirectFieldNumber}, o);
  }
}

void Importer::IoEngine(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  // sync and pvsync do what psync does, one request at a time, through sibling system calls.
  static const std::map<std::string, v1::Engine> kEngines = {
      {"psync", v1::ENGINE_PSYNC},   {"sync", v1::ENGINE_PSYNC},         {"pvsync", v1::ENGINE_PSYNC},
      {"libaio", v1::ENGINE_LIBAIO}, {"io_uring", v1::ENGINE_IO_URING}, {"null", v1::ENGINE_NULL}};
  auto it = kEngines.find(o.value);
  if (it != kEngines.end()) {
    l.io.set_engine(it->second);
    Record(l, {v1::IoSpec::kEngineFieldNumber}, o);
    return;
  }
  if (o.value == "exec" || o.value.rfind("external", 0) == 0 || o.value.find('/') != std::string::npos) {
    RunsCommand(o, l);
    return;
  }
  Error(ValueAt(o), "\"" + o.value +
                        "\" is not an engine iofleet has: psync (also for sync and pvsync), libaio, io_uring, null");
}

void Importer::IoDepth(const Option& o, Level& l) {
  if (auto depth = Count(o, IoField(v1::IoSpec::kQueueDepthFieldNumber))) {
    l.io.set_queue_depth(static_cast<uint32_t>(*depth));
    Record(l, {v1::IoSpec::kQueueDepthFieldNumber}, o);
  }
}

void Importer::NumJobs(const Option& o, Level& l) {
  if (auto jobs = Count(o, IoField(v1::IoSpec::kJobsFieldNumber))) {
    l.io.set_jobs(static_cast<uint32_t>(*jobs));
    Record(l, {v1::IoSpec::kJobsFieldNumber}, o);
  }
}

// size (the job's I/O) and filesize (its file) are one thing here: iofleet gives each job one
// file of file_size and does it whole.
void Importer::Size(const Option& o, Level& l) {
  l.size = KeyAt(o);
  if (!NeedValue(o)) return;
  if (o.value.find('%') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": a percentage of a device or file is not supported: give a size, e.g. 4g");
    return;
  }
  if (o.value.find_first_of(":-") != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": a range of sizes is not supported: give one size");
    return;
  }
  auto size = SizeValue(o, o.value, l.kb_base, IoField(v1::IoSpec::kFileSizeFieldNumber));
  if (!size) return;
  if (l.io.has_file_size() && !l.size_key.empty() && l.size_key != o.key && l.io.file_size() != *size) {
    Error(ValueAt(o), "differs from " + l.size_key + "=: iofleet gives each job one file and does all of it; give one size");
    return;
  }
  l.io.set_file_size(*size);
  l.size_key = o.key;
  Record(l, {v1::IoSpec::kFileSizeFieldNumber}, o);
}

void Importer::Runtime(const Option& o, Level& l) {
  if (auto ns = Time(o)) l.runtime = Setting<uint64_t>{*ns, KeyAt(o)};
}

void Importer::TimeBased(const Option& o, Level& l) {
  if (auto b = Bool(o)) l.time_based = Setting<bool>{*b, KeyAt(o)};
}

void Importer::RampTime(const Option& o, Level& l) {
  if (auto ns = Time(o)) l.ramp = Setting<uint64_t>{*ns, KeyAt(o)};
}

void Importer::CompressPercentage(const Option& o, Level& l) {
  if (auto pct = Count(o, v1::DataSpec::descriptor()->FindFieldByNumber(v1::DataSpec::kCompressiblePctFieldNumber))) {
    l.io.mutable_data()->set_compressible_pct(static_cast<uint32_t>(*pct));
    Record(l, {v1::IoSpec::kDataFieldNumber, v1::DataSpec::kCompressiblePctFieldNumber}, o);
  }
}

// fio's forms: 0x hex, or a "quoted string". A bare number and a 'file' (whose contents fio
// reads) are refused rather than guessed at.
void Importer::BufferPattern(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  const std::string& v = o.value;
  std::string pattern;
  if (v.rfind("0x", 0) == 0 || v.rfind("0X", 0) == 0) {
    pattern = "0x" + v.substr(2);
  } else if (v.size() >= 3 && v.front() == '"' && v.back() == '"' && v.find('"', 1) == v.size() - 1) {
    pattern = v.substr(1, v.size() - 2);
  } else if (v.front() == '\'') {
    Error(ValueAt(o), "\"" + v + "\": a pattern read from a file is not supported: write it as 0x hex or a \"string\"");
    return;
  } else {
    Error(ValueAt(o), "\"" + v + "\": write the pattern as 0x hex (0xdeadbeef) or a \"quoted string\"");
    return;
  }
  l.io.mutable_data()->set_pattern(pattern);
  Record(l, {v1::IoSpec::kDataFieldNumber, v1::DataSpec::kPatternFieldNumber}, o);
}

void Importer::DedupePercentage(const Option& o, Level& l) {
  if (auto pct = Count(o, v1::DataSpec::descriptor()->FindFieldByNumber(v1::DataSpec::kDedupePctFieldNumber))) {
    l.io.mutable_data()->set_dedupe_pct(static_cast<uint32_t>(*pct));
    Record(l, {v1::IoSpec::kDataFieldNumber, v1::DataSpec::kDedupePctFieldNumber}, o);
  }
}

void Importer::Verify(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  const bool on = o.value != "0" && o.value != "none";
  l.io.set_verify(on);
  Record(l, {v1::IoSpec::kVerifyFieldNumber}, o);
  if (on) {
    Warn(ValueAt(o), "iofleet verifies with its own header and CRC-32 in every block, not with fio's \"" + o.value +
                         "\"; writes carry the headers and read steps check them: fio's verify pass after a "
                         "write job is not run, so add a read job (with stonewall) to check what was written");
  }
}

void Importer::Fsync(const Option& o, Level& l) {
  if (auto every = Count(o, v1::FsyncSpec::descriptor()->FindFieldByNumber(v1::FsyncSpec::kEveryFieldNumber))) {
    l.io.mutable_fsync()->set_every(static_cast<uint32_t>(*every));
    Record(l, {v1::IoSpec::kFsyncFieldNumber}, o);
  }
}

void Importer::EndFsync(const Option& o, Level& l) {
  if (auto b = Bool(o)) {
    l.io.mutable_fsync()->set_at_end(*b);
    Record(l, {v1::IoSpec::kFsyncFieldNumber}, o);
  }
}

// Accepted with no effect: iofleet reports every step aggregated over its jobs and per agent.
void Importer::GroupReporting(const Option& o, Level&) { Bool(o); }

void Importer::ProfileOnly(const Option& o, Level&) { NeedValue(o); }

void Importer::Invalidate(const Option& o, Level& l) {
  if (auto b = Bool(o)) {
    l.io.set_invalidate(*b);
    Record(l, {v1::IoSpec::kInvalidateFieldNumber}, o);
  }
}

// fio's jobs are processes unless `thread`; iofleet's are always threads of the agent.
void Importer::Thread(const Option& o, Level&) { Bool(o); }

// fio's text is iofleet's `distribution`, but for normal: fio's normal:DEV is a bell of a fixed
// width that DEV only jitters, iofleet's normal:SIGMA a standard deviation, so it cannot mean the same.
void Importer::RandomDistribution(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value.rfind("normal", 0) == 0 || o.value.rfind("gauss", 0) == 0) {
    Unsupported(ValueAt(o), "\"" + o.value + "\": fio's normal distribution is a bell of fixed width that its value only "
                            "jitters, iofleet's normal:SIGMA a standard deviation: it cannot mean the same here");
    return;
  }
  auto spec = ParseDistribution(o.value);
  if (!spec.ok()) {
    Error(ValueAt(o), spec.status().message());
    return;
  }
  if (o.value == "random") return;  // fio's default, iofleet's uniform
  l.io.set_distribution(o.value);
  Record(l, {v1::IoSpec::kDistributionFieldNumber}, o);
}

void Importer::NoRandomMap(const Option& o, Level& l) {
  auto b = Bool(o);
  if (!b) return;
  l.io.set_random(*b ? v1::RANDOM_ORDER_UNIFORM : v1::RANDOM_ORDER_PERMUTATION);
  Record(l, {v1::IoSpec::kRandomFieldNumber}, o);
}

// randrepeat (fio's default: on) repeats a job's random choices run after run: a seed of its own;
// randrepeat=0 draws new ones each run, iofleet's own default; randseed names the seed.
void Importer::RandRepeat(const Option& o, Level& l) {
  if (auto b = Bool(o)) l.randrepeat = Setting<bool>{*b, KeyAt(o)};
}

void Importer::RandSeed(const Option& o, Level& l) {
  if (auto seed = Count(o, IoField(v1::IoSpec::kSeedFieldNumber))) {
    l.io.set_seed(*seed);
    Record(l, {v1::IoSpec::kSeedFieldNumber}, o);
  }
}

void Importer::StartDelay(const Option& o, Level& l) {
  if (o.value.find('-') != std::string::npos) {
    Unsupported(ValueAt(o), "\"" + o.value + "\": a random start delay (a range) is not supported: give one delay");
    return;
  }
  if (auto ns = Time(o)) {
    l.io.set_start_delay(*ns);
    Record(l, {v1::IoSpec::kStartDelayFieldNumber}, o);
  }
}

namespace {

// fio's "READ,WRITE[,TRIM]" value of rate and rate_iops as one value: the same for every
// direction it names (an empty part leaves that direction uncapped, which iofleet cannot say).
std::optional<std::string> OneRate(const std::string& value) {
  // "10m," caps reads only in fio (getline would drop the empty part after the last comma).
  if (!value.empty() && value.back() == ',') return std::nullopt;
  std::vector<std::string> parts;
  std::stringstream in(value);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
  if (parts.empty()) return std::nullopt;
  for (const std::string& part : parts) {
    if (part != parts.front()) return std::nullopt;
  }
  return parts.front();
}

}  // namespace

std::optional<std::string> Importer::OneRateOf(const Option& o) {
  if (!NeedValue(o)) return std::nullopt;
  auto one = OneRate(o.value);
  if (!one) Unsupported(ValueAt(o), "\"" + o.value + "\": a separate cap for reads and writes is not supported: give one rate for both");
  return one;
}

void Importer::Rate(const Option& o, Level& l) {
  auto one = OneRateOf(o);
  if (!one) return;
  const pb::FieldDescriptor* field = v1::RateSpec::descriptor()->FindFieldByNumber(v1::RateSpec::kBytesPerSecFieldNumber);
  if (auto bytes = SizeValue(o, *one, l.kb_base, field)) {
    l.io.mutable_rate()->set_bytes_per_sec(*bytes);
    Record(l, {v1::IoSpec::kRateFieldNumber, v1::RateSpec::kBytesPerSecFieldNumber}, o);
  }
}

void Importer::RateIops(const Option& o, Level& l) {
  auto one = OneRateOf(o);
  if (!one) return;
  Option single = o;
  single.value = *one;
  if (auto iops = Count(single, v1::RateSpec::descriptor()->FindFieldByNumber(v1::RateSpec::kIopsFieldNumber))) {
    l.io.mutable_rate()->set_iops(*iops);
    Record(l, {v1::IoSpec::kRateFieldNumber, v1::RateSpec::kIopsFieldNumber}, o);
  }
}

void Importer::RateProcess(const Option& o, Level&) {
  if (!NeedValue(o)) return;
  if (o.value == "linear") return;  // fio's default, and what iofleet's pacer does
  if (o.value == "poisson") {
    Unsupported(ValueAt(o), "\"poisson\": exponentially distributed arrivals are not supported: iofleet spaces a rate's requests evenly");
    return;
  }
  Error(ValueAt(o), "\"" + o.value + "\" is not linear or poisson");
}

void Importer::Directory(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  std::string dir = o.value;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir.find(':') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": several directories are not supported: give one");
    return;
  }
  if (dir.front() == '/' && relative_paths_) {
    Warn(ValueAt(o), "\"" + o.value + "\" is taken as each agent's run directory (--fio-paths relative)");
    descriptions_.push_back("directory " + o.value + " as the run directory (--fio-paths relative)");
    return;
  }
  if (dir.front() == '/') {
    Error(ValueAt(o), "\"" + o.value + "\" is a path on this host, but each agent works below its own roots "
                      "(iofleet-agent --root NAME=DIR; --local-root for the local agent): give a directory relative "
                      "to the root, or remove directory= and use --set target.root=NAME --set target.dir=PATH");
    return;
  }
  l.directory = Setting<std::string>{dir, KeyAt(o)};
}

void Importer::Stonewall(const Option& o, Level& l) {
  if (auto b = Bool(o)) l.stonewall = Setting<bool>{*b, KeyAt(o)};
}

// A relative name is the job's file in each agent's run directory; jobs that name the same file
// share it, each covering all of it as fio's do (file_layout shared, shared_mode whole).
void Importer::Filename(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  std::string name = o.value;
  if (name.find(':') != std::string::npos) {
    Unsupported(ValueAt(o), "\"" + name + "\": several files per job are not supported: give one file");
    return;
  }
  if (name.front() == '/') {
    // A device or an absolute path names a place on some host: dropping it would run the job on
    // a file in the agent's root instead, another test with the same name. Never left out
    // silently, and a device never mapped.
    const bool device = name.rfind("/dev/", 0) == 0;
    if (device || !relative_paths_) {
      Error(ValueAt(o), "\"" + name + "\" is " + (device ? "a device" : "an absolute path") +
                            ", but each agent works only below its own roots (iofleet-agent --root NAME=DIR; --local-root "
                            "for the local agent), so it cannot be honoured" + (device ? "" : " as written") +
                            ", even with --allow-unsupported: " +
                            (device ? "remove filename= (iofleet tests files in a file system, not devices)"
                                    : "give a relative name, or pass --fio-paths relative to take it as its base name in "
                                      "each agent's run directory"));
      return;
    }
    const std::string base = name.substr(name.find_last_of('/') + 1);
    if (base.empty()) {
      Error(ValueAt(o), "\"" + name + "\" names no file");
      return;
    }
    Warn(ValueAt(o), "\"" + name + "\" is taken as \"" + base + "\" in each agent's run directory (--fio-paths relative)");
    descriptions_.push_back("filename " + name + " as " + base + " in the run directory (--fio-paths relative)");
    name = base;
  }
  if (name.find('/') != std::string::npos || name == "." || name == "..") {
    Error(ValueAt(o), "\"" + name + "\" is not a file name: give the directory with directory= and the file's name here");
    return;
  }
  // iofleet's file names are [A-Za-z0-9_-]: fio's name maps to one (dots and others become _).
  std::string prefix;
  for (unsigned char c : name) prefix += (std::isalnum(c) || c == '_' || c == '-') ? static_cast<char>(c) : '_';
  l.io.set_file_prefix(prefix.substr(0, 64));
  l.io.set_file_layout(v1::FILE_LAYOUT_SHARED);
  l.io.set_shared_mode(v1::SHARED_MODE_WHOLE);
  origins_[l.path + ".file_prefix"] = ValueAt(o);
  origins_[l.path + ".file_layout"] = KeyAt(o);
  origins_[l.path + ".shared_mode"] = KeyAt(o);
  l.filename = Setting<std::string>{name, KeyAt(o)};
}

void Importer::KbBaseOption(const Option& o, Level&) {
  if (o.value != "1000" && o.value != "1024") Error(ValueAt(o), "\"" + o.value + "\" is not 1000 or 1024");
}

void Importer::RunsCommand(const Option& o, Level&) {
  const std::string shown = o.key + (o.has_value ? "=" + o.value : "");
  if (allow_) {
    Warn(KeyAt(o), shown + ": left out and not run: iofleet never runs commands or loads code from a job file");
  } else {
    Error(KeyAt(o), "runs a command or loads code, which iofleet never does from a job file (it was not run): "
                    "remove it (--allow-unsupported leaves it out, still not run, with a warning)");
  }
}

}  // namespace iofleet::controller::fio_detail

namespace iofleet::controller {

std::string FioOptionReference() {
  std::string out = "| fio option | iofleet field |\n|---|---|\n";
  for (const auto& row : fio_detail::Importer::OptionTable()) {
    if (row.shown) out += std::string("| ") + row.shown + " | " + row.field + " |\n";
  }
  return out;
}

}  // namespace iofleet::controller
