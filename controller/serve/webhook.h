// A suite's webhook: when a run fails or a figure regresses, serve POSTs a JSON summary there
// (a chat bridge, an incident tool). http:// or https:// (checked against the system's CAs).
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "controller/push/http_put.h"
#include "controller/serve/serve_config.h"
#include "core/base/status.h"
#include "iofleet/v1/report.pb.h"

namespace iofleet::controller {

// "regression" or "failed" when the run calls for a notification, "" otherwise. A cancelled or
// aborted run (someone stopped it) calls for none.
std::string WebhookEvent(const std::string& status, const std::string& verdict);

// {"event", "suite", "run_id", "workload", "status", "verdict", "error", "labels",
//  "started_at_unix_s", "duration_seconds", "report", "regressions": [{step, point, figure, unit,
//  baseline, now, change_pct, p_value}]} from the run's report.json document (may be null when
// the run ended before it had one).
nlohmann::ordered_json WebhookBody(const std::string& event, const std::string& suite, const std::string& run_id,
                                   const std::string& status, const std::string& verdict, const std::string& error,
                                   const v1::Report* report, const std::string& report_path);

// Chat services put the secret in the path: messages name only the scheme, host and port.
std::string RedactedWebhook(const WebhookUrl& url);

// An error names the URL redacted.
Status PostWebhook(const WebhookUrl& url, const nlohmann::ordered_json& body,
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace iofleet::controller
