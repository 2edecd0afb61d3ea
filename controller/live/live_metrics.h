// `iofleet run --metrics ADDR`: the controller's /metrics while the run goes, the fleet's view
// from the progress streams (DESIGN.md section 5b), read from the live model at scrape time:
//
//   iofleet_io_ops_total, iofleet_io_bytes_total           counters {workload, step, op, engine, agent}
//   iofleet_io_latency_seconds                             histogram, 1 us .. 10 s, same labels
//   iofleet_io_errors_total                                counter {workload, step, engine, agent, reason="any"}
//   iofleet_files_ops_total{workload, step, phase, agent}  counter: a files step's operations
//   iofleet_copy_files_total, iofleet_copy_bytes_total     counters {workload, step, agent}
//   iofleet_fleet_agents{state="connected|lost"}           gauge
//   iofleet_step_start_skew_seconds                        gauge {workload, step}
//   iofleet_run_info{run_id, workload, step, point, cycle} gauge = 1 while that step runs
//   iofleet_step_elapsed_seconds, iofleet_step_expected_seconds   gauges {workload, step}
//   iofleet_fleet_progress_rejected_total{agent}           counter: progress messages refused
//
// A series of a step counts every instance of that step in the run (sweep points, cycles), so
// counters only go up while the controller serves them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "controller/live/live_run.h"
#include "core/base/status.h"
#include "core/metrics/metrics_http_server.h"

namespace iofleet::controller {

class LiveCollector : public prometheus::Collectable {
 public:
  explicit LiveCollector(const LiveRun& live) : live_(live) {}
  std::vector<prometheus::MetricFamily> Collect() const override;  // never throws

 private:
  void CollectInto(std::vector<prometheus::MetricFamily>& out) const;
  const LiveRun& live_;
};

class MetricsServer {
 public:
  // Listens on `address` (HOST:PORT; port 0: the kernel picks one). A bad address or one that
  // cannot be bound is an error naming it; nothing is left listening then. Asynchronous
  // (core/metrics/metrics_http_server.h): a silent or slow scraper never delays another, nor the run.
  static Result<std::unique_ptr<MetricsServer>> Start(const std::string& address, const LiveRun& live);
  int port() const;

 private:
  MetricsServer() = default;
  std::shared_ptr<LiveCollector> collector_;
  std::unique_ptr<MetricsHttpServer> http_;
};

}  // namespace iofleet::controller
