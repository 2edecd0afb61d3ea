// fio's bandwidth, IOPS and latency logs: with log_avg_msec of 100 ms or more they are what
// iofleet's samples.csv holds (a row per agent and stream per sample interval), so they map to
// the workload's sample_interval; per-I/O logs (no log_avg_msec) have no counterpart. Part of the
// importer (fio_importer.h); the option table is in fio_options.cc.
#include "controller/workload/fio_importer.h"

namespace iofleet::controller::fio_detail {

std::vector<Importer::OptionRow> Importer::LogOptionRows() {
  return {
      {{{"write_bw_log", &Importer::WriteLog}, {"write_iops_log", &Importer::WriteLog}, {"write_lat_log", &Importer::WriteLog}},
       "`write_bw_log`, `write_iops_log`, `write_lat_log` with `log_avg_msec` >= 100",
       "samples.csv (bandwidth, IOPS and latency per agent and stream per interval) at the workload's `sample_interval` "
       "= `log_avg_msec`, one for all jobs; a log without `log_avg_msec` (one line per I/O) is refused"},
      {{{"log_avg_msec", &Importer::LogAvgMsec}}, "`log_avg_msec`", "`sample_interval` (with a log; alone, no effect)"},
  };
}

// The value names the log file; samples.csv lies in the run's results instead.
void Importer::WriteLog(const Option& o, Level& l) { l.log = KeyAt(o); }

void Importer::LogAvgMsec(const Option& o, Level& l) {
  if (!NeedValue(o)) return;
  if (!IsDigits(o.value) || o.value.size() > 9) {
    Error(ValueAt(o), "\"" + o.value + "\" is not a whole number of milliseconds");
    return;
  }
  l.log_avg_ms = Setting<uint64_t>{std::stoull(o.value), ValueAt(o)};
}

// One interval for the run: every job that writes a log averages it over the same time.
void Importer::PlaceLogInterval(const Level& defaults, const std::vector<Job>& jobs) {
  std::optional<Setting<uint64_t>> chosen;
  for (const Job& job : jobs) {
    const std::optional<Place>& log = job.level.log ? job.level.log : defaults.log;
    if (!log) continue;
    const auto& avg = Effective(job.level.log_avg_ms, defaults.log_avg_ms);
    if (!avg || avg->value == 0) {
      Unsupported(*log, "a log of every I/O (no log_avg_msec) is not kept: iofleet samples each agent and stream every "
                        "interval; give log_avg_msec=N (N >= 100) for samples.csv at that interval");
      continue;
    }
    if (avg->value < 100) {
      Unsupported(avg->at, std::to_string(avg->value) + " ms: iofleet samples at 100 ms or more: give log_avg_msec=100 or more");
      continue;
    }
    if (chosen && chosen->value != avg->value) {
      Unsupported(avg->at, std::to_string(avg->value) + " ms, where another job logs every " + std::to_string(chosen->value) +
                               " ms: iofleet samples a run at one interval");
      continue;
    }
    chosen = avg;
  }
  if (!chosen) return;
  out_.workload.set_sample_interval(chosen->value * 1'000'000);
  origins_["sample_interval"] = chosen->at;
}

}  // namespace iofleet::controller::fio_detail
