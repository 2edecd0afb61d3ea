// fio's dedupe working set (dedupe_mode=working_set, dedupe_working_set_percentage,
// dedupe_global) as an io step's data.dedupe_working_set_pct and data.dedupe_global. fio reads
// the three together, in any order and from [global] or the job, and ignores the last two
// unless the mode is working_set: they are placed once every option is read. Part of the
// importer (fio_importer.h).
#include "controller/workload/fio_importer.h"
#include "controller/workload/fio_values.h"

namespace iofleet::controller::fio_detail {

namespace {

constexpr uint64_t kFioWorkingSetPct = 5;  // fio's default dedupe_working_set_percentage

const google::protobuf::FieldDescriptor* DataField(int number) { return v1::DataSpec::descriptor()->FindFieldByNumber(number); }

}  // namespace

std::vector<Importer::OptionRow> Importer::DedupeOptionRows() {
  return {
      {{{"dedupe_mode", &Importer::DedupeMode}},
       "`dedupe_mode`",
       "`repeat` (fio's default): `data.dedupe_pct` repeats one chunk; `working_set`: `data.dedupe_working_set_pct` "
       "(fio's default 5): the job's first unique chunks are the set, each repeat one of them at random"},
      {{{"dedupe_working_set_percentage", &Importer::DedupeWorkingSetPercentage}},
       "`dedupe_working_set_percentage`",
       "`data.dedupe_working_set_pct` (with `dedupe_mode=working_set`; without it fio ignores it: a warning)"},
      {{{"dedupe_global", &Importer::DedupeGlobal}},
       "`dedupe_global`",
       "`data.dedupe_global`: one working set for the step's jobs on each agent (with `dedupe_mode=working_set`; "
       "without it fio ignores it: a warning)"},
  };
}

void Importer::DedupeMode(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  const std::string mode = LowerFio(o.value);
  if (mode != "repeat" && mode != "working_set") {
    Error(ValueAt(o), "\"" + o.value + "\" is not repeat or working_set");
    return;
  }
  l.dedupe_working_set = Setting<bool>{mode == "working_set", KeyAt(o)};
}

void Importer::DedupeWorkingSetPercentage(const Option& o, Level& l) {
  if (auto pct = Count(o, DataField(v1::DataSpec::kDedupeWorkingSetPctFieldNumber))) l.dedupe_set_pct = Setting<uint64_t>{*pct, KeyAt(o)};
}

void Importer::DedupeGlobal(const Option& o, Level& l) {
  if (auto on = Bool(o)) l.dedupe_global = Setting<bool>{*on, KeyAt(o)};
}

void Importer::PlaceDedupe(const Level& defaults, const std::vector<Job>& jobs) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Level& l = jobs[i].level;
    const auto& mode = Effective(l.dedupe_working_set, defaults.dedupe_working_set);
    const auto& pct = Effective(l.dedupe_set_pct, defaults.dedupe_set_pct);
    const auto& global = Effective(l.dedupe_global, defaults.dedupe_global);
    if (!mode || !mode->value) {
      if (pct) Warn(pct->at, "has no effect without dedupe_mode=working_set, as in fio (job " + step_labels_[i] + ")");
      if (global && global->value) Warn(global->at, "has no effect without dedupe_mode=working_set, as in fio (job " + step_labels_[i] + ")");
      continue;
    }
    const std::string at = "steps[" + std::to_string(i) + "].io.data";
    v1::DataSpec* data = out_.workload.mutable_steps(static_cast<int>(i))->mutable_io()->mutable_data();
    data->set_dedupe_working_set_pct(static_cast<uint32_t>(pct ? pct->value : kFioWorkingSetPct));
    origins_[at + ".dedupe_working_set_pct"] = pct ? pct->at : mode->at;
    if (global && global->value) {
      data->set_dedupe_global(true);
      origins_[at + ".dedupe_global"] = global->at;
    }
  }
}

}  // namespace iofleet::controller::fio_detail
