#include "controller/workload/fio_import.h"

#include <google/protobuf/descriptor.h>

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

#include "controller/workload/input_file.h"
#include "controller/workload/proto_names.h"
#include "core/base/units.h"
#include "core/rules/defaults.h"
#include "core/rules/validate.h"

namespace iofleet::controller {
namespace {

namespace pb = google::protobuf;

// Where something was written, and the option it belongs to, for messages.
struct Place {
  int line = 0;
  int col = 0;
  std::string option;
};

struct Option {
  std::string key;
  std::string value;
  bool has_value = false;  // `key=value`, not a bare `key`
  int line = 0;
  int key_col = 0;
  int value_col = 0;
};

struct Section {
  std::string name;
  int line = 0;
  int col = 0;
  std::vector<Option> options;
};

template <typename T>
struct Setting {
  T value{};
  Place at;
};

// What one level (the [global] defaults, or one job) says. runtime, ramp_time, time_based,
// stonewall and directory are kept aside: where they land depends on other levels.
struct Level {
  std::string path;  // "defaults" or "steps[N].io": the workload path of `io`
  v1::IoSpec io;
  std::optional<Setting<uint64_t>> runtime;
  std::optional<Setting<uint64_t>> ramp;
  std::optional<Setting<bool>> time_based;
  std::optional<Setting<bool>> stonewall;
  std::optional<Setting<std::string>> directory;
  std::optional<Setting<std::string>> name;
  std::optional<Place> size;        // size= or filesize= was written, valid or not
  std::string size_key;             // which of the two set io.file_size
  int kb_base = 1024;
};

struct Job {
  Section header;               // the job's own section: name and place
  std::vector<Option> options;  // options of later [global] sections, then its own
  Level level;
};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsDigits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// [a-z0-9-]: lower case, every other run of characters one '-', none at either end.
std::string SanitizeName(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    char l = static_cast<char>(std::tolower(c));
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) {
      out += l;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// A line without its trailing comment: `;` or `#` at the start or after a blank, outside quotes
// (fio accepts `bs=4k ; comment`).
std::string StripComment(const std::string& line) {
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == ';' || c == '#') && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return line.substr(0, i);
    }
  }
  return line;
}

// fio's sizes: an integer (or 0x hex) with an optional unit. With kb_base=1024, fio's default,
// k/m/g/t/p (with an optional b) are powers of 2 and the IEC forms ki/kib/mi/... are powers of
// 10, the reverse of the standards, kept by fio for old scripts; kb_base=1000 swaps them back.
// `iec` tells the caller an IEC form was used. "1.5k" is fine when it is a whole number of bytes.
Result<uint64_t> ParseFioSize(const std::string& text, int kb_base, bool& iec) {
  const std::string t = Lower(text);
  const Status bad = InvalidArgument("\"" + text + "\" is not a size (fio sizes: 4096, 4k, 64k, 1m, 4g)");
  iec = false;
  if (t.rfind("0x", 0) == 0) {
    std::string hex = t.substr(2);
    if (hex.empty() || hex.size() > 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) return bad;
    return std::stoull(hex, nullptr, 16);
  }
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  std::string whole = t.substr(0, i), fraction;
  if (i < t.size() && t[i] == '.') {
    size_t f = ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    fraction = t.substr(f, i - f);
  }
  if (whole.empty() || whole.size() > 19 || fraction.size() > 9) return bad;
  std::string unit = t.substr(i);
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  if (!unit.empty() && unit.back() == 'i') {
    iec = true;
    unit.pop_back();
  }
  static const std::string kPrefixes = "kmgtp";
  size_t power = 0;
  if (!unit.empty()) {
    if (unit.size() != 1 || kPrefixes.find(unit[0]) == std::string::npos) return bad;
    power = kPrefixes.find(unit[0]) + 1;
  } else if (iec) {
    return bad;  // a bare "i"
  }
  const bool binary = (kb_base == 1024) != iec;
  unsigned __int128 multiplier = 1;
  for (size_t p = 0; p < power; ++p) multiplier *= binary ? 1024 : 1000;
  unsigned __int128 scale = 1;
  for (size_t p = 0; p < fraction.size(); ++p) scale *= 10;
  unsigned __int128 digits = std::stoull(whole) * scale + (fraction.empty() ? 0 : std::stoull(fraction));
  const unsigned __int128 limit = static_cast<unsigned __int128>(std::numeric_limits<uint64_t>::max()) * scale;
  if (digits > limit / multiplier) return InvalidArgument("\"" + text + "\" is too large");
  unsigned __int128 bytes = digits * multiplier;
  if (bytes % scale != 0) return InvalidArgument("\"" + text + "\" is not a whole number of bytes");
  bytes /= scale;
  if (bytes > std::numeric_limits<uint64_t>::max()) return InvalidArgument("\"" + text + "\" is too large");
  return static_cast<uint64_t>(bytes);
}

// fio's times: an integer, in seconds unless a unit says otherwise (us, ms, s, m, h, d; fio
// reads them case-insensitively, so "m" is minutes). Returns nanoseconds.
Result<uint64_t> ParseFioTime(const std::string& text) {
  const std::string t = Lower(text);
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  static const std::map<std::string, uint64_t> kUnits = {
      {"", 1'000'000'000ull},   {"s", 1'000'000'000ull},  {"sec", 1'000'000'000ull},
      {"ms", 1'000'000ull},     {"msec", 1'000'000ull},   {"us", 1'000ull},
      {"usec", 1'000ull},       {"m", 60'000'000'000ull}, {"min", 60'000'000'000ull},
      {"h", 3'600'000'000'000ull}, {"d", 86'400'000'000'000ull}};
  auto unit = kUnits.find(t.substr(i));
  if (i == 0 || i > 12 || unit == kUnits.end()) {
    return InvalidArgument("\"" + text + "\" is not a time (seconds, or with a unit: 500ms, 30s, 5m, 1h)");
  }
  unsigned __int128 ns = static_cast<unsigned __int128>(std::stoull(t.substr(0, i))) * unit->second;
  if (ns > std::numeric_limits<uint64_t>::max()) return InvalidArgument("\"" + text + "\" is too long");
  return static_cast<uint64_t>(ns);
}

const pb::FieldDescriptor* IoField(const std::string& name) { return v1::IoSpec::descriptor()->FindFieldByName(name); }

bool HasIoField(const v1::IoSpec& io, const std::string& field) {
  const pb::FieldDescriptor* desc = IoField(field);
  const pb::Reflection* refl = v1::IoSpec::GetReflection();
  return desc->is_repeated() ? refl->FieldSize(io, desc) > 0 : refl->HasField(io, desc);
}

// fio's own defaults where they differ from iofleet's, so that a job that leaves an option out
// does here what it does in fio.
struct FioDefault {
  const char* field;
  bool (*has)(const v1::IoSpec&);
  void (*set)(v1::IoSpec&);
};
const FioDefault kFioDefaults[] = {
    {"op", [](const v1::IoSpec& io) { return io.has_op(); }, [](v1::IoSpec& io) { io.set_op(v1::OP_READ); }},
    {"engine", [](const v1::IoSpec& io) { return io.has_engine(); },
     [](v1::IoSpec& io) { io.set_engine(v1::ENGINE_PSYNC); }},
    {"direct", [](const v1::IoSpec& io) { return io.has_direct(); }, [](v1::IoSpec& io) { io.set_direct(false); }},
    {"block_size", [](const v1::IoSpec& io) { return io.has_block_size() || io.block_size_split_size() > 0; },
     [](v1::IoSpec& io) { io.set_block_size(4096); }},
    // fio does not fsync at the end of a write job unless end_fsync=1.
    {"fsync", [](const v1::IoSpec& io) { return io.fsync().has_at_end(); },
     [](v1::IoSpec& io) { io.mutable_fsync()->set_at_end(false); }},
};

// Fields that fio, too, ignores where they have no effect (bs beside bssplit, rwmixread on a
// read job, fsync on a read job, iodepth on a synchronous engine): left out with a warning
// rather than refused.
const char* const kIgnoredByFio[] = {"block_size", "read_pct", "fsync", "queue_depth"};

class Importer {
 public:
  Importer(const std::string& file, bool allow_unsupported, FioImport& out)
      : file_(file), allow_(allow_unsupported), out_(out) {}

  void Import(const std::string& text);

 private:
  using Handler = void (Importer::*)(const Option&, Level&);

  // Reading the file into sections.
  std::vector<Section> ReadSections(const std::string& text);
  void ReadLine(const std::string& raw, int line, std::vector<Section>& sections);

  // Options into levels.
  void ApplyAll(const std::vector<Option>& options, Level& level);
  void Apply(const Option& o, Level& level);
  static int KbBase(const std::vector<Option>& options, int inherited);
  static const std::map<std::string, Handler>& Handlers();

  void Name(const Option& o, Level& l);
  void Description(const Option& o, Level& l);
  void Rw(const Option& o, Level& l);
  void RwMixRead(const Option& o, Level& l);
  void RwMixWrite(const Option& o, Level& l);
  void BlockSize(const Option& o, Level& l);
  void BlockSizeSplit(const Option& o, Level& l);
  void Direct(const Option& o, Level& l);
  void Buffered(const Option& o, Level& l);
  void IoEngine(const Option& o, Level& l);
  void IoDepth(const Option& o, Level& l);
  void NumJobs(const Option& o, Level& l);
  void Size(const Option& o, Level& l);
  void Runtime(const Option& o, Level& l);
  void TimeBased(const Option& o, Level& l);
  void RampTime(const Option& o, Level& l);
  void CompressPercentage(const Option& o, Level& l);
  void BufferPattern(const Option& o, Level& l);
  void DedupePercentage(const Option& o, Level& l);
  void Verify(const Option& o, Level& l);
  void Fsync(const Option& o, Level& l);
  void EndFsync(const Option& o, Level& l);
  void GroupReporting(const Option& o, Level& l);
  void Directory(const Option& o, Level& l);
  void Stonewall(const Option& o, Level& l);
  void Filename(const Option& o, Level& l);
  void KbBaseOption(const Option& o, Level& l);
  void RunsCommand(const Option& o, Level& l);

  // Value parsing; each reports its own error and returns nullopt.
  bool NeedValue(const Option& o);
  std::optional<bool> Bool(const Option& o);
  std::optional<uint64_t> Count(const Option& o, const pb::FieldDescriptor* field);
  std::optional<uint64_t> SizeValue(const Option& o, const std::string& text, int kb_base,
                                    const pb::FieldDescriptor* field);
  std::optional<uint64_t> Time(const Option& o);
  bool InBounds(const Option& o, const pb::FieldDescriptor* field, uint64_t value, const std::string& shown);

  // Levels into the workload.
  void Build(Level& defaults, std::vector<Job>& jobs);
  void NameSteps(const std::vector<Job>& jobs);
  void PlaceRuntime(const Level& defaults, const std::vector<Job>& jobs);
  void PlaceRamp(const Level& defaults, const std::vector<Job>& jobs);
  void CheckSequential(const Level& defaults, const std::vector<Job>& jobs);
  void PlaceDirectory(const Level& defaults, const std::vector<Job>& jobs);
  void CheckSizes(const Level& defaults, const std::vector<Job>& jobs);
  void AddFioDefaults();
  void LeaveOutIgnored();
  void ValidateResult();

  // Messages.
  static Place KeyAt(const Option& o) { return {o.line, o.key_col, o.key}; }
  static Place ValueAt(const Option& o) { return {o.line, o.value_col, o.key}; }
  static Place HeaderAt(const Section& s) { return {s.line, s.col, "[" + s.name + "]"}; }
  std::string Format(const Place& at, const std::string& message) const {
    return file_ + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + at.option + ": " + message;
  }
  void Error(const Place& at, const std::string& message) { Add(out_.errors, Format(at, message)); }
  void Warn(const Place& at, const std::string& message) { Add(out_.warnings, Format(at, message)); }
  static void Add(std::vector<std::string>& list, const std::string& message) {
    for (const auto& m : list) {
      if (m == message) return;
    }
    list.push_back(message);
  }
  // Something iofleet cannot do as fio would: an error, or with --allow-unsupported a warning
  // (the caller leaves it out).
  void Unsupported(const Place& at, const std::string& why) {
    if (allow_) {
      Warn(at, why + "; left out (--allow-unsupported)");
    } else {
      Error(at, why + " (--allow-unsupported leaves it out with a warning)");
    }
  }
  void Record(const Level& l, const std::string& field, const Option& o) { origins_[l.path + "." + field] = KeyAt(o); }
  // The place of the nearest enclosing path that has one.
  const Place* Origin(const std::string& path) const;

  const std::string file_;
  const bool allow_;
  FioImport& out_;
  std::map<std::string, Place> origins_;  // workload path -> the option that set it
  std::vector<std::string> descriptions_;
  std::vector<std::string> step_labels_;  // "[section]" of each step, for messages
};

// ---- reading ----

std::vector<Section> Importer::ReadSections(const std::string& text) {
  std::vector<Section> sections;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) ReadLine(raw, ++line, sections);
  return sections;
}

void Importer::ReadLine(const std::string& raw, int line, std::vector<Section>& sections) {
  std::string text = Trim(StripComment(raw));
  if (text.empty()) return;
  const int col = static_cast<int>(raw.find_first_not_of(" \t")) + 1;
  if (text.find('$') != std::string::npos) {
    // fio expands ${VAR} from the environment and $ncpus-style keywords; a workload must mean
    // the same on every controller, so the value has to be written out.
    Error({line, col, text.substr(0, text.find_first_of("=$"))},
          "$ expansion (${VAR}, $ncpus, $mb_memory, ...) is not supported: write the value out");
    return;
  }
  if (text.front() == '[') {
    if (text.back() != ']' || Trim(text.substr(1, text.size() - 2)).empty()) {
      Error({line, col, text}, "a section header is [global] or [jobname]");
      return;
    }
    sections.push_back({Trim(text.substr(1, text.size() - 2)), line, col, {}});
    return;
  }
  Option o;
  size_t eq = text.find('=');
  o.key = Trim(text.substr(0, eq));
  o.line = line;
  o.key_col = col;
  if (eq != std::string::npos) {
    o.has_value = true;
    o.value = Trim(text.substr(eq + 1));
    size_t value_start = raw.find('=', col - 1) + 1;
    value_start = raw.find_first_not_of(" \t", value_start);
    o.value_col = static_cast<int>(value_start == std::string::npos ? raw.size() : value_start) + 1;
  } else {
    o.value_col = col;
  }
  if (o.key.rfind("include", 0) == 0 && (o.key.size() == 7 || o.key[7] == ' ' || o.key[7] == '\t')) {
    Error(KeyAt(o), "include files are not supported: put their options in this file");
    return;
  }
  if (o.key.empty()) {
    Error({line, col, text}, "an option is key=value or a bare key");
    return;
  }
  if (sections.empty()) {
    Error(KeyAt(o), "is outside any section: options go under [global] or a [jobname] header");
    return;
  }
  sections.back().options.push_back(o);
}

// ---- options ----

const std::map<std::string, Importer::Handler>& Importer::Handlers() {
  static const std::map<std::string, Handler> handlers = {
      {"name", &Importer::Name},
      {"description", &Importer::Description},
      {"rw", &Importer::Rw},
      {"readwrite", &Importer::Rw},
      {"rwmixread", &Importer::RwMixRead},
      {"rwmixwrite", &Importer::RwMixWrite},
      {"bs", &Importer::BlockSize},
      {"blocksize", &Importer::BlockSize},
      {"bssplit", &Importer::BlockSizeSplit},
      {"direct", &Importer::Direct},
      {"buffered", &Importer::Buffered},
      {"ioengine", &Importer::IoEngine},
      {"iodepth", &Importer::IoDepth},
      {"numjobs", &Importer::NumJobs},
      {"size", &Importer::Size},
      {"filesize", &Importer::Size},
      {"runtime", &Importer::Runtime},
      {"time_based", &Importer::TimeBased},
      {"ramp_time", &Importer::RampTime},
      {"buffer_compress_percentage", &Importer::CompressPercentage},
      {"buffer_pattern", &Importer::BufferPattern},
      {"dedupe_percentage", &Importer::DedupePercentage},
      {"verify", &Importer::Verify},
      {"fsync", &Importer::Fsync},
      {"end_fsync", &Importer::EndFsync},
      {"group_reporting", &Importer::GroupReporting},
      {"directory", &Importer::Directory},
      {"stonewall", &Importer::Stonewall},
      {"wait_for_previous", &Importer::Stonewall},
      {"filename", &Importer::Filename},
      {"kb_base", &Importer::KbBaseOption},
      {"exec_prerun", &Importer::RunsCommand},
      {"exec_postrun", &Importer::RunsCommand},
      {"trigger", &Importer::RunsCommand},
      {"trigger-file", &Importer::RunsCommand},
      {"trigger-timeout", &Importer::RunsCommand},
      {"trigger-remote", &Importer::RunsCommand},
  };
  return handlers;
}

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
  std::vector<std::string> names;
  for (const auto& [name, handler] : Handlers()) names.push_back(name);
  std::string hint = o.key.size() >= 6 ? NearestName(o.key, names) : "";
  Unsupported(KeyAt(o), "is not an option iofleet's fio import supports" +
                            (hint.empty() ? std::string() : " (did you mean " + hint + "?)"));
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
  const pb::FieldOptions& options = field->options();
  if (options.HasExtension(v1::min) && value < options.GetExtension(v1::min)) {
    Error(ValueAt(o), shown + " is below the minimum " + std::to_string(options.GetExtension(v1::min)));
    return false;
  }
  uint64_t max = options.HasExtension(v1::max) ? options.GetExtension(v1::max)
                 : field->cpp_type() == pb::FieldDescriptor::CPPTYPE_UINT32 ? std::numeric_limits<uint32_t>::max()
                                                                            : std::numeric_limits<uint64_t>::max();
  if (value > max) {
    Error(ValueAt(o), shown + " is above the maximum " + std::to_string(max));
    return false;
  }
  return true;
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
  Record(l, "op", o);
}

void Importer::RwMixRead(const Option& o, Level& l) {
  if (auto pct = Count(o, IoField("read_pct"))) {
    l.io.set_read_pct(static_cast<uint32_t>(*pct));
    Record(l, "read_pct", o);
  }
}

void Importer::RwMixWrite(const Option& o, Level& l) {
  if (auto pct = Count(o, IoField("read_pct"))) {
    l.io.set_read_pct(static_cast<uint32_t>(100 - *pct));
    Record(l, "read_pct", o);
  }
}

void Importer::BlockSize(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value.find(',') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": separate read, write and trim block sizes are not supported: give one size");
    return;
  }
  if (auto size = SizeValue(o, o.value, l.kb_base, IoField("block_size"))) {
    l.io.set_block_size(*size);
    Record(l, "block_size", o);
  }
}

// bssplit=4k/60:64k/40. A blank share takes an even part of what the others leave, as in fio.
void Importer::BlockSizeSplit(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (o.value.find(',') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": separate read and write splits are not supported: give one split");
    return;
  }
  const pb::FieldDescriptor* size_field = v1::BlockSizeWeight::descriptor()->FindFieldByName("size");
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
  Record(l, "block_size_split", o);
}

void Importer::Direct(const Option& o, Level& l) {
  if (auto b = Bool(o)) {
    l.io.set_direct(*b);
    Record(l, "direct", o);
  }
}

void Importer::Buffered(const Option& o, Level& l) {
  if (auto b = Bool(o)) {
    l.io.set_direct(!*b);
    Record(l, "direct", o);
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
    Record(l, "engine", o);
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
  if (auto depth = Count(o, IoField("queue_depth"))) {
    l.io.set_queue_depth(static_cast<uint32_t>(*depth));
    Record(l, "queue_depth", o);
  }
}

void Importer::NumJobs(const Option& o, Level& l) {
  if (auto jobs = Count(o, IoField("jobs"))) {
    l.io.set_jobs(static_cast<uint32_t>(*jobs));
    Record(l, "jobs", o);
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
  auto size = SizeValue(o, o.value, l.kb_base, IoField("file_size"));
  if (!size) return;
  if (l.io.has_file_size() && !l.size_key.empty() && l.size_key != o.key && l.io.file_size() != *size) {
    Error(ValueAt(o), "differs from " + l.size_key + "=: iofleet gives each job one file and does all of it; give one size");
    return;
  }
  l.io.set_file_size(*size);
  l.size_key = o.key;
  Record(l, "file_size", o);
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
  if (auto pct = Count(o, v1::DataSpec::descriptor()->FindFieldByName("compressible_pct"))) {
    l.io.mutable_data()->set_compressible_pct(static_cast<uint32_t>(*pct));
    Record(l, "data.compressible_pct", o);
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
  Record(l, "data.pattern", o);
}

void Importer::DedupePercentage(const Option& o, Level& l) {
  if (auto pct = Count(o, v1::DataSpec::descriptor()->FindFieldByName("dedupe_pct"))) {
    l.io.mutable_data()->set_dedupe_pct(static_cast<uint32_t>(*pct));
    Record(l, "data.dedupe_pct", o);
  }
}

void Importer::Verify(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  const bool on = o.value != "0" && o.value != "none";
  l.io.set_verify(on);
  Record(l, "verify", o);
  if (on) {
    Warn(ValueAt(o), "iofleet verifies with its own header and CRC-32 in every block, not with fio's \"" + o.value +
                         "\"; writes carry the headers and read steps check them: fio's verify pass after a "
                         "write job is not run, so add a read job (with stonewall) to check what was written");
  }
}

void Importer::Fsync(const Option& o, Level& l) {
  if (auto every = Count(o, v1::FsyncSpec::descriptor()->FindFieldByName("every"))) {
    l.io.mutable_fsync()->set_every(static_cast<uint32_t>(*every));
    Record(l, "fsync", o);
  }
}

void Importer::EndFsync(const Option& o, Level& l) {
  if (auto b = Bool(o)) {
    l.io.mutable_fsync()->set_at_end(*b);
    Record(l, "fsync", o);
  }
}

// Accepted with no effect: iofleet reports every step aggregated over its jobs and per agent.
void Importer::GroupReporting(const Option& o, Level&) { Bool(o); }

void Importer::Directory(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  std::string dir = o.value;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir.find(':') != std::string::npos) {
    Error(ValueAt(o), "\"" + o.value + "\": several directories are not supported: give one");
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

void Importer::Filename(const Option& o, Level&) {
  // A device or an absolute path names a place on some host: dropping it would run the job on a
  // file in the agent's root instead, another test with the same name. Never left out silently.
  if (o.has_value) {
    std::stringstream names(o.value);
    for (std::string name; std::getline(names, name, ':');) {
      if (name.empty() || name.front() != '/') continue;
      const bool device = name.rfind("/dev/", 0) == 0;
      Error(ValueAt(o), "\"" + name + "\" is " + (device ? "a device" : "an absolute path") +
                            ", but each agent works only below its own roots (iofleet-agent --root NAME=DIR; --local-root "
                            "for the local agent), so it cannot be honoured" +
                            (device ? "" : " as written") + ", even with --allow-unsupported: remove filename=" +
                            (device ? "" : ", or give a directory relative to the root with directory="));
      return;
    }
  }
  Unsupported(KeyAt(o), "is not supported: iofleet names each job's file itself, in a directory of its own per "
                        "run and agent (<root>/<dir>/iofleet/<run-id>/<agent>/); use directory= for <dir>");
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
    if (step->has_io()) step->mutable_io()->set_file_prefix(base.substr(0, 64));
    origins_["steps[" + std::to_string(i) + "]"] = HeaderAt(job.header);
  }
}

template <typename T>
const std::optional<Setting<T>>& Effective(const std::optional<Setting<T>>& own, const std::optional<Setting<T>>& global) {
  return own ? own : global;
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
    const std::string field = time_based ? "runtime" : "deadline";
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

// fio starts the jobs of a file together unless a job says stonewall; iofleet runs steps one after
// another, so only a file whose every later job waits for the ones before means the same here.
void Importer::CheckSequential(const Level& defaults, const std::vector<Job>& jobs) {
  for (size_t i = 1; i < jobs.size(); ++i) {
    const auto& stonewall = Effective(jobs[i].level.stonewall, defaults.stonewall);
    if (stonewall && stonewall->value) continue;
    const std::string message =
        "fio runs this job at the same time as the jobs before it; iofleet runs steps one after another, and "
        "concurrent fio jobs are not supported: add stonewall to " + step_labels_[i];
    if (allow_) {
      Warn(HeaderAt(jobs[i].header), message + " (--allow-unsupported: it runs after them)");
    } else {
      Error(HeaderAt(jobs[i].header), message + " (--allow-unsupported runs it after them, with a warning)");
    }
  }
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

void Importer::AddFioDefaults() {
  v1::Workload& w = out_.workload;
  for (const FioDefault& d : kFioDefaults) {
    if (d.has(w.defaults())) continue;
    bool needed = false;
    for (const auto& step : w.steps()) needed = needed || !d.has(step.io());
    if (needed) d.set(*w.mutable_defaults());
  }
}

// Leaves out what has no effect where fio ignores it too (a warning when the file said it, and
// silently for fio's defaults added above); anything else with no effect is validation's error.
void Importer::LeaveOutIgnored() {
  v1::Workload& w = out_.workload;
  const pb::Reflection* refl = v1::IoSpec::GetReflection();
  for (const char* field : kIgnoredByFio) {
    for (int i = 0; i < w.steps_size(); ++i) {
      if (!HasIoField(w.steps(i).io(), field)) continue;
      std::string reason = rules::Inapplicable(rules::ResolveIo(w, i), field);
      if (reason.empty()) continue;
      std::string path = "steps[" + std::to_string(i) + "].io." + field;
      if (const Place* at = Origin(path)) {
        Warn(*at, "has no effect on job " + step_labels_[i] + " (" + reason + "); left out, as fio ignores it too");
      }
      refl->ClearField(w.mutable_steps(i)->mutable_io(), IoField(field));
    }
  }
  for (const char* field : {"op", "engine", "direct", "block_size", "fsync", "read_pct", "queue_depth"}) {
    if (!HasIoField(w.defaults(), field)) continue;
    std::string reason;
    bool used = false;
    for (int i = 0; i < w.steps_size(); ++i) {
      std::string r = rules::Inapplicable(rules::ResolveIo(w, i), field);
      used = used || r.empty();
      if (!r.empty()) reason = r;
    }
    if (used) continue;
    auto at = origins_.find(std::string("defaults.") + field);
    if (at != origins_.end()) Warn(at->second, "has no effect on any job (" + reason + "); left out, as fio ignores it too");
    refl->ClearField(w.mutable_defaults(), IoField(field));
  }
}

const Place* Importer::Origin(const std::string& path) const {
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
  *w.mutable_defaults() = defaults.io;
  for (size_t i = 0; i < jobs.size(); ++i) *w.add_steps()->mutable_io() = jobs[i].level.io;
  NameSteps(jobs);
  PlaceRuntime(defaults, jobs);
  PlaceRamp(defaults, jobs);
  CheckSequential(defaults, jobs);
  PlaceDirectory(defaults, jobs);
  CheckSizes(defaults, jobs);
  std::string description;
  for (const auto& d : descriptions_) description += (description.empty() ? "" : "; ") + d;
  w.set_description(description);
  AddFioDefaults();
  LeaveOutIgnored();
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
  for (const Section& s : ReadSections(text)) {
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
    Add(out_.errors, file_ + ": no job sections: fio and iofleet need at least one [jobname] section");
    return;
  }
  Build(defaults, jobs);
  // Validation speaks of the translated workload; its findings only make sense once the
  // translation itself has none.
  if (out_.errors.empty()) ValidateResult();
}

}  // namespace

FioImport ImportFioJobText(const std::string& text, const std::string& file_name, bool allow_unsupported) {
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
  Importer(file_name, allow_unsupported, out).Import(text);
  return out;
}

FioImport ImportFioJobFile(const std::string& path, bool allow_unsupported) {
  Result<std::string> text = ReadInputFile(path);
  if (!text.ok()) {
    FioImport out;
    out.errors.push_back(text.status().message());
    return out;
  }
  return ImportFioJobText(*text, path, allow_unsupported);
}

bool IsFioJobFile(const std::string& path) {
  if (std::filesystem::path(path).extension() == ".fio") return true;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::string text = Trim(line);
    if (text.empty() || text[0] == '#' || text[0] == ';') continue;
    return text.front() == '[' && text.back() == ']';
  }
  return false;
}

}  // namespace iofleet::controller
