// The fio job file importer's insides, shared by its two parts: fio_import.cc (sections to
// levels to the workload) and fio_options.cc (the option table and one handler per option).
// Not for other rooms' use: fio_import.h is the interface.
#pragma once

#include <google/protobuf/descriptor.h>

#include <cctype>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/workload/fio_import.h"
#include "controller/workload/fio_ini.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller::fio_detail {

using Place = FioPlace;
using Option = FioOption;
using Section = FioSection;



template <typename T>
struct Setting {
  T value{};
  Place at;
};

// steadystate= as read: what it judges, how, and fio's limit in percent.
struct SteadySetting {
  v1::SteadyMetric metric = v1::STEADY_METRIC_UNSPECIFIED;
  v1::SteadyCriterion criterion = v1::STEADY_CRITERION_UNSPECIFIED;
  double limit_pct = 0;
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
  std::optional<Setting<std::string>> filename;  // the file's name in the run directory
  std::optional<Setting<bool>> randrepeat;
  std::optional<Setting<std::string>> wait_for;  // the job's own only ([global] is refused)
  std::optional<Setting<int64_t>> seq_add;       // rw=...:N, placed once the block size is known
  std::optional<Place> log;                      // write_bw_log, write_iops_log or write_lat_log
  std::optional<Setting<uint64_t>> log_avg_ms;   // log_avg_msec
  std::optional<Place> size;        // size= or filesize= was written, valid or not
  std::optional<Setting<uint64_t>> size_bytes;      // size=
  std::optional<Setting<uint64_t>> filesize_bytes;  // filesize=
  std::optional<SteadySetting> steady;                // steadystate= (ss=)
  std::optional<Setting<uint64_t>> steady_window;     // ss_dur
  std::optional<Setting<uint64_t>> steady_ramp;       // ss_ramp
  std::optional<Setting<uint64_t>> steady_interval;   // ss_interval
  std::optional<Setting<uint64_t>> flow_weight;       // flow= (0: not in a flow)
  std::optional<Setting<uint64_t>> flow_id;           // flow_id=
  std::optional<Setting<uint64_t>> flow_sleep;        // flow_sleep=, in ns
  std::optional<Setting<bool>> dedupe_working_set;    // dedupe_mode= (true: working_set)
  std::optional<Setting<uint64_t>> dedupe_set_pct;    // dedupe_working_set_percentage=
  std::optional<Setting<bool>> dedupe_global;         // dedupe_global=
  std::optional<Setting<uint64_t>> offset;            // offset=
  std::optional<Setting<uint64_t>> offset_increment;  // offset_increment=
  std::optional<Setting<uint64_t>> number_ios;        // number_ios= (0: no limit)
  std::optional<Setting<bool>> lfsr;                    // random_generator= (true: lfsr)
  std::optional<Setting<uint64_t>> latency_target;      // latency_target=, in ns (0: none)
  std::optional<Setting<uint64_t>> latency_window;      // latency_window=, in ns (0: every completion)
  std::optional<Setting<std::string>> latency_percentile;  // latency_percentile=, as written
  std::optional<Setting<bool>> exitall;                 // exitall= (any job's sets it for the run, as fio's)
  std::optional<Setting<std::string>> exit_what;        // exit_what=: group, stonewall or all
  std::optional<Setting<bool>> new_group;               // new_group= (a new reporting group)
  int kb_base = 1024;
};

// A job's own setting, else the [global] one.
template <typename T>
const std::optional<Setting<T>>& Effective(const std::optional<Setting<T>>& own, const std::optional<Setting<T>>& global) {
  return own ? own : global;
}

struct Job {
  Section header;               // the job's own section: name and place
  std::vector<Option> options;  // options of later [global] sections, then its own
  Level level;
};

inline bool IsDigits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// [a-z0-9-]: lower case, every other run of characters one '-', none at either end.
inline std::string SanitizeName(const std::string& text) {
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

// IoSpec's field of that number (v1::IoSpec::k...FieldNumber): rules keyed by the field, never by its name.
inline const google::protobuf::FieldDescriptor* IoField(int number) { return v1::IoSpec::descriptor()->FindFieldByNumber(number); }

inline bool HasIoField(const v1::IoSpec& io, int field) {
  const google::protobuf::FieldDescriptor* desc = IoField(field);
  const google::protobuf::Reflection* refl = v1::IoSpec::GetReflection();
  return desc->is_repeated() ? refl->FieldSize(io, desc) > 0 : refl->HasField(io, desc);
}

class Importer {
 public:
  Importer(const std::string& file, const FioImportOptions& options, const FioEnvironment& env, FioImport& out)
      : file_(file),
        allow_(options.allow_unsupported),
        relative_paths_(options.relative_paths),
        only_sections_(options.sections),
        env_(env),
        out_(out) {}

  void Import(const std::string& text);

 private:
  using Handler = void (Importer::*)(const Option&, Level&);
  // One row of the option table (fio_options.cc): the fio options it handles, and how the
  // docs' mapping table shows it (a row without `shown` is not in that table: a refused option).
  struct OptionRow {
    std::vector<std::pair<const char*, Handler>> options;
    const char* shown;  // the docs' "fio option" column
    const char* field;  // the docs' "iofleet field" column
  };
  static const std::vector<OptionRow>& OptionTable();
  static std::vector<OptionRow> CoreOptionRows();
  static std::vector<OptionRow> PacingOptionRows();  // fio_pacing_options.cc
  static std::vector<OptionRow> FileOptionRows();    // fio_file_options.cc
  void FilesPerJob(const Option& o, Level& l);       // nrfiles
  void OneFileNoEffect(const Option& o, Level& l);   // file_service_type, openfiles
  // Every option's handler, by fio name, from the table.
  static const std::map<std::string, Handler>& Handlers();
  // The table as docs/workloads.md shows it under "Importing fio job files".
  friend std::string iofleet::controller::FioOptionReference();

  // Options into levels.
  void ApplyAll(const std::vector<Option>& options, Level& level);
  void Apply(const Option& o, Level& level);
  static int KbBase(const std::vector<Option>& options, int inherited);

  void Name(const Option& o, Level& l);
  void Description(const Option& o, Level& l);
  void Rw(const Option& o, Level& l);
  void SequentialOffsetAdd(const Option& o, const std::string& text, Level& l);
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
  // A rate option's one value for reads and writes, or nothing (refused at its place).
  std::optional<std::string> OneRateOf(const Option& o);
  void RateField(const Option& o, Level& l, int field_number, bool bytes);
  void Rate(const Option& o, Level& l);
  void RateIops(const Option& o, Level& l);
  void RateProcess(const Option& o, Level& l);
  void RateMin(const Option& o, Level& l);
  void RateIopsMin(const Option& o, Level& l);
  void RateCycle(const Option& o, Level& l);
  void IoSubmitMode(const Option& o, Level& l);
  void Flow(const Option& o, Level& l);
  void FlowId(const Option& o, Level& l);
  void FlowSleep(const Option& o, Level& l);
  void PlaceFlow(const Level& defaults, const std::vector<Job>& jobs);
  void ThinkTime(const Option& o, Level& l);
  void ThinkBlocks(const Option& o, Level& l);
  void ThinkSpin(const Option& o, Level& l);
  void ThinkBlocksType(const Option& o, Level& l);
  void FdataSync(const Option& o, Level& l);
  void Fallocate(const Option& o, Level& l);
  void Unlink(const Option& o, Level& l);
  void WriteLog(const Option& o, Level& l);
  void LogAvgMsec(const Option& o, Level& l);
  static std::vector<OptionRow> LogOptionRows();  // fio_log_options.cc
  static std::vector<OptionRow> SteadyOptionRows();  // fio_steady_options.cc
  static std::vector<OptionRow> DedupeOptionRows();  // fio_dedupe_options.cc
  void DedupeMode(const Option& o, Level& l);
  void DedupeWorkingSetPercentage(const Option& o, Level& l);
  void DedupeGlobal(const Option& o, Level& l);
  void PlaceDedupe(const Level& defaults, const std::vector<Job>& jobs);
  static std::vector<OptionRow> OffsetOptionRows();  // fio_offset_options.cc
  void OffsetOption(const Option& o, Level& l);
  void OffsetIncrement(const Option& o, Level& l);
  std::optional<uint64_t> OffsetValue(const Option& o, const Level& l, int field_number);
  void PlaceOffsets(const Level& defaults, const std::vector<Job>& jobs);
  void NumberIos(const Option& o, Level& l);
  void PlaceNumberIos(const Level& defaults, const std::vector<Job>& jobs);
  static std::vector<OptionRow> LatencyOptionRows();  // fio_latency_options.cc
  static std::vector<OptionRow> RandomOptionRows();   // fio_random_options.cc
  void RandomGenerator(const Option& o, Level& l);
  void PlaceRandomGenerator(const Level& defaults, const std::vector<Job>& jobs);
  void LatencyTarget(const Option& o, Level& l);
  void LatencyWindow(const Option& o, Level& l);
  void LatencyPercentile(const Option& o, Level& l);
  void LatencyRun(const Option& o, Level& l);
  void PlaceLatencyTarget(const Level& defaults, const std::vector<Job>& jobs);
  // Job k runs as long as job `searched`'s latency search: no runtime, deadline, size or loops.
  void RunWhileTheSearchDoes(const Level& defaults, const std::vector<Job>& jobs, size_t k, size_t searched);
  static std::vector<OptionRow> ExitOptionRows();  // fio_exit_options.cc
  void NewGroup(const Option& o, Level& l);
  void ExitAll(const Option& o, Level& l);
  void ExitWhat(const Option& o, Level& l);
  void PlaceExits(const Level& defaults, const std::vector<Job>& jobs);
  void SteadyCriterionOption(const Option& o, Level& l);
  void SteadyDuration(const Option& o, Level& l);
  void SteadyRamp(const Option& o, Level& l);
  void SteadyInterval(const Option& o, Level& l);
  // Why a known fio option is refused (fio_refused_options.cc); nullptr for one it does not know.
  static const char* RefusalReason(const std::string& option);
  void BlockSizeRange(const Option& o, Level& l);
  void Loops(const Option& o, Level& l);
  void IoSize(const Option& o, Level& l);
  void WaitFor(const Option& o, Level& l);
  void Thread(const Option& o, Level& l);
  void AllowFileCreate(const Option& o, Level& l);
  void ProfileOnly(const Option& o, Level& l);
  void Invalidate(const Option& o, Level& l);
  void RandomDistribution(const Option& o, Level& l);
  void NoRandomMap(const Option& o, Level& l);
  void RandomSequenceStride(const Option& o, Level& l);
  void RandRepeat(const Option& o, Level& l);
  void RandSeed(const Option& o, Level& l);
  void StartDelay(const Option& o, Level& l);
  void Directory(const Option& o, Level& l);
  void Stonewall(const Option& o, Level& l);
  void Filename(const Option& o, Level& l);
  void KbBaseOption(const Option& o, Level& l);
  void RunsCommand(const Option& o, Level& l);

  // Value parsing; each reports its own error and returns nullopt.
  bool NeedValue(const Option& o);
  std::optional<bool> Bool(const Option& o);
  std::optional<uint64_t> Count(const Option& o, const google::protobuf::FieldDescriptor* field);
  std::optional<uint64_t> SizeValue(const Option& o, const std::string& text, int kb_base,
                                    const google::protobuf::FieldDescriptor* field);
  std::optional<uint64_t> Time(const Option& o);
  std::optional<uint64_t> Microseconds(const Option& o);  // fio_pacing_options.cc
  bool InBounds(const Option& o, const google::protobuf::FieldDescriptor* field, uint64_t value, const std::string& shown);

  // Levels into the workload.
  void Build(Level& defaults, std::vector<Job>& jobs);
  void NameSteps(const std::vector<Job>& jobs);
  void PlaceRuntime(const Level& defaults, const std::vector<Job>& jobs);
  void PlaceRamp(const Level& defaults, const std::vector<Job>& jobs);
  // The jobs that run at the same time (no stonewall between them), by index, in order.
  std::vector<std::vector<int>> JobGroups(const Level& defaults, const std::vector<Job>& jobs);
  void GroupStreams(const Level& defaults, const std::vector<Job>& jobs);
  // The [global] value of an io field moves into every other step, so that step `keep_off` does
  // not inherit it.
  void KeepDefaultOff(int keep_off, int field_number);
  bool WaitsForAllRunning(const std::vector<Job>& jobs, const std::vector<int>& running, const Setting<std::string>& wait_for);
  bool SameStepLevel(const std::vector<int>& group, const Level& defaults, const std::vector<Job>& jobs);
  void PlaceDirectory(const Level& defaults, const std::vector<Job>& jobs);
  void CheckSizes(const Level& defaults, const std::vector<Job>& jobs);
  void PlaceIoAmount(const Level& defaults, const std::vector<Job>& jobs);
  void CheckMixedRates(const Level& defaults, const std::vector<Job>& jobs);
  void AddFioDefaults();
  void PlaceRandRepeat(const Level& defaults, const std::vector<Job>& jobs);
  void PlaceSequentialAdd(const Level& defaults, const std::vector<Job>& jobs);
  void PlaceLogInterval(const Level& defaults, const std::vector<Job>& jobs);
  void PlaceSteady(const Level& defaults, const std::vector<Job>& jobs);
  void LeaveOutIgnored();
  void ValidateResult();
  void CheckSectionsAskedFor(const std::vector<Section>& sections);

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
  // The level's io field at `fields` (field numbers from IoSpec down, the generated constants:
  // a wrong one does not compile) was set by option `o`: validation's messages about it point
  // at the option's line.
  void Record(const Level& l, std::initializer_list<int> fields, const Option& o) {
    std::string path = l.path;
    const google::protobuf::Descriptor* type = v1::IoSpec::descriptor();
    for (int number : fields) {
      const google::protobuf::FieldDescriptor* field = type ? type->FindFieldByNumber(number) : nullptr;
      if (!field) return;  // cannot happen with the generated constants
      path += "." + field->name();
      type = field->message_type();
    }
    origins_[path] = KeyAt(o);
  }
  // The place of the path, else of a field below it (rate where an option set rate.iops), else of
  // the nearest enclosing path that has one.
  const Place* Origin(const std::string& path) const;

  const std::string file_;
  const bool allow_;
  const bool relative_paths_;
  const std::vector<std::string> only_sections_;  // --fio-section; empty: every job section
  const FioEnvironment& env_;
  bool has_global_filename_ = false;  // [global] filename=: every job shares that file
  FioImport& out_;
  std::map<std::string, Place> origins_;  // workload path -> the option that set it
  std::vector<std::string> descriptions_;
  std::vector<std::string> step_labels_;  // "[section]" of each step, for messages
};

}  // namespace iofleet::controller::fio_detail
