// The end of `iofleet run --pushgateway URL`: the run's final figures to the pushgateway, one
// PUT that replaces the group (job="iofleet", workload, the run's --labels).
#pragma once

#include <chrono>

#include "controller/push/pushgateway_url.h"
#include "controller/report/report_model.h"
#include "iofleet/v1/report.pb.h"

namespace iofleet::controller {

// Ok, or what failed with the URL named: the caller warns and keeps the run's exit status.
Status PushResults(const PushgatewayUrl& url, const RunReport& report, double run_seconds, double ended_at_unix_s,
                   const v1::ReportVerdicts* verdicts = nullptr,
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace iofleet::controller
