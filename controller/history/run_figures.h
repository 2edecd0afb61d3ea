// The headline figures of a run, read from its report.json document (the stored form of a run):
// what the history keeps per step instance and cycle, for the aggregate and each agent, and
// what verdicts judge. io: bandwidth, iops, p99_latency (a target_latency step: iops_at_target or
// bandwidth_at_target, the rate its search found, as well); files: files_per_sec:<phase>; copy:
// copy_seconds, bandwidth, files_per_sec; hook: seconds; an io step with streams: the io figures
// of each stream as well (StoredFigure.stream). Only succeeded steps count.
#pragma once

#include <string>
#include <vector>


#include "controller/history/history_db.h"
#include "controller/history/verdict.h"
#include "iofleet/v1/report.pb.h"

namespace iofleet::controller {

std::vector<StoredFigure> HeadlineFigures(const v1::Report& report);

// Which way is better for a figure name (latencies and seconds: lower).
Better BetterOf(const std::string& figure);

// The unit of a figure name, as report.json writes it: bytes_per_sec, ops_per_sec, seconds, ...
std::string UnitOf(const std::string& figure);

}  // namespace iofleet::controller
