// fio's random_generator: which generator draws a random job's offsets. iofleet's jobs draw from
// their own (SplitMix64), so the offsets differ from fio's whichever is named; what the choice
// means for the pattern is kept: with fio's random map (its default) every generator touches each
// block once per pass, as `random: permutation` does, and lfsr does so even with norandommap.
// Part of the importer (fio_importer.h).
#include "controller/workload/fio_importer.h"
#include "controller/workload/fio_values.h"

namespace iofleet::controller::fio_detail {

std::vector<Importer::OptionRow> Importer::RandomOptionRows() {
  return {
      {{{"random_generator", &Importer::RandomGenerator}},
       "`random_generator` = `tausworthe`, `tausworthe64` or `lfsr`",
       "accepted: iofleet draws from its own generator, so the offsets are not fio's; `lfsr`, which never draws a block "
       "twice, keeps `random: permutation` even with `norandommap`"},
  };
}

void Importer::RandomGenerator(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  const std::string value = LowerFio(o.value);
  if (value != "tausworthe" && value != "tausworthe64" && value != "lfsr") {
    Error(ValueAt(o), "\"" + o.value + "\" is not tausworthe, tausworthe64 or lfsr");
    return;
  }
  l.lfsr = Setting<bool>{value == "lfsr", KeyAt(o)};
}

void Importer::PlaceRandomGenerator(const Level& defaults, const std::vector<Job>& jobs) {
  const v1::IoSpec& d = out_.workload.defaults();
  for (size_t i = 0; i < jobs.size(); ++i) {
    const auto& lfsr = Effective(jobs[i].level.lfsr, defaults.lfsr);
    if (!lfsr || !lfsr->value) continue;
    v1::IoSpec& io = *out_.workload.mutable_steps(static_cast<int>(i))->mutable_io();
    const v1::RandomOrder order = io.has_random() ? io.random() : d.random();
    if (order != v1::RANDOM_ORDER_UNIFORM) continue;
    io.set_random(v1::RANDOM_ORDER_PERMUTATION);
    origins_["steps[" + std::to_string(i) + "].io.random"] = lfsr->at;
    Warn(lfsr->at, "lfsr never draws a block twice, norandommap or not: random: permutation (job " + step_labels_[i] + ")");
  }
}

}  // namespace iofleet::controller::fio_detail
