#include "controller/serve/webhook.h"

namespace iofleet::controller {

std::string WebhookEvent(const std::string& status, const std::string& verdict) {
  if (status == "failed" || status == "lost") return "failed";
  if (status == "succeeded" && verdict == "regression") return "regression";
  return "";
}

nlohmann::ordered_json WebhookBody(const std::string& event, const std::string& suite, const std::string& run_id,
                                   const std::string& status, const std::string& verdict, const std::string& error,
                                   const v1::Report* report, const std::string& report_path) {
  nlohmann::ordered_json body = {{"event", event},     {"suite", suite}, {"run_id", run_id},
                                 {"workload", ""},     {"status", status}, {"verdict", verdict},
                                 {"error", error},     {"labels", nlohmann::ordered_json::object()}};
  if (report) {
    body["workload"] = report->workload();
    for (const v1::ReportLabel& label : report->labels()) body["labels"][label.key()] = label.value();
    if (report->has_started_at_unix_ns()) body["started_at_unix_s"] = static_cast<double>(report->started_at_unix_ns()) / 1e9;
    if (report->has_duration_ns()) body["duration_seconds"] = static_cast<double>(report->duration_ns()) / 1e9;
  }
  if (!report_path.empty()) body["report"] = report_path;
  nlohmann::ordered_json regressions = nlohmann::ordered_json::array();
  if (report && report->has_verdicts()) {
    for (const v1::ReportStepVerdicts& step : report->verdicts().steps()) {
      for (const v1::ReportFigureVerdict& f : step.figures()) {
        if (f.verdict() != v1::VERDICT_REGRESSION) continue;
        nlohmann::ordered_json r = {{"step", step.step()}, {"point", step.point()}, {"figure", f.figure()}, {"unit", f.unit()}};
        if (f.has_baseline()) r["baseline"] = f.baseline();
        r["now"] = f.now();
        if (f.has_change_pct()) r["change_pct"] = f.change_pct();
        if (f.has_p_value()) r["p_value"] = f.p_value();
        regressions.push_back(std::move(r));
      }
    }
  }
  body["regressions"] = std::move(regressions);
  return body;
}

std::string RedactedWebhook(const WebhookUrl& url) {
  const std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  return std::string(url.https ? "https://" : "http://") + host + ":" + url.port + (url.target == "/" ? "/" : "/...");
}

Status PostWebhook(const WebhookUrl& url, const nlohmann::ordered_json& body,
                   std::chrono::milliseconds timeout) {
  Status s = HttpSend("POST", {url.host, url.port, url.https}, url.target, body.dump() + "\n", "application/json", timeout);
  if (s.ok()) return s;
  return Status(s.code(), "webhook " + RedactedWebhook(url) + ": " + s.message());
}

}  // namespace iofleet::controller
