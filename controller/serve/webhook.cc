#include "controller/serve/webhook.h"

namespace iofleet::controller {

std::string WebhookEvent(const std::string& status, const std::string& verdict) {
  if (status == "failed" || status == "lost") return "failed";
  if (status == "succeeded" && verdict == "regression") return "regression";
  return "";
}

nlohmann::ordered_json WebhookBody(const std::string& event, const std::string& suite, const std::string& run_id,
                                   const std::string& status, const std::string& verdict, const std::string& error,
                                   const nlohmann::ordered_json* report, const std::string& report_path) {
  nlohmann::ordered_json body = {{"event", event},     {"suite", suite}, {"run_id", run_id},
                                 {"workload", ""},     {"status", status}, {"verdict", verdict},
                                 {"error", error},     {"labels", nlohmann::ordered_json::object()}};
  if (report && report->is_object()) {
    body["workload"] = report->value("workload", "");
    if (report->contains("labels") && (*report)["labels"].is_object()) body["labels"] = (*report)["labels"];
    if (report->contains("started_at_unix_ns") && (*report)["started_at_unix_ns"].is_number()) {
      body["started_at_unix_s"] = (*report)["started_at_unix_ns"].get<double>() / 1e9;
    }
    if (report->contains("duration_ns") && (*report)["duration_ns"].is_number()) {
      body["duration_seconds"] = (*report)["duration_ns"].get<double>() / 1e9;
    }
  }
  if (!report_path.empty()) body["report"] = report_path;
  nlohmann::ordered_json regressions = nlohmann::ordered_json::array();
  if (report && report->contains("verdicts") && (*report)["verdicts"].is_object()) {
    const auto& steps = (*report)["verdicts"].value("steps", nlohmann::ordered_json::array());
    for (const auto& step : steps) {
      if (!step.is_object()) continue;
      for (const auto& f : step.value("figures", nlohmann::ordered_json::array())) {
        if (!f.is_object() || f.value("verdict", "") != "regression") continue;
        nlohmann::ordered_json r = {{"step", step.value("step", "")}, {"point", step.value("point", 0)}};
        for (const char* key : {"figure", "unit", "baseline", "now", "change_pct", "p_value"}) {
          if (f.contains(key)) r[key] = f[key];
        }
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
