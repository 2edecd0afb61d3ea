#include "controller/serve/webhook.h"

namespace iofleet::controller {

Result<WebhookUrl> ParseWebhookUrl(const std::string& text) {
  auto bad = [&](const std::string& why) { return InvalidArgument("webhook " + text + ": " + why); };
  WebhookUrl url;
  url.text = text;
  std::string rest;
  if (text.rfind("http://", 0) == 0) {
    rest = text.substr(7);
  } else if (text.rfind("https://", 0) == 0) {
    rest = text.substr(8);
    url.endpoint.tls = true;
  } else {
    return bad("write http://HOST[:PORT]/PATH or https://...");
  }
  for (char c : text) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return bad("a space or control character in the URL");
  }
  if (text.find('#') != std::string::npos) return bad("a fragment (#) is not sent to a server");
  size_t path = rest.find_first_of("/?");
  std::string authority = rest.substr(0, path);
  url.target = path == std::string::npos ? "/" : rest.substr(path);
  if (url.target[0] == '?') url.target = "/" + url.target;
  if (authority.find('@') != std::string::npos) return bad("no user or password in the URL (it would be printed in messages)");
  std::string port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return bad("an IPv6 address needs its closing ]");
    url.endpoint.host = authority.substr(1, close - 1);
    std::string after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return bad("expected :PORT after the IPv6 address");
      port = after.substr(1);
    }
  } else {
    size_t colon = authority.rfind(':');
    url.endpoint.host = authority.substr(0, colon);
    if (colon != std::string::npos) port = authority.substr(colon + 1);
  }
  if (url.endpoint.host.empty()) return bad("no host");
  if (port.empty()) port = url.endpoint.tls ? "443" : "80";
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) == 0 ||
      std::stoul(port) > 65535) {
    return bad("port " + port + " is not 1..65535");
  }
  url.endpoint.port = port;
  return url;
}

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

Status PostWebhook(const WebhookUrl& url, const nlohmann::ordered_json& body, std::chrono::milliseconds timeout) {
  Status s = HttpSend("POST", url.endpoint, url.target, body.dump() + "\n", "application/json", timeout);
  if (s.ok()) return s;
  return Status(s.code(), "webhook " + url.text + ": " + s.message());
}

}  // namespace iofleet::controller
