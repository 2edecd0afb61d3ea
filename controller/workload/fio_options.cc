#include <algorithm>
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
  static const std::vector<OptionRow> table = [] {
    std::vector<OptionRow> rows = CoreOptionRows();
    // The pacing options' rows (fio_pacing_options.cc) after stonewall's, as the docs list them.
    const auto after = std::find_if(rows.begin(), rows.end(), [](const OptionRow& r) { return r.shown && std::string(r.shown).find("stonewall") != std::string::npos; });
    std::vector<OptionRow> more = PacingOptionRows();
    for (OptionRow& row : LogOptionRows()) more.push_back(std::move(row));
    for (OptionRow& row : SteadyOptionRows()) more.push_back(std::move(row));
    for (OptionRow& row : LatencyOptionRows()) more.push_back(std::move(row));
    rows.insert(after == rows.end() ? rows.end() : after + 1, more.begin(), more.end());
    // Rows of other files after the row `shown` names, as the docs list them.
    auto insert_after = [&rows](const std::string& shown, const std::vector<OptionRow>& more) {
      const auto at = std::find_if(rows.begin(), rows.end(), [&](const OptionRow& r) { return r.shown && r.shown == shown; });
      rows.insert(at == rows.end() ? rows.end() : at + 1, more.begin(), more.end());
    };
    insert_after("`dedupe_percentage`", DedupeOptionRows());  // the working set's (fio_dedupe_options.cc)
    insert_after("`size`, `filesize`", OffsetOptionRows());   // fio_offset_options.cc
    insert_after("`thread`", FileOptionRows());               // allow_file_create's (fio_file_options.cc)
    insert_after("`norandommap`", RandomOptionRows());        // fio_random_options.cc
    insert_after("`group_reporting`", ExitOptionRows());      // new_group, exitall, exit_what (fio_exit_options.cc)
    return rows;
  }();
  return table;
}

std::vector<Importer::OptionRow> Importer::CoreOptionRows() {
  return {
      {{{"name", &Importer::Name}},
       "section name, `name`",
       "the step's `name`, and its `file_prefix`: as fio names a job's files after the job, a read job of another name "
       "than the write lays out and reads files of its own, and jobs of one name share theirs"},
      {{{"description", &Importer::Description}}, "`description`", "`description`"},
      {{{"rw", &Importer::Rw}, {"readwrite", &Importer::Rw}},
       "`rw`, `readwrite`",
       "`op`: `read`, `write`, `randread`, `randwrite`, `rw`/`readwrite` -> `readwrite`, `randrw`; a sequential "
       "`read:N` is `skip: N` (holes), `read:-N` is `backward` (`-2 x bs`: every block; more: `skip`); `randread:N` is "
       "refused"},
      {{{"rwmixread", &Importer::RwMixRead}, {"rwmixwrite", &Importer::RwMixWrite}},
       "`rwmixread`, `rwmixwrite`",
       "`read_pct` (= 100 - `rwmixwrite`)"},
      {{{"bs", &Importer::BlockSize}, {"blocksize", &Importer::BlockSize}}, "`bs`, `blocksize`", "`block_size`"},
      {{{"bsrange", &Importer::BlockSizeRange}, {"blocksize_range", &Importer::BlockSizeRange}},
       "`bsrange=4k-16k`",
       "`block_size` (one size) or `block_size_split` with an equal share for each multiple of the smallest, as fio draws "
       "them (at most 16 sizes)"},
      {{{"bssplit", &Importer::BlockSizeSplit}},
       "`bssplit=4k/60:64k/40`",
       "`block_size_split`; a blank share gets an even part of the rest, as in fio. Random offsets are multiples of the "
       "largest size (iofleet's slots), where fio's are multiples of the smallest"},
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
       "`file_size` (each job's file; a percentage is refused); `size` beside a different `filesize` is the job's "
       "`io_size`, as in fio"},
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
      {{{"fallocate", &Importer::Fallocate}},
       "`fallocate` (fio's default `native`)",
       "`preallocate`: `native`, `posix` and `1` allocate a writing job's files at setup, `none`, `0` and `truncate` do "
       "not; `keep` (allocation past the file's size) is refused"},
      {{{"unlink", &Importer::Unlink}}, "`unlink`", "`unlink`: the step's files are deleted when it ends"},
      {{{"fdatasync", &Importer::FdataSync}},
       "`fdatasync`",
       "`fsync.every` with `fsync.data_only` (fdatasync for every sync of the job; beside `fsync=` refused)"},
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
      {{{"loops", &Importer::Loops}}, "`loops`", "`loops` (size-based jobs)"},
      {{{"io_size", &Importer::IoSize}, {"io_limit", &Importer::IoSize}},
       "`io_size` (`io_limit`)",
       "`io_size` (size-based jobs): the bytes each job moves within its `size`, going around it when more"},
      {{{"wait_for", &Importer::WaitFor}},
       "`wait_for`",
       "a stonewall, where it names the jobs running before it (fio starts the job when they end); a `wait_for` that "
       "leaves other jobs running is refused: a step's streams start together"},
      {{{"thread", &Importer::Thread}}, "`thread`", "accepted, no effect: iofleet's jobs are threads of the agent"},
      {{{"random_distribution", &Importer::RandomDistribution}},
       "`random_distribution`",
       "`distribution`: `random`, `zipf:THETA`, `pareto:H`, `zoned:A/R:...`, `sequence:S,...` as fio writes them (fio's "
       "`normal` is refused: its value is not a standard deviation)"},
      {{{"random_sequence_stride", &Importer::RandomSequenceStride}},
       "`random_sequence_stride`",
       "`sequence_stride`: with `random_distribution=sequence:...`, each round of the sequence one group further on"},
      {{{"norandommap", &Importer::NoRandomMap}}, "`norandommap`", "`random: uniform` (blocks drawn with repeats)"},
      {{{"randrepeat", &Importer::RandRepeat}, {"randseed", &Importer::RandSeed}},
       "`randrepeat`, `randseed`",
       "`seed`: fio's default `randrepeat=1` repeats a random job's offsets on every run, so such a job gets `seed: 1`; "
       "`randseed=N` is `seed: N`; `randrepeat=0` draws new ones each run (iofleet's default)"},
      {{{"startdelay", &Importer::StartDelay}}, "`startdelay`", "`start_delay` (one value; a range is refused)"},
      {{{"group_reporting", &Importer::GroupReporting}},
       "`group_reporting`",
       "accepted, no effect: iofleet always reports each step aggregated and per agent"},
      {{{"threads", &Importer::ProfileOnly}},
       "`threads`",
       "accepted, no effect: an option of fio's tiobench profile, which does nothing without `profile=tiobench`"},
      {{{"gtod_reduce", &Importer::GroupReporting}},
       "`gtod_reduce`",
       "accepted, no effect: it only spares fio's clock calls; iofleet always times every I/O (its cost is in its figures)"},
      {{{"kb_base", &Importer::KbBaseOption}}, "`kb_base`", "how sizes read (below)"},
      // Refused with their own reasons (docs/workloads.md lists them below the table).
      {{{"exec_prerun", &Importer::RunsCommand}, {"exec_postrun", &Importer::RunsCommand}, {"trigger", &Importer::RunsCommand},
        {"trigger-file", &Importer::RunsCommand}, {"trigger-timeout", &Importer::RunsCommand}, {"trigger-remote", &Importer::RunsCommand}},
       nullptr, nullptr},
  };
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
  const size_t colon = o.value.find(':');
  const std::string op = o.value.substr(0, colon);
  static const std::map<std::string, v1::Op> kOps = {
      {"read", v1::OP_READ},       {"write", v1::OP_WRITE},     {"randread", v1::OP_RANDREAD},
      {"randwrite", v1::OP_RANDWRITE}, {"rw", v1::OP_READWRITE}, {"readwrite", v1::OP_READWRITE},
      {"randrw", v1::OP_RANDRW}};
  auto it = kOps.find(op);
  if (it == kOps.end()) {
    bool trim = o.value.find("trim") != std::string::npos;
    Error(ValueAt(o), "\"" + o.value + "\" is not supported" + (trim ? " (iofleet does no trims)" : "") +
                          ": read, write, randread, randwrite, rw (= readwrite), randrw");
    return;
  }
  l.io.set_op(it->second);
  Record(l, {v1::IoSpec::kOpFieldNumber}, o);
  if (colon != std::string::npos) SequentialOffsetAdd(o, o.value.substr(colon + 1), l);
}

// rw=read:N (N may be negative): the next sequential I/O starts N bytes past the end of the one
// before. Kept until the job's block size is known (PlaceSequentialAdd); fio's random form,
// randread:N (N I/Os in a row before a new random offset), has no iofleet counterpart.
void Importer::SequentialOffsetAdd(const Option& o, const std::string& text, Level& l) {
  if (rules::IsRandom(l.io.op())) {
    Unsupported(ValueAt(o), "\"" + o.value + "\": fio's random :N (N sequential I/Os before each new random offset) is "
                            "not supported");
    return;
  }
  const bool negative = !text.empty() && text.front() == '-';
  bool iec = false;
  Result<uint64_t> bytes = ParseFioSize(negative ? text.substr(1) : text, l.kb_base, iec);
  if (!bytes.ok() || *bytes > (uint64_t{1} << 62)) {
    Error(ValueAt(o), "\"" + o.value + "\": the part after : is not a size (" +
                          (bytes.ok() ? std::string("too large") : bytes.status().message()) + ")");
    return;
  }
  l.seq_add = Setting<int64_t>{negative ? -static_cast<int64_t>(*bytes) : static_cast<int64_t>(*bytes), ValueAt(o)};
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

void Importer::Loops(const Option& o, Level& l) {
  if (auto loops = Count(o, IoField(v1::IoSpec::kLoopsFieldNumber))) {
    l.io.set_loops(static_cast<uint32_t>(*loops));
    Record(l, {v1::IoSpec::kLoopsFieldNumber}, o);
  }
}

void Importer::IoSize(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value.find('%') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": a percentage of a device or file is not supported: give a size, e.g. 4g");
    return;
  }
  if (auto size = SizeValue(o, o.value, l.kb_base, IoField(v1::IoSpec::kIoSizeFieldNumber))) {
    l.io.set_io_size(*size);
    Record(l, {v1::IoSpec::kIoSizeFieldNumber}, o);
  }
}

void Importer::WaitFor(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (l.path == "defaults") {
    Error(KeyAt(o), "in [global] would have every job wait for \"" + o.value + "\": give it in the job that waits");
    return;
  }
  l.wait_for = Setting<std::string>{o.value, ValueAt(o)};
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

// filesize is the job's file; size is its file too, unless filesize is given, when fio takes it
// as the amount of I/O (io_size). Where the two are on different levels PlaceIoAmount sorts
// them out; here a level's own values.
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
  const bool file = o.key == "filesize";
  (file ? l.filesize_bytes : l.size_bytes) = Setting<uint64_t>{*size, KeyAt(o)};
  if (!file && l.filesize_bytes) return;  // the level's file is its filesize
  l.io.set_file_size(*size);
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
  if (l.io.fsync().data_only() && l.io.fsync().every() > 0) {
    Unsupported(ValueAt(o), "beside fdatasync=: iofleet's job syncs one way, fsync or fdatasync: give one of them");
    return;
  }
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

void Importer::Fallocate(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  const std::string& v = o.value;
  if (v == "native" || v == "posix" || v == "1" || v == "none" || v == "0" || v == "truncate") {
    l.io.set_preallocate(v == "native" || v == "posix" || v == "1");
    Record(l, {v1::IoSpec::kPreallocateFieldNumber}, o);
    return;
  }
  if (v == "keep") {
    Unsupported(ValueAt(o), "\"keep\": allocating past the file's size (FALLOC_FL_KEEP_SIZE) is not supported");
    return;
  }
  Error(ValueAt(o), "\"" + v + "\" is not native, posix, keep, truncate, none, 0 or 1");
}

void Importer::Unlink(const Option& o, Level& l) {
  if (auto b = Bool(o)) {
    l.io.set_unlink(*b);
    Record(l, {v1::IoSpec::kUnlinkFieldNumber}, o);
  }
}

// fdatasync=N: fsync=N's every N writes, each an fdatasync. A job with both syncs would do two
// kinds; iofleet's job does one.
void Importer::FdataSync(const Option& o, Level& l) {
  auto every = Count(o, v1::FsyncSpec::descriptor()->FindFieldByNumber(v1::FsyncSpec::kEveryFieldNumber));
  if (!every) return;
  if (l.io.fsync().every() > 0 && !l.io.fsync().data_only()) {
    Unsupported(ValueAt(o), "beside fsync=: iofleet's job syncs one way, fsync or fdatasync: give one of them");
    return;
  }
  l.io.mutable_fsync()->set_every(static_cast<uint32_t>(*every));
  l.io.mutable_fsync()->set_data_only(true);
  Record(l, {v1::IoSpec::kFsyncFieldNumber}, o);
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

void Importer::RandomSequenceStride(const Option& o, Level& l) {
  auto b = Bool(o);
  if (!b || !*b) return;  // fio's default 0: the same slots over and over
  l.io.set_sequence_stride(true);
  Record(l, {v1::IoSpec::kSequenceStrideFieldNumber}, o);
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
