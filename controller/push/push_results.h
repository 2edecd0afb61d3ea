// The end of `iofleet run --pushgateway URL`: the run's final figures to the pushgateway, one
// PUT that replaces the group (job="iofleet", workload, the run's --labels).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>

#include "controller/push/pushgateway_url.h"
#include "controller/report/report_model.h"

namespace iofleet::controller {

// Ok, or what failed with the URL named: the caller warns and keeps the run's exit status.
Status PushResults(const PushgatewayUrl& url, const RunReport& report, double run_seconds, double ended_at_unix_s,
                   const nlohmann::ordered_json* verdicts = nullptr,
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace iofleet::controller
