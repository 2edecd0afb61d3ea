// What `iofleet run --pushgateway URL` sends: each step's final figures from the report model in
// Prometheus's text exposition format, and the push API's grouping path (DESIGN.md section 5b).
#pragma once

#include <string>

#include "controller/report/report_model.h"
#include "iofleet/v1/report.pb.h"
#include "controller/push/run_labels.h"

namespace iofleet::controller {

// The series of one push. Labels on each: step, point, cycle (and group_cycle for a group's
// step); workload, job and the run's --labels come from the grouping key, which the pushgateway
// adds to every series of the group.
//   iofleet_result_bytes_per_second, iofleet_result_iops, iofleet_result_latency_seconds{quantile}
//     io, files and copy steps (the steps that move data), as report.json gives them;
//   iofleet_result_status{status} = 1, iofleet_result_timestamp_seconds   every step;
//   iofleet_result_status{status} = 1 without step labels, iofleet_run_duration_seconds   the run
//     (a run that ended before its first step pushes only these two).
//   iofleet_result_verdict{step, point, figure} = 0 or 1 (a regression)   with `verdicts`
//     (report.json's, from --compare-to): each judged figure; none without enough history.
// `ended_at_unix_s` stamps a step that never started I/O (its started_at_unix_ns is 0).
std::string PushBody(const RunReport& report, double run_seconds, double ended_at_unix_s,
                     const v1::ReportVerdicts* verdicts = nullptr);

// "/metrics/job/iofleet/workload/NAME/KEY/VALUE...": a value that is empty or holds anything
// but [A-Za-z0-9._~-] goes as "KEY@base64/" + base64url(VALUE), as the push API asks ("/" in a
// value would split the path; an empty one would vanish).
std::string GroupingPath(const std::string& workload, const RunLabels& labels);

std::string Base64Url(const std::string& bytes);

}  // namespace iofleet::controller
