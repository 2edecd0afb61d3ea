// A real Prometheus server and a real pushgateway (Debian's /usr/bin/prometheus and
// /usr/bin/prometheus-pushgateway) on loopback ports, for integration tests of what iofleet
// exports, pushes, and what the dashboards and rules in dashboards/ and deploy/prometheus/ query.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace iofleet::testing {

// True when both programs are installed (tests skip with a message otherwise).
bool PrometheusInstalled();

class PushgatewayProcess {
 public:
  explicit PushgatewayProcess(const std::filesystem::path& log_dir);
  bool ready() const { return ready_; }
  const std::string& address() const { return address_; }  // "127.0.0.1:PORT"
  std::string url() const { return "http://" + address_; }
  // Its /metrics page: every pushed group's series with their grouping labels, and its own.
  std::string Metrics() const;
  Process& process() { return *process_; }

 private:
  std::unique_ptr<Process> process_;
  std::string address_;
  bool ready_ = false;
};

struct ScrapeJob {
  std::string job;
  std::vector<std::string> targets;  // "127.0.0.1:PORT"
  bool honor_labels = false;         // true for a pushgateway: keep the pushed job and instance
};

class PrometheusProcess {
 public:
  // Scrapes `jobs` every second; `rule_files` (e.g. deploy/prometheus/rules/*.yml) are loaded
  // and evaluated every second too. Its TSDB lives under `dir`.
  PrometheusProcess(const std::filesystem::path& dir, const std::vector<ScrapeJob>& jobs,
                    const std::vector<std::string>& rule_files = {});
  bool ready() const { return ready_; }
  const std::string& address() const { return address_; }
  Process& process() { return *process_; }

  // GET /api/v1/query?query=... : the parsed answer ({"status": "success", "data": {...}}), or
  // {"status": "error", "error": "..."} when there was no answer or it was not JSON.
  nlohmann::json Query(const std::string& promql) const;
  // /api/v1/query_range over the last `range`, step 1s.
  nlohmann::json QueryRange(const std::string& promql, std::chrono::seconds range) const;
  // Queries until the result vector or matrix is not empty (true) or `timeout` passes (false).
  bool WaitForData(const std::string& promql, std::chrono::milliseconds timeout) const;
  // GET /api/v1/targets: the scrape targets and their health.
  nlohmann::json Targets() const;
  // Any GET of its HTTP API, parsed ("/api/v1/rules", "/api/v1/alerts", ...).
  nlohmann::json Get(const std::string& target) const;

 private:
  std::unique_ptr<Process> process_;
  std::string address_;
  bool ready_ = false;
};

// The `data.result` array of a query's answer (empty when it failed).
nlohmann::json ResultOf(const nlohmann::json& answer);

}  // namespace iofleet::testing
