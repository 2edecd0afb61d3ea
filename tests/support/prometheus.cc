#include "tests/support/prometheus.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "tests/support/http_client.h"

namespace iofleet::testing {
namespace {

constexpr const char* kPrometheus = "/usr/bin/prometheus";
constexpr const char* kPushgateway = "/usr/bin/prometheus-pushgateway";

// Starts `argv_for(address)` on a free loopback port until it answers /-/ready; a port taken
// between FreeLoopbackPort and the server's bind makes the server exit, and the next try picks
// another.
std::unique_ptr<Process> StartServer(const std::function<std::vector<std::string>(const std::string&)>& argv_for,
                                     const std::filesystem::path& log_dir, std::string& address, bool& ready) {
  std::unique_ptr<Process> process;
  for (int attempt = 0; attempt < 3; ++attempt) {
    address = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
    process = std::make_unique<Process>(argv_for(address), log_dir);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline && process->Running()) {
      if (HttpGet(address, "/-/ready", std::chrono::milliseconds(500)).status == 200) {
        ready = true;
        return process;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (process->Running()) break;  // up but never ready: another port would not help
  }
  ADD_FAILURE() << argv_for(address)[0] << " did not become ready on " << address << ": " << process->Stderr();
  return process;
}

nlohmann::json ErrorJson(const std::string& what) { return {{"status", "error"}, {"error", what}}; }

}  // namespace

bool PrometheusInstalled() { return access(kPrometheus, X_OK) == 0 && access(kPushgateway, X_OK) == 0; }

PushgatewayProcess::PushgatewayProcess(const std::filesystem::path& log_dir) {
  process_ = StartServer([](const std::string& address) {
    return std::vector<std::string>{kPushgateway, "--web.listen-address=" + address, "--log.level=warn"};
  }, log_dir, address_, ready_);
}

std::string PushgatewayProcess::Metrics() const {
  HttpAnswer answer = HttpGet(address_, "/metrics");
  if (answer.status != 200) ADD_FAILURE() << "pushgateway /metrics: " << answer.status << " " << answer.error;
  return answer.body;
}

PrometheusProcess::PrometheusProcess(const std::filesystem::path& dir, const std::vector<ScrapeJob>& jobs,
                                     const std::vector<std::string>& rule_files) {
  std::filesystem::create_directories(dir / "tsdb");
  std::ofstream config(dir / "prometheus.yml");
  config << "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n  evaluation_interval: 1s\n";
  if (!rule_files.empty()) {
    config << "rule_files:\n";
    for (const auto& f : rule_files) config << "  - \"" << f << "\"\n";
  }
  config << "scrape_configs:\n";
  for (const auto& job : jobs) {
    config << "  - job_name: \"" << job.job << "\"\n";
    if (job.honor_labels) config << "    honor_labels: true\n";
    config << "    static_configs:\n      - targets: [";
    for (size_t i = 0; i < job.targets.size(); ++i) config << (i ? ", " : "") << "\"" << job.targets[i] << "\"";
    config << "]\n";
  }
  config.close();
  process_ = StartServer([&](const std::string& address) {
    return std::vector<std::string>{kPrometheus,
                                    "--config.file=" + (dir / "prometheus.yml").string(),
                                    "--storage.tsdb.path=" + (dir / "tsdb").string(),
                                    "--web.listen-address=" + address,
                                    "--log.level=warn"};
  }, dir / "logs", address_, ready_);
}

nlohmann::json PrometheusProcess::Get(const std::string& target) const {
  HttpAnswer answer = HttpGet(address_, target);
  if (answer.status == 0) return ErrorJson(answer.error);
  nlohmann::json parsed = nlohmann::json::parse(answer.body, nullptr, false);
  if (parsed.is_discarded()) return ErrorJson("HTTP " + std::to_string(answer.status) + ", not JSON: " + answer.body.substr(0, 200));
  return parsed;
}

nlohmann::json PrometheusProcess::Query(const std::string& promql) const {
  return Get("/api/v1/query?query=" + UrlEncode(promql));
}

nlohmann::json PrometheusProcess::QueryRange(const std::string& promql, std::chrono::seconds range) const {
  // Fractional seconds: a whole-second end could fall before a server's first scrape.
  double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return Get("/api/v1/query_range?query=" + UrlEncode(promql) + "&start=" + std::to_string(now - static_cast<double>(range.count())) +
             "&end=" + std::to_string(now) + "&step=1");
}

bool PrometheusProcess::WaitForData(const std::string& promql, std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!ResultOf(Query(promql)).empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return false;
}

nlohmann::json PrometheusProcess::Targets() const { return Get("/api/v1/targets"); }

nlohmann::json ResultOf(const nlohmann::json& answer) {
  if (answer.value("status", "") != "success" || !answer.contains("data")) return nlohmann::json::array();
  const nlohmann::json& result = answer["data"]["result"];
  return result.is_array() ? result : nlohmann::json::array({result});
}

}  // namespace iofleet::testing
