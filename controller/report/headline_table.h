// The table a reader of a sweep or repeat looks for first (throughput against threads, against
// compressibility, per-cycle times with their mean): for each step that ran more than once, one
// row per run of it (sweep point, cycle) with the swept values as columns and the step's
// headline figures beside them, and under each point's cycles their mean, standard deviation and
// 95% interval (controller/report/cycle_summary.h). Built for any sweep and any repeat, from the
// step's kind alone, not for particular workloads.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "controller/report/report_document.h"

namespace iofleet::controller {

// One figure of a step's run, as the console and summary.csv name it.
struct HeadlineFigure {
  std::string header;  // "MiB/s", "files/s", "create files/s", "seconds"
  int decimals = 1;
  std::function<std::optional<double>(const v1::ReportStep& step)> value;  // nullopt: not in this run
};

// The figures that say what a step of `kind` did: io: MiB/s, MB/s, IOPS; copy: seconds, Gbps,
// GiB/s, MiB/s, MB/s, files/s; files: files/s of each phase (`ops` names them, in order); steps that
// move no data: seconds.
std::vector<HeadlineFigure> HeadlineFigures(const std::string& kind, const std::vector<std::string>& phase_ops);

// Steps whose one figure is their time (sleep, sync, drop_caches, readahead, hook): the console
// prints that, not rows of zero bytes.
bool MovesNoData(const std::string& kind);
// Steps that only set the stage for a measurement (sleep, drop_caches, readahead): no headline
// table (a hook or sync is timed for its own sake: mkfs, fsck).
bool OnlyPrepares(const std::string& kind);

// One step's headline table: a title ("write (io) by total_jobs") and its rows of cells, the
// first row the headers.
struct HeadlineTable {
  std::string title;
  std::vector<std::vector<std::string>> rows;
};

// The headline tables of the run (its document), one per step that ran more than once.
std::vector<HeadlineTable> HeadlineTableList(const ReportDocument& doc);
// The same as the console prints them; empty when no step ran more than once.
std::string HeadlineTables(const ReportDocument& doc);

}  // namespace iofleet::controller
